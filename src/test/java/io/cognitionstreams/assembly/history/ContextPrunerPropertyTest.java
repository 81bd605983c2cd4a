package io.cognitionstreams.assembly.history;

import static io.cognitionstreams.assembly.history.Histories.encodesAsUtf8;
import static io.cognitionstreams.assembly.history.Histories.hasLoneSurrogate;
import static io.cognitionstreams.assembly.history.Histories.message;
import static io.cognitionstreams.assembly.history.Histories.pairingViolations;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.StringJoiner;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;

/**
 * Random histories, valid and broken (orphan results, unanswered calls, interjections inside an exchange, stale
 * lessons), pruned with random settings. Seeded, so a failure names a history that can be replayed.
 */
class ContextPrunerPropertyTest {

    private static final long SEED = 20_260_422L;
    private static final int HISTORIES = 500;

    /** Whole grapheme clusters only: the input is well-formed, so any broken character in the output is ours. */
    private static final String[] PIECES = {
            "a", "Z", " ", "\n", "{\"ok\":true}", "漢", "字", "かな", "한", "\u1100\u1161\u11A8", "e\u0301",
            "o\u0308\u0304", "\uD83D\uDE00", "\uD83D\uDC4D\uD83C\uDFFD", "\uD83C\uDDEF\uD83C\uDDF5",
            "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67", "\uD835\uDD04", "\r\n"};

    @Test
    void prunedHistoriesKeepEveryInvariant() {
        Random random = new Random(SEED);
        for (int n = 0; n < HISTORIES; n++) {
            List<ChatMessage> history = randomHistory(random);
            List<ChatMessage> snapshot = history.stream().map(m -> ChatMessage.newBuilder(m).build()).toList();
            ContextPruner pruner = new ContextPruner(random.nextInt(6), random.nextInt(80));
            String error = text(random, 300);
            String label = "history " + n + " (window " + pruner.window() + ", max "
                    + pruner.maxToolOutputChars() + "): " + shape(history);

            List<ChatMessage> pruned = pruner.prune(history);
            checkPruned(label, pruner, history, pruned);

            List<ChatMessage> retry = pruner.pruneForRetry(history, error);
            List<ChatMessage> lessonless = history.stream().filter(m -> !ContextPruner.isRecoveryLesson(m)).toList();
            assertThat(retry.subList(0, retry.size() - 1)).as(label).isEqualTo(pruner.prune(lessonless));
            assertThat(retry).as(label).filteredOn(ContextPruner::isRecoveryLesson).hasSize(1);
            ChatMessage lesson = retry.get(retry.size() - 1);
            assertThat(lesson.getContent()).as(label).isEqualTo(ContextPruner.lessonText(error));
            assertThat(wellFormed(lesson.getContent())).as(label).isTrue();
            assertThat(pairingViolations(retry)).as(label).isEmpty();
            assertThat(systemMessages(retry)).as(label).containsExactlyElementsOf(systemMessages(history));

            assertThat(history).as("input untouched: " + label).isEqualTo(snapshot);
        }
    }

    private static void checkPruned(String label, ContextPruner pruner, List<ChatMessage> in, List<ChatMessage> out) {
        assertThat(out).as("nothing dropped: " + label).hasSameSizeAs(in);
        assertThat(pairingViolations(out)).as(label).isEmpty();
        assertThat(systemMessages(out)).as(label).containsExactlyElementsOf(systemMessages(in));
        int windowStart = rawWindowStart(in, pruner.window());
        for (int i = 0; i < in.size(); i++) {
            ChatMessage before = in.get(i);
            ChatMessage after = out.get(i);
            String where = "message " + i + " of " + label;
            assertThat(wellFormed(after.getContent())).as(where).isTrue();

            boolean orphaned = before.getRole() == ChatRole.TOOL && after.getRole() == ChatRole.USER;
            assertThat(after.getRole() == before.getRole() || orphaned).as("role kept: " + where).isTrue();
            if (before.getRole() == ChatRole.SYSTEM) {
                assertThat(after).as(where).isSameAs(before);
            }
            String note = orphaned ? ContextPruner.orphanNote(before.getName(), before.getToolCallId()) : "";
            assertThat(after.getContent()).as(where).startsWith(note);
            String body = after.getContent().substring(note.length());
            assertThat(after.getContent().length()).as("never longer, notes aside: " + where)
                    .isLessThanOrEqualTo(before.getContent().length() + note.length());

            if (i >= windowStart) {
                assertThat(body).as("working memory verbatim: " + where).isEqualTo(before.getContent());
            } else if (!body.equals(before.getContent())) {
                assertThat(before.getRole()).as("only tool outputs are cut: " + where).isEqualTo(ChatRole.TOOL);
                checkCut(where, pruner.maxToolOutputChars(), before.getContent(), body);
                int lastResult = i;
                while (lastResult + 1 < out.size() && out.get(lastResult + 1).getRole() == ChatRole.TOOL) {
                    lastResult++;
                }
                assertThat(lastResult).as("a cut result's exchange is wholly archived: " + where)
                        .isLessThan(windowStart);
            }
            if (!after.getContent().equals(before.getContent())) {
                assertThat(after.getTokenCount()).as("stale count cleared: " + where).isNull();
            } else {
                assertThat(after.getTokenCount()).as(where).isEqualTo(before.getTokenCount());
            }
            if (after.getRole() == before.getRole() && Objects.equals(after.getToolCallId(), before.getToolCallId())
                    && after.getContent().equals(before.getContent())) {
                assertThat(after).as("unchanged messages are passed through: " + where).isSameAs(before);
            }
        }
    }

