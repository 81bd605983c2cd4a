package io.cognitionstreams.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Instant;
import java.util.Collections;
import java.util.List;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.clients.ClientPrincipal;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;

class GovernanceTopologyTest {

    private static final Instant T = Instant.parse("2026-11-22T10:00:00Z");
    private static final String UNNAMED = ", written by an unnamed writer";

    private final Topics topics = Drivers.topics();

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, Skill> skills;
    private TestInputTopic<String, Identity> identity;
    private TestInputTopic<String, MemoryEntry> memory;
    private TestInputTopic<String, Persona> personas;
    private TestOutputTopic<String, PipelineEvent> events;
    private TestOutputTopic<String, DeadLetter> letters;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        GovernanceTopology.build(builder, topics);
        driver = Drivers.driver(builder.build(), stateDir);
        skills = TopicDriver.input(driver, topics.skills);
        identity = TopicDriver.input(driver, topics.identity);
        memory = TopicDriver.input(driver, topics.memory);
        personas = TopicDriver.input(driver, topics.personas);
        events = TopicDriver.output(driver, topics.events);
        letters = TopicDriver.output(driver, topics.deadLetters);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void everyAcceptedChangeIsAnEventWithItsOldAndNewVersion() {
        skills.pipeInput("git", skill("git", "1.0.0"));
        skills.pipeInput("git", skill("git", "1.1.0"));
        skills.pipeInput("git", null);
        identity.pipeInput(IdentityGovernance.KEY, identity(2, "azrael", "prime"));

        assertThat(events.readValuesToList())
                .extracting(PipelineEvent::getType, PipelineEvent::getMessage, PipelineEvent::getEventId)
                .containsExactly(
                        tuple(AuditTrail.EVENT, "cognition.skills git added at version 1.0.0" + UNNAMED,
                                "cognition.skills-0@0/GOVERNANCE_CHANGE"),
                        tuple(AuditTrail.EVENT, "cognition.skills git changed from version 1.0.0 to 1.1.0" + UNNAMED,
                                "cognition.skills-0@1/GOVERNANCE_CHANGE"),
                        tuple(AuditTrail.EVENT, "cognition.skills git deleted (was version 1.1.0)" + UNNAMED,
                                "cognition.skills-0@2/GOVERNANCE_CHANGE"),
                        tuple(AuditTrail.EVENT, "cognition.identity identity added at version 2, approved by azrael "
                                + "and prime" + UNNAMED, "cognition.identity-0@0/GOVERNANCE_CHANGE"));
        assertThat(letters.isEmpty()).isTrue();
    }

