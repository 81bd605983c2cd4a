package io.cognitionstreams.docs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The floors of docs/architecture.md, enforced on the compiled classes: no package cycle, each floor uses only
 * floors below it, and the domain classes of the shared rules and the capabilities have no Kafka Streams type
 * (only a class named for its Kafka role, a {@code *Topology}, its {@code *Processors}, a {@code *Store} or {@code *Metrics}, may).
 */
class ArchitectureTest {

    private static final String ROOT = "io.cognitionstreams";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    /** Each floor and its packages, lowest first; the same table docs/architecture.md draws. */
    static final Map<String, List<String>> FLOORS = new LinkedHashMap<>();

    static {
        FLOORS.put("ground", List.of("schema", "serde", "topics", "events", "clients", "telemetry", "tokens",
                "embeddings", "broker", "prompt", "signing"));
        FLOORS.put("plumbing", List.of("deadletter", "topology", "worker"));
        FLOORS.put("shared rules", List.of("skills", "redaction", "governance", "security"));
        FLOORS.put("capabilities", List.of("assembly", "routing", "gatekeeper", "council", "timetravel", "model",
                "health", "executor", "roles"));
        FLOORS.put("app", List.of("app"));
        FLOORS.put("front", List.of("cli", "load", "docs"));
    }

    @Test
    void noPackageDependsOnItselfThroughAnother() {
        slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void eachFloorUsesOnlyTheFloorsBelowIt() {
        layers().check(CLASSES);
    }

    @Test
    void domainClassesHaveNoKafkaStreamsType() {
        noClasses().that(inFloors("shared rules", "capabilities")).and(DescribedPredicate.not(kafkaAdapter()))
                .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.streams..")
                .because("domain logic is plain Java over a small state interface, tested without Kafka; only "
                        + "a *Topology (with its *Processors), *Store or *Metrics class wires it to Kafka Streams")
                .check(CLASSES);
    }

    @Test
    void everyPackageIsOnAFloorAndTheDocsDrawTheFloors() throws IOException {
        Set<String> packages = new TreeSet<>();
        for (JavaClass type : CLASSES) {
            String rest = type.getPackageName().substring(ROOT.length() + 1);
            packages.add(rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest);
        }
        Set<String> placed = new TreeSet<>();
        FLOORS.values().forEach(placed::addAll);
        assertThat(placed).as("packages on a floor").containsAll(packages);

        String doc = Files.readString(Path.of("docs/architecture.md"));
        for (Map.Entry<String, List<String>> floor : FLOORS.entrySet()) {
            Matcher row = Pattern.compile("(?m)^\\| " + Pattern.quote(floor.getKey()) + " \\| (.+?) \\|").matcher(doc);
            assertThat(row.find()).as("docs/architecture.md has a row for the %s floor", floor.getKey()).isTrue();
            Set<String> documented = new TreeSet<>();
            Matcher name = Pattern.compile("`([a-z]+)/?`").matcher(row.group(1));
            while (name.find()) {
                documented.add(name.group(1));
            }
            assertThat(documented).as("packages of the %s floor in docs/architecture.md", floor.getKey())
                    .isEqualTo(new TreeSet<>(floor.getValue()));
        }
    }

    private static ArchRule layers() {
        var architecture = layeredArchitecture().consideringOnlyDependenciesInLayers();
        List<String> names = List.copyOf(FLOORS.keySet());
        for (String floor : names) {
            architecture = architecture.layer(floor).definedBy(packagesOf(floor));
        }
        for (int i = 0; i < names.size() - 1; i++) {
            architecture = architecture.whereLayer(names.get(i))
                    .mayOnlyBeAccessedByLayers(names.subList(i + 1, names.size()).toArray(String[]::new));
        }
        return architecture.whereLayer(names.get(names.size() - 1)).mayNotBeAccessedByAnyLayer();
    }

    private static String[] packagesOf(String floor) {
        return FLOORS.get(floor).stream().map(name -> ROOT + "." + name + "..").toArray(String[]::new);
    }

    private static DescribedPredicate<JavaClass> inFloors(String... floors) {
        Set<String> packages = new TreeSet<>();
        for (String floor : floors) {
            packages.addAll(FLOORS.get(floor));
        }
        return DescribedPredicate.describe("in the " + String.join(" and ", floors) + " floors", type -> {
            String rest = type.getPackageName().startsWith(ROOT + ".")
                    ? type.getPackageName().substring(ROOT.length() + 1) : "";
            return packages.contains(rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest);
        });
    }

    /** A class named for its Kafka role, or nested in one. */
    private static DescribedPredicate<JavaClass> kafkaAdapter() {
        return DescribedPredicate.describe("a *Topology, *Processors, *Store or *Metrics class", type -> {
            JavaClass outermost = type;
            while (outermost.getEnclosingClass().isPresent()) {
                outermost = outermost.getEnclosingClass().get();
            }
            String name = outermost.getSimpleName();
            return name.endsWith("Topology") || name.endsWith("Processors") || name.endsWith("Store")
                    || name.endsWith("Metrics");
        });
    }
}
