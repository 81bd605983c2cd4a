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
 * Logs, after a start, the app's progress through the records that came before it ({@link CatchUp}): at INFO every
 * {@link #LOOK} once every capability runs, until its groups are within {@link CatchUp#THRESHOLD} of their inputs'
 * ends; then it stops looking. The lag metrics ({@code kafka_consumer_fetch_manager_records_lag}) show the same for
 * dashboards; this is the line an operator reads in the log while waiting for the first answer.
 */
public final class CatchUpLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUpLog.class);
    static final Duration LOOK = Duration.ofSeconds(10);
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final Admin admin;
    private final Map<String, String> groups;
    private final BooleanSupplier running;
    private final CatchUp catchUp = new CatchUp();
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
        scheduler.scheduleWithFixedDelay(this::lookQuietly, LOOK.toMillis(), LOOK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void lookQuietly() {
        try {
            if (running.getAsBoolean()) {
                catchUp.observe(System.nanoTime(), read(admin, groups)).ifPresent(LOG::info);
                if (catchUp.done()) {
                    scheduler.shutdown();
                }
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("cannot read the groups' lag: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the {@code groups} (group id to the name to give it) have yet to process of their inputs. */
    public static Backlog read(Admin admin, Map<String, String> groups)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        groups.keySet().forEach(group -> specs.put(group, new ListConsumerGroupOffsetsSpec()));
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = admin.listConsumerGroupOffsets(specs).all()
                .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        committed.values().forEach(offsets -> offsets.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest())));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, Map<String, Long>> byGroup = new LinkedHashMap<>();
        committed.forEach((group, offsets) -> {
            Map<String, Long> topics = new HashMap<>();
            offsets.forEach((tp, offset) -> {
                if (offset != null && ends.containsKey(tp)) {
                    topics.merge(tp.topic(), Math.max(0, ends.get(tp).offset() - offset.offset()), Long::sum);
                }
            });
            byGroup.put(groups.get(group), topics);
        });
        return new Backlog(byGroup);
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
