package io.cognitionstreams.security;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import io.cognitionstreams.topics.Topics;

/**
 * The least-privilege ACLs of the secure deployment: which principal may do what on which resource. Plain Java, so
 * the rules are read and tested without a broker; {@code KafkaAcls} turns them into Kafka's bindings. Every grant
 * is an ALLOW: with {@code allow.everyone.if.no.acl.found=false}, whatever is not granted here is denied.
 *
 * <p>An agent writes only its tenant's own requests topic, {@code cognition.requests.<tenant>}, where what it
 * writes is bound to the tenant ({@link TenantBinding}); the shared {@code cognition.requests} binds nothing, so
 * only the app writes it. It reads only its tenant's channels, {@code channel.<tenant>.*}, where routing answers
 * the tenant's sessions: the shared {@code channel.cli_chat} and the like hold every other session's answers
 * (docs/security.md).
 */
public final class AclProfile {

    public enum ResourceType { TOPIC, GROUP, TRANSACTIONAL_ID, CLUSTER }

    public enum PatternType { LITERAL, PREFIXED }

    /** Kafka's operations that this profile grants; READ, WRITE, DELETE and ALTER_CONFIGS imply DESCRIBE. */
    public enum Operation { ALL, READ, WRITE, CREATE, DELETE, DESCRIBE, DESCRIBE_CONFIGS }

    /** A resource or a pattern of them; {@value #WILDCARD} as a literal name is every resource of its type. */
    public record Resource(ResourceType type, String name, PatternType pattern) {
        public static final String WILDCARD = "*";
        /** The cluster's only resource name, as Kafka spells it. */
        public static final String CLUSTER_NAME = "kafka-cluster";

        public Resource {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(pattern, "pattern");
        }

        static Resource topic(String name) {
            return new Resource(ResourceType.TOPIC, name, PatternType.LITERAL);
        }

        boolean matches(ResourceType otherType, String otherName) {
            if (type != otherType) {
                return false;
            }
            return switch (pattern) {
                case LITERAL -> name.equals(WILDCARD) || name.equals(otherName);
                case PREFIXED -> otherName.startsWith(name);
            };
        }

        @Override
        public String toString() {
            return type + " " + (pattern == PatternType.PREFIXED ? name + "*" : name);
        }
    }

    /** One ALLOW rule: {@code User:<principal>} may do {@code operation} on {@code resource}, from any host. */
    public record Grant(String principal, Resource resource, Operation operation) {
    }

    /**
     * Topics only governance writes: what every instance applies as shared truth (governance audits and letters
     * each change), and the keys council signatures are checked with.
     */
    public static final List<String> GOVERNED = List.of(Topics.COGNITION_IDENTITY, Topics.COGNITION_SKILLS,
            Topics.COGNITION_PERSONAS, Topics.COUNCIL_KEYS);
    /**
     * What council roles read: their own topic, its outcomes, and the escalations on the council's channel. Not
     * council.decisions.by-session, the same decisions keyed by session for the gatekeeper: like council.decisions,
     * only the app (the council) writes it, as every topic not governed, and only the app (the gatekeeper) reads it.
     */
    private static final List<String> COUNCIL_READS = List.of(Topics.COUNCIL_MESSAGES, Topics.COUNCIL_DECISIONS,
            Topics.COUNCIL_ROLES, Topics.COUNCIL_STATE, Topics.CHANNEL_PREFIX + "council_chat");
    /**
     * Transactions of the CLI's one-shot writers: {@code memory forget} (governance), {@code replay}, {@code fork},
     * {@code session import} (the app's).
     */
    public static final String CLI_TRANSACTIONS = "cognition-cli-";

    private final List<Grant> grants;

    private AclProfile(List<Grant> grants) {
        this.grants = List.copyOf(grants);
    }

