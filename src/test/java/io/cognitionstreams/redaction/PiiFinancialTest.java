package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PiiFinancialTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    private static String redact(String text) {
        return REDACTOR.redact(text).text();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "5555555555554444",
            "2223000048410010", "378282246310005", "3782 822463 10005", "30569309025904", "3056 930902 5904",
            "6011111111111117", "6011 1111 1111 1117", "3530111333300000", "4222222222222", "6200000000000005"})
    void cardNumbersWithAValidLuhnCheckAreRedacted(String card) {
        assertThat(redact("pay with " + card + ".")).isEqualTo("pay with [REDACTED:CARD].");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "4111111111111112", "4111 1111 1111 1112", "5555555555554440", "378282246310006",
            "1111111111111117", "7111111111111111", "9111111111111114", "0000000000000000",
            "37040044053201300", "411111111111", "41111111111111111111", "4111 1111 1111 111 1",
            "41111 1111 1111 111", "4111 1111-1111 1111", "4111-1111-1111-1111-2026", "x4111111111111111",
            "4111111111111111x", "1.4111111111111111", "4111111111111111.5"})
    void numbersFailingLuhnTheNetworksOrTheLayoutStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @Test
    void aSpaceSeparatedCardFollowedByAYearIsACardAndAYear() {
        assertThat(redact("4111 1111 1111 1111 2026")).isEqualTo("[REDACTED:CARD] 2026");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "GB82 WEST 1234 5698 7654 32",
            "GB82WEST12345698765432", "FR14 2004 1010 0505 0001 3M02 606", "NL91ABNA0417164300",
            "CH93 0076 2011 6238 5295 7", "NO9386011117947", "BE68539007547034"})
    void ibansWithAValidMod97ChecksumAreRedacted(String iban) {
        assertThat(redact("IBAN: " + iban + ", BIC follows")).isEqualTo("IBAN: [REDACTED:IBAN], BIC follows");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "DE89 3704 0044 0532 0130 01", "DE88370400440532013000", "GB82 WEST 1234 5698 7654 33",
            "DE89 3704 0044 0532 0130", "DE89370400440532013000X", "ZZ12 3456 7890 1234 56",
            "de89370400440532013000", "DE89 37040 0440 532013000"})
    void ibansFailingTheChecksumLengthOrFormatStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @Test
    void socialSecurityNumbersInTheIssuedRanges() {
        assertThat(redact("SSN 123-45-6789 and 772-01-0001.")).isEqualTo("SSN [REDACTED:SSN] and [REDACTED:SSN].");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "000-12-3456", "666-12-3456", "900-12-3456", "999-12-3456", "123-00-4567", "123-45-0000",
            "123456789", "123 45 6789", "1123-45-6789", "123-45-67890", "123-45-6789-1", "a123-45-6789"})
    void ssnsOutsideTheIssuedRangesOrShapeStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }
}