    private static void checkCut(String where, int max, String original, String cut) {
        int noteAt = cut.lastIndexOf("\n[... ");
        assertThat(noteAt).as(where).isNotNegative();
        String preview = cut.substring(0, noteAt);
        assertThat(preview.length()).as(where).isLessThanOrEqualTo(max);
        assertThat(original).as(where).startsWith(preview);
        assertThat(cut.substring(noteAt))
                .as(where).isEqualTo("\n[... " + (original.length() - preview.length()) + " chars hidden]");
        assertThat(cut.length()).as(where).isLessThan(original.length());
    }

    /** Where working memory starts before it grows back over an exchange: the last 2N non-SYSTEM messages. */
    private static int rawWindowStart(List<ChatMessage> history, int window) {
        int start = history.size();
        int kept = 0;
        while (start > 0 && kept < 2 * window) {
            start--;
            if (history.get(start).getRole() != ChatRole.SYSTEM) {
                kept++;
            }
        }
        return start;
    }

    /** Roles, call ids and lengths, e.g. {@code A(call_0) T(call_0):1200}: enough to read a failure by. */
    private static String shape(List<ChatMessage> history) {
        StringJoiner shape = new StringJoiner(" ");
        for (ChatMessage message : history) {
            String id = message.getToolCallId() == null ? "" : "(" + message.getToolCallId() + ")";
            shape.add(message.getRole().name().charAt(0) + id + ":" + message.getContent().length());
        }
        return shape.toString();
    }

    private static List<ChatMessage> systemMessages(List<ChatMessage> history) {
        return history.stream().filter(m -> m.getRole() == ChatRole.SYSTEM).toList();
    }

    private static boolean wellFormed(String text) {
        return !hasLoneSurrogate(text) && encodesAsUtf8(text);
    }

    private static List<ChatMessage> randomHistory(Random random) {
        List<ChatMessage> history = new ArrayList<>();
        int length = random.nextInt(30);
        int calls = 0;
        while (history.size() < length) {
            int kind = random.nextInt(100);
            if (kind < 10) {
                history.add(message(ChatRole.SYSTEM, text(random, 40), null));
            } else if (kind < 28) {
                history.add(message(ChatRole.USER, text(random, 120), null));
            } else if (kind < 40) {
                history.add(message(ChatRole.ASSISTANT, text(random, 120), null));
            } else if (kind < 75) {
                String id = "call_" + calls++;
                history.add(message(ChatRole.ASSISTANT, text(random, 30), id));
                int results = random.nextInt(4);
                for (int r = 0; r < results; r++) {
                    if (random.nextInt(10) == 0) {
                        history.add(message(random.nextBoolean() ? ChatRole.SYSTEM : ChatRole.USER, "aside", null));
                    }
                    ChatMessage result = message(ChatRole.TOOL, text(random, random.nextInt(4) == 0 ? 2000 : 150), id);
                    history.add(random.nextBoolean() ? result : withExtras(result, random));
                }
            } else if (kind < 85) {
                String id = switch (random.nextInt(3)) {
                    case 0 -> null;
                    case 1 -> "call_" + random.nextInt(calls + 1);
                    default -> "gone_" + random.nextInt(1000);
                };
                history.add(withExtras(message(ChatRole.TOOL, text(random, 400), id), random));
            } else if (kind < 92) {
                history.add(message(ChatRole.USER, ContextPruner.lessonText(text(random, 80)), null));
            } else {
                history.add(withExtras(message(ChatRole.USER, text(random, 60), null), random));
            }
        }
        return history;
    }

    private static ChatMessage withExtras(ChatMessage message, Random random) {
        return ChatMessage.newBuilder(message)
                .setName(random.nextBoolean() ? "tool_" + random.nextInt(5) : null)
                .setTokenCount(random.nextInt(500))
                .build();
    }

    private static String text(Random random, int maxPieces) {
        StringBuilder text = new StringBuilder();
        int pieces = random.nextInt(maxPieces + 1);
        for (int i = 0; i < pieces; i++) {
            text.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return text.toString();
    }
}
