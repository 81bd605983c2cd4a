package io.cognitionstreams.assembly.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.cognitionstreams.prompt.PromptRenderer;
import io.cognitionstreams.prompt.RecoveryLesson;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.tokens.TokenCounter;

/**
 * Shrinks a session's history before it is sent to a model, and before an AutoFix retry.
 *
 * <p><b>Tool calls in this schema.</b> An ASSISTANT message makes the calls in its {@code tool_calls}, several at
 * once for parallel calls (or, in the form before {@code tool_calls} existed, the one call its {@code tool_call_id}
 * names). Their results are the TOOL messages that directly follow it, each with {@code tool_call_id} = the id of
 * one of its calls; a call may have several. An exchange is that ASSISTANT message with its run of results.
 *
 * <p><b>Output rules.</b> An OpenAI-compatible endpoint refuses a {@code tool} message that does not answer a call
 * of the assistant message before it, and an assistant call left without an answer. So every output satisfies:
 * <ul>
 *   <li>each TOOL message is preceded, through a run of TOOL messages only, by an ASSISTANT message that makes a
 *       call with its {@code tool_call_id};</li>
 *   <li>each call of an ASSISTANT message is answered by a TOOL message of the run that directly follows it.</li>
 * </ul>
 * Input that breaks them is repaired, never dropped. A TOOL message with no such call before it (its call was
 * pruned upstream, a SYSTEM or USER message came in between, it carries another id, or the call was an EXECUTE
 * line of the assistant's text rather than a native tool call, which is how the executor's results arrive) becomes
 * a USER message whose content starts with a note naming the tool and the call. It keeps {@code name} and
 * {@code tool_call_id}, the record of which call it answers: a USER message is sent with role and content only, so
 * they cannot break a chat API's pairing rules. A call with no result after it is removed from its ASSISTANT
 * message, which keeps its content and its answered calls.
 *
 * <p><b>Pruning.</b> Nothing is reordered or dropped.
 * <ul>
 *   <li>SYSTEM messages are kept unchanged, in place.</li>
 *   <li>Working memory, the last {@code 2 * window} non-SYSTEM messages, is kept verbatim (repairs aside). When
 *       its first message would be a tool result, it grows back to that result's ASSISTANT call, so an exchange is
 *       either wholly in working memory or wholly in the archive.</li>
 *   <li>The archive, everything before working memory, is kept too, but tool outputs longer than
 *       {@code maxToolOutputChars} are cut to a preview of at most that many chars plus a note
 *       {@code "\n[... N chars hidden]"}. Chars are UTF-16 code units; the preview ends on a grapheme-cluster
 *       boundary (see {@link TextCut}). An output is left whole when the note would not make it shorter.</li>
 * </ul>
 * A message whose content changes gets its {@code token_count} recounted when a {@link TokenCounter} is set
 * ({@link #countingWith}), and cleared otherwise: a stale count kept with history would mislead budgets.
 * Messages that do not change are returned as the same instances; the input is never modified.
 *
 * <p><b>Recovery lesson.</b> {@link #pruneForRetry} adds one USER message saying the last attempt failed. USER,
 * not SYSTEM: the error text can echo tool or model output and must not get system authority, and several
 * OpenAI-compatible servers refuse or move SYSTEM messages that are not at the start of a conversation.
 */
public final class ContextPruner {

    /** Longest error line quoted in a lesson: a summary, not the trace. */
    static final int MAX_ERROR_CHARS = 200;

    private final int window;
    private final int maxToolOutputChars;
    private final TokenCounter counter;

    public ContextPruner(int window, int maxToolOutputChars) {
        this(window, maxToolOutputChars, null);
    }

    private ContextPruner(int window, int maxToolOutputChars, TokenCounter counter) {
        if (window < 0 || maxToolOutputChars < 0) {
            throw new IllegalArgumentException("window (" + window + ") and maxToolOutputChars ("
                    + maxToolOutputChars + ") must not be negative");
        }
        this.window = window;
        this.maxToolOutputChars = maxToolOutputChars;
        this.counter = counter;
    }

    /** Settings of the model's {@link ModelPreset}; its context-window size is there too. */
    public static ContextPruner forModel(String model) {
        ModelPreset preset = ModelPreset.forModel(model);
        return new ContextPruner(preset.window(), preset.maxToolOutputChars());
    }

    /** A pruner like this one that recounts changed messages with {@code counter} instead of clearing counts. */
    public ContextPruner countingWith(TokenCounter counter) {
        return new ContextPruner(window, maxToolOutputChars, Objects.requireNonNull(counter));
    }

    public int window() {
        return window;
    }

    public int maxToolOutputChars() {
        return maxToolOutputChars;
    }

