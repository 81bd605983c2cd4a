package io.cognitionstreams.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.producer.ProducerRecord;

import io.cognitionstreams.assembly.SessionBudgets;
import io.cognitionstreams.assembly.history.ChatImport;
import io.cognitionstreams.clients.TopicReader;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.serde.json.JsonAvroException;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "session", mixinStandardHelpOptions = true,
        description = "Shows what a session has spent, and seeds its history.",
        subcommands = {SessionCommand.Show.class, SessionCommand.Import.class})
final class SessionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: show or import");
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Shows what a session has spent on model calls (tokens in and out, calls, model time) "
                    + "against its budgets, and whether a budget has stopped it from continuing on its own.",
                    "Reads the session's latest record on " + Topics.SESSION_USAGE + " (read_committed), which the "
                            + "assembly writes with every answer: it needs only the cluster, not the running app."})
    static final class Show implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SESSION", description = "Session id.")
        String session;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            Topic<String, SessionUsage> topic = cluster.topics().sessionUsage;
            Optional<SessionUsage> usage = TopicReader.latestValue(cluster.clientConfig(), topic.name(), session)
                    .map(value -> topic.valueSerde().deserializer().deserialize(topic.name(), value));
            out.print(usage.map(found -> render(session, found)).orElseGet(() -> String.format(
                    "no usage for session %s: it has had no answer yet (in %s)%n", session, topic.name())));
            out.flush();
            return 0;
        }

        static String render(String session, SessionUsage usage) {
            StringBuilder text = new StringBuilder();
            text.append(String.format("session %s (updated %s)%n", session, usage.getUpdated()));
            text.append(String.format("spent: %s%n", SessionBudgets.figures(usage)));
            if (usage.getEstimatedAnswers() > 0) {
                text.append(usage.getModelCalls() == 1
                        ? String.format("  the answer came without usage from the model: its tokens are the "
                                + "assembly's own counts%n")
                        : String.format("  %d of the answers came without usage from the model: their tokens are "
                                + "the assembly's own counts%n", usage.getEstimatedAnswers()));
            }
            long tokens = usage.getPromptTokens() + usage.getCompletionTokens();
            text.append(String.format("budgets: tokens %s, calls %s, model time %s%n",
                    budget(tokens, usage.getTokenBudget()), budget(usage.getModelCalls(), usage.getCallBudget()),
                    usage.getTimeBudgetMs() == null ? "none" : String.format("%,d of %,d ms",
                            usage.getModelTimeMs(), usage.getTimeBudgetMs())));
            text.append(usage.getOverBudget() != null
                    ? String.format("auto-continue: stopped, the session has spent %s; its next turn waits for the "
                            + "agent or the council%n", usage.getOverBudget())
                    : String.format("auto-continue: within budget%n"));
            return text.toString();
        }

        private static String budget(long used, Long budget) {
            return budget == null ? "none" : String.format("%,d of %,d", used, budget);
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Seeds a session with a conversation in OpenAI's chat format, JSON Lines: one message a "
                    + "line, roles system (or developer), user, assistant (with tool_calls, parallel ones too) and "
                    + "tool (with the tool_call_id it answers).",
                    "The whole file is checked first; any problem is reported with its line and JSON path and "
                            + "nothing is written. Then every message goes to session.imports in one transaction, "
                            + "and the assembly appends them, in order, after what the session already has."})
    static final class Import implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--session", required = true, description = "Session to seed.")
        String session;

        @Option(names = "--file", required = true, paramLabel = "FILE", description = "The conversation, JSON Lines.")
        Path file;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            if (session.isBlank()) {
                err.println("error: --session is empty");
                return 2;
            }
            ChatImport conversation = new ChatImport();
            try (InputStream input = Files.newInputStream(file)) {
                LineReader lines = new LineReader(input, AsyncSender.DEFAULT_RECORD_LIMIT);
                long number = 0;
                for (LineReader.Line line = lines.next(); line != null; line = lines.next()) {
                    number++;
                    if (line.oversized()) {
                        conversation.refuse(number, "the line is " + line.size() + " bytes, over the limit of "
                                + AsyncSender.DEFAULT_RECORD_LIMIT);
                        continue;
                    }
                    String text;
                    try {
                        text = ProduceCommand.strictUtf8(line.bytes());
                    } catch (JsonAvroException e) {
                        conversation.refuse(number, e.getDetail());
                        continue;
                    }
                    if (!text.isBlank()) {
                        conversation.add(number, text);
                    }
                }
            }
            List<ChatImport.Problem> problems = conversation.finish();
            if (!problems.isEmpty()) {
                problems.forEach(err::println);
                err.printf("error: %s has %d problem%s; nothing was written%n", file, problems.size(),
                        problems.size() == 1 ? "" : "s");
                return 1;
            }
            Topic<String, HistoryImport> topic = cluster.topics().sessionImports;
            List<ChatImport.Line> messages = conversation.messages();
            int limit = AsyncSender.recordLimit(cluster.topicConfig(topic.name()));
            String importId = UUID.randomUUID().toString();
            Instant now = Instant.now();
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < messages.size(); i++) {
                ChatImport.Line line = messages.get(i);
                HistoryImport value = HistoryImport.newBuilder().setImportId(importId).setSessionId(session)
                        .setIndex(i).setCount(messages.size()).setSource(file + ":" + line.line())
                        .setMessage(line.message()).setTimestamp(now).build();
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic.name(),
                        ProduceCommand.utf8(session), topic.valueSerde().serializer().serialize(topic.name(), value));
                if (AsyncSender.batchBytes(record) > limit) {
                    err.printf("line %d: $: its record is %,d bytes, over %s's max.message.bytes of %,d; nothing "
                            + "was written%n", line.line(), AsyncSender.batchBytes(record), topic.name(), limit);
                    return 1;
                }
                records.add(record);
            }
            Transactions.sendAll(cluster.clientConfig(), "session-import", records, sent -> { });
            long calls = messages.stream().mapToLong(line -> line.message().getToolCalls().size()).sum();
            long results = messages.stream().filter(line -> line.message().getRole() == ChatRole.TOOL).count();
            err.printf("imported %d message%s (%d tool call%s, %d result%s) into session %s through %s%n",
                    messages.size(), messages.size() == 1 ? "" : "s", calls, calls == 1 ? "" : "s", results,
                    results == 1 ? "" : "s", session, Topics.SESSION_IMPORTS);
            return 0;
        }
    }
}
