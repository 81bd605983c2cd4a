package io.cognitionstreams.health;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which instances of the app have left every one of its groups, and which transactional ids their producers used,
 * so that a survivor can fence them (Admin#fenceProducers) instead of waiting for the broker to time their open
 * transactions out. Plain Java, fed with what the groups' descriptions say; no Kafka here.
 *
 * <p>An instance is named by its instance id (the app's {@code InstanceId}), which every member of a group carries
 * in its static {@code group.instance.id}:
 * <ul>
 *   <li>a worker's group ({@code <group>}): member {@code <group>-<instance>}, transactional id the same;</li>
 *   <li>a stream threads' group ({@code <capability application id>}): member {@code <group>-<instance>-<N>} with
 *       client id {@code <group>-<process>-StreamThread-<N>-consumer} (Kafka Streams' default, its process id
 *       kept in the state directory); exactly-once v2 makes thread N's transactional id {@code <group>-<process>-<N>}.
 *       A member whose client id does not read that way (an operator's own client.id) still counts as present,
 *       but gives no transactional id: none is guessed.</li>
 * </ul>
 * Members without a group instance id (the streams protocol has no static membership) are not attributed.
 */
public final class DepartedInstances {

    private static final String UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
    private static final Pattern WORKER_MEMBER = Pattern.compile("(" + UUID + ")");
    private static final Pattern STREAM_MEMBER = Pattern.compile("(" + UUID + ")-(\\d+)");
    private static final Pattern STREAM_CLIENT = Pattern.compile("(" + UUID + ")-StreamThread-(\\d+)-consumer");

    /** One member of one group, as Admin#describeConsumerGroups tells it. */
    public record Member(String clientId, Optional<String> groupInstanceId) {
    }

    /** An instance gone from every group, and the transactional ids its members used while it was there. */
    public record Departure(String instance, Set<String> transactionalIds, Set<String> lastGroups) {
    }

    private final String self;
    private final Set<String> streamGroups;
    private final Set<String> workerGroups;
    /** Instances present at the last look: the transactional ids and groups seen of each since it appeared. */
    private final Map<String, Departure> present = new HashMap<>();
    /** Gone, not yet fenced: returned again by each look until {@link #fenced} or until they come back. */
    private final Map<String, Departure> departed = new TreeMap<>();

    /**
     * @param self         this instance's id: never reported, whatever the groups say
     * @param streamGroups the stream threads' groups (each capability's application id)
     * @param workerGroups the workers' groups
     */
    public DepartedInstances(String self, Collection<String> streamGroups, Collection<String> workerGroups) {
        this.self = self;
        this.streamGroups = Set.copyOf(streamGroups);
        this.workerGroups = Set.copyOf(workerGroups);
    }

    /** Every group to describe for {@link #observe}. */
    public Set<String> groups() {
        Set<String> all = new TreeSet<>(streamGroups);
        all.addAll(workerGroups);
        return all;
    }

    /**
     * One look at every group: the instances that had members at an earlier look and have none now in any group,
     * with what to fence. Those not yet {@link #fenced} are returned again by the next look, unless they are back.
     *
     * @param members each of {@link #groups()} with its members now; a look missing a group is ignored, as it
     *                cannot tell that an instance is gone from it
     */
    public List<Departure> observe(Map<String, List<Member>> members) {
        if (!members.keySet().containsAll(groups())) {
            return List.copyOf(departed.values());
        }
        Map<String, Departure> now = new HashMap<>();
        members.forEach((group, list) -> list.forEach(member -> attribute(group, member).ifPresent(seen -> {
            Departure merged = now.computeIfAbsent(seen.instance(),
                    instance -> new Departure(instance, new TreeSet<>(), new TreeSet<>()));
            merged.transactionalIds().addAll(seen.transactionalIds());
            merged.lastGroups().add(group);
        })));
        now.remove(self);
        for (Departure was : present.values()) {
            if (!now.containsKey(was.instance())) {
                departed.put(was.instance(), new Departure(was.instance(),
                        Collections.unmodifiableSortedSet(new TreeSet<>(was.transactionalIds())),
                        Collections.unmodifiableSortedSet(new TreeSet<>(was.lastGroups()))));
            }
        }
        Map<String, Departure> next = new HashMap<>();
        now.forEach((instance, seen) -> {
            departed.remove(instance);
            // A thread replaced since (a new index) leaves an old id behind; fencing an idle id costs nothing.
            Departure before = present.get(instance);
            if (before != null) {
                seen.transactionalIds().addAll(before.transactionalIds());
            }
            next.put(instance, seen);
        });
        present.clear();
        present.putAll(next);
        return List.copyOf(departed.values());
    }

    /** Its transactional ids have been fenced: not returned again (until it comes back and leaves again). */
    public void fenced(Departure departure) {
        departed.remove(departure.instance());
    }

    /** The instance a member belongs to and the transactional id that follows from it, when it can be told. */
    Optional<Departure> attribute(String group, Member member) {
        if (member.groupInstanceId().isEmpty() || !member.groupInstanceId().get().startsWith(group + "-")) {
            return Optional.empty();
        }
        String suffix = member.groupInstanceId().get().substring(group.length() + 1);
        if (workerGroups.contains(group)) {
            Matcher worker = WORKER_MEMBER.matcher(suffix);
            return worker.matches() ? Optional.of(departure(worker.group(1), member.groupInstanceId().get()))
                    : Optional.empty();
        }
        Matcher thread = STREAM_MEMBER.matcher(suffix);
        if (!streamGroups.contains(group) || !thread.matches()) {
            return Optional.empty();
        }
        String client = member.clientId().startsWith(group + "-") ? member.clientId().substring(group.length() + 1)
                : "";
        Matcher process = STREAM_CLIENT.matcher(client);
        if (!process.matches() || !process.group(2).equals(thread.group(2))) {
            return Optional.of(departure(thread.group(1), null));
        }
        return Optional.of(departure(thread.group(1), group + "-" + process.group(1) + "-" + process.group(2)));
    }

    private static Departure departure(String instance, String transactionalId) {
        Set<String> ids = new LinkedHashSet<>();
        if (transactionalId != null) {
            ids.add(transactionalId);
        }
        return new Departure(instance, ids, new HashSet<>());
    }
}
