package io.cognitionstreams.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Executables;

/**
 * The compose stack and the image cannot be started here (no Docker engine), so this checks what can be
 * checked without one: the wiring between the services, pinned images, the image's jar and Java version,
 * and, with docker-compose installed, that Compose itself accepts the file.
 */
class DockerComposeTest {

    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Path COMPOSE_FILE = ROOT.resolve("docker-compose.yml");
    private static final Path DOCKERFILE = ROOT.resolve("Dockerfile");

    /** {@code ${NAME}} or {@code ${NAME:-default}}, as Compose interpolates it. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?}");

    private static JsonNode services;
    private static JsonNode compose;

    @BeforeAll
    static void readComposeFile() throws IOException {
        compose = new ObjectMapper(new YAMLFactory()).readTree(COMPOSE_FILE.toFile());
        services = compose.path("services");
    }

    @Test
    void definesTheServices() {
        assertThat(fieldNames(services)).contains("kafka", "schema-registry", "kafka-ui", "app", "prometheus",
                "grafana", "jaeger");
    }

    @Test
    void prometheusScrapesTheAppsMetricsPortAndLoadsTheAlertRules() throws IOException {
        String port = optionValue(command(services.path("app")), "--metrics-port").orElseThrow();
        JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("deploy/prometheus/prometheus.yml")
                .toFile());
        assertThat(config.path("scrape_configs").get(0).path("static_configs").get(0).path("targets").get(0).asText())
                .isEqualTo("app:" + port);
        List<String> mounts = new ArrayList<>();
        services.path("prometheus").path("volumes").forEach(volume -> mounts.add(volume.asText()));
        assertThat(mounts).contains("./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
                "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro");
        assertThat(config.path("rule_files").get(0).asText()).isEqualTo("/etc/prometheus/alerts.yml");
        assertThat(services.path("app").path("ports").toString()).contains(port + ":" + port);
    }

    @Test
    void theAppSendsItsTracesToJaegersOtlpReceiver() {
        assertThat(optionValue(command(services.path("app")), "--otlp-endpoint")).contains("http://jaeger:4318");
        assertThat(environment(services.path("jaeger"))).containsEntry("COLLECTOR_OTLP_ENABLED", "true");
    }

    @Test
    void grafanaProvisionsItsDataSourcesAndTheDashboardFromTheRepository() throws IOException {
        List<String> mounts = new ArrayList<>();
        services.path("grafana").path("volumes").forEach(volume -> mounts.add(volume.asText()));
        assertThat(mounts).contains("./deploy/grafana/provisioning:/etc/grafana/provisioning:ro",
                "./deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro");
        JsonNode sources = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve(
                "deploy/grafana/provisioning/datasources/datasources.yml").toFile()).path("datasources");
        List<String> urls = new ArrayList<>();
        sources.forEach(source -> urls.add(source.path("url").asText()));
        assertThat(urls).containsExactlyInAnyOrder("http://prometheus:9090", "http://jaeger:16686");
        JsonNode dashboard = new ObjectMapper().readTree(ROOT.resolve(
                "deploy/grafana/dashboards/cognition-streams.json").toFile());
        List<String> titles = new ArrayList<>();
        dashboard.path("panels").forEach(panel -> titles.add(panel.path("title").asText()));
        assertThat(titles).anyMatch(t -> t.startsWith("Throughput")).anyMatch(t -> t.startsWith("Latency by hop"))
                .anyMatch(t -> t.startsWith("Dead letters by reason")).contains("Council", "Tool calls",
                        "Tokens by model");
    }

    @Test
    void promtoolAcceptsTheAlertRules() throws Exception {
        Path promtool = Executables.required("promtool", "apt-get install prometheus");
        Process process = new ProcessBuilder(promtool.toString(), "check", "rules",
                ROOT.resolve("deploy/prometheus/alerts.yml").toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("SUCCESS");
    }

    @Test
    void kafkaUiReadsTheKafkaServiceAndTheRegistrysConfluentApi() {
        Map<String, String> env = environment(services.path("kafka-ui"));

        assertThat(env.get("KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS")).isEqualTo("kafka:9092");
        assertThat(environment(services.path("kafka")).get("KAFKA_ADVERTISED_LISTENERS"))
                .as("kafka must advertise the address Kafka UI and the app bootstrap from")
                .contains("://kafka:9092");
        // Kafka UI only speaks the Confluent Schema Registry API; Apicurio serves it under ccompat.
        assertThat(env.get("KAFKA_CLUSTERS_0_SCHEMAREGISTRY"))
                .isEqualTo("http://schema-registry:8080/apis/ccompat/v7");
        assertThat(dependencies(services.path("kafka-ui"))).containsKeys("kafka", "schema-registry");
    }

    @Test
    void appWaitsForAHealthyKafkaAndRegistry() {
        Map<String, String> dependsOn = dependencies(services.path("app"));

        assertThat(dependsOn)
                .containsEntry("kafka", "service_healthy")
                .containsEntry("schema-registry", "service_healthy");
        assertThat(services.path("kafka").has("healthcheck")).as("kafka healthcheck").isTrue();
        assertThat(services.path("schema-registry").has("healthcheck")).as("schema-registry healthcheck").isTrue();
    }

    @Test
    void appRunsAgainstTheComposeKafkaAndRegistry() {
        JsonNode app = services.path("app");
        List<String> command = command(app);

        assertThat(command).first().isEqualTo("run");
        assertThat(command).contains("--demo");
        assertThat(optionValue(command, "--bootstrap-servers")).contains("kafka:9092");
        assertThat(optionValue(command, "--replication-factor")).contains("1");
        assertThat(optionValue(command, "--schema-registry-url"))
                .get()
                .satisfies(url -> assertThat(url).isEqualTo("http://schema-registry:8080")
                        .as("the app talks to Apicurio's own API, which refuses ccompat URLs")
                        .doesNotContain("ccompat"));
        assertThat(app.has("build")).as("app is built from the repository's Dockerfile").isTrue();
    }

    @Test
    void appKeepsItsStateInANamedVolume() {
        JsonNode app = services.path("app");
        String stateDir = optionValue(command(app), "--state-dir").orElseThrow();

        List<String> namedVolumesOnStateDir = new ArrayList<>();
        for (JsonNode volume : app.path("volumes")) {
            String[] parts = volume.asText().split(":");
            if (parts.length >= 2 && parts[1].equals(stateDir) && !parts[0].startsWith(".") && !parts[0].startsWith("/")) {
                namedVolumesOnStateDir.add(parts[0]);
            }
        }
        assertThat(namedVolumesOnStateDir).hasSize(1);
        assertThat(fieldNames(compose.path("volumes"))).contains(namedVolumesOnStateDir.get(0));
    }

    @Test
    void theSecureVariantStartsOnlyWithItsProfileAndHoldsNoPassword() throws IOException {
        for (String name : List.of("kafka-secure", "acl-setup", "app-secure")) {
            JsonNode service = services.path(name);
            assertThat(service.path("profiles").toString()).as("%s profiles", name).isEqualTo("[\"secure\"]");
            assertThat(service.path("env_file").get(0).asText()).as("%s credentials", name)
                    .startsWith("${COGNITION_CREDENTIALS_DIR:-./deploy/secure/example}/");
            assertThat(environment(service).keySet()).as("%s passwords come from env files only", name)
                    .noneMatch(key -> key.contains("PASSWORD"));
        }
        for (String name : fieldNames(services)) {
            if (!services.path(name).has("profiles")) {
                assertThat(name).as("the default stack is unchanged").isIn("kafka", "schema-registry", "kafka-ui",
                        "app", "prometheus", "grafana", "jaeger");
            }
        }
        // The app reads the requests topics of the tenants whose agents acl-setup lets write them.
        List<String> app = new ArrayList<>();
        services.path("app-secure").path("command").forEach(arg -> app.add(arg.asText()));
        assertThat(app.get(app.indexOf("--tenants") + 1)).isEqualTo(Principals.DEFAULT_TENANTS);
        assertThat(services.path("acl-setup").path("command").toString()).doesNotContain("--tenants");
        assertThat(dependencies(services.path("app-secure")))
                .containsEntry("kafka-secure", "service_healthy")
                .containsEntry("acl-setup", "service_completed_successfully");
        // The committed credentials are placeholders, which kafka-secure.sh refuses.
        for (String file : List.of("kafka.env", "admin.env", "app.env")) {
            assertThat(Files.readAllLines(ROOT.resolve("deploy/secure/example").resolve(file)))
                    .filteredOn(line -> line.startsWith("COGNITION_PASSWORD_")).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).endsWith("="));
        }
        assertThat(Files.readString(ROOT.resolve("deploy/secure/kafka-secure.sh")))
                .contains("authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .contains("allow.everyone.if.no.acl.found=false")
                .contains("super.users=User:admin\n")
                .contains("sasl.enabled.mechanisms=SCRAM-SHA-512");
    }

    @Test
    void imagesArePinned() {
        for (String name : fieldNames(services)) {
            JsonNode service = services.path(name);
            if (!service.has("image")) {
                assertThat(service.has("build")).as("%s has neither image nor build", name).isTrue();
                continue;
            }
            String image = service.path("image").asText();
            String afterRegistry = image.substring(image.lastIndexOf('/') + 1);
            assertThat(afterRegistry).as("%s image %s has a tag", name, image).contains(":");
            String tag = afterRegistry.substring(afterRegistry.indexOf(':') + 1);
            assertThat(tag).as("%s image tag", name).isNotBlank().isNotEqualToIgnoringCase("latest");
        }
    }

    @Test
    void noTwoServicesPublishTheSameHostPort() {
        Map<String, String> owners = new HashMap<>();
        for (String name : fieldNames(services)) {
            for (JsonNode port : services.path(name).path("ports")) {
                String[] parts = port.asText().split(":");
                assertThat(parts).as("%s publishes %s on an explicit host port", name, port.asText()).hasSizeGreaterThan(1);
                String hostPort = parts[parts.length - 2];
                String previous = owners.put(hostPort, name);
                assertThat(previous).as("host port %s used by %s and %s", hostPort, previous, name).isNull();
            }
        }
        assertThat(owners).containsEntry("8080", "kafka-ui").containsEntry("9092", "kafka");
    }

    @Test
    void composeAcceptsTheFile() throws Exception {
        Path dockerCompose = Executables.required("docker-compose", "apt-get install docker-compose");

        Process process = new ProcessBuilder(dockerCompose.toString(), "-f", COMPOSE_FILE.toString(), "config", "-q")
                .directory(ROOT.toFile())
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("docker-compose config did not finish within 60 s");
        }
        assertThat(process.exitValue()).as("docker-compose config -q said:%n%s", output).isZero();
    }

    @Test
    void imageRunsTheShadedJarOnAJava17Jre() throws Exception {
        List<String> lines = Files.readAllLines(DOCKERFILE);
        List<String> froms = lines.stream().map(String::strip).filter(l -> l.toUpperCase().startsWith("FROM ")).toList();

        assertThat(froms).as("multi-stage build").hasSizeGreaterThanOrEqualTo(2);
        assertThat(froms.get(0)).as("build stage").containsPattern("(?i)temurin-17\\b");
        String runtimeImage = froms.get(froms.size() - 1).split("\\s+")[1];
        assertThat(runtimeImage).as("runtime stage").matches("eclipse-temurin:17(\\.[0-9._+]+)?-jre.*");

        String jar = shadedJarName();
        assertThat(jar).isEqualTo("cognition-streams.jar");
        assertThat(lines).anyMatch(l -> l.matches("(?i)\\s*COPY\\s+--from=\\S+\\s+\\S*target/" + Pattern.quote(jar) + "\\s+/app/" + Pattern.quote(jar) + "\\s*"));
        assertThat(lastInstruction(lines, "ENTRYPOINT")).isEqualTo("[\"java\", \"-XX:+ExitOnOutOfMemoryError\", \"-jar\", \"/app/" + jar + "\"]");
        assertThat(lastInstruction(lines, "USER")).as("runtime user").isNotBlank().isNotIn("root", "0");
    }

    @Test
    void buildContextLeavesOutLocalOutputAndHistory() throws IOException {
        List<String> ignored = Files.readAllLines(ROOT.resolve(".dockerignore")).stream().map(String::strip).toList();
        assertThat(ignored).contains("target/", "data/", ".git/");
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Compose allows both a map and a list of NAME=value. */
    private static Map<String, String> environment(JsonNode service) {
        JsonNode env = service.path("environment");
        Map<String, String> result = new LinkedHashMap<>();
        if (env.isArray()) {
            for (JsonNode entry : env) {
                String[] kv = entry.asText().split("=", 2);
                result.put(kv[0], kv.length > 1 ? kv[1] : null);
            }
        } else {
            for (Iterator<Map.Entry<String, JsonNode>> it = env.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                result.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
            }
        }
        return result;
    }

