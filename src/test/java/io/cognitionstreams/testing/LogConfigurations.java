package io.cognitionstreams.testing;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** A log configuration file loaded on its own, to see what it lets through of messages logged to it. */
public final class LogConfigurations {

    /** The app's own, which `cognition` runs with. */
    public static final String APP = "src/main/resources/log4j2.xml";
    /** The tests', which mirrors it but keeps Kafka's loggers to errors. */
    public static final String TESTS = "src/test/resources/log4j2-test.xml";

    private LogConfigurations() {
    }

    /** Loads {@code file} into a context of its own; shut it down with {@link Configurator#shutdown}. */
    public static LoggerContext load(String file) {
        return Configurator.initialize("log-configuration-" + file.hashCode() + "-" + System.nanoTime(), null,
                Path.of(file).toUri());
    }

    /** The messages {@code context} lets through from now on, whatever its own appenders. */
    public static List<String> captured(LoggerContext context) {
        List<String> logged = new CopyOnWriteArrayList<>();
        context.getConfiguration().getRootLogger().addAppender(appender(logged), Level.ALL, null);
        context.updateLoggers();
        return logged;
    }

    /**
     * The messages {@code logger} logs at {@code level} or above in the running configuration from now on, whatever
     * level the configuration gives it; {@link #release} ends it.
     */
    public static List<String> captured(LoggerContext context, String logger, Level level) {
        List<String> logged = new CopyOnWriteArrayList<>();
        LoggerConfig config = new LoggerConfig(logger, level, false);
        config.addAppender(appender(logged), level, null);
        context.getConfiguration().addLogger(logger, config);
        context.updateLoggers();
        return logged;
    }

    /** Gives {@code logger} back to the running configuration's own settings. */
    public static void release(LoggerContext context, String logger) {
        context.getConfiguration().removeLogger(logger);
        context.updateLoggers();
    }

    private static AbstractAppender appender(List<String> into) {
        AbstractAppender capture = new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                into.add(event.getMessage().getFormattedMessage());
            }
        };
        capture.start();
        return capture;
    }
}
