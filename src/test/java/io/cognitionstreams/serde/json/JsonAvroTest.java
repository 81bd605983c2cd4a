package io.cognitionstreams.serde.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoleState;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.Vote;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.Conversion;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class JsonAvroTest {

    /** JSON written with ' for " to keep the fixtures readable. */
    private static String j(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final long T0_MILLIS = 1795341600000L;

    private static final String REQUEST =
            j("{'request_id':'req-1','session_id':'sess-1','user_prompt':'Plan the migration.',"
                    + "'persona':'architect','active_skill':null,'task_instruction_key':'initial_planning',"
                    + "'target_model':'gpt-4o','mtu':4096,'parent_id':null,'retry_count':0,'retry_reason':null,"
                    + "'history_until':null,'auto_continue_step':0,'time_travel':null,"
                    + "'timestamp':'2026-11-22T10:00:00Z','council_id':null,'origin_session_id':null,"
                    + "'memory_scope':null,'memory_as_of':null}");

    private static final String PACKET =
            j("{'meta':{'packet_id':'0badcafe','parent_id':null,'time_travel':null,'timestamp':'2026-11-22T10:00:00.250Z',"
                    + "'confidence':0.9,'risk_level':'MED','retry_count':null,'council_id':null,'origin_session_id':null,"
                    + "'memory_scope':null},"
                    + "'request_id':'req-1','session_id':'sess-1','target_model':'gpt-4o',"
                    + "'encoding':'o200k_base','mtu':4096,"
                    + "'header':{'identity':'You are Cognition.','persona':'architect',"
                    + "'task_instruction_key':'initial_planning','task_instruction':'Make a plan.',"
                    + "'active_skill':'planner','context':'','reanchor':null},"
                    + "'payload':{'history':["
                    + "{'role':'SYSTEM','content':'Be brief.','tool_call_id':null,'name':null,'token_count':3,"
                    + "'tool_calls':[]},"
                    + "{'role':'USER','content':'Hi','tool_call_id':null,'name':'alice','token_count':1,"
                    + "'tool_calls':[]},"
                    + "{'role':'TOOL','content':'ok','tool_call_id':'call-7','name':null,'token_count':null,"
                    + "'tool_calls':[]}],"
                    + "'user_prompt':'Plan the migration.'},"
                    + "'history_until':0,'field_tokens':{'history':7,'identity':4},'total_tokens':42,'tools':[]}");

    private static final String COUNCIL =
            j("{'msg_id':'m-1','parent_id':'m-0','council_id':'default',"
                    + "'timestamp':'2026-11-22T10:00:05Z','sender':'lite','role':'observer','type':'VOTE',"
                    + "'confidence':0.75,'risk_level':'LOW','content':'Agree with the plan.',"
                    + "'proposal_id':'p-1','vote':'YES','session_id':'sess-1','time_travel':null,"
                    + "'origin_session_id':null,'signing_key':null,'signature':null}");

    private static final String DEAD_LETTER =
            j("{'reason':'bad magic byte','error_kind':'DESERIALIZATION',"
                    + "'error_class':'org.apache.kafka.common.errors.SerializationException',"
                    + "'source_topic':'cognition.requests','source_partition':0,'source_offset':42,"
                    + "'processor':'KSTREAM-SOURCE-0000000000','application_id':'cognition',"
                    + "'key':'c2Vzcy0x','value':'AAEC/w==','value_size':4,"
                    + "'timestamp':'2026-11-22T10:00:00Z'}");

    private static final String EVENT =
            j("{'event_id':'e-1','type':'autofix/attempt','severity':'WARN','session_id':'sess-1',"
                    + "'request_id':null,'packet_id':null,'message':'retrying',"
                    + "'attributes':{'attempt':'2','x/y':'z'},'timestamp':'2026-11-22T10:00:00Z',"
                    + "'time_travel':'REPLAY','parent_id':'0badcafe','origin_session_id':'sess-1'}");

    private static final String ROLE =
            j("{'council_id':'default','role':'lite','status':'ACTIVE',"
                    + "'last_heartbeat':'2026-11-22T09:59:30Z','timestamp':'2026-11-22T10:00:00Z'}");

    private static final String MINIMAL_REQUEST =
            j("{'request_id':'req-1','session_id':'sess-1','user_prompt':'Hi','timestamp':0}");

    // ------------------------------------------------------------------------------------------
    // Round trips and values of real types

    @Test
    void fullySpecifiedLinesPrintBackUnchanged() {
        assertStable(REQUEST, CognitionRequest.class);
        assertStable(PACKET, CognitionPacket.class);
        assertStable(COUNCIL, CouncilMessage.class);
        assertStable(DEAD_LETTER, DeadLetter.class);
        assertStable(EVENT, PipelineEvent.class);
        assertStable(ROLE, RoleStatus.class);
    }

    private static <T extends SpecificRecord> void assertStable(String json, Class<T> type) {
        T record = JsonAvro.fromJson(json, type);
        assertThat(JsonAvro.toJson(record)).isEqualTo(json);
        assertThat(JsonAvro.fromJson(JsonAvro.toJson(record), type)).isEqualTo(record);
    }

    @Test
    void cognitionRequestValues() {
        CognitionRequest r = JsonAvro.fromJson(REQUEST, CognitionRequest.class);
        assertThat(r.getRequestId()).isEqualTo("req-1");
        assertThat(r.getPersona()).isEqualTo("architect");
        assertThat(r.getActiveSkill()).isNull();
        assertThat(r.getMtu()).isEqualTo(4096);
        assertThat(r.getTimestamp()).isEqualTo(T0);
    }

    @Test
    void cognitionPacketNestedHeaderPayloadAndHistory() {
        CognitionPacket p = JsonAvro.fromJson(PACKET, CognitionPacket.class);
        assertThat(p.getMeta().getPacketId()).isEqualTo("0badcafe");
        assertThat(p.getMeta().getTimestamp()).isEqualTo(T0.plusMillis(250));
        assertThat(p.getMeta().getConfidence()).isEqualTo(0.9);
        assertThat(p.getMeta().getRiskLevel()).isEqualTo(RiskLevel.MED);
        assertThat(p.getMeta().getRetryCount()).isNull();
        assertThat(p.getHeader().getActiveSkill()).isEqualTo("planner");
        assertThat(p.getHeader().getReanchor()).isNull();
        List<ChatMessage> history = p.getPayload().getHistory();
        assertThat(history).hasSize(3);
        assertThat(history.get(0).getRole()).isEqualTo(ChatRole.SYSTEM);
        assertThat(history.get(1).getName()).isEqualTo("alice");
        assertThat(history.get(2).getRole()).isEqualTo(ChatRole.TOOL);
        assertThat(history.get(2).getToolCallId()).isEqualTo("call-7");
        assertThat(history.get(2).getTokenCount()).isNull();
        assertThat(p.getFieldTokens()).containsExactly(Map.entry("history", 7), Map.entry("identity", 4));
    }

    @Test
    void builtRecordRoundTrips() {
        CognitionPacket built =
                CognitionPacket.newBuilder(JsonAvro.fromJson(PACKET, CognitionPacket.class))
                        .setTotalTokens(7)
                        .build();
        assertThat(JsonAvro.fromJson(JsonAvro.toJson(built), CognitionPacket.class)).isEqualTo(built);
    }

    @Test
    void councilMessageEnums() {
        CouncilMessage m = JsonAvro.fromJson(COUNCIL, CouncilMessage.class);
        assertThat(m.getType()).isEqualTo(CouncilMessageType.VOTE);
        assertThat(m.getVote()).isEqualTo(Vote.YES);
        assertThat(m.getRiskLevel()).isEqualTo(RiskLevel.LOW);

        assertError(
                COUNCIL.replace(j("'type':'VOTE'"), j("'type':'vote'")),
                CouncilMessage.class,
                j("$.type: expected one of [PROPOSAL, VOTE, INFO, ESCALATION, HEARTBEAT], got 'vote'"));
        assertError(
                COUNCIL.replace(j("'vote':'YES'"), j("'vote':'MAYBE'")),
                CouncilMessage.class,
                j("$.vote: expected one of [YES, NO, ABSTAIN] or null, got 'MAYBE'"));
        assertError(
                COUNCIL.replace(j("'vote':'YES'"), "\"vote\":1"),
                CouncilMessage.class,
                "$.vote: expected one of [YES, NO, ABSTAIN] or null, got 1");
        assertError(
                PACKET.replace(j("'role':'TOOL'"), j("'role':'robot'")),
                CognitionPacket.class,
                j("$.payload.history[2].role: expected one of [SYSTEM, USER, ASSISTANT, TOOL], got 'robot'"));
    }

    @Test
    void deadLetterBytesAreBase64() {
        DeadLetter d = JsonAvro.fromJson(DEAD_LETTER, DeadLetter.class);
        assertThat(d.getErrorKind()).isEqualTo(ErrorKind.DESERIALIZATION);
        assertThat(bytes(d.getKey())).isEqualTo("sess-1".getBytes(StandardCharsets.UTF_8));
        assertThat(bytes(d.getValue())).containsExactly(0, 1, 2, 0xff);

        d.setValue(ByteBuffer.wrap(new byte[] {9, 9, 0, 1, 2, (byte) 0xff}, 2, 4));
        assertThat(JsonAvro.toJson(d)).contains(j("'value':'AAEC/w=='"));
        assertThat(d.getValue().position()).isEqualTo(2); // printing does not consume the buffer

        d.setKey(ByteBuffer.wrap(new byte[0]));
        d.setValue(null);
        assertThat(JsonAvro.toJson(d)).contains(j("'key':'','value':null"));

        assertError(
                DEAD_LETTER.replace("c2Vzcy0x", "not base64!"),
                DeadLetter.class,
                j("$.key: expected base64 string or null, got 'not base64!' "
                        + "(Illegal base64 character 20)"));
        assertError(
                DEAD_LETTER.replace(j("'c2Vzcy0x'"), "[1,2]"),
                DeadLetter.class,
                "$.key: expected base64 string or null, got array");
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }

    @Test
    void pipelineEventMapIsAnObjectPrintedWithSortedKeys() {
        PipelineEvent e = JsonAvro.fromJson(EVENT, PipelineEvent.class);
        assertThat(e.getSeverity()).isEqualTo(Severity.WARN);
        assertThat(e.getAttributes()).containsOnly(Map.entry("attempt", "2"), Map.entry("x/y", "z"));

        Map<String, String> attributes = new HashMap<>();
        for (String key : List.of("zeta", "alpha", "mid", "", "Z")) {
            attributes.put(key, key.toUpperCase());
        }
        e.setAttributes(attributes);
        assertThat(JsonAvro.toJson(e))
                .contains(j("'attributes':{'':'','Z':'Z','alpha':'ALPHA','mid':'MID','zeta':'ZETA'}"));

        assertError(
                EVENT.replace(j("'attempt':'2'"), j("'attempt':2")),
                PipelineEvent.class,
                "$.attributes.attempt: expected string, got 2");
        assertError(
                EVENT.replace(j("'x/y':'z'"), j("'x/y':true")),
                PipelineEvent.class,
                "$.attributes['x/y']: expected string, got true");
        assertError(
                EVENT.replace(j("{'attempt':'2','x/y':'z'}"), j("['a']")),
                PipelineEvent.class,
                "$.attributes: expected object (map), got array");
    }

    @Test
    void roleStatusNullableTimestamp() {
        RoleStatus r = JsonAvro.fromJson(ROLE, RoleStatus.class);
        assertThat(r.getStatus()).isEqualTo(RoleState.ACTIVE);
        assertThat(r.getLastHeartbeat()).isEqualTo(T0.minusSeconds(30));

        String explicitNull = ROLE.replace(j("'2026-11-22T09:59:30Z'"), "null");
        assertThat(JsonAvro.fromJson(explicitNull, RoleStatus.class).getLastHeartbeat()).isNull();
        assertStable(explicitNull, RoleStatus.class);

        String missing = ROLE.replace(j("'last_heartbeat':'2026-11-22T09:59:30Z',"), "");
        assertThat(JsonAvro.fromJson(missing, RoleStatus.class).getLastHeartbeat()).isNull();
        assertThat(JsonAvro.toJson(JsonAvro.fromJson(missing, RoleStatus.class)))
                .isEqualTo(explicitNull);

        String epoch = ROLE.replace(j("'2026-11-22T09:59:30Z'"), Long.toString(T0_MILLIS - 30_000));
        assertThat(JsonAvro.fromJson(epoch, RoleStatus.class)).isEqualTo(r);

        assertError(
                ROLE.replace(j("'2026-11-22T09:59:30Z'"), "true"),
                RoleStatus.class,
                "$.last_heartbeat: expected timestamp (ISO-8601 instant string or epoch millis integer)"
                        + " or null, got true");
    }

    // ------------------------------------------------------------------------------------------
    // Timestamps

    @Test
    void timestampAcceptsEpochMillisAndIsoInstants() {
        assertThat(T0.toEpochMilli()).isEqualTo(T0_MILLIS);
        for (String form :
                List.of(
                        Long.toString(T0_MILLIS),
                        j("'2026-11-22T10:00:00Z'"),
                        j("'2026-11-22T10:00:00.000Z'"),
                        j("'2026-11-22T11:00:00+01:00'"),
                        j("'2026-11-22T05:30:00-04:30'"))) {
            CognitionRequest r =
                    JsonAvro.fromJson(MINIMAL_REQUEST.replace("\"timestamp\":0", "\"timestamp\":" + form),
                            CognitionRequest.class);
            assertThat(r.getTimestamp()).as(form).isEqualTo(T0);
            assertThat(JsonAvro.toJson(r)).as(form).contains(j("'timestamp':'2026-11-22T10:00:00Z'"));
        }
    }

    @Test
    void timestampPrintsMillisOnlyWhenThereAreAny() {
        assertThat(timestampOut("1")).isEqualTo("1970-01-01T00:00:00.001Z");
        assertThat(timestampOut("0")).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(timestampOut("-1")).isEqualTo("1969-12-31T23:59:59.999Z");
        assertThat(timestampOut(j("'2026-11-22T10:00:00.120Z'"))).isEqualTo("2026-11-22T10:00:00.120Z");
        assertThat(timestampOut(Long.toString(Long.MAX_VALUE)))
                .isEqualTo("+292278994-08-17T07:12:55.807Z");
        assertThat(timestampOut(j("'+292278994-08-17T07:12:55.807Z'")))
                .isEqualTo("+292278994-08-17T07:12:55.807Z");
    }

    private static String timestampOut(String in) {
        CognitionRequest r =
                JsonAvro.fromJson(
                        MINIMAL_REQUEST.replace("\"timestamp\":0", "\"timestamp\":" + in),
                        CognitionRequest.class);
        return r.getTimestamp().toString();
    }

    @Test
    void badTimestamps() {
        String expected = "$.timestamp: expected timestamp (ISO-8601 instant string or epoch millis integer)";
        assertError(withTimestamp(j("'yesterday'")), CognitionRequest.class, expected + j(", got 'yesterday'"));
        assertError(withTimestamp(j("'2026-11-22'")), CognitionRequest.class, expected + j(", got '2026-11-22'"));
        assertError(withTimestamp(j("'2026-11-22 10:00:00Z'")), CognitionRequest.class,
                expected + j(", got '2026-11-22 10:00:00Z'"));
        assertError(withTimestamp(j("'1795341600000'")), CognitionRequest.class,
                expected + j(", got '1795341600000'"));
        assertError(withTimestamp("1795341600000.0"), CognitionRequest.class, expected + ", got 1795341600000.0");
        assertError(withTimestamp("null"), CognitionRequest.class, expected + ", got null");
        assertError(withTimestamp(j("'2026-11-22T10:00:00.0001Z'")), CognitionRequest.class,
                expected + j(" with at most millisecond precision, got '2026-11-22T10:00:00.0001Z'"));
        assertError(withTimestamp("9223372036854775808"), CognitionRequest.class,
                expected + ", got 9223372036854775808 (out of range)");
        assertError(withTimestamp(j("'+292278994-08-17T07:12:55.808Z'")), CognitionRequest.class,
                expected + j(", got '+292278994-08-17T07:12:55.808Z' (out of range)"));
    }

    private static String withTimestamp(String value) {
        return MINIMAL_REQUEST.replace("\"timestamp\":0", "\"timestamp\":" + value);
    }

    // ------------------------------------------------------------------------------------------
    // Defaults and nullable unions

    @Test
    void missingFieldsTakeSchemaDefaults() {
        CognitionRequest r = JsonAvro.fromJson(MINIMAL_REQUEST, CognitionRequest.class);
        assertThat(r.getPersona()).isNull();
        assertThat(r.getActiveSkill()).isNull();
        assertThat(r.getTaskInstructionKey()).isEqualTo("initial_planning");
        assertThat(r.getTargetModel()).isEqualTo("gpt-4o");
        assertThat(r.getMtu()).isNull();
        assertThat(r.getRetryCount()).isZero();
        assertThat(r.getTimestamp()).isEqualTo(Instant.EPOCH);
        assertThat(r)
                .isEqualTo(
                        CognitionRequest.newBuilder()
                                .setRequestId("req-1")
                                .setSessionId("sess-1")
                                .setUserPrompt("Hi")
                                .setTimestamp(Instant.EPOCH)
                                .build());

        CouncilMessage m =
                JsonAvro.fromJson(
                        j("{'msg_id':'m','timestamp':0,'sender':'prime','role':'planner','type':'INFO'}"),
                        CouncilMessage.class);
        assertThat(m.getCouncilId()).isEqualTo("default");
        assertThat(m.getRiskLevel()).isEqualTo(RiskLevel.LOW);
        assertThat(m.getContent()).isEmpty();
        assertThat(m.getVote()).isNull();

        PipelineEvent e =
                JsonAvro.fromJson(j("{'event_id':'e','type':'DRIFT','message':'m','timestamp':0}"),
                        PipelineEvent.class);
        assertThat(e.getSeverity()).isEqualTo(Severity.INFO);
        assertThat(e.getAttributes()).isEmpty();
    }

    @Test
    void defaultCollectionsAreNotShared() {
        String json = PACKET.replaceFirst(",'field_tokens':\\{[^}]*\\}".replace('\'', '"'), "")
                .replaceFirst("\"history\":\\[.*\\],", "");
        CognitionPacket first = JsonAvro.fromJson(json, CognitionPacket.class);
        assertThat(first.getPayload().getHistory()).isEmpty();
        assertThat(first.getFieldTokens()).isEmpty();
        first.getPayload().getHistory().add(
                ChatMessage.newBuilder().setRole(ChatRole.USER).setContent("x").build());
        first.getFieldTokens().put("x", 1);

        CognitionPacket second = JsonAvro.fromJson(json, CognitionPacket.class);
        assertThat(second.getPayload().getHistory()).isEmpty();
        assertThat(second.getFieldTokens()).isEmpty();
    }

    @Test
    void nullableUnionIsPlainValueOrNull() {
        CognitionRequest r =
                JsonAvro.fromJson(MINIMAL_REQUEST.replace("}", j(",'mtu':null,'persona':'dev'}")),
                        CognitionRequest.class);
        assertThat(r.getMtu()).isNull();
        assertThat(r.getPersona()).isEqualTo("dev");
        assertThat(JsonAvro.toJson(r)).contains(j("'persona':'dev'"), j("'mtu':null"));

        // Avro's own JSON encoding wraps union values: that form is rejected, not guessed at.
        assertError(
                MINIMAL_REQUEST.replace("}", j(",'persona':{'string':'dev'}}")),
                CognitionRequest.class,
                "$.persona: expected string or null, got object");
        assertError(
                MINIMAL_REQUEST.replace("}", j(",'mtu':{'int':3}}")),
                CognitionRequest.class,
                "$.mtu: expected int or null, got object");
        // null is only for nullable fields, even those with a default.
        assertError(
                MINIMAL_REQUEST.replace("}", j(",'target_model':null}")),
                CognitionRequest.class,
                "$.target_model: expected string, got null");
        assertError(
                COUNCIL.replace(j("'risk_level':'LOW'"), j("'risk_level':null")),
                CouncilMessage.class,
                "$.risk_level: expected one of [UNKNOWN, LOW, MED, HIGH], got null");
    }

    // ------------------------------------------------------------------------------------------
    // Numbers and booleans

    @Test
    void numbersAreStrict() {
        assertError(MINIMAL_REQUEST.replace("}", j(",'mtu':'12'}")), CognitionRequest.class,
                j("$.mtu: expected int or null, got '12'"));
        assertError(MINIMAL_REQUEST.replace("}", ",\"retry_count\":3.0}"), CognitionRequest.class,
                "$.retry_count: expected int, got 3.0");
        assertError(MINIMAL_REQUEST.replace("}", ",\"retry_count\":1e2}"), CognitionRequest.class,
                "$.retry_count: expected int, got 100.0");
        assertError(MINIMAL_REQUEST.replace("}", ",\"retry_count\":2147483648}"),
                CognitionRequest.class, "$.retry_count: expected int, got 2147483648 (out of range)");
        assertError(MINIMAL_REQUEST.replace("}", ",\"retry_count\":true}"), CognitionRequest.class,
                "$.retry_count: expected int, got true");
        assertThat(JsonAvro.fromJson(MINIMAL_REQUEST.replace("}", ",\"retry_count\":-2147483648}"),
                CognitionRequest.class).getRetryCount()).isEqualTo(Integer.MIN_VALUE);

        String dl = DEAD_LETTER.replace("\"source_offset\":42", "\"source_offset\":%s");
        assertThat(JsonAvro.fromJson(String.format(dl, "9223372036854775807"), DeadLetter.class)
                .getSourceOffset()).isEqualTo(Long.MAX_VALUE);
        assertError(String.format(dl, "1e2"), DeadLetter.class,
                "$.source_offset: expected long, got 100.0");
        assertError(String.format(dl, "42.5"), DeadLetter.class,
                "$.source_offset: expected long, got 42.5");
        assertError(String.format(dl, j("'42'")), DeadLetter.class,
                j("$.source_offset: expected long, got '42'"));

        String cm = COUNCIL.replace("\"confidence\":0.75", "\"confidence\":%s");
        assertThat(JsonAvro.fromJson(String.format(cm, "1"), CouncilMessage.class).getConfidence())
                .isEqualTo(1.0);
        assertThat(JsonAvro.fromJson(String.format(cm, "-2.5e-3"), CouncilMessage.class).getConfidence())
                .isEqualTo(-0.0025);
        assertThat(JsonAvro.fromJson(String.format(cm, j("'NaN'")), CouncilMessage.class).getConfidence())
                .isNaN();
        assertThat(JsonAvro.fromJson(String.format(cm, j("'-Infinity'")), CouncilMessage.class)
                .getConfidence()).isEqualTo(Double.NEGATIVE_INFINITY);
        CouncilMessage negativeZero = JsonAvro.fromJson(String.format(cm, "-0.0"), CouncilMessage.class);
        assertThat(negativeZero.getConfidence()).isEqualTo(-0.0);
        assertThat(JsonAvro.toJson(negativeZero)).contains("\"confidence\":-0.0,");
        assertError(String.format(cm, j("'0.5'")), CouncilMessage.class,
                j("$.confidence: expected double or null, got '0.5'"));
        assertError(String.format(cm, "1e400"), CouncilMessage.class,
                "$.confidence: expected double or null, got a number out of range");

        CouncilMessage nan = JsonAvro.fromJson(String.format(cm, j("'NaN'")), CouncilMessage.class);
        assertThat(JsonAvro.toJson(nan)).contains(j("'confidence':'NaN'"));
        assertStable(JsonAvro.toJson(nan), CouncilMessage.class);
    }

    @Test
    void booleansAreStrict() {
        String result =
                j("{'call_id':'c','session_id':'s','tool':'fs.read','success':%s,'timestamp':0}");
        assertThat(JsonAvro.fromJson(String.format(result, "false"), ToolResult.class).getSuccess())
                .isFalse();
        assertError(String.format(result, j("'true'")), ToolResult.class,
                j("$.success: expected boolean, got 'true'"));
        assertError(String.format(result, "1"), ToolResult.class,
                "$.success: expected boolean, got 1");
    }

    // ------------------------------------------------------------------------------------------
    // Structure errors

    /** The parser's limits as docs/json-format.md states them: one past each is invalid JSON. */
    @Test
    void nestingAndNumberLengthStopAtTheDocumentedLimits() {
        String depth1000 = "[".repeat(999) + "]".repeat(999); // inside the top-level object: depth 1 + 999
        assertError(MINIMAL_REQUEST.replace(j("'Hi'"), depth1000), CognitionRequest.class,
                "$.user_prompt: expected string, got array");
        assertThatThrownBy(() -> JsonAvro.fromJson(MINIMAL_REQUEST.replace(j("'Hi'"), "[" + depth1000 + "]"),
                CognitionRequest.class))
                .isInstanceOf(JsonAvroException.class)
                .hasMessageContaining("invalid JSON: Document nesting depth (1001) exceeds the maximum allowed (1000");

        String digits1000 = "1".repeat(1000);
        assertError(MINIMAL_REQUEST.replace(j("'Hi'"), digits1000), CognitionRequest.class,
                "$.user_prompt: expected string, got " + digits1000.substring(0, 60) + "...");
        assertThatThrownBy(() -> JsonAvro.fromJson(MINIMAL_REQUEST.replace(j("'Hi'"), digits1000 + "1"),
                CognitionRequest.class))
                .isInstanceOf(JsonAvroException.class)
                .hasMessageContaining("invalid JSON: Number value length (1001) exceeds the maximum allowed (1000");
    }

    @Test
    void requiredFieldMissing() {
        assertError(MINIMAL_REQUEST.replace(j("'session_id':'sess-1',"), ""),
                CognitionRequest.class, "$.session_id: required field missing");
        assertError(PACKET.replace(j(",'user_prompt':'Plan the migration.'}"), "}"),
                CognitionPacket.class, "$.payload.user_prompt: required field missing");
        assertError(PACKET.replace(j("'content':'Hi',"), ""),
                CognitionPacket.class, "$.payload.history[1].content: required field missing");
        assertError("{}", RoleStatus.class, "$.council_id: required field missing");
    }

    @Test
    void unknownFieldIsNamedWithTheKnownOnes() {
        assertError(MINIMAL_REQUEST.replace("session_id", "sesion_id"), CognitionRequest.class,
                "$.sesion_id: unknown field, known fields: [request_id, session_id, user_prompt, "
                        + "persona, active_skill, task_instruction_key, target_model, mtu, parent_id, "
                        + "retry_count, retry_reason, history_until, auto_continue_step, time_travel, timestamp, "
                        + "council_id, origin_session_id, memory_scope, memory_as_of]");
        assertError(PACKET.replace(j("'reanchor':null"), j("'reanchor':null,'extra':1")),
                CognitionPacket.class,
                "$.header.extra: unknown field, known fields: [identity, persona, task_instruction_key, "
                        + "task_instruction, active_skill, context, reanchor]");
        assertError(PACKET.replace(j("'name':'alice'"), j("'Name':'alice'")),
                CognitionPacket.class,
                "$.payload.history[1].Name: unknown field, known fields: [role, content, tool_call_id, "
                        + "name, token_count, tool_calls]");
        assertError(MINIMAL_REQUEST.replace("}", j(",'a b':1}")), CognitionRequest.class,
                "$['a b']: unknown field, known fields: [request_id, session_id, user_prompt, "
                        + "persona, active_skill, task_instruction_key, target_model, mtu, parent_id, "
                        + "retry_count, retry_reason, history_until, auto_continue_step, time_travel, timestamp, "
                        + "council_id, origin_session_id, memory_scope, memory_as_of]");
    }

    @Test
    void wrongJsonType() {
        assertError(MINIMAL_REQUEST.replace(j("'Hi'"), "42"), CognitionRequest.class,
                "$.user_prompt: expected string, got 42");
        assertError(MINIMAL_REQUEST.replace(j("'Hi'"), "[]"), CognitionRequest.class,
                "$.user_prompt: expected string, got array");
        assertError(MINIMAL_REQUEST.replace(j("'Hi'"), "null"), CognitionRequest.class,
                "$.user_prompt: expected string, got null");
        assertError(PACKET.replaceFirst("\"header\":\\{[^}]*\\}", "\"header\":\"x\""),
                CognitionPacket.class,
                j("$.header: expected object (PacketHeader), got 'x'"));
        assertError(PACKET.replaceFirst("\"history\":\\[.*\\](?=,\"user_prompt\")", "\"history\":{}"),
                CognitionPacket.class, "$.payload.history: expected array, got object");
        assertError(PACKET.replace(j("{'role':'USER'"), j("'USER',{'role':'USER'")),
                CognitionPacket.class, j("$.payload.history[1]: expected object (ChatMessage), got 'USER'"));
    }

    @Test
    void longValuesAreCutInMessages() {
        String prompt = "x".repeat(500);
        assertError(MINIMAL_REQUEST.replace("}", j(",'mtu':'" + prompt + "'}")),
                CognitionRequest.class,
                "$.mtu: expected int or null, got \"" + "x".repeat(59) + "...");
    }

    @Test
    void notOneJsonObject() {
        String empty = "$: empty input, expected a JSON object";
        assertError("", CognitionRequest.class, empty);
        assertError("   \t", CognitionRequest.class, empty);
        assertError("[]", CognitionRequest.class, "$: expected a JSON object, got array");
        assertError("42", CognitionRequest.class, "$: expected a JSON object, got 42");
        assertError(j("'x'"), CognitionRequest.class, j("$: expected a JSON object, got 'x'"));
        assertError("null", CognitionRequest.class, "$: expected a JSON object, got null");
        assertError("{} {}", CognitionRequest.class,
                "$: unexpected content after the JSON value (line 1, column 4)");
        assertErrorStartsWith(MINIMAL_REQUEST + "x", CognitionRequest.class, "$: invalid JSON: ");
        // For invalid JSON the path is where the parser was; line and column are exact.
        assertError(j("{'request_id':'a',}"), CognitionRequest.class,
                "$.request_id: invalid JSON: Unexpected character ('}' (code 125)): was expecting "
                        + "double-quote to start field name (line 1, column 19)");
        assertErrorStartsWith(j("{'request_id':'a'"), CognitionRequest.class,
                "$.request_id: invalid JSON: Unexpected end-of-input");
        assertErrorStartsWith(j("{'request_id':NaN}"), CognitionRequest.class, "$.request_id: invalid JSON: ");
        assertErrorStartsWith(j("{'request_id':'a','request_id':'b'}"), CognitionRequest.class,
                "$.request_id: invalid JSON: Duplicate field 'request_id'");
        assertErrorStartsWith(j("{'payload':{'history':[{},]}}"), CognitionPacket.class,
                "$.payload.history[1]: invalid JSON: ");
        assertThatThrownBy(() -> JsonAvro.fromJson(j("{'a':'b"), CognitionRequest.class))
                .isInstanceOf(JsonAvroException.class)
                .hasMessageNotContaining("Source")
                .hasMessageContaining("(line 1, column ");
    }

    @Test
    void exceptionCarriesPathAndDetail() {
        assertThatThrownBy(() -> JsonAvro.fromJson("{}", RoleStatus.class))
                .isInstanceOfSatisfying(
                        JsonAvroException.class,
                        e -> {
                            assertThat(e.getPath()).isEqualTo("$.council_id");
                            assertThat(e.getDetail()).isEqualTo("required field missing");
                        });
    }

    private static void assertError(String json, Class<? extends SpecificRecord> type, String message) {
        assertThatThrownBy(() -> JsonAvro.fromJson(json, type))
                .as(json)
                .isInstanceOf(JsonAvroException.class)
                .hasMessage(message);
    }

    /** For messages that end in Jackson's own wording. */
    private static void assertErrorStartsWith(
            String json, Class<? extends SpecificRecord> type, String prefix) {
        assertThatThrownBy(() -> JsonAvro.fromJson(json, type))
                .as(json)
                .isInstanceOf(JsonAvroException.class)
                .hasMessageStartingWith(prefix)
                .hasMessageNotContaining("Source");
    }

    // ------------------------------------------------------------------------------------------
    // Printing

    @Test
    void printsOneLineWithEscapes() {
        CognitionRequest r = JsonAvro.fromJson(MINIMAL_REQUEST, CognitionRequest.class);
        r.setUserPrompt("line 1\nline 2\t\"quoted\" \\ \u0001 é 中 \uD83D\uDE00 \u2028");
        String json = JsonAvro.toJson(r);
        assertThat(json).doesNotContain("\n", "\r");
        assertThat(json).contains("line 1\\nline 2\\t\\\"quoted\\\" \\\\ \\u0001 é 中 \uD83D\uDE00");
        assertThat(JsonAvro.fromJson(json, CognitionRequest.class)).isEqualTo(r);
    }

    @Test
    void printingAnInvalidRecordFails() {
        assertThatThrownBy(() -> JsonAvro.toJson(new CognitionRequest()))
                .isInstanceOf(JsonAvroException.class)
                .hasMessage("$.request_id: expected string, record holds null");
        CognitionPacket p = JsonAvro.fromJson(PACKET, CognitionPacket.class);
        p.getPayload().getHistory().get(1).setRole(null);
        assertThatThrownBy(() -> JsonAvro.toJson(p))
                .isInstanceOf(JsonAvroException.class)
                .hasMessage("$.payload.history[1].role: expected one of [SYSTEM, USER, ASSISTANT, TOOL], "
                        + "record holds null");
    }

    // ------------------------------------------------------------------------------------------
    // Generic records

    @Test
    void genericRecordsUseTheSameForm() {
        GenericRecord g = JsonAvro.fromJson(PACKET, CognitionPacket.getClassSchema());
        assertThat(((GenericRecord) g.get("meta")).get("timestamp"))
                .isEqualTo(T0.plusMillis(250).toEpochMilli());
        assertThat(((GenericRecord) g.get("meta")).get("risk_level").toString()).isEqualTo("MED");
        assertThat(JsonAvro.toJson(g)).isEqualTo(PACKET);

        GenericRecord defaults = JsonAvro.fromJson(MINIMAL_REQUEST, CognitionRequest.getClassSchema());
        assertThat(JsonAvro.toJson(defaults))
                .isEqualTo(JsonAvro.toJson(JsonAvro.fromJson(MINIMAL_REQUEST, CognitionRequest.class)));
        assertThatThrownBy(() -> JsonAvro.fromJson("{}", Schema.create(Schema.Type.STRING)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------
    // Property: random records of every schema round-trip

    @Test
    void randomRecordsOfEverySchemaRoundTrip() throws Exception {
        List<Class<? extends SpecificRecord>> types = recordTypesInSchemasDirectory();
        assertThat(types).hasSizeGreaterThanOrEqualTo(15); // 13 topic records + ChatMessage, MetaHeader
        long seed = Long.getLong("jsonavro.seed", new Random().nextLong());
        Random random = new Random(seed);
        for (Class<? extends SpecificRecord> type : types) {
            SpecificData model = SpecificData.getForClass(type);
            Schema schema = model.getSchema(type);
            for (int i = 0; i < 300; i++) {
                SpecificRecord record = (SpecificRecord) randomValue(schema, model, random);
                String json = JsonAvro.toJson(record);
                String context = "seed " + seed + ", " + type.getSimpleName() + ": " + json;
                SpecificRecord back = JsonAvro.fromJson(json, type);
                assertThat(back).as(context).isEqualTo(record);
                assertThat(JsonAvro.toJson(back)).as(context).isEqualTo(json);
                assertThat(MAPPER.readTree(json).isObject()).as(context).isTrue();
            }
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @SuppressWarnings("unchecked")
    private static List<Class<? extends SpecificRecord>> recordTypesInSchemasDirectory()
            throws IOException, ClassNotFoundException {
        List<Class<? extends SpecificRecord>> types = new ArrayList<>();
        for (Path dir : List.of(Path.of("schemas"), Path.of("schemas", "common"))) {
            List<Path> files;
            try (Stream<Path> list = Files.list(dir)) {
                files = list.filter(p -> p.toString().endsWith(".avsc")).sorted().toList();
            }
            for (Path file : files) {
                JsonNode avsc = MAPPER.readTree(file.toFile());
                if ("record".equals(avsc.path("type").asText())) {
                    String name = avsc.path("namespace").asText() + "." + avsc.path("name").asText();
                    types.add((Class<? extends SpecificRecord>) Class.forName(name));
                }
            }
        }
        return types;
    }

    private static final int[] INTS = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE};
    private static final long[] LONGS = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, T0_MILLIS};
    private static final double[] DOUBLES = {
        0.0, -0.0, 1.0, 0.1, -2.5e-3, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e21, 123456789.0
    };
    private static final String[] PIECES = {
        "a", "Z", "0", " ", "\"", "\\", "'", "/", "\n", "\t", "\u0000", "\u001f", "\u007f", "é", "中",
        "\uD83D\uDE00", "\u2028", "{", "}", "null", "$.x"
    };

    private static Object randomValue(Schema schema, SpecificData model, Random random) {
        Object raw = randomRaw(schema, model, random);
        LogicalType logicalType = schema.getLogicalType();
        Conversion<?> conversion = logicalType == null ? null : model.getConversionFor(logicalType);
        return conversion == null
                ? raw
                : Conversions.convertToLogicalType(raw, schema, logicalType, conversion);
    }

    private static Object randomRaw(Schema schema, SpecificData model, Random random) {
        switch (schema.getType()) {
            case UNION:
                List<Schema> branches = schema.getTypes();
                return randomValue(branches.get(random.nextInt(branches.size())), model, random);
            case NULL:
                return null;
            case RECORD:
                IndexedRecord record = (IndexedRecord) model.newRecord(null, schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), randomValue(field.schema(), model, random));
                }
                return record;
            case ENUM:
                List<String> symbols = schema.getEnumSymbols();
                return model.createEnum(symbols.get(random.nextInt(symbols.size())), schema);
            case ARRAY:
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(randomValue(schema.getElementType(), model, random));
                }
                return list;
            case MAP:
                Map<String, Object> map = new HashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    map.put(randomString(random), randomValue(schema.getValueType(), model, random));
                }
                return map;
            case STRING:
                return randomString(random);
            case BYTES:
                byte[] bytes = new byte[random.nextInt(12)];
                random.nextBytes(bytes);
                return ByteBuffer.wrap(bytes);
            case INT:
                return random.nextBoolean() ? INTS[random.nextInt(INTS.length)] : random.nextInt();
            case LONG:
                return random.nextBoolean() ? LONGS[random.nextInt(LONGS.length)] : random.nextLong();
            case DOUBLE:
                return random.nextBoolean()
                        ? DOUBLES[random.nextInt(DOUBLES.length)]
                        : Double.longBitsToDouble(random.nextLong());
            case FLOAT:
                return Float.intBitsToFloat(random.nextInt());
            case BOOLEAN:
                return random.nextBoolean();
            default:
                throw new AssertionError("schema type not covered by the generator: " + schema);
        }
    }

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(6); i > 0; i--) {
            s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return s.toString();
    }

    // ------------------------------------------------------------------------------------------
    // docs/json-format.md

    private static final Pattern DOC_HEADING = Pattern.compile("### (\\S+) \\((\\w+)\\)");

    /**
     * Under each "### topic (Class)" heading, every JSON line in a code block must be valid for the
     * class, and a line in a json block must be exactly what toJson prints.
     */
    @Test
    void documentedExamplesAreValidAndCanonical() throws Exception {
        List<String> topics = new ArrayList<>();
        Class<? extends SpecificRecord> type = null;
        String fence = null;
        int checked = 0;
        for (String line : Files.readAllLines(Path.of("docs", "json-format.md"))) {
            Matcher heading = DOC_HEADING.matcher(line);
            if (heading.matches()) {
                topics.add(heading.group(1));
                type = Class.forName("io.cognitionstreams.schema." + heading.group(2))
                        .asSubclass(SpecificRecord.class);
            } else if (line.startsWith("```")) {
                fence = fence == null ? line : null;
            } else if (fence != null && type != null && line.startsWith("{")) {
                SpecificRecord record = JsonAvro.fromJson(line, type);
                if (fence.equals("```json")) {
                    assertThat(JsonAvro.toJson(record)).isEqualTo(line);
                }
                checked++;
            }
        }
        assertThat(topics).containsExactly("cognition.requests", "llm.outputs", "council.messages");
        assertThat(checked).isEqualTo(5);
    }
}