    public List<ChatMessage> prune(List<ChatMessage> history) {
        int size = history.size();
        boolean[] orphan = new boolean[size];
        List<Set<String>> unanswered = new ArrayList<>(Collections.nCopies(size, Set.of()));
        int i = 0;
        while (i < size) {
            ChatMessage message = history.get(i);
            if (message.getRole() == ChatRole.TOOL) {
                // Not reached from a call's run of results: nothing before it asked for it.
                orphan[i++] = true;
                continue;
            }
            if (message.getRole() != ChatRole.ASSISTANT) {
                i++;
                continue;
            }
            Set<String> open = new LinkedHashSet<>();
            PromptRenderer.calls(message).forEach(call -> open.add(call.getId()));
            Set<String> answered = new HashSet<>();
            int next = i + 1;
            // Its results follow it through TOOL messages only; the first one that answers no call of it, and
            // every TOOL message after that in the run, is an orphan (it becomes a USER message, ending the run).
            while (next < size && history.get(next).getRole() == ChatRole.TOOL
                    && open.contains(history.get(next).getToolCallId())) {
                answered.add(history.get(next).getToolCallId());
                next++;
            }
            open.removeAll(answered);
            unanswered.set(i, open);
            i = next;
        }
        int start = workingMemoryStart(history, orphan);
        List<ChatMessage> pruned = new ArrayList<>(size);
        for (int m = 0; m < size; m++) {
            pruned.add(rewrite(history.get(m), m < start, orphan[m], unanswered.get(m)));
        }
        return List.copyOf(pruned);
    }

    /** Prunes, then ends the history with the one recovery lesson for {@code error}; earlier lessons are removed. */
    public List<ChatMessage> pruneForRetry(List<ChatMessage> history, String error) {
        List<ChatMessage> lessonless = history.stream().filter(message -> !isRecoveryLesson(message)).toList();
        List<ChatMessage> pruned = new ArrayList<>(prune(lessonless));
        String lesson = lessonText(error);
        ChatMessage message = ChatMessage.newBuilder().setRole(ChatRole.USER).setContent(lesson).build();
        pruned.add(ChatMessage.newBuilder(message).setTokenCount(count(message)).build());
        return List.copyOf(pruned);
    }

    /** A lesson is recognised by role and first line, so one written by an earlier attempt is found again. */
    public static boolean isRecoveryLesson(ChatMessage message) {
        return message.getRole() == ChatRole.USER && message.getContent().startsWith(RecoveryLesson.HEADER + "\n");
    }

    static String lessonText(String error) {
        return RecoveryLesson.HEADER + "\n"
                + "Previous attempt failed: " + abbreviate(error) + "\n"
                + "We have rolled back to a previous checkpoint.\n"
                + "Please analyze the error and try a different approach.";
    }

    /** The first non-blank line: an exception's message without its stack trace. */
    static String abbreviate(String error) {
        String line = error == null ? "" : error.lines()
                .map(String::strip)
                .filter(text -> !text.isEmpty())
                .findFirst()
                .orElse("");
        if (line.isEmpty()) {
            return "unknown error";
        }
        return line.length() <= MAX_ERROR_CHARS ? line : TextCut.prefix(line, MAX_ERROR_CHARS) + "...";
    }

    static String orphanNote(String toolName, String callId) {
        String tool = toolName == null ? "a tool" : "tool " + toolName;
        return "[output of " + tool + (callId == null ? "" : ", call " + callId) + "]\n";
    }

    /** Index of the first working-memory message; everything before it is the archive. */
    private int workingMemoryStart(List<ChatMessage> history, boolean[] orphan) {
        int start = history.size();
        long kept = 0;
        while (start > 0 && kept < 2L * window) {
            start--;
            if (history.get(start).getRole() != ChatRole.SYSTEM) {
                kept++;
            }
        }
        // A paired result follows its call through TOOL messages only, so walking back over them reaches the call.
        while (start > 0 && start < history.size()
                && history.get(start).getRole() == ChatRole.TOOL && !orphan[start]) {
            start--;
        }
        return start;
    }

    private ChatMessage rewrite(ChatMessage message, boolean archived, boolean orphan, Set<String> unanswered) {
        String content = message.getContent();
        if (archived && message.getRole() == ChatRole.TOOL) {
            content = truncate(content);
        }
        if (orphan) {
            content = orphanNote(message.getName(), message.getToolCallId()) + content;
        }
        boolean changed = !content.equals(message.getContent());
        if (!changed && !orphan && unanswered.isEmpty()) {
            return message;
        }
        ChatMessage.Builder copy = ChatMessage.newBuilder(message).setContent(content);
        if (orphan) {
            copy.setRole(ChatRole.USER);
        }
        if (!unanswered.isEmpty()) {
            if (unanswered.contains(message.getToolCallId())) {
                copy.setToolCallId(null);
            }
            copy.setToolCalls(message.getToolCalls().stream()
                    .filter(call -> !unanswered.contains(call.getId())).toList());
        }
        ChatMessage rewritten = copy.build();
        if (changed || !unanswered.isEmpty()) {
            return ChatMessage.newBuilder(rewritten).setTokenCount(count(rewritten)).build();
        }
        return rewritten;
    }

    private String truncate(String content) {
        if (content.length() <= maxToolOutputChars) {
            return content;
        }
        String preview = TextCut.prefix(content, maxToolOutputChars);
        String cut = preview + "\n[... " + (content.length() - preview.length()) + " chars hidden]";
        return cut.length() < content.length() ? cut : content;
    }

    private Integer count(ChatMessage message) {
        return counter == null ? null : PromptRenderer.tokens(message, counter);
    }
}
