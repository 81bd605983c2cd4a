package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;

class AclCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsOneRowPerPrincipalAndResource() {
        Cli print = Cli.run("acl", "print", "--tenants", "acme", "--council-roles", "prime", "--application-id",
                "cs");

        assertThat(print.exitCode()).as(print.err()).isZero();
        assertThat(print.out().lines())
                .anySatisfy(line -> assertThat(line).matches(
                        "User:agent-acme\\s+TOPIC\\s+PREFIXED\\s+channel\\.acme\\.\\s+READ, DESCRIBE_CONFIGS"))
                .anySatisfy(line -> assertThat(line).matches(
                        "User:agent-acme\\s+TOPIC\\s+LITERAL\\s+cognition\\.requests\\.acme\\s+WRITE, "
                                + "DESCRIBE_CONFIGS"))
                .anySatisfy(line -> assertThat(line).matches(
                        "User:app\\s+TOPIC\\s+LITERAL\\s+channel\\.acme\\.cli_chat\\s+READ, WRITE, CREATE, "
                                + "DESCRIBE_CONFIGS"))
                .as("the shared requests topic binds nothing to a tenant: agents may not write it")
                .noneSatisfy(line -> assertThat(line).matches(
                        "User:agent-acme\\s+TOPIC\\s+LITERAL\\s+cognition\\.requests\\s.*"))
                .anySatisfy(line -> assertThat(line).matches(
                        "User:app\\s+TRANSACTIONAL_ID\\s+PREFIXED\\s+cs-\\s+WRITE, DESCRIBE"))
                .anySatisfy(line -> assertThat(line).matches(
                        "User:council-prime\\s+TOPIC\\s+LITERAL\\s+council\\.messages\\s+READ, WRITE, "
                                + "DESCRIBE_CONFIGS"))
                .anySatisfy(line -> assertThat(line).startsWith("User:admin").contains("super user"))
                .noneSatisfy(line -> assertThat(line).contains("agent-tenant-a"));
    }

    @Test
    void aBadTenantNameIsRefusedWithItsRule() {
        Cli print = Cli.run("acl", "print", "--tenants", "acme.eu");

        assertThat(print.exitCode()).isEqualTo(2);
        assertThat(print.err()).contains("error: invalid tenant name 'acme.eu': use lower-case letters, digits "
                + "and '-'");
    }

    @Test
    void secureIsForTheEmbeddedBrokerAndSaysWhatToDoForAClusterOfYourOwn() {
        Path data = dir.resolve("data");
        Cli run = Cli.run("run", "--secure", "--bootstrap-servers", "broker:9092", "--data-dir", data.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--secure secures the embedded broker")
                .contains("`cognition acl apply`");
        assertThat(data).as("nothing started, no secrets written").doesNotExist();
    }
}
