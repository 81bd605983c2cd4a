package io.cognitionstreams.executor.demo;

import java.util.List;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;

/**
 * The MCP SDK's stdio server transport, sending one message at a time. The SDK hands each answer to a sink that takes
 * one sender at a time and gives up after 100 ms of waiting for another (Reactor's busy-looping emit, SDK 2.1.0): on
 * a loaded machine a sender can be descheduled that long, so of two tool calls answered at once one answer was lost
 * ("Failed to enqueue message") and its caller waited for its timeout (`cognition bench --tools`, 2026-11-28). Here
 * the sends of a session take turns under a lock instead.
 */
public final class SerialStdio implements McpServerTransportProvider {

    private final StdioServerTransportProvider stdio;

    public SerialStdio(McpJsonMapper json) {
        this.stdio = new StdioServerTransportProvider(json);
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessions) {
        stdio.setSessionFactory(transport -> sessions.create(new OneAtATime(transport)));
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return stdio.notifyClients(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return stdio.closeGracefully();
    }

    @Override
    public void close() {
        stdio.close();
    }

    @Override
    public List<String> protocolVersions() {
        return stdio.protocolVersions();
    }

    /** A session's transport whose sends are made one at a time. */
    private static final class OneAtATime implements McpServerTransport {
        private final McpServerTransport transport;

        OneAtATime(McpServerTransport transport) {
            this.transport = transport;
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            // Subscribed under the lock: once the session runs, the SDK's send hands the message over right then.
            return Mono.defer(() -> {
                synchronized (this) {
                    return Mono.fromFuture(transport.sendMessage(message).toFuture());
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
            return transport.unmarshalFrom(data, type);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return transport.closeGracefully();
        }

        @Override
        public void close() {
            transport.close();
        }

        @Override
        public List<String> protocolVersions() {
            return transport.protocolVersions();
        }
    }
}
