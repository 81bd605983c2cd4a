package io.cognitionstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.health.DepartedInstances.Member;

class DepartedInstancesTest {

    private static final String SELF = "11111111-1111-1111-1111-111111111111";
    private static final String OTHER = "22222222-2222-2222-2222-222222222222";
    private static final String OTHER_PROCESS = "33333333-3333-3333-3333-333333333333";
    private static final String ROUTING = "app-routing";
    private static final String MODEL = "app-model-worker";
    private static final String EXECUTOR = "app-executor";

    private final DepartedInstances departed = new DepartedInstances(SELF, List.of(ROUTING), List.of(MODEL, EXECUTOR));

    @Test
    void anInstanceGoneFromEveryGroupIsFencedWithTheIdsItsMembersUsed() {
        assertThat(departed.observe(groups(both(), workers(SELF, OTHER)))).isEmpty();

        List<DepartedInstances.Departure> gone = departed.observe(groups(List.of(thread(SELF, "p", 1)),
                workers(SELF)));

        assertThat(gone).singleElement().satisfies(departure -> {
            assertThat(departure.instance()).isEqualTo(OTHER);
            assertThat(departure.transactionalIds()).containsExactly(MODEL + "-" + OTHER,
                    ROUTING + "-" + OTHER_PROCESS + "-1");
            assertThat(departure.lastGroups()).containsExactly(MODEL, ROUTING);
        });
    }

    @Test
    void anInstanceStillInOneGroupIsNotGone() {
        departed.observe(groups(both(), workers(SELF, OTHER)));

        assertThat(departed.observe(groups(List.of(thread(SELF, "p", 1)), workers(SELF, OTHER)))).isEmpty();
    }

    @Test
    void neverItself() {
        departed.observe(groups(both(), workers(SELF, OTHER)));

        assertThat(departed.observe(groups(List.of(), Map.of()))).extracting(DepartedInstances.Departure::instance)
                .containsExactly(OTHER);
    }

    @Test
    void aDepartureIsReturnedUntilFencedOrBack() {
        departed.observe(groups(both(), workers(SELF, OTHER)));
        List<DepartedInstances.Departure> gone = departed.observe(groups(List.of(), Map.of()));

        // The fencing failed: the next look says it again.
        assertThat(departed.observe(groups(List.of(), Map.of()))).isEqualTo(gone);
        departed.fenced(gone.get(0));
        assertThat(departed.observe(groups(List.of(), Map.of()))).isEmpty();

        // Restarted (same instance id), then gone again: a departure once more.
        departed.observe(groups(both(), workers(SELF, OTHER)));
        assertThat(departed.observe(groups(List.of(), Map.of()))).hasSize(1);
    }

    @Test
    void backBeforeTheFenceMeansNoFence() {
        departed.observe(groups(both(), workers(SELF, OTHER)));
        departed.observe(groups(List.of(), Map.of()));

        assertThat(departed.observe(groups(both(), workers(SELF, OTHER)))).isEmpty();
    }

    @Test
    void aLookMissingAGroupDecidesNothing() {
        departed.observe(groups(both(), workers(SELF, OTHER)));
        Map<String, List<Member>> partial = new HashMap<>(groups(List.of(), Map.of()));
        partial.remove(EXECUTOR);

        assertThat(departed.observe(partial)).isEmpty();
    }

    @Test
    void noTransactionalIdIsGuessedFromAClientIdThatDoesNotReadAsKafkaStreamsDefault() {
        DepartedInstances.Departure thread = departed.attribute(ROUTING, new Member("my-client-StreamThread-1-consumer",
                Optional.of(ROUTING + "-" + OTHER + "-1"))).orElseThrow();
        assertThat(thread.instance()).isEqualTo(OTHER);
        assertThat(thread.transactionalIds()).isEmpty();

        // Thread numbers that disagree, a member without static membership, another app's member: nothing.
        assertThat(departed.attribute(ROUTING, new Member(ROUTING + "-" + OTHER_PROCESS + "-StreamThread-2-consumer",
                Optional.of(ROUTING + "-" + OTHER + "-1"))).orElseThrow().transactionalIds()).isEmpty();
        assertThat(departed.attribute(ROUTING, new Member(ROUTING + "-" + OTHER_PROCESS + "-StreamThread-1-consumer",
                Optional.empty()))).isEmpty();
        assertThat(departed.attribute(MODEL, new Member("x", Optional.of("other-model-worker-" + OTHER)))).isEmpty();
        assertThat(departed.attribute(MODEL, new Member("x", Optional.of(MODEL + "-not-a-uuid")))).isEmpty();
    }

    /** Routing with one thread of each instance. */
    private static List<Member> both() {
        return List.of(thread(SELF, "44444444-4444-4444-4444-444444444444", 1), thread(OTHER, OTHER_PROCESS, 1));
    }

    private static Member thread(String instance, String process, int index) {
        return new Member(ROUTING + "-" + process + "-StreamThread-" + index + "-consumer",
                Optional.of(ROUTING + "-" + instance + "-" + index));
    }

    /** The model workers' group with a member of each instance given; the executor group empty. */
    private static Map<String, List<Member>> workers(String... instances) {
        return Map.of(MODEL, List.of(instances).stream()
                .map(instance -> new Member("consumer-" + MODEL + "-1", Optional.of(MODEL + "-" + instance)))
                .toList());
    }

    private static Map<String, List<Member>> groups(List<Member> routing, Map<String, List<Member>> workers) {
        Map<String, List<Member>> all = new HashMap<>(Map.of(ROUTING, routing, MODEL, List.of(), EXECUTOR,
                List.of()));
        all.putAll(workers);
        return all;
    }
}