    /**
     * @param applicationId the app's application id: the prefix of its capabilities' application ids, so of their
     *                      groups, internal topics and transactional ids, and of the workers'
     * @param topics        every topic of the pipeline (the names in {@code Topics}), the principals' tenants' own
     *                      among them
     */
    public static AclProfile of(String applicationId, Collection<String> topics, Principals principals) {
        if (applicationId == null || applicationId.isBlank()) {
            throw new IllegalArgumentException("the application id must not be blank");
        }
        List<Grant> grants = new ArrayList<>();
        for (String topic : topics) {
            // The app creates every topic, and reads each one's limits before it writes there.
            add(grants, Principals.APP, Resource.topic(topic), Operation.CREATE, Operation.READ,
                    Operation.DESCRIBE_CONFIGS);
            if (!GOVERNED.contains(topic)) {
                add(grants, Principals.APP, Resource.topic(topic), Operation.WRITE);
            }
        }
        // What it owns outright: its internal topics (repartition, changelogs), groups and transactions, all named
        // after its application id.
        String owned = applicationId + "-";
        add(grants, Principals.APP, new Resource(ResourceType.TOPIC, owned, PatternType.PREFIXED), Operation.ALL);
        add(grants, Principals.APP, new Resource(ResourceType.GROUP, owned, PatternType.PREFIXED), Operation.ALL);
        add(grants, Principals.APP, new Resource(ResourceType.TRANSACTIONAL_ID, owned, PatternType.PREFIXED),
                Operation.WRITE, Operation.DESCRIBE);
        // replay, fork and session import run as the app and write its requests in one CLI transaction each.
        add(grants, Principals.APP, new Resource(ResourceType.TRANSACTIONAL_ID, CLI_TRANSACTIONS,
                PatternType.PREFIXED), Operation.WRITE, Operation.DESCRIBE);

        // And cognition.memory, beside the app: `memory forget` is a user's deletion request.
        for (String topic : List.of(Topics.COGNITION_IDENTITY, Topics.COGNITION_SKILLS, Topics.COGNITION_PERSONAS,
                Topics.COUNCIL_KEYS, Topics.COGNITION_MEMORY)) {
            add(grants, Principals.GOVERNANCE, Resource.topic(topic), Operation.READ, Operation.WRITE,
                    Operation.DESCRIBE_CONFIGS);
        }
        add(grants, Principals.GOVERNANCE,
                new Resource(ResourceType.TRANSACTIONAL_ID, CLI_TRANSACTIONS, PatternType.PREFIXED),
                Operation.WRITE, Operation.DESCRIBE);

        Resource everyTopic = new Resource(ResourceType.TOPIC, Resource.WILDCARD, PatternType.LITERAL);
        add(grants, Principals.OPERATOR, everyTopic, Operation.READ, Operation.DESCRIBE_CONFIGS);
        add(grants, Principals.OPERATOR, new Resource(ResourceType.GROUP, Resource.WILDCARD, PatternType.LITERAL),
                Operation.DESCRIBE);
        add(grants, Principals.OPERATOR,
                new Resource(ResourceType.TRANSACTIONAL_ID, Resource.WILDCARD, PatternType.LITERAL),
                Operation.DESCRIBE);
        add(grants, Principals.OPERATOR, new Resource(ResourceType.CLUSTER, Resource.CLUSTER_NAME,
                PatternType.LITERAL), Operation.DESCRIBE);

        for (String role : principals.councilRoles()) {
            String council = Principals.council(role);
            add(grants, council, Resource.topic(Topics.COUNCIL_MESSAGES), Operation.WRITE,
                    Operation.DESCRIBE_CONFIGS);
            for (String topic : COUNCIL_READS) {
                add(grants, council, Resource.topic(topic), Operation.READ);
            }
        }

        for (String tenant : principals.tenants()) {
            String agent = Principals.agent(tenant);
            add(grants, agent, Resource.topic(Topics.tenantRequests(tenant)), Operation.WRITE,
                    Operation.DESCRIBE_CONFIGS);
            add(grants, agent, new Resource(ResourceType.TOPIC, Topics.tenantChannelPrefix(tenant),
                    PatternType.PREFIXED), Operation.READ, Operation.DESCRIBE_CONFIGS);
            // Its front end's consumer groups, named after the agent.
            add(grants, agent, new Resource(ResourceType.GROUP, agent, PatternType.PREFIXED), Operation.READ);
        }
        return new AclProfile(grants);
    }

    public List<Grant> grants() {
        return grants;
    }

    /**
     * Whether the profile lets {@code principal} do {@code operation} on the named resource, as Kafka's authorizer
     * decides it from these grants alone (the broker's super user is not in them).
     */
    public boolean allows(String principal, ResourceType type, String name, Operation operation) {
        return grants.stream().anyMatch(grant -> grant.principal().equals(principal)
                && grant.resource().matches(type, name) && implies(grant.operation(), operation));
    }

    /** Each principal's grants, grouped by resource: one row per principal and resource, operations in order. */
    public Map<String, Map<Resource, Set<Operation>>> byPrincipal() {
        Map<String, Map<Resource, Set<Operation>>> rows = new TreeMap<>();
        for (Grant grant : grants) {
            rows.computeIfAbsent(grant.principal(), p -> new LinkedHashMap<>())
                    .computeIfAbsent(grant.resource(), r -> EnumSet.noneOf(Operation.class))
                    .add(grant.operation());
        }
        return rows;
    }

    private static boolean implies(Operation granted, Operation asked) {
        if (granted == Operation.ALL || granted == asked) {
            return true;
        }
        return switch (asked) {
            case DESCRIBE -> granted == Operation.READ || granted == Operation.WRITE || granted == Operation.DELETE;
            default -> false;
        };
    }

    private static void add(List<Grant> grants, String principal, Resource resource, Operation... operations) {
        for (Operation operation : operations) {
            grants.add(new Grant(principal, resource, operation));
        }
    }
}
