package io.cognitionstreams.load;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.topics.Topics;

/**
 * Agent sessions that each take a number of steps of tool call, result, next turn, through the whole pipeline as it
 * runs them: the model (an endpoint double, {@link #answers}) calls {@link StepServer}'s tool natively each turn,
 * routing makes the call, the gatekeeper approves and signs it, the executor runs it, the gatekeeper passes the
 * result on, and the assembly starts the session's next turn from it (auto-continue), until the session has taken
 * its steps and the model answers instead. Sessions start at a fixed rate, so the tool calls come at
 * {@code steps} times that rate once the first sessions are under way.
 *
 * <p>One read_committed consumer sees every record of the loop as a reader downstream would (when its transaction
 * committed), on each of its topics, and times each hop from one to the next ({@link Hop}). A step's overhead, the
 * figure the targets are about, is approval seen to result seen minus the tool's own time ({@code duration_ms}).
 * Exactly once is counted on every topic of the loop (a call id twice is a double) and at the tool itself, from the
 * step server's log (a step that ran twice).
 */
public final class ToolStepBench {

    /** The skill the bench's sessions work under: the step tool, none of it declared retry-safe. */
    public static final String SKILL = "bench-steps";
    private static final Pattern SESSION = Pattern.compile("bench session ([A-Za-z0-9_-]+)");
    private static final Pattern SLOW = Pattern.compile("first step waits ([0-9]+) ms");

    /** The hops of one step, in the order a step takes them. */
    public enum Hop {
        DECISION("decision", "call on tool.calls -> approval on tool.decisions (gatekeeper)"),
        EXECUTION("execution", "approval -> outcome on tool.outcomes, minus the tool (executor)"),
        // The executor's hop in two: its outcome says when the tool ended and how long it took, on the bench's
        // clock (one JVM, one machine), so what comes before the tool and after it can be told apart.
        BEFORE_TOOL(" before tool", "approval -> the tool starts (executor: its poll, the STARTED mark's commit)"),
        AFTER_TOOL(" after tool", "the tool ends -> outcome seen (executor: the commit of its outcome)"),
        OUTCOME("outcome", "outcome -> result on tool.results (gatekeeper)"),
        RESULT("result", "result -> the next turn's request on cognition.requests (assembly)"),
        NEXT_REQUEST("next request", "request -> its call on tool.calls (assembly, model, routing)");

        private final String label;
        private final String path;

        Hop(String label, String path) {
            this.label = label;
            this.path = path;
        }

        public String label() {
            return label;
        }

        public String path() {
            return path;
        }
    }

    /**
     * Records of the loop seen more than once, and calls that did not end as they should.
     *
     * @param toolRuns         steps the step server noted (each should be there once)
     * @param toolRunsDoubled  notes beyond the first of a step: a call that ran twice
     * @param notSucceeded     results other than SUCCEEDED (UNKNOWN_OUTCOME among them)
     */
    public record Counts(int callsDoubled, int decisionsDoubled, int outcomesDoubled, int resultsDoubled,
                         int requestsDoubled, int denied, int unknownOutcomes, int notSucceeded, int toolRuns,
                         int toolRunsDoubled) {

        public int doubled() {
            return callsDoubled + decisionsDoubled + outcomesDoubled + resultsDoubled + requestsDoubled
                    + toolRunsDoubled;
        }
    }

    /**
     * One offered rate's outcome.
     *
     * @param offeredRate    tool calls a second offered (sessions a second times steps)
     * @param expected       calls the sessions should make: sessions times steps
     * @param results        distinct calls whose result arrived on tool.results
     * @param perSecond      results over the time from the first session's request to the last result
     * @param overhead       approval -> result minus the tool, per call
     * @param duringSlowCall the overhead of the other sessions' calls approved while the slow call ran, when there was
     *                       one
     */
    public record Step(int offeredRate, int sessions, int steps, int expected, int results, double perSecond,
                       Latencies.Summary overhead, Map<Hop, Latencies.Summary> hops, Counts counts,
                       Optional<Latencies.Summary> duringSlowCall) {

        public int open() {
            return expected - results;
        }

        public boolean complete() {
            return open() == 0 && counts.doubled() == 0 && counts.notSucceeded() == 0 && counts.denied() == 0;
        }
    }

    private final Map<String, Object> client;
    private final Topics topics;
    private final Path stepLog;
    private final PrintWriter progress;
    private final Duration drainTimeout;

