package io.cognitionstreams.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;

/**
 * A model endpoint on loopback (the JDK's HTTP server) that answers as a test tells it: a chat API's documented
 * shapes, whole or as server-sent events, or a broken answer. It keeps every request it got.
 */
public final class ModelDouble implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One answer: a status, headers, and the body in pieces, each flushed; cut off after them when asked. */
    public record Answer(int status, Map<String, String> headers, List<String> pieces, boolean cutOff) {

        public static Answer json(String body) {
            return new Answer(200, Map.of("Content-Type", "application/json"), List.of(body), false);
        }

        public static Answer status(int status, String body, Map<String, String> headers) {
            return new Answer(status, headers, List.of(body), false);
        }

        /** A server-sent event stream of these lines, each piece flushed on its own. */
        public static Answer events(String... pieces) {
            return new Answer(200, Map.of("Content-Type", "text/event-stream"), List.of(pieces), false);
        }

        /** The connection closes after {@code piece}, before the length the answer announced. */
        public static Answer cutOffAfter(String piece) {
            return new Answer(200, Map.of("Content-Type", "text/event-stream"), List.of(piece), true);
        }
    }

    /** A request as the double got it. */
    public record Request(String path, Headers headers, JsonNode body) {
    }

    private final HttpServer server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final LinkedBlockingQueue<Answer> queued = new LinkedBlockingQueue<>();
    private volatile Function<Request, Answer> otherwise = request -> Answer.status(500, "no answer queued",
            Map.of());

    public ModelDouble(String... paths) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        for (String path : paths) {
            server.createContext(path, exchange -> {
                Request request = new Request(exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                        JSON.readTree(exchange.getRequestBody()));
                requests.add(request);
                Answer answer = queued.poll();
                if (answer == null) {
                    answer = otherwise.apply(request);
                }
                answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
                byte[] whole = String.join("", answer.pieces()).getBytes(StandardCharsets.UTF_8);
                // A cut-off answer announces more than it sends; a streamed one is chunked, piece by piece.
                long length = answer.cutOff() ? whole.length + 100 : answer.pieces().size() > 1 ? 0 : whole.length;
                exchange.sendResponseHeaders(answer.status(), length);
                OutputStream out = exchange.getResponseBody();
                try {
                    for (String piece : answer.pieces()) {
                        out.write(piece.getBytes(StandardCharsets.UTF_8));
                        out.flush();
                    }
                } finally {
                    // Closed short of the announced length, the connection ends mid-answer.
                    exchange.close();
                }
            });
        }
        server.start();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    public void enqueue(Answer... answers) {
        queued.addAll(List.of(answers));
    }

    /** How the double answers when nothing is queued. */
    public void otherwise(Function<Request, Answer> answer) {
        otherwise = answer;
    }

    public List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
