package io.cognitionstreams.cli;

import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

import io.cognitionstreams.clients.ClientPrincipal;
import picocli.CommandLine;

/**
 * A request the cluster's ACLs refused, said in one line: who was refused what on which resource. Kafka's own
 * message names at most the topic, and the stack trace under it names neither the principal nor the intent.
 */
final class Refusal {

    /** Commands that write; the others read, so a refused topic was refused for reading. */
    private static final Set<String> WRITERS = Set.of("produce", "skills load", "skills delete", "persona load",
            "identity set", "council keygen", "session import", "memory forget", "replay", "fork");

    private Refusal() {
    }

    /** The line for {@code error} when the cluster refused it for want of an ACL, else empty. */
    static Optional<String> describe(Throwable error, CommandLine command) {
        Optional<AuthorizationException> refused = find(error);
        if (refused.isEmpty()) {
            return Optional.empty();
        }
        String who = principal(command);
        String path = command.getCommandSpec().qualifiedName(" ").replaceFirst("^cognition ", "");
        AuthorizationException refusal = refused.get();
        String what;
        if (refusal instanceof TopicAuthorizationException topic) {
            what = (WRITERS.contains(path) ? "write to" : "read") + " topic " + topics(topic, command);
        } else if (refusal instanceof GroupAuthorizationException group) {
            what = "use consumer group " + group.groupId();
        } else if (refusal instanceof TransactionalIdAuthorizationException) {
            what = "use a transactional id for `" + path + "`";
        } else if (refusal instanceof ClusterAuthorizationException) {
            what = "do `" + path + "` on the cluster";
        } else {
            what = "do `" + path + "` (" + refusal.getMessage() + ")";
        }
        return Optional.of("not authorized: " + who + " may not " + what + ". `cognition acl print` lists each "
                + "principal's rights (docs/security.md)");
    }

    private static Optional<AuthorizationException> find(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof AuthorizationException authorization) {
                return Optional.of(authorization);
            }
        }
        return Optional.empty();
    }

    /** The refused topics Kafka named, else the one the command was given. */
    private static String topics(TopicAuthorizationException error, CommandLine command) {
        if (!error.unauthorizedTopics().isEmpty()) {
            return String.join(", ", error.unauthorizedTopics().stream().sorted().toList());
        }
        return Optional.ofNullable(command.getParseResult())
                .map(parsed -> parsed.<String>matchedOptionValue("--topic", null))
                .orElse("(not named by the cluster)");
    }

    /** The principal the broker sees for the command's client settings. */
    private static String principal(CommandLine command) {
        return command.getCommandSpec().mixins().values().stream().map(mixin -> mixin.userObject())
                .filter(ClusterOptions.class::isInstance).map(ClusterOptions.class::cast).findFirst()
                .map(options -> ClientPrincipal.describe(options.fileSettings(), System.getProperty("user.name")))
                .orElse("this client");
    }
}
