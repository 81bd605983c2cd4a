package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.app.GroupProtocol;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class TuningOptionsTest {

    @Command
    static final class Holder {
        @Mixin
        TuningOptions tuning;
    }

    private static TuningOptions parse(String... args) {
        Holder holder = new Holder();
        new CommandLine(holder).registerConverter(java.time.Duration.class, new DurationConverter()).parseArgs(args);
        return holder.tuning;
    }

    @Test
    void theGroupProtocolIsClassicUnlessStreamsIsAskedFor() {
        assertThat(parse().tuning().groupProtocol()).isEqualTo(GroupProtocol.CLASSIC);
        assertThat(parse("--group-protocol", "streams").tuning().groupProtocol()).isEqualTo(GroupProtocol.STREAMS);
        assertThatThrownBy(() -> parse("--group-protocol", "consumer"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("classic or streams");
    }
}
