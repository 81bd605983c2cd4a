package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.util.List;

import io.cognitionstreams.security.Principals;
import picocli.CommandLine.Option;

/** The secure deployment and tenants: logins and ACLs on the embedded broker, who publishes governed records, which tenants have topics of their own. Options of `run`. */
final class SecurityOptions {

    @Option(names = "--secure", description = "Secure the embedded broker: SASL/SCRAM logins, Kafka's "
            + "StandardAuthorizer, least-privilege ACLs for each principal (docs/security.md); the app acts as "
            + "User:app. Passwords and client files are in --secrets-dir.")
    boolean secure;

    @Option(names = "--secrets-dir", paramLabel = "DIR",
            description = "With --secure: each principal's password, generated once (<name>.password, owner-only), "
                    + "and client settings to give any command as --command-config (<name>.properties) "
                    + "(default: <data-dir>/secrets).")
    Path secretsDir;

    @Option(names = "--governance-config", paramLabel = "FILE",
            description = "Client settings (as --command-config) to publish the skills and built-in personas with at "
                    + "start: on a secured cluster only the governance principal may write them "
                    + "(default: the app's own; with --secure: governance's from --secrets-dir).")
    Path governanceConfig;

    @Option(names = "--tenants", split = ",", paramLabel = "TENANT",
            description = "Tenants, each with a requests topic cognition.requests.<tenant> (its requests must name "
                    + "sessions '<tenant>.<name>' and the tenant's memory scopes) and its sessions' chats on "
                    + "channel.<tenant>.*; with --secure each has an agent principal agent-<tenant> that writes and "
                    + "reads only those (default: " + Principals.DEFAULT_TENANTS + " with --secure, "
                    + "none without).")
    List<String> tenants;
}