    /** Service name to condition; the short list form means service_started. */
    private static Map<String, String> dependencies(JsonNode service) {
        JsonNode dependsOn = service.path("depends_on");
        Map<String, String> result = new LinkedHashMap<>();
        if (dependsOn.isArray()) {
            dependsOn.forEach(name -> result.put(name.asText(), "service_started"));
        } else {
            for (String name : fieldNames(dependsOn)) {
                result.put(name, dependsOn.path(name).path("condition").asText("service_started"));
            }
        }
        return result;
    }

    /** The command as Compose passes it, with ${VAR:-default} resolved to its default. */
    private static List<String> command(JsonNode service) {
        JsonNode command = service.path("command");
        List<String> args = new ArrayList<>();
        if (command.isArray()) {
            command.forEach(arg -> args.add(arg.asText()));
        } else {
            args.addAll(List.of(command.asText().trim().split("\\s+")));
        }
        return args.stream().map(DockerComposeTest::defaultsOf).toList();
    }

    private static String defaultsOf(String value) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(2) == null ? "" : m.group(2)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Optional<String> optionValue(List<String> command, String option) {
        for (int i = 0; i < command.size(); i++) {
            if (command.get(i).equals(option) && i + 1 < command.size()) {
                return Optional.of(command.get(i + 1));
            }
            if (command.get(i).startsWith(option + "=")) {
                return Optional.of(command.get(i).substring(option.length() + 1));
            }
        }
        return Optional.empty();
    }

    /** The shade plugin's finalName in pom.xml, plus ".jar": what `mvn package` leaves in target/. */
    private static String shadedJarName() throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        NodeList plugins = factory.newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile()).getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            Element plugin = (Element) plugins.item(i);
            if (textOf(plugin, "artifactId").equals("maven-shade-plugin")) {
                return textOf(plugin, "finalName") + ".jar";
            }
        }
        throw new AssertionError("pom.xml has no maven-shade-plugin");
    }

    private static String textOf(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().strip();
    }

    private static String lastInstruction(List<String> dockerfile, String instruction) {
        String found = "";
        for (String line : dockerfile) {
            String stripped = line.strip();
            if (stripped.toUpperCase().startsWith(instruction + " ")) {
                found = stripped.substring(instruction.length()).strip();
            }
        }
        return found;
    }
}
