package io.cognitionstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Hostile;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;

/** A global store over a topic an attacker can write: nothing it writes may stop the thread or erase a value. */
class GlobalMirrorTest {

    private static final String STORE = "skills";

    private final Topics topics = Drivers.topics();

    @TempDir
    Path stateDir;

    @Test
    void badBytesALengthBombARefusedValueAndAKeylessRecordLeaveThePreviousValueAndLaterRecordsApply() {
        StreamsBuilder builder = new StreamsBuilder();
        GlobalView<Skill> view = new GlobalView<>();
        GlobalMirror.add(builder, topics.skills, STORE, SkillsStore::refuse, view);
        try (TopologyTestDriver driver = Drivers.driver(builder.build(), stateDir)) {
            TestInputTopic<String, Skill> skills = TopicDriver.input(driver, topics.skills);
            TestInputTopic<String, byte[]> raw = TopicDriver.raw(driver, topics.skills);
            KeyValueStore<String, Skill> store = driver.getKeyValueStore(STORE);

            skills.pipeInput("git", skill("git", "1.0.0", "git:*"));
            raw.pipeInput("git", Hostile.NOT_AVRO);
            raw.pipeInput("git", Hostile.lengthBomb(Skill.class));
            skills.pipeInput("git", skill("git", "6.6.6", "not a permission"));
            skills.pipeInput("shell", skill("git", "1.0.0", "*"));
            assertThat(store.get("git").getVersion()).as("every bad update left the good value").isEqualTo("1.0.0");
            assertThat(store.get("shell")).as("a record keyed by another skill's name").isNull();
            assertThat(view.values()).as("the view holds what the store holds").containsExactly(store.get("git"));

            skills.pipeInput("git", skill("git", "1.1.0", "git:*"));
            assertThat(store.get("git").getVersion()).isEqualTo("1.1.0");
            skills.pipeInput("git", null);
            assertThat(store.get("git")).as("a tombstone deletes").isNull();
            assertThat(view.values()).isEmpty();
        }
    }

    @Test
    void anUndeletableTopicKeepsItsValueThroughATombstone() {
        StreamsBuilder builder = new StreamsBuilder();
        GlobalMirror.add(builder, topics.identity, "identity", IdentityGovernance.CHECK);
        try (TopologyTestDriver driver = Drivers.driver(builder.build(), stateDir)) {
            TestInputTopic<String, Identity> identity = TopicDriver.input(driver, topics.identity);
            KeyValueStore<String, Identity> store = driver.getKeyValueStore("identity");
            identity.pipeInput(IdentityGovernance.KEY, Identity.newBuilder().setText("Be truthful.").setVersion(2)
                    .setAuthors(List.of("azrael")).setTimestamp(Instant.parse("2026-11-22T10:00:00Z")).build());
            identity.pipeInput(IdentityGovernance.KEY, null);

            assertThat(store.get(IdentityGovernance.KEY).getVersion()).isEqualTo(2);
        }
    }

    static Skill skill(String name, String version, String permission) {
        return Skill.newBuilder().setName(name).setVersion(version).setPermissions(List.of(permission))
                .setProtocol("Commit small.").setTimestamp(Instant.parse("2026-11-22T10:00:00Z")).build();
    }
}
