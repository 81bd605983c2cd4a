package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.cognitionstreams.gatekeeper.ResultAnnotator.JsonAnnotation;

class ResultAnnotatorTest {

    private static final String WARNING = CognitiveLoad.warning(6, 5);

    @Test
    void aTextResultGetsTheWarningAfterOneBlankLine() {
        assertThat(ResultAnnotator.annotateText("3 files changed", WARNING))
                .isEqualTo("3 files changed\n\n" + WARNING);
        assertThat(ResultAnnotator.annotateText("3 files changed\n", WARNING))
                .isEqualTo("3 files changed\n\n" + WARNING);
        assertThat(ResultAnnotator.annotateText("3 files changed\n\n", WARNING))
                .isEqualTo("3 files changed\n\n" + WARNING);
    }

    @Test
    void anEmptyTextResultBecomesTheWarning() {
        assertThat(ResultAnnotator.annotateText("", WARNING)).isEqualTo(WARNING);
    }

    @Test
    void aJsonObjectsStringMessageGetsTheWarningAppended() {
        JsonAnnotation annotated = ResultAnnotator.annotateJson("{\"ok\":true,\"message\":\"pushed\"}", WARNING);

        assertThat(annotated.injected()).isTrue();
        assertThat(annotated.json()).isEqualTo(
                "{\"ok\":true,\"message\":\"pushed\\n\\n" + WARNING + "\"}");
    }

    @Test
    void aJsonObjectWithoutAStringMessageGetsACognitionField() {
        assertThat(ResultAnnotator.annotateJson("{\"files\":[\"a\",\"b\"]}", WARNING))
                .isEqualTo(new JsonAnnotation("{\"files\":[\"a\",\"b\"],\"_cognition\":{\"warning\":\"" + WARNING
                        + "\"}}", true));
        assertThat(ResultAnnotator.annotateJson("{\"message\":{\"code\":3}}", WARNING).json())
                .isEqualTo("{\"message\":{\"code\":3},\"_cognition\":{\"warning\":\"" + WARNING + "\"}}");
        assertThat(ResultAnnotator.annotateJson("{}", WARNING).json())
                .isEqualTo("{\"_cognition\":{\"warning\":\"" + WARNING + "\"}}");
    }

    @Test
    void anExistingCognitionObjectKeepsItsOtherFields() {
        assertThat(ResultAnnotator.annotateJson("{\"_cognition\":{\"trace\":\"t1\"}}", WARNING).json())
                .isEqualTo("{\"_cognition\":{\"trace\":\"t1\",\"warning\":\"" + WARNING + "\"}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1,2,3]", "42", "\"a string\"", "null", "true", "{\"_cognition\":\"tool's own\"}",
            "not json", "{\"a\":1,\"a\":2}", "{\"a\":1} trailing", ""})
    void anythingElseIsLeftUntouchedForTheSeparateWarningField(String json) {
        assertThat(ResultAnnotator.annotateJson(json, WARNING)).isEqualTo(new JsonAnnotation(json, false));
    }

    @Test
    void numbersKeepTheirDigits() {
        String annotated = ResultAnnotator.annotateJson(
                "{\"price\":1.50,\"big\":123456789012345678901234567890,\"tiny\":0.1,\"huge\":1e400}", WARNING)
                .json();

        assertThat(annotated).startsWith(
                "{\"price\":1.50,\"big\":123456789012345678901234567890,\"tiny\":0.1,\"huge\":1E+400,");
    }

    @Test
    void aBlankWarningIsRefused() {
        assertThatThrownBy(() -> ResultAnnotator.annotateText("x", " "))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
