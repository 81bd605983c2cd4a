package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.apache.kafka.clients.producer.ProducerRecord;

import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.assembly.EpisodicMemory;
import io.cognitionstreams.assembly.MemoryIndex;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "memory",
        description = {"Lists, searches and forgets episodic memories: the compacted cognition.memory topic, read "
                + "(read_committed) as every instance's global store holds it (docs/assembly.md).",
                "A scope or session that holds no memory is an error (exit 1), and so is a scope no request could "
                        + "name (exit 2); nothing is written then."},
        subcommands = {MemoryCommand.ListMemories.class, MemoryCommand.Search.class, MemoryCommand.Forget.class})
final class MemoryCommand implements Callable<Integer> {

    /** How many names an error lists: enough to spot a typo, bounded for a topic of many scopes. */
    static final int NAMES_LISTED = 20;
    private static final int TEXT_WIDTH = 80;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: list, search or forget");
    }

    /** Memories of one scope, or written by one session. */
    static final class Selection {
        @Option(names = "--scope", required = true, description = "A memory scope, e.g. tenant-42, or "
                + MemoryScopes.SESSION_PREFIX + "<session> for a session that names none.")
        String scope;

        @Option(names = "--session", required = true, description = "The session that wrote the memories, in any "
                + "scope.")
        String session;

        /** Why the selection can match nothing; empty when it can. */
        Optional<String> problem() {
            if (scope != null) {
                return MemoryScopes.problem(scope);
            }
            return session.isBlank() ? Optional.of("--session is empty") : Optional.empty();
        }

        Predicate<Held> matches() {
            return scope != null ? held -> held.scope().equals(scope) : held -> held.session().equals(session);
        }

        /** Why nothing matched, naming what exists instead. */
        String nothing(Collection<Held> all) {
            if (scope != null) {
                return "no memory in scope '" + scope + "'; scopes that hold memories: "
                        + names(all.stream().map(Held::scope).toList());
            }
            return "session '" + session + "' wrote no memory that is kept; sessions that did: "
                    + names(all.stream().map(Held::session).toList());
        }

        String describe() {
            return scope != null ? "scope " + scope : "session " + session;
        }
    }

    /** An entry as these commands show it: everything but its vector, which only a search needs. */
    record Held(String blockId, String scope, String session, Marker marker, String text, Instant writtenAt,
                String source) {
        static final Comparator<Held> OLDEST_FIRST = Comparator.comparing(Held::writtenAt)
                .thenComparing(Held::blockId);

        static Held of(MemoryEntry entry) {
            String source = entry.getSourceTopic() == null ? "-" : entry.getSourceTopic() + "-"
                    + entry.getSourcePartition() + "@" + entry.getSourceOffset();
            return new Held(entry.getBlockId(), MemoryScopes.orSession(entry.getScope(), entry.getSessionId()),
                    entry.getSessionId(), entry.getMarker(), entry.getText(), EpisodicMemory.writtenAt(entry),
                    source);
        }
    }

    /** Every entry the app holds now, oldest first; entries the app refuses are left out, as its stores leave them. */
    static List<Held> held(ClusterOptions cluster, GlobalMirror.Listener<MemoryEntry> alsoTell) {
        Map<String, Held> held = new HashMap<>();
        GlobalMirror.replay(cluster.clientConfig(), cluster.topics().memory, MemoryEntries::refuse,
                new GlobalMirror.Listener<>() {
                    @Override
                    public void put(String key, MemoryEntry entry) {
                        held.put(key, Held.of(entry));
                        alsoTell.put(key, entry);
                    }

                    @Override
                    public void delete(String key) {
                        held.remove(key);
                        alsoTell.delete(key);
                    }
                });
        return held.values().stream().sorted(Held.OLDEST_FIRST).toList();
    }

    static String names(List<String> names) {
        TreeSet<String> distinct = new TreeSet<>(names);
        if (distinct.isEmpty()) {
            return "none";
        }
        int more = distinct.size() - NAMES_LISTED;
        return distinct.stream().limit(NAMES_LISTED).collect(Collectors.joining(", "))
                + (more > 0 ? " and " + more + " more" : "");
    }

    @Command(name = "list",
            description = {"Without a selection: each scope with its entries, the sessions that wrote them and when "
                    + "its oldest and newest were written.",
                    "With --scope or --session: those entries, oldest first, each with when and where it was "
                            + "written (its block's record on channel.memory)."})
    static final class ListMemories implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true)
        Selection selection;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Optional<String> problem = selection == null ? Optional.empty() : selection.problem();
            if (problem.isPresent()) {
                err.println("error: " + problem.get());
                return 2;
            }
            List<Held> all = held(cluster, GlobalMirror.Listener.none());
            if (selection == null) {
                Map<String, List<Held>> byScope = all.stream().collect(Collectors.groupingBy(Held::scope,
                        TreeMap::new, Collectors.toList()));
                out.printf("%-32s %7s %8s  %-24s  %s%n", "SCOPE", "ENTRIES", "SESSIONS", "OLDEST", "NEWEST");
                byScope.forEach((scope, entries) -> out.printf("%-32s %7d %8d  %-24s  %s%n", scope, entries.size(),
                        entries.stream().map(Held::session).distinct().count(), entries.get(0).writtenAt(),
                        entries.get(entries.size() - 1).writtenAt()));
                err.printf("%d memories in %d scopes on %s%n", all.size(), byScope.size(), Topics.COGNITION_MEMORY);
                return 0;
            }
            List<Held> selected = all.stream().filter(selection.matches()).toList();
            if (selected.isEmpty()) {
                err.println("error: " + selection.nothing(all));
                return 1;
            }
            out.printf("%-24s  %-24s  %-20s  %-12s  %-24s  %s%n", "WRITTEN", "SCOPE", "SESSION", "MARKER", "SOURCE",
                    "TEXT");
            selected.forEach(held -> out.printf("%-24s  %-24s  %-20s  %-12s  %-24s  %s%n", held.writtenAt(),
                    held.scope(), held.session(), held.marker(), held.source(),
                    DemoWatcher.oneLine(held.text(), TEXT_WIDTH)));
            return 0;
        }
    }

    @Command(name = "search",
            description = {"Searches one scope as a request of that scope would: the memories most similar to TEXT "
                    + "(cosine of the embeddings of --memory-embedder, at least " + EpisodicMemory.MIN_SIMILARITY
                    + "), "
                    + "most similar first, each with its similarity.",
                    "--as-of searches the scope as it was then, as a replayed turn does."})
    static final class Search implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--scope", required = true, description = "The memory scope to search.")
        String scope;

        @Option(names = "--top", defaultValue = "3", paramLabel = "K",
                description = "How many memories at most (default: ${DEFAULT-VALUE}, as many as a packet gets).")
        int top;

        @Option(names = "--as-of", paramLabel = "ISO-8601",
                description = "Only memories written at or before this time, e.g. 2026-11-22T10:00:00Z.")
        String asOf;

        @Option(names = "--memory-embedder", paramLabel = "static|minilm", defaultValue = "minilm",
                converter = MemoryOptions.EmbedderName.class,
                description = "Embed as a run with this --memory-embedder does (default: ${DEFAULT-VALUE}).")
        Settings.MemoryEmbedder embedder;

        @Parameters(arity = "1..*", paramLabel = "TEXT", description = "What to search for, as a prompt would ask.")
        List<String> words;

        @Override
        public Integer call() {
            PrintWriter err = spec.commandLine().getErr();
            Optional<String> problem = MemoryScopes.problem(scope);
            if (problem.isPresent()) {
                err.println("error: " + problem.get());
                return 2;
            }
            if (top < 1) {
                err.println("error: --top " + top + " finds nothing; ask for 1 or more");
                return 2;
            }
            Optional<Instant> until;
            try {
                until = Optional.ofNullable(asOf).map(Instant::parse);
            } catch (DateTimeParseException e) {
                err.println("error: --as-of '" + asOf + "' is not an ISO-8601 instant such as 2026-11-22T10:00:00Z");
                return 2;
            }
            // Only this scope's vectors are kept: the other scopes' entries are listed, never decoded into the index.
            MemoryIndex index = new MemoryIndex();
            EmbeddingModel model = Pipeline.memoryModel(embedder);
            List<Held> all = held(cluster, new GlobalMirror.Listener<>() {
                @Override
                public void put(String key, MemoryEntry entry) {
                    if (Held.of(entry).scope().equals(scope)) {
                        EpisodicMemory.index(index, key, entry, model);
                    } else {
                        index.remove(key);
                    }
                }

                @Override
                public void delete(String key) {
                    index.remove(key);
                }
            });
            if (index.entries(scope) == 0) {
                err.println("error: no memory in scope '" + scope + "'; scopes that hold memories: "
                        + names(all.stream().map(Held::scope).toList()));
                return 1;
            }
            String query = String.join(" ", words);
            List<MemoryIndex.Hit> hits = new EpisodicMemory(model, index).search(scope, query, top,
                    until);
            PrintWriter out = spec.commandLine().getOut();
            hits.forEach(hit -> out.printf("%.3f  %s%n", hit.similarity(), DemoWatcher.oneLine(hit.text(),
                    TEXT_WIDTH)));
            if (hits.isEmpty()) {
                err.printf("no memory of scope %s%s is similar enough (at least %s)%n", scope,
                        until.map(time -> " written by " + time).orElse(""), EpisodicMemory.MIN_SIMILARITY);
            }
            return 0;
        }
    }

    @Command(name = "forget",
            description = {"Forgets the memories of a scope, or every memory a session wrote (a user's deletion "
                    + "request): one tombstone per entry on cognition.memory, all in one transaction.",
                    "Running instances drop them from their stores and indexes as they read the tombstones, and "
                            + "compaction removes them from the topic. A session still running may write more: stop "
                            + "it first. The session's history, outputs and channel records are not memories; they "
                            + "keep their own retention."})
    static final class Forget implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Selection selection;

        @Override
        public Integer call() {
            PrintWriter err = spec.commandLine().getErr();
            Optional<String> problem = selection.problem();
            if (problem.isPresent()) {
                err.println("error: " + problem.get());
                return 2;
            }
            List<Held> all = held(cluster, GlobalMirror.Listener.none());
            List<Held> forgotten = all.stream().filter(selection.matches()).toList();
            if (forgotten.isEmpty()) {
                err.println("error: " + selection.nothing(all) + "; nothing was written");
                return 1;
            }
            // All or nothing: a deletion request half done would leave memories the user asked to have deleted.
            Transactions.sendAll(cluster.clientConfig(), "memory-forget", forgotten.stream()
                    .map(held -> new ProducerRecord<byte[], byte[]>(Topics.COGNITION_MEMORY,
                            ProduceCommand.utf8(held.blockId()), null)).toList(), sent -> { });
            spec.commandLine().getOut().printf("forgot %d memor%s of %s (scopes: %s; sessions: %s): tombstones on "
                            + "%s%n", forgotten.size(), forgotten.size() == 1 ? "y" : "ies", selection.describe(),
                    names(forgotten.stream().map(Held::scope).toList()),
                    names(forgotten.stream().map(Held::session).toList()), Topics.COGNITION_MEMORY);
            return 0;
        }
    }
}
