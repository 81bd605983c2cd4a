package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PiiNetworkTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    private static String redact(String text) {
        return REDACTOR.redact(text).text();
    }

    @Test
    void ipv4AddressesKeepTheirPortAndPrefixLength() {
        assertThat(redact("connect to 10.0.0.1:8080 in 192.168.0.0/16, then 255.255.255.255."))
                .isEqualTo("connect to [REDACTED:IPV4]:8080 in [REDACTED:IPV4]/16, then [REDACTED:IPV4].");
        assertThat(redact("0.0.0.0 and 127.0.0.1")).isEqualTo("[REDACTED:IPV4] and [REDACTED:IPV4]");
    }

    @Test
    void aDottedQuadAfterTheWordVersionCannotBeToldFromAnAddress() {
        assertThat(redact("version 10.1.2.3")).isEqualTo("version [REDACTED:IPV4]");
        assertThat(redact("v10.1.2.3")).isEqualTo("v10.1.2.3");
    }

    @ParameterizedTest
    @ValueSource(strings = {"256.1.1.1", "1.2.3", "1.2.3.4.5", "v1.2.3.4", "10.0.0-beta", "3.14", "1.2.3.1000",
            "1..2.3", "a1.2.3.4"})
    void dottedNumbersThatAreNoIpv4AddressesStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:db8:85a3::8a2e:370:7334", "2001:DB8::1", "::1",
            "fe80::", "::ffff:192.0.2.1", "64:ff9b::10.0.0.1", "1:2:3:4:5:6:7:8"})
    void ipv6AddressesFullAndCompressed(String address) {
        assertThat(redact("host " + address + " is up")).isEqualTo("host [REDACTED:IPV6] is up");
    }

    @Test
    void ipv6ZonesBracketsAndSentencePunctuationStayOutside() {
        assertThat(redact("ping fe80::1%eth0, curl http://[::1]:8080/ and ::1."))
                .isEqualTo("ping [REDACTED:IPV6]%eth0, curl http://[[REDACTED:IPV6]]:8080/ and [REDACTED:IPV6].");
        assertThat(redact("addr:fe80::1 ok")).isEqualTo("addr:[REDACTED:IPV6] ok");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "10:45:30", "12:30", "std::vector<int>", "x :: Int", "Foo::bar()", "a::b::c", "1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8:9", "12345::1", "Main.java:12:5", "localhost:8080", "2026-11-22T10:00:00Z",
            "1::2::3", ":::", "::", "fe80::1:2:3:4:5:6:7", "::ffff:256.0.0.1"})
    void colonTextThatIsNoIpv6AddressStays(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aa:bb:cc:dd:ee:ff", "00:1A:2b:3C:4d:5E", "00-1A-2B-3C-4D-5E"})
    void macAddressesWithColonsOrDashes(String mac) {
        assertThat(redact("nic " + mac + ".")).isEqualTo("nic [REDACTED:MAC].");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "aa:bb:cc:dd:ee", "aa:bb:cc:dd:ee:ff:00", "aa-bb-cc-dd-ee-ff-00", "aa:bb-cc:dd:ee:ff", "aaa:bb:cc:dd:ee:ff",
            "gg:bb:cc:dd:ee:ff", "10:45:30", "x-aa-bb-cc-dd-ee-ff"})
    void almostMacAddressesStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }
}
