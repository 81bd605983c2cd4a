package io.cognitionstreams.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A seeded generator of what an agent's episodic memory holds (THOUGHT_SEED and VERIFY conclusions about builds,
 * deploys, incidents, code, data and users) and of the prompts that later search it: the same seed gives the same
 * texts on every machine, so recall figures can be compared run to run. Queries ask about the facts of memories in
 * other words, as a user would, so they share entities with their memories but rarely whole phrases.
 */
public final class AgentMemoryCorpus {

    private static final String[] SERVICES = {"billing-api", "checkout-service", "auth-gateway", "search-indexer",
        "payments-worker", "notification-service", "user-profile", "inventory-sync", "report-generator",
        "media-transcoder", "order-router", "fraud-scorer", "ledger", "shipping-quotes", "feature-flags",
        "session-store", "email-relay", "pricing-engine", "catalog-api", "recommendations", "audit-log",
        "webhook-dispatcher", "image-resizer", "tenant-admin", "rate-limiter", "geo-lookup", "invoice-pdf",
        "chat-backend", "metrics-exporter", "config-server"};
    private static final String[] ENVIRONMENTS = {"staging", "production", "the canary pool", "eu-west-1",
        "us-east-2", "the load-test cluster", "ap-south-1", "the blue fleet", "the green fleet", "dev"};
    private static final String[] BRANCHES = {"main", "release/2.4", "release/3.0", "feature/sso",
        "hotfix/ledger-rounding", "feature/async-export", "renovate/jackson", "feature/new-checkout"};
    private static final String[] TESTS = {"OrderFlowIT", "LedgerBalanceTest", "the contract tests",
        "the Cypress login suite", "InvoiceRenderingTest", "the migration smoke test", "RetryPolicyTest",
        "the snapshot tests", "KafkaConsumerIT", "the load-shedding benchmark"};
    private static final String[] DEPENDENCIES = {"Postgres", "Redis", "Kafka", "Elasticsearch", "S3",
        "the payment provider", "the SMTP relay", "DynamoDB", "the DNS resolver", "the identity provider",
        "RabbitMQ", "the CDN"};
    private static final String[] CAUSES = {"an expired TLS certificate", "a connection pool capped at 10",
        "a missing database index on created_at", "a full disk on the log volume", "a retry storm after a timeout",
        "a bad feature flag rollout", "a DNS TTL of one day", "an out-of-memory kill under load",
        "a schema migration that locked the table", "clock skew between nodes", "a leaked file descriptor per request",
        "a misconfigured autoscaler", "a stale cache entry", "a rate limit at the upstream API",
        "a race between two consumers", "a Java heap set too small"};
    private static final String[] FIXES = {"raised the pool size to 50", "added the index concurrently",
        "rotated the certificate and added an expiry alert", "rolled back to the previous release",
        "added jittered exponential backoff", "pinned the dependency version", "moved the job off peak hours",
        "increased the heap to 4 GB", "split the migration into batches", "turned the flag off for all tenants",
        "added a circuit breaker", "cleared the cache and shortened its TTL", "enabled NTP on every node",
        "closed the stream in a finally block", "doubled the partition count", "added a readiness probe"};
    private static final String[] USERS = {"Alice", "Bob", "Chen", "Dmitri", "Esther", "Farah", "Giulia", "Hiro",
        "Ines", "Jonas", "Kemal", "Lena", "Mateo", "Noor", "Olga", "Priya", "Quentin", "Rosa", "Sven", "Tariq"};
    private static final String[] PREFERENCES = {"short answers with the command first", "answers in German",
        "a summary before details", "no emojis in replies", "YAML over JSON in examples", "Python examples",
        "links to the runbook", "metric figures with units", "a checklist for every deploy",
        "to be asked before anything is deleted", "Go examples", "diagrams as Mermaid"};
    private static final String[] CODE = {"the retry helper", "OrderMapper.toDto", "the CSV importer",
        "the session middleware", "PriceCalculator.discount", "the webhook signer", "the pagination cursor",
        "InvoiceRepository.findOpen", "the JSON schema validator", "the thread pool factory", "the cache loader",
        "the S3 uploader", "TokenRefresher.refresh", "the date parser", "the feature flag client"};
    private static final String[] BUGS = {"swallows the InterruptedException", "leaks a connection on error",
        "parses dates in the server time zone", "rounds currency with floating point", "ignores the last page",
        "retries non-idempotent POSTs", "logs the access token", "blocks the event loop", "holds a lock during I/O",
        "compares strings with ==", "never evicts old entries", "loses the trace context across threads"};
    private static final String[] DATA = {"the orders table", "the events topic", "the nightly export",
        "the customer warehouse", "the audit bucket", "the search index", "the sessions keyspace",
        "the analytics pipeline", "the invoice archive", "the metrics database"};

    private AgentMemoryCorpus() {
    }

    /** {@code count} distinct memory texts, the same for the same seed. */
    public static List<String> memories(long seed, int count) {
        Random random = new Random(seed);
        Set<String> texts = new LinkedHashSet<>();
        while (texts.size() < count) {
            texts.add(memory(random));
        }
        return new ArrayList<>(texts);
    }

    /** {@code count} prompts, each about the facts of one memory of the same seed's corpus, in other words. */
    public static List<String> queries(long seed, int count) {
        Random random = new Random(seed * 31 + 7);
        List<String> queries = new ArrayList<>(count);
        while (queries.size() < count) {
            queries.add(query(random));
        }
        return queries;
    }

