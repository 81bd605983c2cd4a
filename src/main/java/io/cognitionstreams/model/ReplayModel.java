package io.cognitionstreams.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The replay model: answers from recorded transcripts kept in the repo (src/main/resources/replay), not from a
 * language model. It picks the first transcript whose {@code match} pattern is found in the user prompt, else one
 * chosen by a stable hash of the prompt, so the same prompt always gets the same answer (demo, tests, replays).
 */
public final class ReplayModel implements ModelClient {

    public static final String INDEX = "replay/index.json";

    private final List<Transcript> transcripts;

    public ReplayModel(List<Transcript> transcripts) {
        if (transcripts.isEmpty()) {
            throw new IllegalArgumentException("the replay model needs at least one transcript");
        }
        this.transcripts = List.copyOf(transcripts);
    }

    /** Loads the transcripts shipped with the app. */
    public static ReplayModel bundled() {
        ObjectMapper json = new ObjectMapper();
        ClassLoader loader = ReplayModel.class.getClassLoader();
        try (InputStream index = loader.getResourceAsStream(INDEX)) {
            if (index == null) {
                throw new IllegalStateException("missing resource " + INDEX);
            }
            List<Transcript> transcripts = new ArrayList<>();
            for (JsonNode entry : json.readTree(index)) {
                String file = entry.path("file").asText();
                try (InputStream body = loader.getResourceAsStream("replay/" + file)) {
                    if (body == null) {
                        throw new IllegalStateException("replay index names missing transcript " + file);
                    }
                    transcripts.add(new Transcript(entry.path("name").asText(),
                            Pattern.compile(entry.path("match").asText(), Pattern.CASE_INSENSITIVE),
                            new String(body.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
            return new ReplayModel(transcripts);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the replay transcripts", e);
        }
    }

    public Transcript pick(String userPrompt) {
        for (Transcript transcript : transcripts) {
            if (transcript.match().matcher(userPrompt).find()) {
                return transcript;
            }
        }
        return transcripts.get(Math.floorMod(userPrompt.hashCode(), transcripts.size()));
    }

    @Override
    public Completion complete(String model, List<PromptMessage> prompt) {
        String userPrompt = prompt.isEmpty() ? "" : prompt.get(prompt.size() - 1).content();
        Transcript transcript = pick(userPrompt);
        return new Completion(transcript.output(), "replay:" + transcript.name(), null, null);
    }

    public record Transcript(String name, Pattern match, String output) {
    }
}
