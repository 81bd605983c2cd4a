package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.TestMcpServer;
import io.cognitionstreams.testing.SharedBroker;

/**
 * A start that fails after it built its parts (here: the executor's trusted key cannot be read, after every
 * capability's Kafka Streams exists and the MCP server runs) closes them before it throws: a caller that goes on,
 * a test or an embedding application, is left no client thread and no MCP server process.
 */
@ExtendWith(SharedBroker.class)
class FailedStartIT {

    @Test
    void aStartThatFailsLateLeavesNoClientAndNoMcpServerRunning(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws InterruptedException {
        String app = "failed-start-" + UUID.randomUUID().toString().substring(0, 8);
        Path missingKey = dir.resolve("no-such-key.pem");
        Settings settings = Settings.local(broker.bootstrapServers(), app, dir.resolve("state"))
                .withExecutor(new ExecutorSettings(List.of(TestMcpServer.config("test")),
                        ExecutorSettings.DEFAULT_CALL_TIMEOUT, 1, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                        Optional.empty(), List.of(missingKey), 0, Optional.empty()));
        Set<Long> childrenBefore = children();

        assertThatThrownBy(() -> CognitionRuntime.start(settings)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(missingKey.toString());

        // Closing a Kafka Streams instance ends its clients' threads shortly after it returns.
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline && !(threadsOf(app).isEmpty() && newChildren(childrenBefore).isEmpty())) {
            Thread.sleep(100);
        }
        assertThat(threadsOf(app)).as("threads of the failed start").isEmpty();
        assertThat(newChildren(childrenBefore)).as("the MCP server's process").isEmpty();
    }

    private static Set<String> threadsOf(String app) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.contains(app)).collect(Collectors.toSet());
    }

    private static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    private static Set<Long> newChildren(Set<Long> before) {
        return children().stream().filter(pid -> !before.contains(pid)).collect(Collectors.toSet());
    }
}
