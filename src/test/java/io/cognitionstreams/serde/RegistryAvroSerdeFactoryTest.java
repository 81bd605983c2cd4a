package io.cognitionstreams.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Confluent wire format through Apicurio's serdes, against {@link ApicurioApiDouble}: a test double of the
 * registry's HTTP API on 127.0.0.1, not a registry (no registry server can run here). What these tests prove is what
 * the app sends and how it reads what comes back; that a real Apicurio Registry 3 answers the same way is not proven
 * here.
 */
class RegistryAvroSerdeFactoryTest {

    /** Four different bytes, so the test sees the id's byte order: 0x0A0B0C0D. */
    private static final long FIRST_ID = 0x0A0B0C0DL;
    private static final String TOPIC = "cognition.requests";
    private static final String SUBJECT = "cognition.requests-value";

    private ApicurioApiDouble registry;

    @BeforeEach
    void start() {
        registry = new ApicurioApiDouble(FIRST_ID);
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void roundTripReturnsTheGeneratedRecord() {
        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            CognitionRequest request = request("r-1");

            byte[] bytes = serde.serializer().serialize(TOPIC, request);
            CognitionRequest back = serde.deserializer().deserialize(TOPIC, bytes);

            assertThat(back).isInstanceOf(CognitionRequest.class).isEqualTo(request);
            assertThat(back.getTimestamp()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
            assertThat(registry.unexpectedCalls()).isEmpty();
        }
    }

    @Test
    void valueIsMagicZeroThenTheRegistrysIdThenThePlainAvroBody() throws IOException {
        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            CognitionRequest request = request("r-2");

            byte[] bytes = serde.serializer().serialize(TOPIC, request);

            assertThat(registry.versions(SUBJECT)).singleElement()
                    .satisfies(v -> assertThat(v.contentId()).isEqualTo(FIRST_ID));
            assertThat(Arrays.copyOfRange(bytes, 0, 5)).containsExactly(0x00, 0x0A, 0x0B, 0x0C, 0x0D);
            assertThat(Arrays.copyOfRange(bytes, 5, bytes.length)).isEqualTo(plainAvro(request));
        }
    }

    @Test
    void subjectIsTopicValueAndGetsBackwardBeforeASecondVersionCanBeAdded() {
        RegistryAvroSerdeFactory factory = factory();
        try (Serde<CognitionRequest> serde = factory.serde(CognitionRequest.class)) {
            serde.serializer().serialize(TOPIC, request("a"));
            serde.serializer().serialize("other.topic", request("b"));
            int callsAfterFirstRecords = registry.calls().size();
            serde.serializer().serialize(TOPIC, request("c"));

            assertThat(registry.subjects()).containsExactlyInAnyOrder(SUBJECT, "other.topic-value");
            assertThat(registry.compatibility(SUBJECT)).contains("BACKWARD");
            assertThat(registry.compatibility("other.topic-value")).contains("BACKWARD");
            // New subject: the rule call finds no artifact (404), the first version creates it, the rule follows.
            assertThat(registry.calls().subList(0, 3)).extracting(c -> c.method() + " " + c.path())
                    .containsExactly(
                            "POST " + ApicurioApiDouble.API + "/groups/default/artifacts/" + SUBJECT + "/rules",
                            "POST " + ApicurioApiDouble.API + "/groups/default/artifacts",
                            "POST " + ApicurioApiDouble.API + "/groups/default/artifacts/" + SUBJECT + "/rules");
            assertThat(registry.calls().get(1).query()).contains("ifExists=FIND_OR_CREATE_VERSION");
            assertThat(registry.calls().get(2).body()).contains("\"ruleType\":\"COMPATIBILITY\"")
                    .contains("\"config\":\"BACKWARD\"");
            // The registered schema is the generated class's, whole.
            assertThat(new Schema.Parser().parse(registry.versions(SUBJECT).get(0).content()))
                    .isEqualTo(CognitionRequest.getClassSchema());
            // Schema and rule are cached: a further record on a known subject costs no HTTP call.
            assertThat(registry.calls()).hasSize(callsAfterFirstRecords);
            assertThat(factory.describe()).contains("Confluent wire format").contains("BACKWARD");
        }
    }

