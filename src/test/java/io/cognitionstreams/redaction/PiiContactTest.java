package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PiiContactTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    private static String redact(String text) {
        return REDACTOR.redact(text).text();
    }

    @Test
    void emailAddressesAreReplacedWholeAndTheSentenceDotStays() {
        assertThat(redact("Write to bob.smith+news@mail.example.co.uk.")).isEqualTo("Write to [REDACTED:EMAIL].");
        assertThat(redact("<a href=\"mailto:jo_d%1@x-y.io\">")).isEqualTo("<a href=\"mailto:[REDACTED:EMAIL]\">");
        assertThat(redact("Grüße an jürgen@beispiel.de")).isEqualTo("Grüße an [REDACTED:EMAIL]");
    }

    @Test
    void anScpStyleTargetLooksLikeAnAddressAndIsRedacted() {
        assertThat(redact("git clone git@github.com:org/repo.git"))
                .isEqualTo("git clone [REDACTED:EMAIL]:org/repo.git");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "npm i lodash@4.17.21", "import '@types/node'", "ssh root@localhost", "@Override", "a@b", "x@y.z",
            "name@host.123", "@@", "user@.com"})
    void atSignsThatAreNoAddressesStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "+1 (555) 123-4567", "+1 555 123 4567", "+44 20 7946 0958", "+44 (0)20 7946 0958", "+49 30 12345678",
            "+4930123456", "+33 1 23 45 67 89", "+1-555-123-4567", "+1.555.123.4567",
            "(555) 123-4567", "(555)123-4567", "555-123-4567", "555.123.4567", "1-800-555-0199", "1 (800) 555-0199",
            "020 7946 0958", "030 12345678", "030/12345678", "(030) 12345678", "07700 900123", "01 23 45 67 89",
            "030-1234-5678", "0151 12345678", "01512 3456789", "(0151) 12345678", "0151-1234-5678",
            "0171 1234567", "033203 123456"})
    void phoneNumbersInInternationalAndNationalFormats(String phone) {
        assertThat(redact("call " + phone + ", thanks")).isEqualTo("call [REDACTED:PHONE], thanks");
    }

    @Test
    void digitsRunningOnPastAPhoneNumberDropWholeGroups() {
        assertThat(redact("+44 20 7946 0958 2026")).isEqualTo("[REDACTED:PHONE] 2026");
        assertThat(redact("020 7946 0958 17")).isEqualTo("[REDACTED:PHONE] 17");
    }

    @Test
    void aPhoneNumberBetweenIpv6AddressesIsRedactedWithThem() {
        // Found by RoutingPropertiesTest (seed -3014490906887359342): the phone number took the next address's 0.
        assertThat(redact("0:: +1 415 555 0132 0::")).isEqualTo("[REDACTED:IPV6] [REDACTED:PHONE] [REDACTED:IPV6]");
    }

    @Test
    void aListOfPhoneNumbersIsRedactedItemByItem() {
        assertThat(redact("555-123-4567, 555-987-6543;+44 20 7946 0958"))
                .isEqualTo("[REDACTED:PHONE], [REDACTED:PHONE];[REDACTED:PHONE]");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "12345678", "1234567890", "555 123 4567", "items 100 200 3000", "+12", "+1 2345", "1+2345678901",
            "ORD-555-123-4567", "555-123-4567-89", "555-123-45678", "020 7946", "00 11 22 33 44 55",
            "0532 0130 01", "01-12-2026 10", "01/12/2026", "030 1234567890123", "030-1234-5678-9",
            "0044 1234 567890", "0151 123456789012", "0151-1234-5678-9"})
    void numbersThatAreNoPhoneNumbersStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }
}
