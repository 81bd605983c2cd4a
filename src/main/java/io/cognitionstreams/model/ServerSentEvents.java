package io.cognitionstreams.model;

import io.cognitionstreams.prompt.ModelClient.ModelException;

/**
 * Server-sent events (the WHATWG event-stream format) from their lines: {@code event:} names an event,
 * {@code data:} lines make its data (joined with LF), a blank line dispatches it. Comments ({@code :} lines, the
 * keep-alives some servers send), other fields and events without data (or with blank data) are skipped.
 */
final class ServerSentEvents {

    @FunctionalInterface
    interface Handler {
        /** @param event the event's name, {@code message} when it has none */
        void event(String event, String data) throws ModelException;
    }

    private final Handler handler;
    private final StringBuilder data = new StringBuilder();
    private String event = "message";
    private boolean hasData;

    ServerSentEvents(Handler handler) {
        this.handler = handler;
    }

    void line(String line) throws ModelException {
        if (line.isEmpty()) {
            if (hasData && !data.toString().isBlank()) {
                String dispatched = data.toString();
                String name = event;
                reset();
                handler.event(name, dispatched);
            } else {
                reset();
            }
            return;
        }
        if (line.charAt(0) == ':') {
            return;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (field.equals("data")) {
            if (hasData) {
                data.append('\n');
            }
            data.append(value);
            hasData = true;
        } else if (field.equals("event")) {
            event = value.isEmpty() ? "message" : value;
        }
    }

    private void reset() {
        data.setLength(0);
        hasData = false;
        event = "message";
    }
}