    @Test
    void anExistingSubjectGetsTheRuleBeforeTheNewVersionAndAnExistingRuleIsKept() {
        registry.register(SUBJECT, "{\"type\":\"record\",\"name\":\"CognitionRequest\","
                + "\"namespace\":\"io.cognitionstreams.schema\",\"fields\":[]}");
        registry.register("kept-value", "\"string\"");
        registry.setCompatibility("kept-value", "FULL_TRANSITIVE");

        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            serde.serializer().serialize(TOPIC, request("x"));
            serde.serializer().serialize("kept", request("y"));
        }

        assertThat(registry.calls().subList(0, 2)).extracting(c -> c.method() + " " + c.path()).containsExactly(
                "POST " + ApicurioApiDouble.API + "/groups/default/artifacts/" + SUBJECT + "/rules",
                "POST " + ApicurioApiDouble.API + "/groups/default/artifacts");
        assertThat(registry.compatibility(SUBJECT)).contains("BACKWARD");
        assertThat(registry.versions(SUBJECT)).hasSize(2);
        assertThat(registry.compatibility("kept-value")).contains("FULL_TRANSITIVE");
    }

    @Test
    void compatibilityIsConfigurableOrLeftToTheRegistry() {
        try (Serde<CognitionRequest> serde = factory(Map.of(RegistryAvroSerdeFactory.COMPATIBILITY, "full"))
                .serde(CognitionRequest.class)) {
            serde.serializer().serialize("full", request("f"));
        }
        try (Serde<CognitionRequest> serde = factory(Map.of(RegistryAvroSerdeFactory.COMPATIBILITY, ""))
                .serde(CognitionRequest.class)) {
            serde.serializer().serialize("untouched", request("u"));
        }

        assertThat(registry.compatibility("full-value")).contains("FULL");
        assertThat(registry.compatibility("untouched-value")).isEmpty();
        assertThat(registry.calls()).noneMatch(c -> c.path().contains("untouched-value"));
    }

    @Test
    void nestedNamedTypesAreRegisteredInlineUnderTheOneSubject() {
        DeadLetter letter = DeadLetter.newBuilder().setReason("bad").setErrorKind(ErrorKind.VALIDATION)
                .setSourceTopic("cognition.requests").setSourcePartition(2).setSourceOffset(42L)
                .setTimestamp(Instant.ofEpochMilli(5L)).build();
        try (Serde<DeadLetter> serde = factory().serde(DeadLetter.class)) {
            byte[] bytes = serde.serializer().serialize("cognition.dlq", letter);

            assertThat(serde.deserializer().deserialize("cognition.dlq", bytes)).isEqualTo(letter);
        }
        assertThat(registry.subjects()).containsExactly("cognition.dlq-value");
        assertThat(registry.versions("cognition.dlq-value").get(0).content()).contains("\"ErrorKind\"");
    }

    @Test
    void aValueWrittenWithAnOlderSchemaDecodesIntoTheCurrentClass() throws IOException {
        // The older CognitionRequest lacked parent_id, retry_count and auto_continue_step; the current one adds them
        // with defaults,
        // which is what BACKWARD allows: the new reader reads the old data.
        Schema current = CognitionRequest.getClassSchema();
        List<Schema.Field> oldFields = current.getFields().stream()
                .filter(f -> !Set.of("parent_id", "retry_count", "auto_continue_step").contains(f.name()))
                .map(f -> new Schema.Field(f, f.schema())).toList();
        Schema old = Schema.createRecord(current.getName(), null, current.getNamespace(), false, oldFields);
        long id = registry.register(SUBJECT, old.toString());
        GenericRecord written = new GenericData.Record(old);
        written.put("request_id", "old-1");
        written.put("session_id", "s");
        written.put("user_prompt", "hello");
        written.put("task_instruction_key", "initial_planning");
        written.put("target_model", "gpt-4o");
        written.put("timestamp", 1_000L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(old).write(written, encoder);
        encoder.flush();
        byte[] body = out.toByteArray();
        byte[] value = ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt((int) id).put(body).array();

        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            CognitionRequest read = serde.deserializer().deserialize(TOPIC, value);

            assertThat(read.getRequestId()).isEqualTo("old-1");
            assertThat(read.getRetryCount()).isZero();
            assertThat(read.getParentId()).isNull();
            assertThat(read.getTimestamp()).isEqualTo(Instant.ofEpochMilli(1_000L));
        }
    }

    @Test
    void aSchemaTheRegistryRefusesFailsNamingSubjectAndRegistry() {
        registry.register(SUBJECT, "\"string\"");
        registry.refuseNewVersions(SUBJECT);

        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            assertThatThrownBy(() -> serde.serializer().serialize(TOPIC, request("r")))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("subject " + SUBJECT)
                    .hasMessageContaining(registry.url())
                    .hasMessageContaining("HTTP 409")
                    .hasMessageContaining("Incompatible artifact");
        }
    }

    @Test
    void aRegistryThatIsDownFailsNamingUrlAndSubject() throws IOException {
        String down = "http://127.0.0.1:" + freePort();
        try (Serde<CognitionRequest> withRule = factory(down, Map.of()).serde(CognitionRequest.class);
             Serde<CognitionRequest> noRule = factory(down, Map.of(RegistryAvroSerdeFactory.COMPATIBILITY, ""))
                     .serde(CognitionRequest.class)) {
            assertThatThrownBy(() -> withRule.serializer().serialize(TOPIC, request("r")))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("schema registry " + down)
                    .hasMessageContaining("subject " + SUBJECT)
                    .hasMessageContaining("registry unreachable");
            assertThatThrownBy(() -> noRule.serializer().serialize(TOPIC, request("r")))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("cannot register the schema of " + CognitionRequest.class.getName())
                    .hasMessageContaining("schema registry " + down)
                    .hasMessageContaining("subject " + SUBJECT)
                    .hasMessageContaining("registry unreachable");
            byte[] confluentFramed = {0, 0, 0, 0, 7, 2, 'x'};
            assertThatThrownBy(() -> noRule.deserializer().deserialize(TOPIC, confluentFramed))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("schema id 7")
                    .hasMessageContaining("schema registry " + down)
                    .hasMessageContaining("registry unreachable");
        }
    }

    @Test
    void aValueWithoutTheMagicByteIsRejectedAsNotConfluentWireFormat() {
        byte[] singleObject;
        try (Serde<CognitionRequest> registryLess = new SingleObjectAvroSerdeFactory().serde(CognitionRequest.class)) {
            singleObject = registryLess.serializer().serialize(TOPIC, request("s"));
        }
        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, singleObject))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("value on " + TOPIC + " is not in the Confluent wire format")
                    .hasMessageContaining("expected magic byte 0x00")
                    .hasMessageContaining("got C3 01")
                    .hasMessageContaining("single-object encoding");
            assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, new byte[] {1, 2}))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("not in the Confluent wire format")
                    .hasMessageContaining("got 01 02");
        }
        assertThat(registry.calls()).isEmpty();
    }

    @Test
    void anIdTheRegistryDoesNotKnowFailsNamingTheId() {
        try (Serde<CognitionRequest> serde = factory().serde(CognitionRequest.class)) {
            assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, new byte[] {0, 0, 0, 0, 99, 2}))
                    .isInstanceOf(SerializationException.class)
                    .hasMessageContaining("schema id 99")
                    .hasMessageContaining(registry.url())
                    .hasMessageContaining("HTTP 404");
        }
    }

    @Test
    void fromConfigChoosesTheRegistryWhenAUrlIsSet() {
        Map<String, Object> configs = new HashMap<>();
        assertThat(AvroSerdes.fromConfig(configs)).isInstanceOf(SingleObjectAvroSerdeFactory.class);

        configs.put(AvroSerdes.SCHEMA_REGISTRY_URL, registry.url() + "/");
        configs.put(RegistryAvroSerdeFactory.COMPATIBILITY, "backward_transitive");
        AvroSerdeFactory chosen = AvroSerdes.fromConfig(configs);

        assertThat(chosen).isInstanceOf(RegistryAvroSerdeFactory.class);
        RegistryAvroSerdeFactory factory = (RegistryAvroSerdeFactory) chosen;
        assertThat(factory.apiUrl()).isEqualTo(registry.url() + "/apis/registry/v3");
        assertThat(factory.compatibility()).isEqualTo("BACKWARD_TRANSITIVE");
        assertThat(new RegistryAvroSerdeFactory(registry.url() + "/apis/registry/v3").apiUrl())
                .isEqualTo(registry.url() + "/apis/registry/v3");
    }

    @Test
    void badConfigurationIsRefusedUpFront() {
        assertThatThrownBy(() -> new RegistryAvroSerdeFactory("http://registry:8080/apis/ccompat/v7"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Confluent-compatible API")
                .hasMessageContaining("use http://registry:8080");
        assertThatThrownBy(() -> new RegistryAvroSerdeFactory("registry:8080"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(AvroSerdes.SCHEMA_REGISTRY_URL);
        assertThatThrownBy(() -> factory(Map.of(RegistryAvroSerdeFactory.COMPATIBILITY, "SOMETIMES")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("BACKWARD");
    }

    @Test
    void apicurioKeysPassThroughButNotTheOnesThatDecideTheWireFormatOrTheSubject() {
        Map<String, Object> passed = RegistryAvroSerdeFactory.apicurioConfig("http://r/apis/registry/v3", Map.of(
                "apicurio.registry.retry-count", "5",
                "apicurio.registry.id-handler", "io.apicurio.registry.serde.Legacy8ByteIdHandler",
                "apicurio.registry.headers.enabled", "true",
                "apicurio.registry.artifact.artifact-id", "one-for-all",
                "bootstrap.servers", "localhost:9092"));

        assertThat(passed).containsEntry("apicurio.registry.retry-count", "5")
                .containsEntry("apicurio.registry.url", "http://r/apis/registry/v3")
                .containsEntry("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler")
                .containsEntry("apicurio.registry.use-id", "contentId")
                .containsEntry("apicurio.registry.headers.enabled", "false")
                .containsEntry("apicurio.registry.dereference-schema", "true")
                .containsEntry("apicurio.registry.artifact-resolver-strategy",
                        "io.apicurio.registry.serde.strategy.TopicIdStrategy")
                .doesNotContainKeys("apicurio.registry.artifact.artifact-id", "bootstrap.servers");
    }

    private RegistryAvroSerdeFactory factory() {
        return factory(Map.of());
    }

    private RegistryAvroSerdeFactory factory(Map<String, ?> configs) {
        return factory(registry.url(), configs);
    }

    private static RegistryAvroSerdeFactory factory(String url, Map<String, ?> configs) {
        return new RegistryAvroSerdeFactory(url, configs);
    }

    private static CognitionRequest request(String id) {
        return CognitionRequest.newBuilder().setRequestId(id).setSessionId("session-1").setUserPrompt("plan it")
                .setPersona("architect").setMtu(2048).setTimestamp(Instant.ofEpochMilli(1_700_000_000_123L))
                .build();
    }

    private static byte[] plainAvro(CognitionRequest request) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(CognitionRequest.class).write(request, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
