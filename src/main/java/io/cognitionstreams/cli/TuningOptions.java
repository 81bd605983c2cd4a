package io.cognitionstreams.cli;

import java.time.Duration;

import io.cognitionstreams.app.GroupProtocol;
import io.cognitionstreams.app.Settings;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Kafka Streams knobs shared by `run` and `bench`, so a benchmark measures what a run would do. */
final class TuningOptions {

    @Option(names = "--commit-interval", defaultValue = Settings.Tuning.DEFAULT_COMMIT_INTERVAL_MS + "ms",
            description = "Transaction commit interval of each capability: output becomes visible at commits "
                    + "(default: ${DEFAULT-VALUE}; Kafka's exactly-once default is 100ms).")
    Duration commitInterval;

    @Option(names = "--standby-replicas", defaultValue = "0", paramLabel = "N",
            description = "Warm copies of each state store kept on other instances, so a failover need not "
                    + "restore from the changelogs (default: ${DEFAULT-VALUE}).")
    int standbyReplicas;

    @Option(names = "--assembly-threads", defaultValue = "" + Settings.Tuning.DEFAULT_ASSEMBLY_THREADS,
            paramLabel = "N",
            description = "Stream threads of the assembly, which embeds prompts for episodic memory on one core per "
                    + "thread; more carry more requests when memory is in use, up to the partition count "
                    + "(default: ${DEFAULT-VALUE}).")
    int assemblyThreads;

    @Option(names = "--hanging-transaction-after", defaultValue = Settings.Tuning.DEFAULT_HANGING_TRANSACTION_AFTER,
            description = "Report a transaction silent this long on the pipeline's partitions as hanging, with the "
                    + "command that aborts it; set it to the brokers' transaction.max.timeout.ms "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration hangingTransactionAfter;

    @Option(names = "--abort-hanging-transactions", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Abort a hanging transaction of the app's own producers when that loses and doubles "
                    + "nothing (docs/reliability.md, \"Hanging transactions\"); with --no-abort-hanging-transactions "
                    + "only report it (default: ${DEFAULT-VALUE}).")
    boolean abortHangingTransactions;

    @Option(names = "--session-timeout", defaultValue = Settings.Tuning.DEFAULT_SESSION_TIMEOUT,
            description = "How long a dead instance keeps its partitions before another takes them over (the "
                    + "consumer groups' session timeout; the brokers' group.min.session.timeout.ms, 6s by default, "
                    + "is the floor) (default: ${DEFAULT-VALUE}).")
    Duration sessionTimeout;

    @Option(names = "--group-protocol", defaultValue = "classic", paramLabel = "classic|streams",
            converter = GroupProtocolConverter.class,
            description = "How the stream threads' groups rebalance: classic (static membership: a restarted "
                    + "instance takes its own place at once) or streams (KIP-1071: the broker assigns tasks; "
                    + "--session-timeout and --standby-replicas become the groups' configuration on the broker, "
                    + "within its group.streams.min.* bounds, 45s by default) (default: ${DEFAULT-VALUE}).")
    GroupProtocol groupProtocol;

    @Option(names = "--fence-departed", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Fence the transactional ids of another instance of the app as soon as it has left every "
                    + "group (killed: its session expired), so its open transactions are aborted then, not at their "
                    + "timeout; loses and doubles nothing (docs/reliability.md, \"Takeover by a surviving instance\") "
                    + "(default: ${DEFAULT-VALUE}).")
    boolean fenceDeparted;

    @Option(names = "--state-store-memory", defaultValue = "128MiB", paramLabel = "SIZE",
            converter = ByteSizeConverter.class,
            description = "Memory every state store of the process shares, off the heap: RocksDB's block cache, its "
                    + "index and filter blocks and memtables. What sessions use lately stays in it; the rest is read "
                    + "from disk when needed (default: ${DEFAULT-VALUE}).")
    long stateStoreMemory;

    Settings.Tuning tuning() {
        return new Settings.Tuning(commitInterval, standbyReplicas, assemblyThreads, hangingTransactionAfter,
                abortHangingTransactions, sessionTimeout, groupProtocol, fenceDeparted, stateStoreMemory);
    }

    /** Kafka's own spelling of group.protocol, lower case. */
    static final class GroupProtocolConverter implements CommandLine.ITypeConverter<GroupProtocol> {
        @Override
        public GroupProtocol convert(String value) {
            for (GroupProtocol protocol : GroupProtocol.values()) {
                if (protocol.config().equals(value)) {
                    return protocol;
                }
            }
            throw new CommandLine.TypeConversionException("expected classic or streams, was '" + value + "'");
        }
    }
}