    /**
     * @param client  the cluster and any client settings, for the bench's producer and consumer
     * @param stepLog the log the {@link StepServer} the app calls notes its steps in
     */
    public ToolStepBench(Map<String, Object> client, Topics topics, Path stepLog, PrintWriter progress,
                         Duration drainTimeout) {
        this.client = Map.copyOf(client);
        this.topics = topics;
        this.stepLog = stepLog;
        this.progress = progress;
        this.drainTimeout = drainTimeout;
    }

    /** The skill the sessions work under: it may call the step tool, and declares nothing retry-safe. */
    public static Skill skill(Instant now) {
        return Skill.newBuilder().setName(SKILL).setVersion("1.0.0")
                .setDescription("Take numbered steps with the step tool.")
                .setPermissions(List.of(StepServer.NAME + ":*")).setRetrySafe(List.of()).setRequiredRefs(List.of())
                .setProtocol("# Steps protocol\n\nTake each step with one call of the step tool, then wait for its "
                        + "result.\n")
                .setRefs(Map.of()).setSource("cognition bench --tools").setTimestamp(now).build();
    }

    /**
     * How the model double answers a session of the bench: while the session's history holds fewer than
     * {@code steps} tool results, a native call of the step tool for the next step (its first turn, a planning
     * one, with a {@code PLAN:} block too); then a response.
     */
    public static ChatEndpointDouble.Answers answers(int steps) {
        return (request, json) -> {
            JsonNode messages = request.path("messages");
            int taken = 0;
            for (JsonNode message : messages) {
                if ("tool".equals(message.path("role").asText())) {
                    taken++;
                }
            }
            ObjectNode answer = json.createObjectNode();
            if (taken >= steps) {
                return answer.put("content", "RESPONSE: took " + taken + " steps.");
            }
            String text = messages.toString();
            Matcher session = SESSION.matcher(text);
            Matcher slow = SLOW.matcher(text);
            ObjectNode arguments = json.createObjectNode()
                    .put("session", session.find() ? session.group(1) : "unknown")
                    .put("n", taken + 1)
                    .put("ms", taken == 0 && slow.find() ? Long.parseLong(slow.group(1)) : 0);
            if (taken == 0) {
                answer.put("content", "PLAN: 1. Take the " + steps + " steps, one call each.");
            } else {
                answer.putNull("content");
            }
            answer.putArray("tool_calls").addObject().put("id", "call_" + (taken + 1)).put("type", "function")
                    .putObject("function").put("name", StepServer.CALLED).put("arguments", arguments.toString());
            return answer;
        };
    }

