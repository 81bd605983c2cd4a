package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import picocli.CommandLine.TypeConversionException;

class ByteSizeConverterTest {

    private final ByteSizeConverter sizes = new ByteSizeConverter();

    @Test
    void sizesAreReadInBinaryUnits() {
        assertThat(sizes.convert("1048576")).isEqualTo(1_048_576L);
        assertThat(sizes.convert("512KiB")).isEqualTo(512L * 1024);
        assertThat(sizes.convert("128MiB")).isEqualTo(128L << 20);
        assertThat(sizes.convert("2g")).isEqualTo(2L << 30);
        assertThat(sizes.convert(" 64 MB ")).isEqualTo(64L << 20);
    }

    @Test
    void anythingElseIsRefusedWithAnExample() {
        for (String bad : new String[] {"", "MiB", "-1MiB", "12TiB", "1.5GiB", "99999999999GiB"}) {
            assertThatThrownBy(() -> sizes.convert(bad)).as(bad).isInstanceOf(TypeConversionException.class)
                    .hasMessageContaining("is not a size such as 64MiB");
        }
    }
}
