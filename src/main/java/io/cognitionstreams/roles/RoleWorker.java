package io.cognitionstreams.roles;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.telemetry.IntervalLog;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.TransactionalLoop;

/**
 * One council role voted by a model (docs/council.md, "Model roles"): it heartbeats into the councils it serves
 * while its endpoint is reachable, and answers each of their proposals with one VOTE, on a {@link TransactionalLoop}
 * of its own over council.messages (its own consumer group), because a model call can take minutes. A poll's
 * proposals are asked all at once (the calls are in flight together on the asynchronous {@link ModelClient}); the
 * votes and the offsets commit in one transaction, so a proposal gets its role's vote once.
 *
 * <p>An endpoint that cannot answer (a retriable failure: down, timing out, 429, 5xx) is no vote: the proposal is
 * read again after {@link #OUTAGE_BACKOFF}, so it is never lost while it is open, and a
 * {@value #ROLE_UNREACHABLE} event says so. Its heartbeats stop meanwhile, so the council counts the role inactive
 * after its heartbeat timeout and decides with the others (reduced quorum). A proposal past its deadline is no
 * longer asked about.
 */
public final class RoleWorker implements Runnable, AutoCloseable, TransactionalLoop.Handler {

    /** Event of a role whose endpoint did not answer: the proposal waits for it. */
    public static final String ROLE_UNREACHABLE = "COUNCIL_ROLE_UNREACHABLE";
    static final Duration OUTAGE_BACKOFF = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(RoleWorker.class);

    /**
     * @param role          the council role it votes as (one of --council-roles)
     * @param model         the model name sent to the endpoint, or null for the endpoint's own
     * @param councils      the councils it serves: it heartbeats into these and votes on their proposals
     * @param heartbeat     how often it heartbeats (30 s; the council's timeout is 90 s)
     * @param promptBudget  tokens the vote prompt may have
     * @param proposalTtl   the council's proposal time to live: a proposal older than this is no longer voted on
     * @param callTimeout   how long one model call may take
     */
    public record Settings(String role, String model, List<String> councils, Duration heartbeat, int promptBudget,
                           Duration proposalTtl, Duration callTimeout) {
        public Settings {
            councils = List.copyOf(councils);
        }
    }

    private final Topics topics;
    private final ModelClient client;
    private final BooleanSupplier reachable;
    private final Settings settings;
    private final Optional<Ed25519.Key> key;
    private final TokenCounter tokens;
    private final Map<String, Object> clientConfig;
    private final TransactionalLoop loop;
    private final ScheduledExecutorService beats;
    private final AtomicBoolean up = new AtomicBoolean(true);
    private final AtomicInteger votes = new AtomicInteger();
    private KafkaProducer<byte[], byte[]> heartbeats;
    /** An outage retries every 2 s while a proposal is open: one log line a minute says how often. */
    private final IntervalLog outages;

