package io.cognitionstreams.serde;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A test double of Apicurio Registry 3's REST API, NOT a registry: it answers exactly the calls that
 * {@link RegistryAvroSerdeFactory} (through Apicurio's serdes and SDK 3.1.7) makes, on 127.0.0.1, and records them so
 * tests can assert the subjects, the rules and the ids. The calls were taken from what the library actually sent
 * against this double's first version. It keeps schemas in memory, gives every distinct schema text one content id
 * (as the registry does), and checks no compatibility at all: a test that wants a refusal asks for it with
 * {@link #refuseNewVersions(String)}. Whether the real registry answers the same way is for a test against a real
 * Apicurio Registry (docker-compose), which cannot run here.
 *
 * <ul>
 *   <li>{@code POST /apis/registry/v3/groups/default/artifacts?ifExists=FIND_OR_CREATE_VERSION} (register)</li>
 *   <li>{@code GET /apis/registry/v3/ids/contentIds/{id}} and {@code .../{id}/references} (look up by id)</li>
 *   <li>{@code POST /apis/registry/v3/groups/default/artifacts/{artifactId}/rules} (compatibility rule)</li>
 * </ul>
 * Anything else is answered 501 and recorded, so a test can assert that nothing unexpected was called.
 */
final class ApicurioApiDouble implements AutoCloseable {

    static final String API = "/apis/registry/v3";

    record Call(String method, String path, String query, String body) {
    }

    record Version(int number, long contentId, String content) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ARTIFACTS = Pattern.compile(API + "/groups/([^/]+)/artifacts");
    private static final Pattern RULES = Pattern.compile(API + "/groups/([^/]+)/artifacts/([^/]+)/rules");
    private static final Pattern CONTENT = Pattern.compile(API + "/ids/contentIds/(\\d+)(/references)?");

    private final HttpServer server;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<Call> unexpected = new CopyOnWriteArrayList<>();
    private final Map<String, List<Version>> subjects = new ConcurrentHashMap<>();
    private final Map<String, Long> idsByContent = new ConcurrentHashMap<>();
    private final Map<Long, String> contentsById = new ConcurrentHashMap<>();
    private final Map<String, String> compatibility = new ConcurrentHashMap<>();
    private final Set<String> refusing = ConcurrentHashMap.newKeySet();
    private long nextContentId;

    /** @param firstContentId the id given to the first schema; pick one whose 4 bytes differ to check byte order */
    ApicurioApiDouble(long firstContentId) {
        this.nextContentId = firstContentId;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    /** Base URL, as an operator would configure it (the app adds /apis/registry/v3). */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    List<Call> unexpectedCalls() {
        return List.copyOf(unexpected);
    }

    Set<String> subjects() {
        return Set.copyOf(subjects.keySet());
    }

    List<Version> versions(String subject) {
        return List.copyOf(subjects.getOrDefault(subject, List.of()));
    }

    Optional<String> compatibility(String subject) {
        return Optional.ofNullable(compatibility.get(subject));
    }

    /** Registers a schema as if another producer had, returning its content id. */
    synchronized long register(String subject, String schema) {
        return addVersion(subject, schema).contentId();
    }

    void setCompatibility(String subject, String level) {
        compatibility.put(subject, level);
    }

    /** From now on a new schema text on this subject is refused with 409, as a compatibility rule violation. */
    void refuseNewVersions(String subject) {
        refusing.add(subject);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            String path = uri.getPath();
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Call call = new Call(method, path, uri.getRawQuery(), body);
            calls.add(call);
            Matcher m;
            if (method.equals("POST") && (m = RULES.matcher(path)).matches()) {
                createRule(exchange, m.group(2), JSON.readTree(body));
            } else if (method.equals("POST") && (m = ARTIFACTS.matcher(path)).matches()) {
                createArtifact(exchange, JSON.readTree(body));
            } else if (method.equals("GET") && (m = CONTENT.matcher(path)).matches()) {
                String content = contentsById.get(Long.parseLong(m.group(1)));
                if (content == null) {
                    problem(exchange, 404, "ContentNotFoundException", "No content with id: " + m.group(1));
                } else if (m.group(2) != null) {
                    send(exchange, 200, "application/json", "[]");
                } else {
                    send(exchange, 200, "application/json", content);
                }
            } else {
                unexpected.add(call);
                problem(exchange, 501, "NotImplemented", "the test double does not answer " + method + " " + path);
            }
        }
    }

    private synchronized void createArtifact(HttpExchange exchange, JsonNode request) throws IOException {
        String subject = request.path("artifactId").asText();
        String content = request.at("/firstVersion/content/content").asText();
        List<Version> existing = subjects.getOrDefault(subject, List.of());
        Version version = existing.stream().filter(v -> v.content().equals(content)).findFirst().orElse(null);
        if (version == null && !existing.isEmpty() && refusing.contains(subject)) {
            problem(exchange, 409, "RuleViolationException", "Incompatible artifact: " + subject
                    + " [" + compatibility.getOrDefault(subject, "?") + "]");
            return;
        }
        if (version == null) {
            version = addVersion(subject, content);
        }
        ObjectNode meta = JSON.createObjectNode()
                .put("groupId", RegistryAvroSerdeFactory.DEFAULT_GROUP)
                .put("artifactId", subject)
                .put("version", Integer.toString(version.number()))
                .put("globalId", 9_000_000L + version.contentId())
                .put("contentId", version.contentId())
                .put("artifactType", "AVRO");
        ObjectNode response = JSON.createObjectNode();
        response.set("artifact", JSON.createObjectNode()
                .put("groupId", RegistryAvroSerdeFactory.DEFAULT_GROUP)
                .put("artifactId", subject)
                .put("artifactType", "AVRO"));
        response.set("version", meta);
        send(exchange, 200, "application/json", response.toString());
    }

    private void createRule(HttpExchange exchange, String subject, JsonNode rule) throws IOException {
        if (!subjects.containsKey(subject)) {
            problem(exchange, 404, "ArtifactNotFoundException", "No artifact with ID '" + subject + "'");
        } else if (!"COMPATIBILITY".equals(rule.path("ruleType").asText())) {
            problem(exchange, 400, "BadRequest", "unexpected rule " + rule);
        } else if (compatibility.putIfAbsent(subject, rule.path("config").asText()) != null) {
            problem(exchange, 409, "RuleAlreadyExistsException", "A rule named 'COMPATIBILITY' already exists.");
        } else {
            exchange.sendResponseHeaders(204, -1);
        }
    }

    private Version addVersion(String subject, String content) {
        long id = idsByContent.computeIfAbsent(content, c -> nextContentId++);
        contentsById.put(id, content);
        List<Version> list = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        Version version = new Version(list.size() + 1, id, content);
        list.add(version);
        return version;
    }

    private static void problem(HttpExchange exchange, int status, String name, String detail) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("name", name);
        body.put("title", detail);
        body.put("detail", detail);
        send(exchange, status, "application/json", JSON.writeValueAsString(body));
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
