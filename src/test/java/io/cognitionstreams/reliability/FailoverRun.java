package io.cognitionstreams.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import io.cognitionstreams.health.TransactionWatch;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.BrokerCluster;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.testing.RunArgs;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Broker failover: the app ({@code cognition run} in a child JVM, exactly_once_v2, every topic at replication
 * factor 3 with two replicas in sync required) on a three-node {@link BrokerCluster} while an agent keeps sending.
 * The node leading the most of the pipeline's partitions (its topics, the consumer offsets and the transaction
 * state, so group and transaction coordinators go with it) is killed with SIGKILL; what is measured is the time
 * from the kill to the first answer (a routed block, read_committed) of a request sent after it, and to such an
 * answer on every partition. Before the next kill the dead node is started again and every replica is back in
 * sync: with three combined nodes one loss leaves the controller quorum and every partition two of three, a
 * second one at the same time would leave neither. At the end every request must be answered exactly once.
 * {@link MultiBrokerFailoverIT} is the short form, {@code bin/broker-failover} runs {@link #main}.
 */
final class FailoverRun {

    static final int NODES = 3;
    private static final int PARTITIONS = 3;
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration NODE_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration SETTLED = Duration.ofSeconds(2);
    private static final String TRANSACTION_STATE = "__transaction_state";

    /**
     * @param seed   of the pause before each kill (2 to 6 s)
     * @param settle before each kill, wait until answers keep up with the agent ({@link #settle}), for figures
     *               that do not include a backlog; without, a kill may come while the app still works one off
     */
    record Options(int kills, int rate, long seed, boolean settle) {
    }

    /**
     * One kill: the node, whether it was the active controller, how many of the watched partitions it led, the
     * seconds a request took to its answer just before ({@link #settle}), and seconds from the kill to its partitions led by others (the cluster's share of the wait: a new controller if
     * need be, then the dead node's broker session), to the first answer and to an answer on every partition;
     * when it was started again, seconds from its restart to serving as a broker and to every replica in sync
     * (NaN after the last kill).
     */
    record Kill(int node, boolean controller, int led, double latencyBefore, double leadersMoved,
                double firstAnswer, double everyPartition, double backUp, double inSync) {
        @Override
        public String toString() {
            return String.format("node %d (%sleader of %d partitions), answers taking %.1f s before; leaders moved "
                    + "%.1f s, first answer %.1f s, every partition answering %.1f s; restarted: broker up %.1f s, "
                    + "all replicas in sync %.1f s", node, controller ? "active controller, " : "", led,
                    latencyBefore, leadersMoved, firstAnswer, everyPartition, backUp, inSync);
        }
    }

    record Report(List<Kill> kills, Ledger.Verdict verdict, Duration elapsed) {
    }

    private FailoverRun() {
    }

    static Report run(BrokerCluster cluster, Path workDir, Options options, PrintStream log) throws Exception {
        long started = System.nanoTime();
        String run = "failover-" + UUID.randomUUID().toString().substring(0, 8);
        String bootstrap = cluster.bootstrapServers();
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        List<String> watched = new ArrayList<>(topics.all().stream().map(Topic::name).toList());
        watched.addAll(List.of(TransactionWatch.OFFSETS_TOPIC, TRANSACTION_STATE));
        Path appLog = workDir.resolve("app.log");
        log.printf("failover run %s: %d nodes, %d kills, %d requests/s, seed %d, app log %s%n", run, NODES,
                options.kills(), options.rate(), options.seed(), appLog);
        Random random = new Random(options.seed());
        RestartRun.Stalls stalls = new RestartRun.Stalls(bootstrap, topics, RestartRun.OnHanging.FAIL, log);
        ChildApp app = ChildApp.start(bootstrap, run, workDir.resolve("state"), appLog, "--partitions",
                String.valueOf(PARTITIONS), "--replication-factor", String.valueOf(NODES));
        Traffic traffic = null;
        try {
            app.requireRunning(START_TIMEOUT);
            traffic = Traffic.agent(bootstrap, topics.requests, run, options.rate());
            List<Kill> kills = new ArrayList<>();
            try (Answers answers = new Answers(bootstrap, topics, run)) {
                stalls.await("the first answer", () -> answers.answeredFrom(0));
                log.printf("answering at %.1f s%n", seconds(started));
                for (int k = 1; k <= options.kills(); k++) {
                    Thread.sleep(2_000 + random.nextInt(4_000));
                    double before = options.settle() ? settle(answers, traffic, stalls) : Double.NaN;
                    Map<Integer, Integer> led = cluster.leaderships(watched);
                    int controller = cluster.activeController();
                    int victim = busiest(led, controller);
                    long firstAfter = traffic.sent();
                    long killed = System.nanoTime();
                    LocalTime killedAt = LocalTime.now(ZoneOffset.UTC);
                    cluster.kill(victim);
                    long[] moved = {0};
                    stalls.await("answers on every partition after kill " + k, () -> {
                        if (moved[0] == 0 && cluster.leaderships(watched).getOrDefault(victim, 0) == 0) {
                            moved[0] = System.nanoTime();
                        }
                        answers.answeredFrom(firstAfter);
                        return moved[0] != 0 && answers.firstByPartition().size() == PARTITIONS;
                    });
                    double leadersMoved = (moved[0] - killed) / 1e9;
                    double first = (Collections.min(answers.firstByPartition().values()) - killed) / 1e9;
                    double every = (Collections.max(answers.firstByPartition().values()) - killed) / 1e9;
                    double backUp = Double.NaN;
                    double inSync = Double.NaN;
                    if (k < options.kills()) {
                        long restarted = System.nanoTime();
                        cluster.restart(victim, NODE_TIMEOUT);
                        backUp = seconds(restarted);
                        cluster.awaitInSync(NODE_TIMEOUT);
                        inSync = seconds(restarted);
                    }
                    Kill kill = new Kill(victim, victim == controller, led.get(victim), before, leadersMoved, first,
                            every, backUp, inSync);
                    kills.add(kill);
                    // The wall-clock time too, to find the kill in the nodes' and the app's logs, and the load: on
                    // a shared machine, other work's share of the cores is part of every figure.
                    log.printf("kill %d/%d at %.1f s (%s, %d sent, load %s): %s%n", k, options.kills(),
                            (killed - started) / 1e9, killedAt, firstAfter, loadAverage(), kill);
                }
                // Requests sent with the last node down, answered by the two left.
                Thread.sleep(2_000);
            }
            traffic.stop();
            traffic.await();
            Map<String, String> prompts = Traffic.prompts(Workload.NO_MEMORY, run,
                    traffic.delivered());
            try (Ledger ledger = new Ledger(bootstrap, topics, run)) {
                ledger.awaitComplete(prompts, NODE_TIMEOUT);
                // A clean stop, so nothing is in flight: any duplicate would now be committed and counted.
                log.printf("all %d answered at %.1f s; stopping the app (exit %d)%n", prompts.size(),
                        seconds(started), app.stop());
                ledger.catchUp();
                Report report = new Report(kills, ledger.verify(prompts), Duration.ofNanos(System.nanoTime()
                        - started));
                log.printf("%s in %d s%n", report.verdict(), report.elapsed().toSeconds());
                return report;
            }
        } finally {
            if (traffic != null) {
                traffic.stop();
            }
            app.kill();
        }
    }

    /**
     * Waits until the pipeline keeps up with the agent: a request sent now is answered within {@link #SETTLED}.
     * Right after the start, or a node's return, a backlog would otherwise count in the next kill's figures.
     *
     * @return seconds from the last request's sending to its answer
     */
    static double settle(Answers answers, Traffic traffic, RestartRun.Stalls stalls) throws Exception {
        while (true) {
            long from = traffic.sent();
            long sent = System.nanoTime();
            stalls.await("an answer before the next kill", () -> answers.answeredFrom(from));
            double took = (answers.lastAnswered() - sent) / 1e9;
            if (took < SETTLED.toMillis() / 1e3) {
                return took;
            }
        }
    }

    /** The node leading the most partitions; of those tied, the active controller if it is one, else the first. */
    static int busiest(Map<Integer, Integer> led, int controller) {
        int most = Collections.max(led.values());
        if (led.getOrDefault(controller, -1) == most) {
            return controller;
        }
        return led.entrySet().stream().filter(e -> e.getValue() == most).findFirst().orElseThrow().getKey();
    }

    /** The one-minute load average, where Linux tells it. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    @Command(name = "bin/broker-failover", description = "Kills the node leading the most partitions of a "
            + "three-broker cluster while `cognition run` answers requests; exit 0 when every request is answered "
            + "exactly once.")
    static final class Flags {

        @Option(names = "--kills", paramLabel = "N", defaultValue = "2",
                description = "SIGKILLs, each of the busiest leader (default: ${DEFAULT-VALUE}).")
        int kills;

        @Option(names = "--rate", paramLabel = "R", defaultValue = "50",
                description = "Requests per second (default: ${DEFAULT-VALUE}).")
        int rate;

        @Mixin
        RunArgs.Seed seed;

        Options options() {
            return new Options(kills, rate, seed.value, true);
        }
    }

    /** {@code bin/broker-failover}: the long form. */
    public static void main(String[] args) throws Exception {
        Options options = RunArgs.parseOrExit(new Flags(), args).options();
        Path workDir = Files.createTempDirectory("cognition-failover");
        Report report;
        try (BrokerCluster cluster = BrokerCluster.start(workDir.resolve("cluster"), NODES, START_TIMEOUT)) {
            report = run(cluster, workDir, options, System.out);
        }
        System.out.printf("%d kills of %d nodes; %s%n", report.kills().size(), NODES, report.verdict());
        System.out.println(RestartRun.summary(report.kills(), "kill to leaders moved", Kill::leadersMoved));
        System.out.println(RestartRun.summary(report.kills(), "kill to first answer", Kill::firstAnswer));
        System.out.println(RestartRun.summary(report.kills(), "kill to every partition answering",
                Kill::everyPartition));
        System.exit(report.verdict().ok() ? 0 : 1);
    }
}
