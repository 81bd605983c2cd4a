package io.cognitionstreams.assembly.compression;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.compression.CompressionResult.Attempt;
import io.cognitionstreams.assembly.compression.CompressionResult.Compressed;
import io.cognitionstreams.assembly.compression.CompressionResult.TokenBudgetError;
import io.cognitionstreams.prompt.ModelClient.Completion;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * Compresses an oversized packet field (spec 4.2): the local extractive summarizer first, then the Lite model,
 * then the Prime model, each only when configured. The first result within the target wins; it is tagged with
 * {@link #TAG}, whose tokens count against the target. A model answer over the target is a failure like any other.
 * When every tier fails the answer is a {@link TokenBudgetError}, never a truncated field.
 *
 * <p>The fields compressed are identity, persona and skill protocols, which exist to keep a model on its rules: every
 * rule of the text ({@link Rules}) is kept word for word. The extractive tier keeps them first and fills what is left
 * with sentences; a model tier is given them and its answer is refused unless it kept them all.
 *
 * <p>{@link #compress} blocks its caller for at most the deadline (default 20 s) plus the extractive pass: each
 * model call runs on a small bounded pool and is abandoned (interrupted) when its per-call timeout or the chain's
 * deadline passes, so one slow model cannot hold a Kafka Streams thread past {@code max.poll.interval.ms}.
 * docs/compression.md says how a topology bounds a whole poll's worth of calls.
 *
 * <p>Successful results are cached by content; failures are not, since a slow model may answer next time.
 */
public final class CompressionChain implements FieldCompressor, AutoCloseable {

    /** Marks a compressed field so developers notice; the trailing space keeps it apart from the text. */
    public static final String TAG = "⚠SUMMARY ";
    public static final String EXTRACTIVE = "extractive";
    public static final String LITE = "lite";
    public static final String PRIME = "prime";

    private static final Logger LOG = LoggerFactory.getLogger(CompressionChain.class);

    private record Tier(String method, ModelClient client, String model) {
    }

    private final ExtractiveSummarizer extractive;
    private final List<Tier> tiers;
    private final Duration callTimeout;
    private final Duration deadline;
    private final SummaryCache cache;
    private final ThreadPoolExecutor modelCalls;

    private CompressionChain(Builder builder) {
        this.extractive = builder.extractive;
        this.tiers = Stream.of(builder.lite, builder.prime).filter(Objects::nonNull).toList();
        this.callTimeout = builder.callTimeout;
        this.deadline = builder.deadline;
        this.cache = new SummaryCache(builder.cacheSize);
        this.modelCalls = tiers.isEmpty() ? null : modelPool(builder.modelThreads);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Compresses {@code text} to at most {@code targetTokens} tokens of {@code counter}, tag included.
     *
     * @param field names the field in a {@link TokenBudgetError} and the log
     * @throws IllegalArgumentException when the text already fits: only oversized fields are compressed
     */
    @Override
    public CompressionResult compress(String field, String text, int targetTokens, TokenCounter counter) {
        int originalTokens = counter.count(text);
        if (originalTokens <= targetTokens) {
            throw new IllegalArgumentException(field + " has " + originalTokens + " tokens and already fits "
                    + targetTokens);
        }
        String key = SummaryCache.key(text, targetTokens, counter.encodingName());
        Compressed cached = cache.get(key);
        if (cached != null) {
            logOverrun(field, cached, targetTokens, true);
            return cached;
        }
        long deadlineAt = System.nanoTime() + deadline.toNanos();
        List<Attempt> attempts = new ArrayList<>();
        Compressed result = null;
        // The model is asked for what is left once the tag is in, so the tagged answer can fit.
        int bodyTokens = targetTokens - counter.count(TAG);
        if (bodyTokens <= 0) {
            attempts.add(new Attempt("tag", "target " + targetTokens + " leaves no room after the "
                    + counter.count(TAG) + "-token tag"));
        } else {
            List<String> rules = Sentences.rules(text);
            result = extract(text, rules, bodyTokens, targetTokens, originalTokens, counter, attempts);
            List<PromptMessage> prompt = prompt(text, rules, bodyTokens);
            for (int i = 0; i < tiers.size() && result == null; i++) {
                Tier tier = tiers.get(i);
                String answer = call(tier, prompt, deadlineAt, attempts);
                if (answer != null && keepsRules(unwrap(answer), rules, tier.method(), attempts)) {
                    result = tagged(answer, tier.method(), targetTokens, originalTokens, counter, attempts);
                }
            }
        }
        if (result == null) {
            TokenBudgetError error = new TokenBudgetError(field, originalTokens, targetTokens, attempts);
            LOG.warn("TOKEN_BUDGET_ERROR field={} original_tokens={} target_tokens={} attempts={}",
                    field, originalTokens, targetTokens, attempts);
            return error;
        }
        cache.put(key, result);
        logOverrun(field, result, targetTokens, false);
        return result;
    }

    /**
     * The compression prompt of spec 4.2, asking for {@code bodyTokens} so the tagged answer can fit, and, when the
     * text has rules, for each of them word for word.
     */
    static List<PromptMessage> prompt(String text, List<String> rules, int bodyTokens) {
        if (rules.isEmpty()) {
            return List.of(
                    new PromptMessage("system", "You are a text compressor. Rewrite the section between START>> "
                            + "and <<END in at most " + bodyTokens + " tokens, preserving its directives and key "
                            + "nouns. Use no markdown formatting. Answer with the rewritten section only."),
                    new PromptMessage("user", "START>>\n" + text + "\n<<END"));
        }
        return List.of(
                new PromptMessage("system", "You are a text compressor. Rewrite the section between START>> and "
                        + "<<END in at most " + bodyTokens + " tokens. It holds rules, listed between RULES>> and "
                        + "<<RULES: copy every one of them into your answer word for word, each on a line of its "
                        + "own (you may drop a list marker or reformat whitespace, nothing else). Shorten only the "
                        + "other text, preserving its key nouns, with no markdown formatting. An answer that "
                        + "changes or leaves out a rule is refused. Answer with the rewritten section only."),
                new PromptMessage("user", "RULES>>\n" + String.join("\n", rules) + "\n<<RULES\nSTART>>\n" + text
                        + "\n<<END"));
    }

    private Compressed extract(String text, List<String> rules, int bodyTokens, int targetTokens,
                               int originalTokens, TokenCounter counter, List<Attempt> attempts) {
        if (extractive == null) {
            return null;
        }
        Optional<String> extract = extractive.summarize(text, bodyTokens, counter);
        if (extract.isEmpty()) {
            int ruleTokens = counter.count(String.join("\n", rules));
            attempts.add(new Attempt(EXTRACTIVE, rules.isEmpty() || ruleTokens <= bodyTokens
                    ? "no extract of whole sentences fits " + bodyTokens + " tokens"
                    : "its " + rules.size() + " rule" + (rules.size() == 1 ? "" : "s") + " alone need " + ruleTokens
                            + " tokens, " + bodyTokens + " are left after the tag; a rule is never dropped"));
            return null;
        }
        return tagged(extract.get(), EXTRACTIVE, targetTokens, originalTokens, counter, attempts);
    }

    /** Whether a model's answer kept every rule word for word; records the refusal when it did not. */
    private static boolean keepsRules(String answer, List<String> rules, String method, List<Attempt> attempts) {
        List<String> missing = Rules.missing(rules, answer);
        if (missing.isEmpty()) {
            return true;
        }
        attempts.add(new Attempt(method, "refused: the answer lost " + missing.size() + " of " + rules.size()
                + " rules word for word, e.g. \"" + abbreviated(missing.get(0)) + "\""));
        return false;
    }

    private static String abbreviated(String rule) {
        String line = rule.strip().replace('\n', ' ');
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }

    /** The model's answer, or null after recording why there is none. */
    private String call(Tier tier, List<PromptMessage> prompt, long deadlineAt, List<Attempt> attempts) {
        long remaining = deadlineAt - System.nanoTime();
        if (remaining <= 0) {
            attempts.add(new Attempt(tier.method(), "not tried: the chain's " + deadline.toMillis()
                    + " ms deadline had passed"));
            return null;
        }
        long timeout = Math.min(callTimeout.toNanos(), remaining);
        Future<Completion> future;
        try {
            future = modelCalls.submit(() -> tier.client().complete(tier.model(), prompt));
        } catch (RejectedExecutionException e) {
            attempts.add(new Attempt(tier.method(), "not tried: every model-call thread and queue slot is busy"));
            return null;
        }
        try {
            String text = future.get(timeout, TimeUnit.NANOSECONDS).text();
            return text == null ? "" : text;
        } catch (TimeoutException e) {
            // Interrupting frees the pool thread: OpenAiChatModel's blocking send gives up on interrupt.
            future.cancel(true);
            attempts.add(new Attempt(tier.method(), tier.model() + " gave no answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms"));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // A ModelException's message already says what went wrong; anything else is a bug worth naming.
            String why = cause instanceof ModelClient.ModelException ? cause.getMessage() : cause.toString();
            attempts.add(new Attempt(tier.method(), tier.model() + " failed: " + why));
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            attempts.add(new Attempt(tier.method(), "interrupted while waiting for " + tier.model()));
        }
        return null;
    }

    /** Tags {@code body} and keeps it if the tagged text fits, else records the failure and returns null. */
    private static Compressed tagged(String body, String method, int targetTokens, int originalTokens,
            TokenCounter counter, List<Attempt> attempts) {
        String cleaned = unwrap(body);
        if (cleaned.isEmpty()) {
            attempts.add(new Attempt(method, "empty answer"));
            return null;
        }
        String text = TAG + cleaned;
        int tokens = counter.count(text);
        if (tokens > targetTokens) {
            attempts.add(new Attempt(method, "result has " + tokens + " tokens with the tag, target "
                    + targetTokens));
            return null;
        }
        return new Compressed(text, originalTokens, tokens, method);
    }

    /** Models sometimes echo the prompt's delimiters, or its list of rules; they are not part of the section. */
    private static String unwrap(String answer) {
        String text = answer.strip();
        if (text.startsWith("RULES>>") && text.contains("<<RULES")) {
            text = text.substring(text.indexOf("<<RULES") + "<<RULES".length()).strip();
        }
        if (text.startsWith("START>>")) {
            text = text.substring("START>>".length());
        }
        if (text.endsWith("<<END")) {
            text = text.substring(0, text.length() - "<<END".length());
        }
        return text.strip();
    }

    private static void logOverrun(String field, Compressed result, int targetTokens, boolean cached) {
        LOG.info("TOKEN_BUDGET_OVERRUN field={} original_tokens={} compressed_tokens={} target_tokens={} "
                        + "method={} cached={}", field, result.originalTokens(), result.compressedTokens(),
                targetTokens, result.method(), cached);
    }

    private static ThreadPoolExecutor modelPool(int threads) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "compression-model-" + count.incrementAndGet());
            // Never keeps the JVM alive; close() is still the orderly way out.
            thread.setDaemon(true);
            return thread;
        };
        // A short queue absorbs bursts from several stream threads; beyond it, failing fast beats waiting.
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(4 * threads), factory);
    }

    /** Interrupts model calls still running; their callers have already given up or will at their deadline. */
    @Override
    public void close() {
        if (modelCalls != null) {
            modelCalls.shutdownNow();
        }
    }

    public static final class Builder {
        private ExtractiveSummarizer extractive;
        private Tier lite;
        private Tier prime;
        private Duration callTimeout = Duration.ofSeconds(8);
        private Duration deadline = Duration.ofSeconds(20);
        private int cacheSize = 256;
        private int modelThreads = 2;

        private Builder() {
        }

        public Builder extractive(ExtractiveSummarizer summarizer) {
            this.extractive = summarizer;
            return this;
        }

        public Builder lite(ModelClient client, String model) {
            this.lite = new Tier(LITE, client, model);
            return this;
        }

        public Builder prime(ModelClient client, String model) {
            this.prime = new Tier(PRIME, client, model);
            return this;
        }

        /** Longest wait for one model call (default 8 s); the chain's deadline may cut it shorter. */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = positive(timeout, "callTimeout");
            return this;
        }

        /** Longest a {@code compress} call spends before giving up (default 20 s), model calls included. */
        public Builder deadline(Duration deadline) {
            this.deadline = positive(deadline, "deadline");
            return this;
        }

        /** Summaries kept (default 256); 0 turns the cache off. */
        public Builder cacheSize(int entries) {
            this.cacheSize = entries;
            return this;
        }

        /** Model calls in flight at once across all callers (default 2). */
        public Builder modelThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("modelThreads must be >= 1, was " + threads);
            }
            this.modelThreads = threads;
            return this;
        }

        public CompressionChain build() {
            return new CompressionChain(this);
        }

        private static Duration positive(Duration value, String name) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }
    }
}
