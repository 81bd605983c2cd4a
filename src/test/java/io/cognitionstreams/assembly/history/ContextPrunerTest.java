package io.cognitionstreams.assembly.history;

import static io.cognitionstreams.assembly.history.Histories.assistant;
import static io.cognitionstreams.assembly.history.Histories.call;
import static io.cognitionstreams.assembly.history.Histories.calls;
import static io.cognitionstreams.assembly.history.Histories.encodesAsUtf8;
import static io.cognitionstreams.assembly.history.Histories.hasLoneSurrogate;
import static io.cognitionstreams.assembly.history.Histories.pairingViolations;
import static io.cognitionstreams.assembly.history.Histories.result;
import static io.cognitionstreams.assembly.history.Histories.system;
import static io.cognitionstreams.assembly.history.Histories.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.ChatToolCall;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

class ContextPrunerTest {

    private static final String LONG = "0123456789".repeat(124) + "tail";

    @Test
    void systemMessagesAreKeptUnchangedInPlace() {
        List<ChatMessage> history = List.of(
                system("rules"), user("u1"), result("orphan", LONG), system("mid rules"), user("u2"),
                assistant("a2"), system("late rules"), user("u3"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned).hasSameSizeAs(history);
        for (int i : new int[] {0, 3, 6}) {
            assertThat(pruned.get(i)).isSameAs(history.get(i));
        }
    }

    @Test
    void workingMemoryIsTheLastTwoNNonSystemMessagesVerbatim() {
        List<ChatMessage> history = List.of(
                user("u1"), call("c1", "ls"), result("c1", LONG), user("u2"),
                call("c2", "cat"), result("c2", LONG), system("rules"), user("u3"));

        List<ChatMessage> pruned = new ContextPruner(2, 10).prune(history);

        for (int i = 3; i < 8; i++) {
            assertThat(pruned.get(i)).isSameAs(history.get(i));
        }
        assertThat(pruned.get(2).getContent()).isNotEqualTo(LONG);
    }

    @Test
    void archivedToolOutputsAreCutToAPreviewAndANote() {
        List<ChatMessage> history = List.of(
                user(LONG), call("c1", LONG), result("c1", LONG), call("c2", "x"), result("c2", "short"),
                user("u2"), assistant("a2"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(2).getContent()).isEqualTo("0123456789\n[... 1234 chars hidden]");
        assertThat(pruned.get(2).getRole()).isEqualTo(ChatRole.TOOL);
        assertThat(pruned.get(2).getToolCallId()).isEqualTo("c1");
        assertThat(pruned.get(0)).as("only tool outputs are cut").isSameAs(history.get(0));
        assertThat(pruned.get(1)).isSameAs(history.get(1));
        assertThat(pruned.get(4)).isSameAs(history.get(4));
    }

    @Test
    void anOutputTheNoteWouldNotShortenIsLeftWhole() {
        String barelyLong = "0123456789abcdefghij";
        List<ChatMessage> history = List.of(call("c", "x"), result("c", barelyLong), user("u"), assistant("a"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(1)).isSameAs(history.get(1));
    }

    @Test
    void windowStartingOnAResultGrowsBackToItsCall() {
        List<ChatMessage> history = List.of(user("u1"), call("c1", "ls"), result("c1", LONG), user("u2"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(2)).isSameAs(history.get(2));
    }

    /**
     * One call with three results at indexes 2..4. Whatever the window, the results are all whole (the exchange is
     * in working memory) or all cut (it is in the archive); never split.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void anExchangeWithSeveralResultsIsNeverSplit(int window) {
        for (int tail = 1; tail <= 2; tail++) {
            List<ChatMessage> history = new ArrayList<>(List.of(
                    user("u1"), call("c1", "fan out"), result("c1", LONG + "a"), result("c1", LONG + "b"),
                    result("c1", LONG + "c")));
            for (int i = 0; i < tail; i++) {
                history.add(i % 2 == 0 ? user("next") : assistant("reply"));
            }
            int rawStart = history.size() - 2 * window;

            List<ChatMessage> pruned = new ContextPruner(window, 10).prune(history);

            List<Boolean> whole = pruned.subList(2, 5).stream()
                    .map(m -> m.getContent().length() > LONG.length())
                    .toList();
            assertThat(whole).as("window %d, tail %d", window, tail).containsOnly(rawStart <= 4);
        }
    }

    @Test
    void boundaryExactlyBetweenTwoResultsKeepsBothWithTheCall() {
        List<ChatMessage> history = List.of(
                user("u1"), call("c1", "two reads"), result("c1", LONG), result("c1", LONG), user("u2"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.subList(1, 5)).containsExactlyElementsOf(history.subList(1, 5));
    }

    @Test
    void anExchangeWhollyBeforeTheWindowIsCutInTheArchive() {
        List<ChatMessage> history = List.of(
                user("u1"), call("c1", "ls"), result("c1", LONG), result("c1", LONG), user("u2"), assistant("a2"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(2).getContent()).endsWith("chars hidden]");
        assertThat(pruned.get(3).getContent()).endsWith("chars hidden]");
        assertThat(pairingViolations(pruned)).isEmpty();
    }

    @Test
    void aResultWithoutItsCallBecomesANotedUserMessage() {
        ChatMessage orphan = ChatMessage.newBuilder(result("gone", "42 files")).setName("fs_list").build();
        List<ChatMessage> history = List.of(system("rules"), orphan, user("u"), assistant("a"));

        List<ChatMessage> pruned = new ContextPruner(4, 10).prune(history);

        ChatMessage repaired = pruned.get(1);
        assertThat(repaired.getRole()).isEqualTo(ChatRole.USER);
        assertThat(repaired.getContent())
                .isEqualTo("[output of tool fs_list, call gone]\n42 files");
        assertThat(repaired.getToolCallId()).as("still says which call it answers").isEqualTo("gone");
        assertThat(repaired.getName()).isEqualTo("fs_list");
        assertThat(pairingViolations(pruned)).isEmpty();
    }

    @Test
    void anArchivedOrphanIsCutThenNoted() {
        List<ChatMessage> history = List.of(result("gone", LONG), user("u"), assistant("a"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(0).getContent()).isEqualTo(
                "[output of a tool, call gone]\n0123456789\n[... 1234 chars hidden]");
    }

    @Test
    void aResultSeparatedFromItsCallIsRepairedOnBothSides() {
        List<ChatMessage> history = List.of(
                call("c1", "ls"), system("interjection"), result("c1", "a.txt"), result("c1", "b.txt"),
                call("c2", "cat"), result("c3", "wrong id"), result("c2", "late"));

        List<ChatMessage> pruned = new ContextPruner(10, 10).prune(history);

        assertThat(pairingViolations(pruned)).isEmpty();
        assertThat(pruned).extracting(ChatMessage::getRole).containsExactly(
                ChatRole.ASSISTANT, ChatRole.SYSTEM, ChatRole.USER, ChatRole.USER,
                ChatRole.ASSISTANT, ChatRole.USER, ChatRole.USER);
        assertThat(pruned.get(0).getToolCallId()).isNull();
        assertThat(pruned.get(0).getContent()).isEqualTo("ls");
        assertThat(pruned.get(4).getToolCallId()).isNull();
    }

    @Test
    void aCallWithNoResultYetLosesItsIdSoTheLessonCanFollowIt() {
        List<ChatMessage> history = List.of(user("deploy"), call("c9", "deploy.run"));

        List<ChatMessage> retry = new ContextPruner(4, 10).pruneForRetry(history, "timeout");

        assertThat(retry.get(1).getToolCallId()).isNull();
        assertThat(retry.get(1).getContent()).isEqualTo("deploy.run");
        assertThat(pairingViolations(retry)).isEmpty();
    }

    @Test
    void toolResultsOfParallelCallsStayPaired() {
        List<ChatMessage> history = List.of(
                user("u"), call("a", "read a"), result("a", LONG), call("b", "read b"), result("b", LONG),
                user("u2"));

        for (int window = 0; window <= 3; window++) {
            assertThat(pairingViolations(new ContextPruner(window, 10).prune(history))).isEmpty();
        }
    }

    @Test
    void resultsOfParallelCallsOfOneMessageStayBesideTheirCallAndAreCutInTheArchive() {
        List<ChatMessage> history = List.of(
                user("u"), calls("reading both", "a", "b"), result("b", LONG), result("a", LONG), user("u2"),
                assistant("done"));

        for (int window = 0; window <= 3; window++) {
            assertThat(pairingViolations(new ContextPruner(window, 10).prune(history))).as("window %d", window)
                    .isEmpty();
        }
        List<ChatMessage> archived = new ContextPruner(1, 10).prune(history);
        assertThat(archived.get(1)).isSameAs(history.get(1));
        assertThat(archived.subList(2, 4)).extracting(ChatMessage::getRole, ChatMessage::getToolCallId)
                .containsExactly(tuple(ChatRole.TOOL, "b"), tuple(ChatRole.TOOL, "a"));
        assertThat(archived.get(2).getContent()).endsWith("chars hidden]");
    }

    @Test
    void aParallelCallWithoutAResultIsDroppedFromItsMessageAndItsAnsweredCallsStay() {
        List<ChatMessage> history = List.of(user("u"), calls("reading", "a", "b", "c"), result("b", "B"));

        List<ChatMessage> pruned = new ContextPruner(4, 10).prune(history);

        assertThat(pruned.get(1).getToolCalls()).extracting(ChatToolCall::getId).containsExactly("b");
        assertThat(pruned.get(1).getContent()).isEqualTo("reading");
        assertThat(pairingViolations(pruned)).isEmpty();
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String emoji = "ab" + "\uD83D\uDE00".repeat(600);

        String cut = prunedArchivedOutput(emoji, 3);

        assertThat(cut).isEqualTo("ab\n[... 1200 chars hidden]");
    }

    @Test
    void aCutNeverSeparatesCombiningMarksFromTheirBase() {
        String accents = "e\u0301".repeat(600);

        assertThat(prunedArchivedOutput(accents, 5)).isEqualTo("e\u0301e\u0301\n[... 1196 chars hidden]");
    }

    @Test
    void cjkIsCutOnTheLimit() {
        String cjk = "漢字かな".repeat(300);

        assertThat(prunedArchivedOutput(cjk, 5)).isEqualTo("漢字かな漢\n[... 1195 chars hidden]");
    }

    @Test
    void aCutKeepsEmojiSequencesAndFlagsWhole() {
        String family = "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67";
        String japan = "\uD83C\uDDEF\uD83C\uDDF5";
        String germany = "\uD83C\uDDE9\uD83C\uDDEA";
        String thumbs = "\uD83D\uDC4D\uD83C\uDFFD";
        String text = (family + japan + germany + thumbs + "x").repeat(100);

        for (int limit = 0; limit <= 40; limit++) {
            String cut = prunedArchivedOutput(text, limit);
            String preview = cut.substring(0, cut.lastIndexOf("\n[... "));
            assertThat(preview.length()).isLessThanOrEqualTo(limit);
            assertThat(text).startsWith(preview);
            assertThat(hasLoneSurrogate(cut)).as("limit %d", limit).isFalse();
            assertThat(encodesAsUtf8(cut)).isTrue();
            assertThat(List.of(family, japan, germany, thumbs, "x"))
                    .as("limit %d: the preview ends after a whole cluster", limit)
                    .anyMatch(cluster -> preview.isEmpty() || preview.endsWith(cluster));
        }
    }

    @Test
    void lessonSaysWhatFailedAndWhatToDo() {
        List<ChatMessage> retry = new ContextPruner(4, 500).pruneForRetry(List.of(user("go")),
                "ValueError: invalid input");

        ChatMessage lesson = retry.get(retry.size() - 1);
        assertThat(lesson.getRole()).isEqualTo(ChatRole.USER);
        assertThat(lesson.getContent()).isEqualTo("""
                [AUTO-FIX RECOVERY]
                Previous attempt failed: ValueError: invalid input
                We have rolled back to a previous checkpoint.
                Please analyze the error and try a different approach.""");
        assertThat(lesson.getToolCallId()).isNull();
    }

    @Test
    void theLessonAppearsOnceHoweverOftenARetryHappens() {
        ContextPruner pruner = new ContextPruner(2, 10);
        List<ChatMessage> history = new ArrayList<>(List.of(system("rules"), user("task")));
        for (int attempt = 1; attempt <= 5; attempt++) {
            history.add(call("c" + attempt, "try " + attempt));
            history.add(result("c" + attempt, LONG));
            history = new ArrayList<>(pruner.pruneForRetry(history, "attempt " + attempt + " failed"));
        }

        assertThat(history).filteredOn(ContextPruner::isRecoveryLesson).hasSize(1);
        assertThat(history.get(history.size() - 1).getContent())
                .contains("Previous attempt failed: attempt 5 failed\n");
        assertThat(pairingViolations(history)).isEmpty();
    }

    @Test
    void errorsAreAbbreviatedToOneLine() {
        assertThat(ContextPruner.abbreviate("\n  java.io.IOException: disk full \n\tat a.B.c(B.java:1)\n"))
                .isEqualTo("java.io.IOException: disk full");
        assertThat(ContextPruner.abbreviate(null)).isEqualTo("unknown error");
        assertThat(ContextPruner.abbreviate(" \n\t")).isEqualTo("unknown error");
        String longEmoji = "x" + "\uD83D\uDE00".repeat(150);
        String abbreviated = ContextPruner.abbreviate(longEmoji);
        assertThat(abbreviated).isEqualTo("x" + "\uD83D\uDE00".repeat(99) + "...");
        assertThat(ContextPruner.abbreviate("y".repeat(200))).isEqualTo("y".repeat(200));
    }

    @Test
    void changedMessagesLoseTheirTokenCountWithoutACounter() {
        ChatMessage counted = ChatMessage.newBuilder(result("c", LONG)).setTokenCount(999).build();
        ChatMessage kept = ChatMessage.newBuilder(user("u")).setTokenCount(1).build();
        List<ChatMessage> history = List.of(call("c", "x"), counted, kept, assistant("a"));

        List<ChatMessage> pruned = new ContextPruner(1, 10).prune(history);

        assertThat(pruned.get(1).getTokenCount()).isNull();
        assertThat(pruned.get(2).getTokenCount()).isEqualTo(1);
    }

    @Test
    void changedMessagesAreRecountedWithACounter() {
        TokenCounter counter = new Tokenizers().forModel("gpt-4o");
        ChatMessage counted = ChatMessage.newBuilder(result("c", LONG)).setTokenCount(999).build();
        ChatMessage orphan = ChatMessage.newBuilder(result("gone", "out")).setTokenCount(1).build();
        List<ChatMessage> history = List.of(call("c", "x"), counted, orphan, user("u"), assistant("a"));

        List<ChatMessage> retry = new ContextPruner(1, 10).countingWith(counter).pruneForRetry(history, "boom");

        for (int i : new int[] {1, 2, 5}) {
            assertThat(retry.get(i).getTokenCount()).isEqualTo(counter.count(retry.get(i).getContent()));
        }
    }

    @Test
    void theInputIsNotModified() {
        List<ChatMessage> history = List.of(call("c", "x"), result("c", LONG), result("gone", "y"), user("u"));
        List<ChatMessage> copy = history.stream().map(m -> ChatMessage.newBuilder(m).build()).toList();

        new ContextPruner(0, 10).pruneForRetry(history, "e");

        assertThat(history).isEqualTo(copy);
    }

    @Test
    void negativeSettingsAreRefused() {
        assertThatThrownBy(() -> new ContextPruner(-1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ContextPruner(1, -10)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The content of a long tool output that pruning puts in the archive, with the given limit. */
    private static String prunedArchivedOutput(String output, int maxToolOutputChars) {
        List<ChatMessage> history = List.of(call("c", "read"), result("c", output), user("u"), assistant("a"));
        String content = new ContextPruner(1, maxToolOutputChars).prune(history).get(1).getContent();
        assertThat(hasLoneSurrogate(content)).isFalse();
        assertThat(encodesAsUtf8(content)).isTrue();
        return content;
    }
}
