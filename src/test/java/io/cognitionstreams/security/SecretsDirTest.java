package io.cognitionstreams.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretsDirTest {

    private static final Principals PRINCIPALS = new Principals(List.of("acme"), List.of("prime"));

    @TempDir
    Path dir;

    @Test
    void generatesEachPasswordOnceOwnerOnlyAndKeepsIt() throws Exception {
        Path secrets = dir.resolve("secrets");
        SecretsDir first = SecretsDir.loadOrCreate(secrets, PRINCIPALS, new SecureRandom());
        SecretsDir again = SecretsDir.loadOrCreate(secrets, PRINCIPALS, new SecureRandom());

        assertThat(first.passwords()).containsOnlyKeys("admin", "app", "governance", "operator", "council-prime",
                "agent-acme");
        assertThat(again.passwords()).isEqualTo(first.passwords());
        assertThat(first.passwords().values()).doesNotHaveDuplicates()
                .allSatisfy(password -> assertThat(password).matches("[A-Za-z0-9]{32}"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets.resolve("app.password"))))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets))).isEqualTo("rwx------");
    }

    @Test
    void writesAClientFilePerPrincipalThatLogsInAsIt() throws Exception {
        SecretsDir secrets = SecretsDir.loadOrCreate(dir, PRINCIPALS, new SecureRandom());
        secrets.writeClientFiles("127.0.0.1:9092");

        Properties agent = new Properties();
        try (Reader reader = Files.newBufferedReader(secrets.clientFile("agent-acme"))) {
            agent.load(reader);
        }
        assertThat(agent.getProperty("bootstrap.servers")).isEqualTo("127.0.0.1:9092");
        assertThat(agent.getProperty("security.protocol")).isEqualTo("SASL_PLAINTEXT");
        assertThat(agent.getProperty("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
        assertThat(agent.getProperty("sasl.jaas.config")).contains("username=\"agent-acme\"")
                .contains("password=\"" + secrets.password("agent-acme") + "\"");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets.clientFile("agent-acme"))))
                .isEqualTo("rw-------");
    }

    @Test
    void aPasswordFileThatCannotBeUsedIsNamed() throws Exception {
        Files.writeString(dir.resolve("app.password"), "short\"quote");

        assertThatThrownBy(() -> SecretsDir.loadOrCreate(dir, PRINCIPALS, new SecureRandom()))
                .hasMessageContaining(dir.resolve("app.password").toString())
                .hasMessageContaining("at least 16 letters and digits");
    }
}
