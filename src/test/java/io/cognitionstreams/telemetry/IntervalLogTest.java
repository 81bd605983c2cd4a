package io.cognitionstreams.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.SubstituteLogger;

class IntervalLogTest {

    @Test
    void theFirstOccurrenceIsLoggedThenOneLinePerIntervalWithTheCount() {
        List<String> lines = new ArrayList<>();
        SubstituteLogger logger = new SubstituteLogger("test", null, false) {
            @Override
            public void warn(String format, Object... arguments) {
                lines.add(MessageFormatter.arrayFormat(format, arguments).getMessage());
            }

            @Override
            public void warn(String format, Object first, Object second) {
                lines.add(MessageFormatter.format(format, first, second).getMessage());
            }
        };
        AtomicLong clock = new AtomicLong();
        IntervalLog log = new IntervalLog(logger, "skipped", Duration.ofSeconds(60), clock::get);

        log.warn("r1");
        for (int i = 2; i <= 1000; i++) {
            log.warn("r" + i);
        }
        clock.addAndGet(Duration.ofSeconds(61).toNanos());
        log.warn("r1001");

        assertThat(lines).containsExactly("skipped: r1",
                "skipped: 1000 times since the last report (1001 in all), the latest: r1001");
        assertThat(log.total()).isEqualTo(1001);
    }
}
