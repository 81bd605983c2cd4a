package io.cognitionstreams.health;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, after a start, the app's progress through the records that were on its inputs when it started ({@link
 * CatchUp}). At the start it notes where each input partition its groups have read ends; once every capability runs
 * it looks every {@link #LOOK} how much of that is still to read, until less than {@link CatchUp#THRESHOLD} is left,
 * then stops looking. Records that arrive after the start are not counted: they are the lag metrics' to show ({@code
 * kafka_consumer_fetch_manager_records_lag}). A first start has nothing committed and says nothing.
 */
public final class CatchUpLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUpLog.class);
    public static final Duration LOOK = Duration.ofSeconds(10);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final Admin admin;
    private final Map<String, String> groups;
    private final BooleanSupplier running;
    private final CatchUp catchUp = new CatchUp();
    private Start start;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "catch-up-log");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param groups  group id to the name the log gives it (the capability or worker)
     * @param running whether every capability runs: until then the capabilities restore, and nothing moves
     */
    public CatchUpLog(Map<String, Object> client, Map<String, String> groups, BooleanSupplier running) {
        this.admin = Admin.create(client);
        this.groups = Map.copyOf(groups);
        this.running = running;
        scheduler.scheduleWithFixedDelay(this::lookQuietly, 0, LOOK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void lookQuietly() {
        try {
            if (start == null) {
                start = Start.read(admin, groups);
            } else if (running.getAsBoolean()) {
                catchUp.observe(System.nanoTime(), start.left(admin)).ifPresent(LOG::info);
                if (catchUp.done()) {
                    scheduler.shutdown();
                }
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("cannot read the groups' offsets: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Where each partition its groups have committed on ends now: the start, as far as the catch-up goes. */
    record Start(Map<String, String> groups, Map<String, Map<TopicPartition, Long>> endOffsets) {

        static Start read(Admin admin, Map<String, String> groups)
                throws ExecutionException, InterruptedException, TimeoutException {
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = committed(admin, groups);
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = ends(admin, committed);
            Map<String, Map<TopicPartition, Long>> at = new HashMap<>();
            committed.forEach((group, offsets) -> offsets.forEach((tp, offset) -> {
                if (offset != null && ends.containsKey(tp)) {
                    at.computeIfAbsent(group, g -> new HashMap<>()).put(tp, ends.get(tp).offset());
                }
            }));
            return new Start(groups, at);
        }

        /** What the groups have yet to read of what was there at the start. */
        Backlog left(Admin admin) throws ExecutionException, InterruptedException, TimeoutException {
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = committed(admin, groups);
            Map<String, Map<String, Long>> byGroup = new LinkedHashMap<>();
            endOffsets.forEach((group, partitions) -> {
                Map<String, Long> topics = new HashMap<>();
                partitions.forEach((tp, end) -> {
                    OffsetAndMetadata now = committed.getOrDefault(group, Map.of()).get(tp);
                    topics.merge(tp.topic(), Math.max(0, end - (now == null ? 0 : now.offset())), Long::sum);
                });
                byGroup.put(groups.get(group), topics);
            });
            return new Backlog(byGroup);
        }
    }

    /** What the {@code groups} (group id to the name to give it) have yet to process of their inputs now. */
    public static Backlog read(Admin admin, Map<String, String> groups)
            throws ExecutionException, InterruptedException, TimeoutException {
        return Start.read(admin, groups).left(admin);
    }

    private static Map<String, Map<TopicPartition, OffsetAndMetadata>> committed(Admin admin,
                                                                                Map<String, String> groups)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        groups.keySet().forEach(group -> specs.put(group, new ListConsumerGroupOffsetsSpec()));
        return admin.listConsumerGroupOffsets(specs).all().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Where each partition ends for a reader of committed records. */
    private static Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends(
            Admin admin, Map<String, Map<TopicPartition, OffsetAndMetadata>> committed)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        committed.values().forEach(offsets -> offsets.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest())));
        return admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Group ids of the app, each named by what follows {@code applicationId-}. */
    public static Map<String, String> named(String applicationId, List<String> groupIds) {
        Map<String, String> named = new LinkedHashMap<>();
        for (String group : groupIds) {
            named.put(group, group.startsWith(applicationId + "-") ? group.substring(applicationId.length() + 1)
                    : group);
        }
        return named;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