    /**
     * Starts {@code sessions} sessions of {@code steps} steps at {@code callRate / steps} sessions a second and
     * waits for their last results (or the drain timeout after the last start).
     *
     * @param slowCall when positive, the first session's first step takes this long: the others' overhead while it
     *                 runs shows what one slow call costs the rest
     */
    public Step run(String run, int callRate, int sessions, int steps, Duration slowCall)
            throws InterruptedException {
        Book book = new Book(topics, run + "-s");
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        int expected = sessions * steps;
        long firstSend = System.currentTimeMillis();
        try (KafkaConsumer<byte[], byte[]> consumer = EndToEndBench.consumerAtEnd(client, List.of(
                Topics.COGNITION_REQUESTS, Topics.TOOL_CALLS, Topics.TOOL_DECISIONS, Topics.TOOL_OUTCOMES,
                Topics.TOOL_RESULTS))) {
            Thread sender = EndToEndBench.sender(client, (name, n, now) -> request(name, n, now, steps,
                    n == 0 ? slowCall : Duration.ZERO), run, (double) callRate / steps, sessions, sentAt,
                    new ConcurrentHashMap<>(), sent, failure);
            long drainDeadline = Long.MAX_VALUE;
            long nextDraw = 0;
            while (book.results() < expected && System.nanoTime() < drainDeadline && failure.get() == null) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(10))) {
                    book.seen(record, System.currentTimeMillis());
                }
                if (!sender.isAlive() && drainDeadline == Long.MAX_VALUE) {
                    drainDeadline = System.nanoTime() + drainTimeout.toNanos();
                }
                if (System.nanoTime() > nextDraw) {
                    EndToEndBench.draw(progress, "tool steps", callRate, expected, sent.get() * steps,
                            book.results());
                    nextDraw = System.nanoTime() + 250_000_000L;
                }
            }
            sender.join();
        }
        EndToEndBench.clearLine(progress);
        if (failure.get() != null) {
            throw new IllegalStateException("could not start sessions at " + callRate + " calls/s: "
                    + failure.get().getMessage(), failure.get());
        }
        Map<String, Integer> runs = StepServer.runs(stepLog, run + "-s");
        int doubledRuns = runs.values().stream().mapToInt(count -> count - 1).sum();
        return book.step(callRate, sessions, steps, expected, firstSend, runs.size(), doubledRuns,
                slowCall.isZero() || slowCall.isNegative() ? Optional.empty() : Optional.of(run + "-s0"));
    }

    /** Session {@code n}'s first request: a planning turn under the bench's skill, naming the session for the model. */
    private EndToEndBench.Sent request(String run, long n, long nowMillis, int steps, Duration slow) {
        String session = Workload.session(run, n, 1);
        CognitionRequest request = CognitionRequest.newBuilder()
                .setRequestId(Workload.requestId(run, n))
                .setSessionId(session)
                .setUserPrompt("Take " + steps + " steps with the step tool, bench session " + session + "."
                        + (slow.isZero() ? "" : " The first step waits " + slow.toMillis() + " ms."))
                .setPersona("developer")
                .setActiveSkill(SKILL)
                .setTargetModel("gpt-4o")
                .setTimestamp(Instant.ofEpochMilli(nowMillis))
                .build();
        String name = topics.requests.name();
        return new EndToEndBench.Sent(request.getRequestId(), session, new ProducerRecord<>(name,
                session.getBytes(StandardCharsets.UTF_8), topics.requests.valueSerde().serializer().serialize(name,
                request)));
    }

    /** When each record of one call was seen, in milliseconds of the wall clock; 0 for not yet. */
    private static final class CallTimes {
        long called;
        long approved;
        long executed;
        long resulted;
        long toolMillis;
        /** When the tool ended, by the executor's clock (the outcome's timestamp). */
        long toolEnded;
    }

    /** What the consumer saw of a run's sessions, and the figures it makes. Used by the consumer's thread only. */
    static final class Book {
        private final Topics topics;
        private final String prefix;
        /** By session and call id ({@link #key}). */
        private final Map<String, CallTimes> calls = new HashMap<>();
        /** Each session's requests' times by auto-continue step (0: the first), and its calls in order. */
        private final Map<String, Map<Integer, Long>> requests = new HashMap<>();
        private final Map<String, List<String>> sessionCalls = new HashMap<>();
        private int results;
        private int callsDoubled;
        private int decisionsDoubled;
        private int outcomesDoubled;
        private int resultsDoubled;
        private int requestsDoubled;
        private int denied;
        private int unknown;
        private int notSucceeded;
        private long lastResult;

        /** @param prefix what the run's session ids start with */
        Book(Topics topics, String prefix) {
            this.topics = topics;
            this.prefix = prefix;
        }

        int results() {
            return results;
        }

        void seen(ConsumerRecord<byte[], byte[]> record, long now) {
            switch (record.topic()) {
                case Topics.COGNITION_REQUESTS -> request(topics.requests.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()), now);
                case Topics.TOOL_CALLS -> call(topics.toolCalls.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()), now);
                case Topics.TOOL_DECISIONS -> decision(topics.toolDecisions.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()), now);
                case Topics.TOOL_OUTCOMES -> outcome(topics.toolOutcomes.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()), now);
                default -> result(topics.toolResults.valueSerde().deserializer()
                        .deserialize(record.topic(), record.value()), now);
            }
        }

        private boolean ours(String session) {
            return session != null && session.startsWith(prefix);
        }

        /**
         * The times of a call of the run's sessions; null for another run's. Keyed with its session: call ids derive
         * from 8-hex packet ids, which two sessions can share (docs/reliability.md).
         */
        private CallTimes times(String session, String callId) {
            return ours(session) ? calls.computeIfAbsent(key(session, callId), id -> new CallTimes()) : null;
        }

        private static String key(String session, String callId) {
            return session + " " + callId;
        }

        private void request(CognitionRequest request, long now) {
            if (ours(request.getSessionId()) && requests.computeIfAbsent(request.getSessionId(),
                    session -> new HashMap<>()).putIfAbsent(request.getAutoContinueStep(), now) != null) {
                requestsDoubled++;
            }
        }

        private void call(ToolCall call, long now) {
            CallTimes times = times(call.getSessionId(), call.getCallId());
            if (times == null) {
                return;
            }
            if (times.called != 0) {
                callsDoubled++;
                return;
            }
            times.called = now;
            sessionCalls.computeIfAbsent(call.getSessionId(), session -> new ArrayList<>())
                    .add(key(call.getSessionId(), call.getCallId()));
        }

        private void decision(ToolDecision decision, long now) {
            CallTimes times = times(decision.getCall().getSessionId(), decision.getCall().getCallId());
            if (times == null) {
                return;
            }
            if (decision.getVerdict() != Verdict.APPROVED) {
                denied++;
            }
            if (times.approved != 0) {
                decisionsDoubled++;
            } else {
                times.approved = now;
            }
        }

        private void outcome(ToolResult outcome, long now) {
            CallTimes times = times(outcome.getSessionId(), outcome.getCallId());
            if (times == null) {
                return;
            }
            if (times.executed != 0) {
                outcomesDoubled++;
            } else {
                times.executed = now;
                times.toolMillis = outcome.getDurationMs() == null ? 0 : outcome.getDurationMs();
                times.toolEnded = outcome.getTimestamp().toEpochMilli();
            }
        }

        private void result(ToolResult result, long now) {
            CallTimes times = times(result.getSessionId(), result.getCallId());
            if (times == null) {
                return;
            }
            if (times.resulted != 0) {
                resultsDoubled++;
                return;
            }
            times.resulted = now;
            if (result.getDurationMs() != null) {
                times.toolMillis = result.getDurationMs(); // the gatekeeper passes the outcome's on
            }
            results++;
            lastResult = now;
            if (result.getStatus() == ToolStatus.UNKNOWN_OUTCOME) {
                unknown++;
            }
            if (result.getStatus() != ToolStatus.SUCCEEDED) {
                notSucceeded++;
            }
        }

        Step step(int rate, int sessions, int steps, int expected, long firstSend, int toolRuns, int doubledRuns,
                  Optional<String> slowSession) {
            Latencies overhead = new Latencies();
            Map<Hop, Latencies> hops = new EnumMap<>(Hop.class);
            for (Hop hop : Hop.values()) {
                hops.put(hop, new Latencies());
            }
            for (CallTimes call : calls.values()) {
                if (call.approved != 0 && call.resulted != 0) {
                    overhead.add(Math.max(0, call.resulted - call.approved - call.toolMillis));
                }
                between(hops.get(Hop.DECISION), call.called, call.approved, 0);
                between(hops.get(Hop.EXECUTION), call.approved, call.executed, call.toolMillis);
                if (call.toolEnded != 0) {
                    between(hops.get(Hop.BEFORE_TOOL), call.approved, call.toolEnded, call.toolMillis);
                    between(hops.get(Hop.AFTER_TOOL), call.toolEnded, call.executed, 0);
                }
                between(hops.get(Hop.OUTCOME), call.executed, call.resulted, 0);
            }
            sessionCalls.forEach((session, ids) -> {
                Map<Integer, Long> turns = requests.getOrDefault(session, Map.of());
                for (int step = 0; step < ids.size(); step++) {
                    CallTimes call = calls.get(ids.get(step));
                    between(hops.get(Hop.NEXT_REQUEST), turns.getOrDefault(step, 0L), call.called, 0);
                    between(hops.get(Hop.RESULT), call.resulted, turns.getOrDefault(step + 1, 0L), 0);
                }
            });
            Map<Hop, Latencies.Summary> summaries = new EnumMap<>(Hop.class);
            hops.forEach((hop, latencies) -> summaries.put(hop, latencies.summary()));
            double seconds = Math.max(1, lastResult - firstSend) / 1000.0;
            return new Step(rate, sessions, steps, expected, results, results / seconds, overhead.summary(),
                    summaries, new Counts(callsDoubled, decisionsDoubled, outcomesDoubled, resultsDoubled,
                    requestsDoubled, denied, unknown, notSucceeded, toolRuns, doubledRuns),
                    slowSession.map(this::duringSlowCall));
        }

        /** The overhead of the other sessions' calls approved while the session's first call ran. */
        private Latencies.Summary duringSlowCall(String session) {
            Latencies during = new Latencies();
            List<String> ids = sessionCalls.getOrDefault(session, List.of());
            CallTimes slow = ids.isEmpty() ? null : calls.get(ids.get(0));
            if (slow == null || slow.approved == 0) {
                return during.summary();
            }
            long until = slow.resulted == 0 ? Long.MAX_VALUE : slow.resulted;
            calls.forEach((id, call) -> {
                if (call != slow && call.approved >= slow.approved && call.approved <= until && call.resulted != 0) {
                    during.add(Math.max(0, call.resulted - call.approved - call.toolMillis));
                }
            });
            return during.summary();
        }
    }

    /** Adds {@code to - from - minus} when both ends were seen. */
    private static void between(Latencies hop, long from, long to, long minus) {
        if (from != 0 && to != 0) {
            hop.add(Math.max(0, to - from - minus));
        }
    }
}
