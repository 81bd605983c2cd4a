package io.cognitionstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/**
 * What `run` writes of its skills at each start, on a real broker: nothing when a skill is as its latest record says
 * (apart from the time it was published), the skill again when it changed, and when the latest record is one it
 * cannot read (anyone with write access could have put bytes there) or a deletion.
 */
@ExtendWith(SharedBroker.class)
class PublisherIT {

    @Test
    void aStartWritesASkillOnlyWhenItsLatestRecordDiffersOrCannotBeRead(EmbeddedKafkaBroker broker) throws Exception {
        String bootstrap = broker.bootstrapServers();
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        String app = "it-publisher-" + UUID.randomUUID().toString().substring(0, 8);
        Logins.allowApp(bootstrap, app);
        try (Admin admin = Admin.create(Logins.as(bootstrap, Principals.APP))) {
            TopicProvisioner.ensure(admin, topics, 3, (short) 1);
        }
        // Skills are governed: only governance may write them when the broker is secured.
        Map<String, Object> governance = Logins.as(bootstrap, Principals.GOVERNANCE);
        String name = app;
        Skill skill = Skill.newBuilder().setName(name).setVersion("1.0.0").setPermissions(List.of(name + ":read"))
                .setProtocol("Read before you write.").setTimestamp(Instant.now()).build();

        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, skill))).containsOnlyKeys(name);
        Skill nextStart = Skill.newBuilder(skill).setTimestamp(Instant.now().plusSeconds(60)).build();
        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, nextStart)))
                .as("unchanged but for its timestamp").isEmpty();
        Skill edited = Skill.newBuilder(nextStart).setProtocol("Read twice before you write.").build();
        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, edited))).containsOnlyKeys(name);

        Kafka.send(governance, Topics.COGNITION_SKILLS, name, "not a skill".getBytes(StandardCharsets.UTF_8));
        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, edited)))
                .as("the latest record cannot be read").containsOnlyKeys(name);
        Kafka.send(governance, Topics.COGNITION_SKILLS, name, null);
        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, edited)))
                .as("the skill was deleted").containsOnlyKeys(name);
        assertThat(Publisher.publishChanged(governance, topics.skills, Map.of(name, edited))).isEmpty();

        // The first, the edit, the unreadable record, the edit again, the tombstone and the edit once more.
        assertThat(Kafka.readRaw(bootstrap, Topics.COGNITION_SKILLS).stream()
                .filter(record -> name.equals(new String(record.key(), StandardCharsets.UTF_8))))
                .hasSize(6);
    }
}