    /**
     * @param reachable whether the endpoint can be reached now (a connect to its host): heartbeats only then
     * @param key       the role's key, which signs its heartbeats and votes; empty when signatures are off
     */
    public RoleWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                      ModelClient client, BooleanSupplier reachable, Settings settings, Optional<Ed25519.Key> key,
                      TokenCounter tokens, Duration sessionTimeout) {
        this.topics = topics;
        this.client = client;
        this.reachable = reachable;
        this.settings = settings;
        this.key = key;
        this.tokens = tokens;
        this.clientConfig = Map.copyOf(clientConfig);
        this.outages = new IntervalLog(LOG, "council role " + settings.role() + ": proposals it could not vote on "
                + "yet (its endpoint did not answer)", Duration.ofMinutes(1));
        this.loop = new TransactionalLoop("council role " + settings.role(), clientConfig, groupId, instanceId,
                topics.councilMessages.name(), 20, Duration.ofMinutes(5), sessionTimeout, this);
        this.beats = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "council-role-" + settings.role() + "-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Sends the first heartbeats now, so the role is active before the first proposal it should vote on. */
    public void start() {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        heartbeats = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        beat();
        beats.scheduleAtFixedRate(this::beat, settings.heartbeat().toMillis(), settings.heartbeat().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        loop.run();
    }

    /** Votes this worker cast since it started. */
    public int votes() {
        return votes.get();
    }

    private void beat() {
        try {
            if (!reachable.getAsBoolean()) {
                if (up.compareAndSet(true, false)) {
                    LOG.warn("council role {}: its endpoint is unreachable, so it stops heartbeating",
                            settings.role());
                    heartbeats.send(event(settings.councils().get(0), "the endpoint of council role "
                            + settings.role() + " is unreachable: no heartbeats until it answers again"));
                }
                return;
            }
            if (up.compareAndSet(false, true)) {
                LOG.info("council role {}: its endpoint is reachable again", settings.role());
            }
            Instant now = Instant.now();
            for (String council : settings.councils()) {
                CouncilMessage heartbeat = CouncilMessage.newBuilder()
                        .setMsgId("hb-" + settings.role() + "-" + now.toEpochMilli())
                        .setCouncilId(council)
                        .setTimestamp(now)
                        .setSender(settings.role())
                        .setRole("voter")
                        .setType(CouncilMessageType.HEARTBEAT)
                        .setRiskLevel(RiskLevel.LOW)
                        .build();
                heartbeats.send(message(sealed(heartbeat)));
            }
            heartbeats.flush();
        } catch (RuntimeException e) {
            LOG.warn("council role {}: heartbeat failed: {}", settings.role(), e.toString());
        }
    }

    @Override
    public Map<TopicPartition, Long> process(ConsumerRecords<byte[], byte[]> records,
                                             TransactionalLoop.Batch batch) {
        Instant now = Instant.now();
        Map<ConsumerRecord<byte[], byte[]>, CouncilMessage> asked = new LinkedHashMap<>();
        Map<ConsumerRecord<byte[], byte[]>, CompletableFuture<ModelClient.Completion>> answers = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            proposal(record, now).ifPresent(proposal -> {
                asked.put(record, proposal);
                answers.put(record, client.call(ModelClient.ModelCall.of(settings.model(),
                        VotePrompt.of(settings.role(), proposal, tokens, settings.promptBudget()))));
            });
        }
        Map<TopicPartition, Long> leftAt = new HashMap<>();
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (Map.Entry<ConsumerRecord<byte[], byte[]>, CouncilMessage> entry : asked.entrySet()) {
            ConsumerRecord<byte[], byte[]> record = entry.getKey();
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            if (leftAt.containsKey(partition)) {
                answers.get(record).cancel(true); // read again with the one before it
                continue;
            }
            CouncilMessage proposal = entry.getValue();
            Optional<Ballot> ballot = ask(answers.get(record), proposal, out);
            if (ballot.isEmpty()) {
                leftAt.put(partition, record.offset());
                continue;
            }
            out.add(message(sealed(vote(proposal, ballot.get()))));
            votes.incrementAndGet();
        }
        out.forEach(batch::send);
        if (!leftAt.isEmpty()) {
            sleep(OUTAGE_BACKOFF);
        }
        return leftAt;
    }

    /** The proposal in this record, if it is one this role should vote on now. */
    private Optional<CouncilMessage> proposal(ConsumerRecord<byte[], byte[]> record, Instant now) {
        CouncilMessage message;
        try {
            message = topics.councilMessages.valueSerde().deserializer().deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            return Optional.empty(); // the council dead-letters it: it owns the topic
        }
        if (message == null || message.getType() != CouncilMessageType.PROPOSAL
                || !settings.councils().contains(message.getCouncilId()) || message.getTimestamp() == null
                || now.isAfter(message.getTimestamp().plus(settings.proposalTtl()))) {
            return Optional.empty();
        }
        return Optional.of(message);
    }

    /** The role's ballot, or empty when the endpoint could not answer (an event says so). */
    private Optional<Ballot> ask(CompletableFuture<ModelClient.Completion> answer, CouncilMessage proposal,
                                 List<ProducerRecord<byte[], byte[]>> out) {
        try {
            return Optional.of(Ballot.parse(answer.get(settings.callTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .text()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            return Optional.empty();
        } catch (TimeoutException e) {
            answer.cancel(true);
            out.add(event(proposal.getCouncilId(), outage(proposal, "no answer within " + settings.callTimeout())));
            return Optional.empty();
        } catch (ExecutionException e) {
            ModelClient.ModelException failure = ModelClient.ModelException.of(e.getCause());
            if (!failure.retriable()) {
                // It will never answer this prompt: the role takes part without deciding, and says why.
                return Optional.of(new Ballot(io.cognitionstreams.schema.Vote.ABSTAIN, Optional.empty(),
                        "abstained: the model refused the vote prompt: " + failure.getMessage()));
            }
            outages.warn(proposal.getMsgId() + ": " + failure.getMessage());
            out.add(event(proposal.getCouncilId(), outage(proposal, failure.getMessage())));
            return Optional.empty();
        }
    }

    private String outage(CouncilMessage proposal, String why) {
        return "council role " + settings.role() + " could not vote on proposal " + proposal.getMsgId() + " of "
                + "council " + proposal.getCouncilId() + ": " + why + "; it asks again while the proposal is open";
    }

    private CouncilMessage vote(CouncilMessage proposal, Ballot ballot) {
        return CouncilMessage.newBuilder()
                // Derived: a vote read again after a crash has the same id, and the council keeps the first.
                .setMsgId("vote-" + settings.role() + "-" + proposal.getMsgId())
                .setParentId(proposal.getMsgId())
                .setCouncilId(proposal.getCouncilId())
                .setTimestamp(Instant.now())
                .setSender(settings.role())
                .setRole("voter")
                .setType(CouncilMessageType.VOTE)
                .setConfidence(ballot.confidence().orElse(null))
                .setRiskLevel(RiskLevel.LOW)
                .setContent(ballot.reason())
                .setProposalId(proposal.getMsgId())
                .setVote(ballot.vote())
                .setSessionId(proposal.getSessionId())
                .build();
    }

    private CouncilMessage sealed(CouncilMessage message) {
        return key.map(signer -> CouncilSignatures.sign(message, signer)).orElse(message);
    }

    private ProducerRecord<byte[], byte[]> message(CouncilMessage message) {
        String name = topics.councilMessages.name();
        return new ProducerRecord<>(name, message.getCouncilId().getBytes(StandardCharsets.UTF_8),
                topics.councilMessages.valueSerde().serializer().serialize(name, message));
    }

    private ProducerRecord<byte[], byte[]> event(String council, String text) {
        Instant now = Instant.now();
        PipelineEvent event = PipelineEvents.event("council-role-" + settings.role() + "-" + now.toEpochMilli()
                        + "/" + ROLE_UNREACHABLE, ROLE_UNREACHABLE, Severity.WARN, PipelineEvents.Turn.NONE, text,
                Map.of("role", settings.role(), "council", council), now);
        String name = topics.events.name();
        return new ProducerRecord<>(name, council.getBytes(StandardCharsets.UTF_8),
                topics.events.valueSerde().serializer().serialize(name, event));
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        beats.shutdownNow();
        loop.close();
        if (heartbeats != null) {
            heartbeats.close(Duration.ofSeconds(5));
        }
    }
}
