package io.cognitionstreams.topics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LedgerKeyTest {

    @Test
    void aKeyReadsBackAsTheSessionAndCallItWasWrittenFrom() {
        LedgerKey key = new LedgerKey("alice.web", "3f2a91c0-out#1");

        assertThat(key.text()).isEqualTo("9:alice.web:3f2a91c0-out#1");
        assertThat(LedgerKey.parse(key.text())).contains(key);
    }

    @Test
    void noSessionOrCallIdMakesOneKeyReadAsAnother() {
        // Joined by a separator alone, ("a:b", "c") and ("a", "b:c") would share a key, and one session's entry
        // would refuse the other's call.
        LedgerKey colonInSession = new LedgerKey("a:b", "c");
        LedgerKey colonInCall = new LedgerKey("a", "b:c");

        assertThat(colonInSession.text()).isNotEqualTo(colonInCall.text());
        assertThat(LedgerKey.parse(colonInSession.text())).contains(colonInSession);
        assertThat(LedgerKey.parse(colonInCall.text())).contains(colonInCall);
        assertThat(LedgerKey.parse(new LedgerKey("3:x:y", "").text())).contains(new LedgerKey("3:x:y", ""));
    }

    @Test
    void aKeyOfTheCallIdAloneAsOlderVersionsWroteItIsNoLedgerKey() {
        assertThat(LedgerKey.parse("3f2a91c0-out#1")).isEmpty();
        assertThat(LedgerKey.parse("c1")).isEmpty();
        assertThat(LedgerKey.parse("")).isEmpty();
        assertThat(LedgerKey.parse(":s:c")).isEmpty();
        assertThat(LedgerKey.parse("-1:s:c")).as("no sign").isEmpty();
        assertThat(LedgerKey.parse("5:s:c")).as("a length past the key").isEmpty();
        assertThat(LedgerKey.parse("1:s")).as("no separator after the session").isEmpty();
        assertThat(LedgerKey.parse("1:sxc")).as("the wrong separator after the session").isEmpty();
        assertThat(LedgerKey.parse("9999999999:s:c")).as("a length past an int").isEmpty();
        assertThat(LedgerKey.parse("999999999:s:c")).as("the longest length").isEmpty();
    }
}
