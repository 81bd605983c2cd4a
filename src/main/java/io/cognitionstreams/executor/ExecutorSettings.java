package io.cognitionstreams.executor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.cognitionstreams.executor.shell.ShellSettings;

/**
 * The tool loop as an operator sets it up. The executor runs only when it has something to run: an MCP server, or
 * the shell runner (off unless asked for).
 *
 * @param mcpServers        the MCP servers whose tools approved calls may use
 * @param callTimeout       the longest one call may run before it is TIMED_OUT (MCP) or killed (shell)
 * @param threads           calls run in parallel, one session each
 * @param maxResultBytes    the most of a result's text kept (its head and tail)
 * @param signingKey        the gatekeeper's Ed25519 key file; empty for {@code <state dir>/keys/gatekeeper-ed25519.pem},
 *                          made on first start
 * @param trustedKeys       more gatekeeper public keys the executor accepts approvals from (other instances', during
 *                          a key rotation); its own gatekeeper's is always trusted
 * @param autoContinueSteps how many turns in a row a session may take on its own after its tool results; 0 (the
 *                          default) for none: the next turn waits for the agent
 * @param shell             the shell runner for approved {@code shell.run} calls; empty (the default) leaves them to
 *                          whoever reads channel.shell
 */
public record ExecutorSettings(List<McpServerConfig> mcpServers, Duration callTimeout, int threads,
                               int maxResultBytes, Optional<Path> signingKey, List<Path> trustedKeys,
                               int autoContinueSteps, Optional<ShellSettings> shell) {

    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_THREADS = 8;
    public static final int DEFAULT_MAX_RESULT_BYTES = 64 * 1024;

    public ExecutorSettings {
        mcpServers = List.copyOf(mcpServers);
        trustedKeys = List.copyOf(trustedKeys);
        Objects.requireNonNull(signingKey, "signingKey");
        Objects.requireNonNull(shell, "shell");
        Set<String> names = new HashSet<>();
        for (McpServerConfig server : mcpServers) {
            if (!names.add(server.name())) {
                throw new IllegalArgumentException("two MCP servers are named " + server.name());
            }
        }
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("the tool call timeout must be positive, was " + callTimeout);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("the executor needs at least one thread, was " + threads);
        }
        if (maxResultBytes < 1024) {
            throw new IllegalArgumentException("results must keep at least 1024 bytes, was " + maxResultBytes);
        }
        if (autoContinueSteps < 0) {
            throw new IllegalArgumentException("auto-continue steps cannot be negative, was " + autoContinueSteps);
        }
    }

    /** No MCP server, no shell: nothing executes, as before the executor existed. */
    public static ExecutorSettings none() {
        return new ExecutorSettings(List.of(), DEFAULT_CALL_TIMEOUT, DEFAULT_THREADS, DEFAULT_MAX_RESULT_BYTES,
                Optional.empty(), List.of(), 0, Optional.empty());
    }

    public boolean enabled() {
        return !mcpServers.isEmpty() || shell.isPresent();
    }

    /** The signing key file, given a state directory for the default. */
    public Path signingKeyFile(Path stateDir) {
        return signingKey.orElse(stateDir.resolve("keys").resolve("gatekeeper-ed25519.pem"));
    }
}
