package io.cognitionstreams.roles;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.worker.ParallelLoop;
import io.cognitionstreams.worker.WorkerLetters;

/**
 * One council role voted by a model (docs/council.md, "Model roles"): it heartbeats into the councils it serves
 * while its endpoint is reachable, and answers each of their proposals with one VOTE, on a {@link ParallelLoop} of
 * its own over council.messages (its own consumer group), as the model worker answers packets: a model call can take
 * minutes, so many proposals are asked about at once, one call each, and each vote commits with its proposal's
 * offset, exactly once, whenever it comes. The proposals of one council share a key, and are independent of each
 * other: they are not ordered behind each other ({@link #orderKey}).
 *
 * <p>The {@link Voter} asks the model through the model worker's client, which waits out an endpoint's outages. A
 * proposal whose model has not answered by its deadline gets no vote from this role and a {@value #ROLE_UNREACHABLE}
 * event that says why; one read again after a crash or a rebalance is asked again while it is open, so no proposal
 * is lost. While the endpoint is unreachable the heartbeats stop, so the council counts the role inactive after its
 * heartbeat timeout and decides with the others (reduced quorum).
 */
public final class RoleWorker implements Runnable, AutoCloseable, ParallelLoop.Handler {

    /** Event of a role whose endpoint does not answer: it stopped heartbeating, or missed a proposal's deadline. */
    public static final String ROLE_UNREACHABLE = "COUNCIL_ROLE_UNREACHABLE";
    private static final Logger LOG = LoggerFactory.getLogger(RoleWorker.class);

    /**
     * @param role        the council role it votes as (one of --council-roles)
     * @param councils    the councils it serves: it heartbeats into these and votes on their proposals
     * @param heartbeat   how often it heartbeats (30 s; the council's timeout is 90 s)
     * @param proposalTtl the council's proposal time to live: a proposal is asked about until then
     * @param concurrency proposals asked about at once
     */
    public record Settings(String role, List<String> councils, Duration heartbeat, Duration proposalTtl,
                           int concurrency) {
        public Settings {
            councils = List.copyOf(councils);
        }
    }

    private final Topics topics;
    private final BooleanSupplier reachable;
    private final Settings settings;
    private final Optional<Ed25519.Key> key;
    private final Map<String, Object> clientConfig;
    private final String groupId;
    private final Voter voter;
    private final ParallelLoop loop;
    private final ScheduledExecutorService beats;
    private final AtomicBoolean up = new AtomicBoolean(true);
    private final AtomicInteger votes = new AtomicInteger();
    private KafkaProducer<byte[], byte[]> heartbeats;

    /**
     * @param voter     asks the role's model
     * @param reachable whether the endpoint can be reached now: heartbeats only then
     * @param key       the role's key, which signs its heartbeats and votes; empty when signatures are off
     */
    public RoleWorker(Map<String, Object> clientConfig, String groupId, String instanceId, Topics topics,
                      Voter voter, BooleanSupplier reachable, Settings settings, Optional<Ed25519.Key> key,
                      Duration sessionTimeout) {
        this.topics = topics;
        this.voter = voter;
        this.reachable = reachable;
        this.settings = settings;
        this.key = key;
        this.groupId = groupId;
        this.clientConfig = Map.copyOf(clientConfig);
        this.loop = new ParallelLoop("council role " + settings.role(), clientConfig, groupId, instanceId,
                topics.councilMessages.name(), ParallelLoop.Limits.of(settings.concurrency()), sessionTimeout, this);
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

    /** Proposals asked about now. */
    public int inFlight() {
        return loop.inFlight();
    }

    private void beat() {
        try {
            if (!reachable.getAsBoolean()) {
                if (up.compareAndSet(true, false)) {
                    LOG.warn("council role {}: its endpoint is unreachable, so it stops heartbeating",
                            settings.role());
                    Instant now = Instant.now();
                    for (String council : settings.councils()) {
                        heartbeats.send(event("council-role-" + settings.role() + "-" + now.toEpochMilli(), council,
                                "the endpoint of council role " + settings.role() + " is unreachable: no heartbeats "
                                        + "until it answers again", now));
                    }
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

    /** Every record of council.messages is its own: one council's proposals do not wait for each other. */
    @Override
    public byte[] orderKey(ConsumerRecord<byte[], byte[]> record) {
        return null;
    }

    /** Asks the model about a proposal of a council this role serves; anything else is done at once. */
    @Override
    public ParallelLoop.Work start(ConsumerRecord<byte[], byte[]> record) {
        Instant now = Instant.now();
        Optional<CouncilMessage> read = proposal(record, now);
        if (read.isEmpty()) {
            return ParallelLoop.Work.done(List.of());
        }
        CouncilMessage proposal = read.get();
        CompletableFuture<Voter.Outcome> outcome = voter.vote(proposal, Duration.between(now,
                proposal.getTimestamp().plus(settings.proposalTtl())));
        CompletableFuture<List<ProducerRecord<byte[], byte[]>>> outputs = outcome.thenApply(answer ->
                List.of(answer(proposal, answer)));
        // The loop gives up on a proposal whose partition goes elsewhere: so does the call.
        outputs.whenComplete((done, error) -> {
            if (outputs.isCancelled()) {
                outcome.cancel(true);
            }
        });
        return ParallelLoop.Work.later(outputs);
    }

    /** The role's vote, or the event of a vote it could not cast. */
    private ProducerRecord<byte[], byte[]> answer(CouncilMessage proposal, Voter.Outcome outcome) {
        if (outcome instanceof Voter.Voted voted) {
            votes.incrementAndGet();
            return message(sealed(vote(proposal, voted.ballot())));
        }
        String why = ((Voter.Missed) outcome).why();
        LOG.warn("council role {} did not vote on proposal {} of council {}: {}", settings.role(),
                proposal.getMsgId(), proposal.getCouncilId(), why);
        return event("council-role-" + settings.role() + "/" + proposal.getMsgId(), proposal.getCouncilId(),
                "council role " + settings.role() + " did not vote on proposal " + proposal.getMsgId() + " of council "
                        + proposal.getCouncilId() + ": " + why, Instant.now());
    }

    @Override
    public ProducerRecord<byte[], byte[]> failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
        return WorkerLetters.deadLetter(topics, record, ErrorKind.PROCESSING, error,
                "council-role-" + settings.role(), groupId);
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
                || !now.isBefore(message.getTimestamp().plus(settings.proposalTtl()))) {
            return Optional.empty();
        }
        return Optional.of(message);
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

    private ProducerRecord<byte[], byte[]> event(String id, String council, String text, Instant at) {
        PipelineEvent event = PipelineEvents.event(id + "/" + ROLE_UNREACHABLE, ROLE_UNREACHABLE, Severity.WARN,
                PipelineEvents.Turn.NONE, text, Map.of("role", settings.role(), "council", council), at);
        String name = topics.events.name();
        return new ProducerRecord<>(name, council.getBytes(StandardCharsets.UTF_8),
                topics.events.valueSerde().serializer().serialize(name, event));
    }

    @Override
    public void close() {
        beats.shutdownNow();
        loop.close();
        if (heartbeats != null) {
            heartbeats.close(Duration.ofSeconds(5));
        }
        voter.close();
    }
}
