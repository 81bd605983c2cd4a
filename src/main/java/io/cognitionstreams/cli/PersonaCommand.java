package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.Callable;

import io.cognitionstreams.app.Publisher;
import io.cognitionstreams.assembly.Personas;
import io.cognitionstreams.governance.PersonaRules;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.serde.json.JsonAvroException;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "persona",
        description = {"Loads personas into, or lists them from, the compacted cognition.personas topic.",
                "A request names its persona by name; running instances see a loaded persona with their next packet."},
        subcommands = {PersonaCommand.Load.class, PersonaCommand.ListPersonas.class})
final class PersonaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: load or list");
    }

    @Command(name = "load",
            description = {"Loads personas from a JSON Lines file: one persona a line, in the record's JSON form "
                    + "(docs/assembly.md), e.g.",
                    "{\"name\":\"mentor\",\"role\":\"You are a patient mentor.\",\"tone\":\"warm\","
                            + "\"style_notes\":\"short answers\",\"constraints\":[\"no profanity\"]}",
                    "version defaults to 1.0.0; the command sets timestamp and source. Every line is checked first: "
                            + "one bad line and nothing is written. A persona replaces the one of the same name."})
    static final class Load implements Callable<Integer> {

        /** Personas are a few lines each; a larger file is a mistake. */
        static final long MAX_FILE_BYTES = 256 * 1024;

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--file", required = true, paramLabel = "FILE", description = "The personas, JSON Lines.")
        Path file;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            if (Files.size(file) > MAX_FILE_BYTES) {
                err.printf("error: %s has %,d bytes, over the %,d a persona file may have%n", file, Files.size(file),
                        MAX_FILE_BYTES);
                return 2;
            }
            Instant now = Instant.now();
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            Map<String, Persona> personas = new LinkedHashMap<>();
            Map<String, Integer> lineOf = new LinkedHashMap<>();
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank()) {
                    continue;
                }
                int number = i + 1;
                Persona persona;
                try {
                    persona = Persona.newBuilder(JsonAvro.fromJson(lines.get(i), Persona.class))
                            .setSource(file + ":" + number).setTimestamp(now).build();
                } catch (JsonAvroException e) {
                    problems.add("line " + number + ": " + e.getMessage());
                    continue;
                }
                Optional<String> refusal = PersonaRules.refuse(persona.getName(), persona);
                Integer earlier = lineOf.putIfAbsent(persona.getName(), number);
                if (refusal.isPresent()) {
                    problems.add("line " + number + ": $: " + refusal.get());
                } else if (earlier != null) {
                    problems.add("line " + number + ": $.name: persona " + persona.getName() + " is on line "
                            + earlier + " already");
                } else {
                    personas.put(persona.getName(), persona);
                }
            }
            if (!problems.isEmpty() || personas.isEmpty()) {
                problems.forEach(err::println);
                err.printf("error: %s%s; nothing was written%n", file,
                        problems.isEmpty() ? " holds no persona" : " has " + problems.size() + " bad line"
                                + (problems.size() == 1 ? "" : "s"));
                return 1;
            }
            Publisher.publish(cluster.clientConfig(), cluster.topics().personas, personas);
            PrintWriter out = spec.commandLine().getOut();
            personas.values().forEach(persona -> out.printf("%-16s %-8s %s%n", persona.getName(),
                    persona.getVersion(), Personas.render(persona).lines().findFirst().orElse("")));
            err.printf("loaded %d persona%s from %s into %s%n", personas.size(), personas.size() == 1 ? "" : "s",
                    file, Topics.COGNITION_PERSONAS);
            return 0;
        }
    }

    @Command(name = "list",
            description = {"Lists the personas the app applies now, read_committed from cognition.personas "
                    + "(records the app refuses are left out, as its stores leave them out).",
                    "--full prints each one as the model reads it."})
    static final class ListPersonas implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--full", description = "Each persona as rendered into the packet, not one line each.")
        boolean full;

        @Override
        public Integer call() {
            SortedMap<String, Persona> personas = GlobalMirror.snapshot(cluster.clientConfig(),
                    cluster.topics().personas, PersonaRules.CHECK);
            PrintWriter out = spec.commandLine().getOut();
            if (!personas.containsKey(Personas.DEFAULT)) {
                spec.commandLine().getErr().printf("%s is not on %s: requests without a persona get its built-in "
                        + "text%n", Personas.DEFAULT, Topics.COGNITION_PERSONAS);
            }
            for (Persona persona : personas.values()) {
                String rendered = Personas.render(persona);
                if (full) {
                    out.printf("== %s %s (%s)%n%s%n", persona.getName(), persona.getVersion(), persona.getSource(),
                            rendered);
                } else {
                    out.printf("%-16s %-8s %-24s %s%n", persona.getName(), persona.getVersion(),
                            persona.getSource(), rendered.lines().findFirst().orElse(""));
                }
            }
            out.flush();
            return 0;
        }
    }
}
