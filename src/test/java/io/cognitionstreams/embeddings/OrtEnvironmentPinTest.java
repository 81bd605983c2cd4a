package io.cognitionstreams.embeddings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;

/**
 * In a child JVM, since without the pin the native environment is freed and the JVM may die: what ONNX Runtime's
 * shutdown hook does to the environment, then a session made and run after it, as a thread still loading the model
 * during a stop would.
 */
class OrtEnvironmentPinTest {

    @Test
    void theShutdownHooksReleaseLeavesTheEnvironmentUsable() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ReleaseThenLoad.class.getName())
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("embedded after the release: 384 dimensions"), output);
    }

    /** The child: pins, releases the environment as the hook does, then loads the model and embeds. */
    public static final class ReleaseThenLoad {
        public static void main(String[] args) throws Exception {
            OrtEnvironment environment = OrtEnvironmentPin.environment();
            Method release = OrtEnvironment.class.getDeclaredMethod("close", long.class, long.class);
            release.setAccessible(true);
            Method handle = OrtEnvironment.class.getDeclaredMethod("getNativeHandle");
            handle.setAccessible(true);
            Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
            api.setAccessible(true);
            release.invoke(null, api.getLong(null), handle.invoke(environment));
            // A session made after the release, then the model loaded and used.
            try (InputStream model = resource("all-minilm-l6-v2-q.onnx");
                 OrtSession session = environment.createSession(model.readAllBytes())) {
                System.out.println("session after the release: " + session.getNumInputs() + " inputs");
            }
            List<float[]> vectors = MiniLmEmbedder.shared().embed(List.of("a stop while the model loads"));
            System.out.println("embedded after the release: " + vectors.get(0).length + " dimensions");
        }

        private static InputStream resource(String name) throws IOException {
            InputStream in = OrtEnvironmentPinTest.class.getResourceAsStream("/" + name);
            if (in == null) {
                throw new IOException(name + " is missing");
            }
            return in;
        }
    }
}
