package io.cognitionstreams.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.prompt.ModelClient.ModelCall;
import io.cognitionstreams.prompt.ModelClient.ModelException;

/**
 * One streamed answer as its API's events arrive: each event's data is JSON, and the text pieces go to the call's
 * deltas as they come, as well as into the whole text the completion ends with.
 */
abstract class StreamedAnswer implements ModelHttp.Stream {

    private static final ObjectMapper JSON = new ObjectMapper();

    protected final ModelCall call;
    protected final String answering;
    protected final WireNames names;
    protected final StringBuilder text = new StringBuilder();
    private final ModelHttp http;
    private final ServerSentEvents events = new ServerSentEvents(this::event);

    StreamedAnswer(ModelHttp http, ModelCall call, String answering, WireNames names) {
        this.http = http;
        this.call = call;
        this.answering = answering;
        this.names = names;
    }

    @Override
    public final void line(String line) throws ModelException {
        events.line(line);
    }

    /** One event: its name ({@code message} when the stream names none) and its data. */
    protected abstract void event(String name, String data) throws ModelException;

    protected final JsonNode json(String data) throws ModelException {
        try {
            return JSON.readTree(data);
        } catch (JsonProcessingException e) {
            throw http.unreadable("streamed an event that is not JSON", data, e);
        }
    }

    protected final void piece(String piece) {
        if (!piece.isEmpty()) {
            text.append(piece);
            call.deltas().accept(piece);
        }
    }

    protected final ModelException cutOff(String before) {
        return new ModelException("model endpoint " + http.endpoint() + " unreachable: the stream ended before "
                + before, true, null);
    }
}