    @Test
    void whatTheMirrorsSkipIsDeadLetteredOnceWithItsReasonAndChangesNoVersion() {
        skills.pipeInput("git", skill("git", "1.0.0"));
        events.readValuesToList();
        skills.pipeInput("shell", skill("git", "9.9.9"));
        identity.pipeInput(IdentityGovernance.KEY, identity(3, "prime"));
        memory.pipeInput("b1", entry("b1", 383));
        memory.pipeInput("b2", entry("b1", 384));
        memory.pipeInput("b3", MemoryEntry.newBuilder(entry("b3", 384)).setScope("\t").build());
        memory.pipeInput("b5", MemoryEntry.newBuilder(entry("b5", 0))
                .setVectorInt8(ByteBuffer.wrap(new byte[] {0, 0, (byte) 0xc0, 0x7f, 1, 2})).build());
        memory.pipeInput("b4", null);
        identity.pipeInput(IdentityGovernance.KEY, null);
        skills.pipeInput("git", skill("git", "1.2.0"));

        assertThat(letters.readValuesToList())
                .extracting(DeadLetter::getErrorKind, DeadLetter::getSourceTopic, DeadLetter::getReason)
                .containsExactly(
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_SKILLS,
                                "the record keyed shell names skill git"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_IDENTITY,
                                "identity version 3 authored by [prime] is not governed: only [azrael] or "
                                        + "[azrael, prime] may change identity"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_MEMORY,
                                "383 dimensions, all-MiniLM-L6-v2-q vectors have 384"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_MEMORY,
                                "memory entry of block b1 is keyed b2; cognition.memory is keyed by block id"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_MEMORY,
                                "memory entry of block b3: memory scope is empty"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_MEMORY,
                                "the vector cannot be read: the 8-bit vector's scale is NaN, not a positive number"),
                        tuple(ErrorKind.VALIDATION, Topics.COGNITION_IDENTITY,
                                "identity cannot be deleted: only a new version authored by azrael (or azrael and "
                                        + "prime) changes it"));
        assertThat(events.readValuesToList()).extracting(PipelineEvent::getMessage)
                .containsExactly("cognition.skills git changed from version 1.0.0 to 1.2.0" + UNNAMED);
    }

    @Test
    void personasAreAuditedAsSkillsAreAndOneWithoutARoleOrUnderAnotherNameIsDeadLettered() {
        personas.pipeInput("mentor", persona("mentor", "1.0.0", "You are a patient mentor."));
        personas.pipeInput("mentor", persona("mentor", "1.1.0", " "));
        personas.pipeInput("coach", persona("mentor", "2.0.0", "You are a coach."));
        personas.pipeInput("mentor", null);

        assertThat(events.readValuesToList()).extracting(PipelineEvent::getMessage).containsExactly(
                "cognition.personas mentor added at version 1.0.0" + UNNAMED,
                "cognition.personas mentor deleted (was version 1.0.0)" + UNNAMED);
        assertThat(letters.readValuesToList()).extracting(DeadLetter::getSourceTopic, DeadLetter::getReason)
                .containsExactly(
                        tuple(Topics.COGNITION_PERSONAS, "persona mentor has no role: say who the model plays"),
                        tuple(Topics.COGNITION_PERSONAS, "the record keyed coach names persona mentor"));
    }

    @Test
    void aCouncilKeyChangeIsAuditedByKeyIdAndNamesItsWriterAsTheHeaderSaysPrintableAndBounded() {
        TestInputTopic<String, CouncilKey> keys = TopicDriver.input(driver, topics.councilKeys);
        CouncilKey first = key("prime");
        CouncilKey second = key("prime");
        keys.pipeInput(new TestRecord<>("prime", first, writer("User:governance")));
        keys.pipeInput(new TestRecord<>("prime", second, writer("User:gov\u0000\u202Eernance\n" + "x".repeat(500))));
        keys.pipeInput(new TestRecord<>("prime", (CouncilKey) null, writer("User:governance")));
        keys.pipeInput(new TestRecord<>("critic", first, writer("User:agent-1")));

        List<PipelineEvent> changes = events.readValuesToList();
        assertThat(changes).extracting(PipelineEvent::getMessage).containsExactly(
                "council.keys prime added at version " + first.getKeyId() + ", written by User:governance",
                "council.keys prime changed from version " + first.getKeyId() + " to " + second.getKeyId()
                        + ", written by User:governance" + "x".repeat(AuditTrail.MAX_WRITER_CHARS - 15),
                "council.keys prime deleted (was version " + second.getKeyId() + "), written by User:governance");
        assertThat(changes.get(0).getAttributes()).containsEntry("written_by", "User:governance")
                .containsEntry("new_version", first.getKeyId()).containsEntry("topic", Topics.COUNCIL_KEYS);
        assertThat(letters.readValuesToList()).extracting(DeadLetter::getSourceTopic, DeadLetter::getReason)
                .containsExactly(tuple(Topics.COUNCIL_KEYS,
                        "record key 'critic' is not the role 'prime': council.keys is keyed by role"));
    }

    private static CouncilKey key(String role) {
        PublicKey publicKey = Ed25519.Key.generated().pair().getPublic();
        return CouncilKey.newBuilder().setRole(role).setPublicKey(Ed25519.toBase64(publicKey))
                .setKeyId(Ed25519.keyId(publicKey)).setTimestamp(T).build();
    }

    private static Headers writer(String name) {
        return new RecordHeaders().add(ClientPrincipal.HEADER, name.getBytes(StandardCharsets.UTF_8));
    }

    private static Persona persona(String name, String version, String role) {
        return Persona.newBuilder().setName(name).setVersion(version).setRole(role).setTimestamp(T).build();
    }

    private static Skill skill(String name, String version) {
        return Skill.newBuilder().setName(name).setVersion(version).setPermissions(List.of("git:*"))
                .setProtocol("Commit small.").setTimestamp(T).build();
    }

    private static Identity identity(int version, String... authors) {
        return Identity.newBuilder().setText("Be truthful.").setVersion(version).setAuthors(List.of(authors))
                .setTimestamp(T).build();
    }

    private static MemoryEntry entry(String block, int dimension) {
        return MemoryEntry.newBuilder().setBlockId(block).setSessionId("s1").setMarker(Marker.THOUGHT_SEED)
                .setText("a checklist could be a skill").setEmbeddingModel(MiniLmEmbedder.MODEL)
                .setEmbedding(Collections.nCopies(dimension, 0.05f)).setTimestamp(T).build();
    }
}
