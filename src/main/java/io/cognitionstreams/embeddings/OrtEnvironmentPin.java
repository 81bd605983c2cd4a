package io.cognitionstreams.embeddings;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtLoggingLevel;

/**
 * Keeps ONNX Runtime's environment alive through the JVM's shutdown. {@link OrtEnvironment} registers a shutdown hook
 * that releases the native environment, and the JVM runs shutdown hooks concurrently: a stop that comes while a thread
 * creates a session or embeds frees the environment under it, and the process dies of a SIGSEGV instead of stopping
 * (seen at a stop during the model's first load; microsoft/onnxruntime#31352; ONNX Runtime's own PR 10670 calls it
 * impossible to prevent from Java). The native environment is a reference-counted singleton, so taking a second
 * reference here turns the hook's release into a decrement, and the environment lives until the process ends.
 *
 * <p>The second reference is taken through the binding's private native method, as nothing public offers one. Should
 * a later binding rename it, the pin logs a warning and the stop is as exposed as before, no worse.
 */
final class OrtEnvironmentPin {

    private static final Logger LOG = LoggerFactory.getLogger(OrtEnvironmentPin.class);

    private static boolean pinned;

    private OrtEnvironmentPin() {
    }

    /** The binding's environment, with the second reference taken the first time. */
    static synchronized OrtEnvironment environment() {
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        if (!pinned) {
            pinned = true;
            pin();
        }
        return environment;
    }

    private static void pin() {
        try {
            Field api = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("ortApiHandle");
            api.setAccessible(true);
            Method createHandle = OrtEnvironment.class.getDeclaredMethod("createHandle", long.class, int.class,
                    String.class);
            createHandle.setAccessible(true);
            createHandle.invoke(null, api.getLong(null), OrtLoggingLevel.ORT_LOGGING_LEVEL_WARNING.getValue(),
                    OrtEnvironment.DEFAULT_NAME);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("cannot keep ONNX Runtime's environment past its shutdown hook ({}): a stop while a sentence is "
                    + "embedded may crash the process", e.toString());
        }
    }
}