    private static String memory(Random r) {
        String svc = pick(r, SERVICES);
        return switch (r.nextInt(16)) {
            case 0 -> "THOUGHT_SEED: The " + svc + " build on " + pick(r, BRANCHES) + " fails because "
                    + pick(r, TESTS) + " times out after " + (5 + r.nextInt(120)) + " seconds when "
                    + pick(r, DEPENDENCIES) + " is slow.";
            case 1 -> "VERIFY: Deploy of " + svc + " " + version(r) + " to " + pick(r, ENVIRONMENTS)
                    + " passed its health checks; the error rate stayed below " + (1 + r.nextInt(9)) / 10.0 + "%.";
            case 2 -> "THOUGHT_SEED: Incident INC-" + (1000 + r.nextInt(9000)) + ": " + svc + " returned 503s in "
                    + pick(r, ENVIRONMENTS) + " for " + (2 + r.nextInt(90)) + " minutes; the root cause was "
                    + pick(r, CAUSES) + ".";
            case 3 -> "VERIFY: After we " + pick(r, FIXES) + ", " + svc + " in " + pick(r, ENVIRONMENTS)
                    + " held p99 latency under " + (50 + r.nextInt(950)) + " ms.";
            case 4 -> "THOUGHT_SEED: " + pick(r, USERS) + " prefers " + pick(r, PREFERENCES) + ".";
            case 5 -> "THOUGHT_SEED: In " + svc + ", " + pick(r, CODE) + " " + pick(r, BUGS)
                    + "; a fix needs a regression test first.";
            case 6 -> "VERIFY: " + pick(r, TESTS) + " is green again on " + pick(r, BRANCHES) + " after we "
                    + pick(r, FIXES) + ".";
            case 7 -> "THOUGHT_SEED: Restoring " + pick(r, DATA) + " from the " + (1 + r.nextInt(30))
                    + "-day backup took " + (3 + r.nextInt(180)) + " minutes; check it before the next drill.";
            case 8 -> "VERIFY: The rollback of " + svc + " to " + version(r) + " in " + pick(r, ENVIRONMENTS)
                    + " worked, but " + pick(r, DEPENDENCIES) + " needed a manual restart.";
            case 9 -> "THOUGHT_SEED: " + svc + " depends on " + pick(r, DEPENDENCIES) + " and on "
                    + pick(r, SERVICES) + "; deploy it after both are healthy.";
            case 10 -> "THOUGHT_SEED: " + pick(r, USERS) + " owns " + svc + " and is on call in week "
                    + (1 + r.nextInt(52)) + "; page them for " + pick(r, DEPENDENCIES) + " alerts.";
            case 11 -> "VERIFY: The migration of " + pick(r, DATA) + " to the new schema finished with "
                    + r.nextInt(2000) + " rows rejected for " + pick(r, CAUSES).replace("a ", "") + ".";
            case 12 -> "THOUGHT_SEED: Builds of " + svc + " got " + (10 + r.nextInt(80))
                    + "% faster once we cached the " + pick(r, new String[] {"Maven", "npm", "Gradle", "Docker layer",
                        "pip", "Go module"}) + " downloads in CI.";
            case 13 -> "VERIFY: " + pick(r, USERS) + " confirmed that " + svc + " " + version(r) + " fixed the "
                    + pick(r, BUGS).replace("s ", " ") + " bug in " + pick(r, CODE) + ".";
            case 14 -> "THOUGHT_SEED: Alert fatigue: " + svc + " fired " + (5 + r.nextInt(200))
                    + " pages last week, mostly about " + pick(r, DEPENDENCIES) + " latency; raise the threshold.";
            default -> "VERIFY: Load test of " + svc + " at " + (100 + r.nextInt(5000)) + " requests/s in "
                    + pick(r, ENVIRONMENTS) + " showed " + pick(r, CAUSES) + ".";
        };
    }

    private static String query(Random r) {
        String svc = pick(r, SERVICES);
        return switch (r.nextInt(16)) {
            case 0 -> "Why does the " + svc + " pipeline keep failing on " + pick(r, BRANCHES) + "?";
            case 1 -> "Did the " + svc + " release go out to " + pick(r, ENVIRONMENTS) + " without errors?";
            case 2 -> "What caused the " + svc + " outage in " + pick(r, ENVIRONMENTS) + "?";
            case 3 -> "How did we get " + svc + " latency back down in " + pick(r, ENVIRONMENTS) + "?";
            case 4 -> "How does " + pick(r, USERS) + " like answers to be written?";
            case 5 -> "Is there a known bug in " + pick(r, CODE) + " of " + svc + "?";
            case 6 -> "What made " + pick(r, TESTS) + " pass again?";
            case 7 -> "How long does a restore of " + pick(r, DATA) + " take?";
            case 8 -> "Can we roll " + svc + " back safely in " + pick(r, ENVIRONMENTS) + "?";
            case 9 -> "What must be up before we deploy " + svc + "?";
            case 10 -> "Who should I page when " + svc + " has problems with " + pick(r, DEPENDENCIES) + "?";
            case 11 -> "Were any rows lost when " + pick(r, DATA) + " was migrated?";
            case 12 -> "How can we make the " + svc + " CI build faster?";
            case 13 -> "Which version of " + svc + " fixed the problem in " + pick(r, CODE) + "?";
            case 14 -> "Why is " + svc + " paging the on-call engineer so often?";
            default -> "How much traffic can " + svc + " handle before it breaks?";
        };
    }

    private static String version(Random r) {
        return "v" + (1 + r.nextInt(4)) + "." + r.nextInt(20) + "." + r.nextInt(10);
    }

    private static String pick(Random r, String[] values) {
        return values[r.nextInt(values.length)];
    }
}
