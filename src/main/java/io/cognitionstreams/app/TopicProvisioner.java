package io.cognitionstreams.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Creates the app's topics that do not exist yet. Existing topics are left as they are (an operator may have
 * tuned them) but a partition count below the configured one is reported: it caps how far the app scales out. Two
 * topics read in the same tasks ({@link Topics#partitionedLike}) with other partition counts stop the app.
 */
public final class TopicProvisioner {

    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private TopicProvisioner() {
    }

    /** @return the names of the topics this call created */
    public static List<String> ensure(Admin admin, Topics topics, int partitions, short replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            // A topic read in the same tasks as another (Topics.partitionedLike) gets the partitions the other
            // already has, whatever the setting is now: a tenant added later, a topic a newer version added.
            List<String> partners = topics.all().stream().map(Topic::name).filter(name -> !existing.contains(name))
                    .flatMap(name -> Topics.partitionedLike(name).stream()).filter(existing::contains).distinct()
                    .toList();
            Map<String, Integer> partnerCounts = partitionCounts(admin, partners);
            List<NewTopic> missing = new ArrayList<>();
            for (Topic<?, ?> topic : topics.all()) {
                if (!existing.contains(topic.name())) {
                    int count = Topics.partitionedLike(topic.name()).map(partnerCounts::get).orElse(partitions);
                    missing.add(new NewTopic(topic.name(), count, replicationFactor).configs(topic.configs()));
                }
            }
            List<String> created = new ArrayList<>();
            if (!missing.isEmpty()) {
                for (Map.Entry<String, KafkaFuture<Void>> creation : admin.createTopics(missing).values().entrySet()) {
                    try {
                        creation.getValue().get(60, TimeUnit.SECONDS);
                        created.add(creation.getKey());
                    } catch (ExecutionException e) {
                        // Another instance starting at the same time created it first: it is there, as wanted.
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                    }
                }
                awaitLeaders(admin, missing.stream().map(NewTopic::name).toList());
            }
            Map<String, Integer> counts = partitionCounts(admin, topics.all().stream().map(Topic::name).toList());
            requirePartitionedAlike(counts);
            warnAboutNarrowTopics(counts, partitions);
            return created;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create the app's topics: " + e.getCause().getMessage(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot create the app's topics: the cluster did not answer in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /**
     * New partitions take a moment to get a leader; writing before that only earns retries and warnings. Until the
     * broker answering has the new topics in its metadata, it does not even know them: that is "not yet" too.
     */
    private static void awaitLeaders(Admin admin, List<String> names)
            throws ExecutionException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                Map<String, TopicDescription> described =
                        admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
                boolean led = described.values().stream().flatMap(d -> d.partitions().stream())
                        .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
                if (led) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            Thread.sleep(50);
        }
        LOG.warn("new topics {} still have partitions without a leader after 30 s", names);
    }

    /**
     * Refuses to start on topics that must be read in the same tasks but have other partition counts: their records
     * would meet in the wrong task (a council decision where its call does not wait), which nothing could notice.
     */
    private static void requirePartitionedAlike(Map<String, Integer> counts) {
        for (String name : counts.keySet()) {
            Optional<String> partner = Topics.partitionedLike(name);
            if (partner.isPresent() && !counts.get(name).equals(counts.get(partner.get()))) {
                throw new IllegalStateException(name + " has " + counts.get(name) + " partitions but "
                        + partner.get() + " has " + counts.get(partner.get()) + ": the app reads them in the same "
                        + "tasks, so they need as many (recreate " + name + " with " + counts.get(partner.get())
                        + " partitions)");
            }
        }
    }

    private static Map<String, Integer> partitionCounts(Admin admin, List<String> names)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, Integer> counts = new HashMap<>();
        if (!names.isEmpty()) {
            admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS)
                    .forEach((name, description) -> counts.put(name, description.partitions().size()));
        }
        return counts;
    }

    private static void warnAboutNarrowTopics(Map<String, Integer> counts, int partitions) {
        counts.forEach((name, count) -> {
            if (count < partitions) {
                LOG.warn("topic {} has {} partitions, fewer than the configured {}: at most {} instances share it",
                        name, count, partitions, count);
            }
        });
    }
}
