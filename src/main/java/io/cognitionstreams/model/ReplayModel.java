package io.cognitionstreams.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.RecoveryLesson;


/**
 * The replay model: answers from recorded transcripts kept in the repo (src/main/resources/replay), not from a
 * language model. It picks the first transcript whose {@code match} pattern is found in the user prompt, else one
 * chosen by a stable hash of the prompt, so the same prompt always gets the same answer (demo, tests, replays).
 * A transcript may also hold the answer recorded for an AutoFix retry ({@code retry_file}): it is given when the
 * conversation carries a recovery lesson, the only thing that tells a model (real or not) that it is retrying.
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
                transcripts.add(new Transcript(entry.path("name").asText(),
                        Pattern.compile(entry.path("match").asText(), Pattern.CASE_INSENSITIVE),
                        resource(loader, entry.path("file").asText()),
                        entry.hasNonNull("retry_file")
                                ? Optional.of(resource(loader, entry.path("retry_file").asText()))
                                : Optional.empty()));
            }
            return new ReplayModel(transcripts);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the replay transcripts", e);
        }
    }

    private static String resource(ClassLoader loader, String file) throws IOException {
        try (InputStream body = loader.getResourceAsStream("replay/" + file)) {
            if (body == null) {
                throw new IllegalStateException("replay index names missing transcript " + file);
            }
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
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
    public CompletableFuture<Completion> call(ModelCall call) {
        return CompletableFuture.completedFuture(answer(call.prompt()));
    }

    private Completion answer(List<PromptMessage> prompt) {
        String userPrompt = prompt.isEmpty() ? "" : prompt.get(prompt.size() - 1).content();
        Transcript transcript = pick(userPrompt);
        boolean retrying = prompt.stream()
                .anyMatch(message -> message.content().startsWith(RecoveryLesson.HEADER));
        if (retrying && transcript.retryOutput().isPresent()) {
            return new Completion(transcript.retryOutput().get(), "replay:" + transcript.name() + "/retry", null,
                    null);
        }
        return new Completion(transcript.output(), "replay:" + transcript.name(), null, null);
    }

    /** @param retryOutput the answer recorded for a retry, after the recovery lesson */
    public record Transcript(String name, Pattern match, String output, Optional<String> retryOutput) {
    }
}
