package io.cognitionstreams.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An OpenAI-compatible chat-completions endpoint on loopback that answers every call after a fixed latency, as a
 * fast real model would: by default a {@code PLAN:} block (which the PLAN stage's contract asks for, so time travel
 * does not retry it) and {@code RESPONSE: answer to <the last message>}; or whatever assistant message an
 * {@link Answers} makes of the request (tool calls, for `bench --tools`). Answers wait on a timer, not on a thread
 * each, so a thousand calls at once cost nothing but their connections. It can go down (nothing listens on its port,
 * so calls are refused) and come back on the same port, for outage runs.
 */
public final class ChatEndpointDouble implements AutoCloseable {

    /** The assistant message answering a chat-completions request: {@code content}, and {@code tool_calls} or not. */
    @FunctionalInterface
    public interface Answers {
        ObjectNode message(JsonNode request, ObjectMapper json);
    }

    private final ObjectMapper json = new ObjectMapper();
    private final Duration latency;
    private final Answers answers;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "endpoint-double-timer");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong answered = new AtomicLong();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger mostOpen = new AtomicInteger();
    private final int port;
    private HttpServer server;
    private ExecutorService readers;

    private ChatEndpointDouble(int port, Duration latency, Answers answers) {
        this.latency = latency;
        this.answers = answers;
        this.port = listen(port);
    }

    /** Listening on 127.0.0.1:{@code port} (0: any free port), answering with a plan and a response. */
    public static ChatEndpointDouble start(int port, Duration latency) {
        return start(port, latency, ChatEndpointDouble::planAndResponse);
    }

    /** Listening on 127.0.0.1:{@code port} (0: any free port), answering with what {@code answers} makes. */
    public static ChatEndpointDouble start(int port, Duration latency, Answers answers) {
        return new ChatEndpointDouble(port, latency, answers);
    }

    /** The base URL to give as {@code --model-endpoint}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port + "/v1";
    }

    /** Stops listening: calls are refused until {@link #up}. Calls already received are still answered. */
    public synchronized void down() {
        if (server != null) {
            server.stop(0);
            readers.shutdown();
            server = null;
        }
    }

    /** Listens again on the same port. */
    public synchronized void up() {
        if (server == null) {
            listen(port);
        }
    }

    private synchronized int listen(int on) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", on), 4096);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + on, e);
        }
        readers = Executors.newFixedThreadPool(4, runnable -> {
            Thread thread = new Thread(runnable, "endpoint-double");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(readers);
        server.createContext("/v1/chat/completions", this::answerLater);
        server.start();
        return server.getAddress().getPort();
    }

    private void answerLater(HttpExchange exchange) throws IOException {
        JsonNode request = json.readTree(exchange.getRequestBody());
        ObjectNode message = answers.message(request, json).put("role", "assistant");
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        timer.schedule(() -> respond(exchange, request.path("model").asText("double"), message,
                request.path("messages").toString().length()), latency.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The default answer: a plan and a response to the last message. */
    private static ObjectNode planAndResponse(JsonNode request, ObjectMapper json) {
        JsonNode messages = request.path("messages");
        String last = messages.isArray() && !messages.isEmpty()
                ? messages.get(messages.size() - 1).path("content").asText("") : "";
        return json.createObjectNode().put("content", "PLAN: 1. Answer: " + abbreviate(last)
                + "\nRESPONSE: answer to " + abbreviate(last));
    }

    private void respond(HttpExchange exchange, String model, ObjectNode message, int promptChars) {
        ObjectNode answer = json.createObjectNode();
        answer.put("id", "chatcmpl-double").put("object", "chat.completion").put("model", model);
        answer.putArray("choices").addObject().put("index", 0)
                .put("finish_reason", message.has("tool_calls") ? "tool_calls" : "stop").set("message", message);
        answer.putObject("usage").put("prompt_tokens", promptChars / 4).put("completion_tokens", 8);
        byte[] body = answer.toString().getBytes(StandardCharsets.UTF_8);
        try {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            answered.incrementAndGet();
        } catch (IOException e) {
            // the caller went away (timed out, or cancelled its call)
        } finally {
            exchange.close();
            open.decrementAndGet();
        }
    }

    private static String abbreviate(String text) {
        String line = text.replace('\n', ' ');
        return line.length() <= 120 ? line : line.substring(0, 120);
    }

    /** Calls answered since the start. */
    public long answered() {
        return answered.get();
    }

    /** The most calls it held at once. */
    public int mostAtOnce() {
        return mostOpen.get();
    }

    @Override
    public void close() {
        down();
        timer.shutdownNow();
    }
}
