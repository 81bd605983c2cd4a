package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.cognitionstreams.assembly.compression.CompressionResult;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.tokens.TokenCounter;

/** The built-in context layers of seed 002, below persona (0): skill protocol, tools index, episodic memory. */
public final class ContextLayers {

    public static final int PERSONA_PRIORITY = 0;
    public static final int IDENTITY_PRIORITY = 5;
    public static final int SKILL_PRIORITY = 10;
    public static final int TOOLS_PRIORITY = 20;
    public static final int MEMORY_PRIORITY = 40;
    public static final int MEMORY_TOP_K = 3;

    private ContextLayers() {
    }

    /** The layers of a model that calls tools with EXECUTE lines. */
    public static List<ContextProvider> defaults(FieldCompressor compressor) {
        return defaults(compressor, ToolCalling.TEXT);
    }

    /** @param calling how the model calls tools: what the tools index tells it */
    public static List<ContextProvider> defaults(FieldCompressor compressor, ToolCalling calling) {
        List<ContextProvider> providers = new ArrayList<>(List.of(
                new ActiveSkill(compressor), new ToolsIndex(calling), new EpisodicMemory()));
        providers.sort(Comparator.comparingInt(ContextProvider::priority));
        return List.copyOf(providers);
    }

    /** The active skill's SKILL.md body and required refs; compressed, never cut, when over budget. */
    static final class ActiveSkill implements ContextProvider {
        private final FieldCompressor compressor;

        ActiveSkill(FieldCompressor compressor) {
            this.compressor = compressor;
        }

        @Override
        public String name() {
            return "active_skill";
        }

        @Override
        public int priority() {
            return SKILL_PRIORITY;
        }

        @Override
        public int percentOfRemaining() {
            return 30;
        }

        @Override
        public Layer provide(AssemblyInput input, int budget, TokenCounter counter) {
            if (input.skill().isEmpty()) {
                return Layer.empty(name(), priority());
            }
            Skill skill = input.skill().get();
            String wrapped = wrap(protocol(skill));
            int tokens = counter.count(wrapped);
            if (tokens <= budget) {
                return new Layer(name(), priority(), wrapped, tokens, tokens, Layer.Status.KEPT, "");
            }
            // A model without its rules is what this project exists to prevent: summarize, or fail the packet.
            int frame = counter.count(wrap(""));
            CompressionResult outcome = compressor.compress(name(), protocol(skill), budget - frame, counter);
            if (outcome instanceof CompressionResult.Compressed c) {
                String text = wrap(c.text());
                return new Layer(name(), priority(), text, counter.count(text), tokens, Layer.Status.COMPRESSED,
                        c.method());
            }
            throw new TokenBudgetException(name(), tokens, budget,
                    FieldCompressor.reason((CompressionResult.TokenBudgetError) outcome));
        }

        /** The protocol as the model and the gatekeeper's denials show it: templated body, then its refs. */
        public static String protocol(Skill skill) {
            StringBuilder text = new StringBuilder("# Active Protocol: ").append(skill.getName())
                    .append(" v").append(skill.getVersion()).append('\n')
                    .append(SkillTemplates.render(skill.getProtocol().strip(), skill));
            for (Map.Entry<String, String> ref : new TreeMap<>(skill.getRefs()).entrySet()) {
                text.append("\n\n## ").append(ref.getKey()).append('\n')
                        .append(SkillTemplates.render(ref.getValue().strip(), skill));
            }
            return text.toString();
        }

        private static String wrap(String body) {
            return "<active_protocol>\n" + body + "\n</active_protocol>";
        }
    }

    /**
     * One line per known skill, by name, then how to call tools and, for a model that calls them with EXECUTE lines,
     * one line per tool an executor offers that the active skill may call, with its arguments (a model is only shown
     * tools its skill's permissions allow: any other call would be denied). A model that calls tools natively gets
     * them as the packet's tool specs instead. Cut to whole lines when over budget.
     */
    static final class ToolsIndex implements ContextProvider {
        private final ToolCalling calling;

        ToolsIndex(ToolCalling calling) {
            this.calling = calling;
        }

        @Override
        public String name() {
            return "tools";
        }

        @Override
        public int priority() {
            return TOOLS_PRIORITY;
        }

        @Override
        public int percentOfRemaining() {
            return 5;
        }

        @Override
        public Layer provide(AssemblyInput input, int budget, TokenCounter counter) {
            List<String> lines = new ArrayList<>();
            for (Skill skill : input.skills().get()) {
                lines.add("- " + skill.getName() + ": " + skill.getDescription().strip());
            }
            lines.sort(null);
            if (calling == ToolCalling.NATIVE) {
                if (!input.tools().get().permitted(input.skill()).isEmpty()) {
                    lines.add(ToolLines.HOW_TO_CALL_NATIVE);
                }
            } else {
                List<String> tools = ToolLines.callable(input.skill(), input.tools().get());
                if (!tools.isEmpty()) {
                    lines.add(ToolLines.HOW_TO_CALL);
                    lines.addAll(tools);
                }
            }
            if (lines.isEmpty()) {
                return Layer.empty(name(), priority());
            }
            return wholeEntries(name(), priority(), "<available_tools>", "</available_tools>", lines, budget,
                    counter);
        }
    }

    /** The most similar past experiences; as many whole entries as fit. */
    static final class EpisodicMemory implements ContextProvider {
        @Override
        public String name() {
            return "rag";
        }

        @Override
        public int priority() {
            return MEMORY_PRIORITY;
        }

        @Override
        public int percentOfRemaining() {
            return 5;
        }

        @Override
        public Layer provide(AssemblyInput input, int budget, TokenCounter counter) {
            List<String> entries = input.memory().similar(input.request().getUserPrompt(), MEMORY_TOP_K).stream()
                    .map(entry -> "- " + entry.strip().replace('\n', ' ')).toList();
            if (entries.isEmpty()) {
                return Layer.empty(name(), priority());
            }
            return wholeEntries(name(), priority(), "[RAG Knowledge]", "", entries, budget, counter);
        }
    }

    private static Layer wholeEntries(String name, int priority, String open, String close, List<String> entries,
                                      int budget, TokenCounter counter) {
        String all = open + "\n" + String.join("\n", entries) + (close.isEmpty() ? "" : "\n" + close);
        int whole = counter.count(all);
        if (whole <= budget) {
            // The usual case, counted once: the search below counts every prefix, quadratic in the entries.
            return new Layer(name, priority, all, whole, whole, Layer.Status.KEPT, "");
        }
        StringBuilder text = new StringBuilder(open);
        int kept = 0;
        for (String entry : entries) {
            String candidate = text + "\n" + entry;
            if (counter.count(candidate + (close.isEmpty() ? "" : "\n" + close)) > budget) {
                break;
            }
            text.append('\n').append(entry);
            kept++;
        }
        if (kept == 0) {
            return new Layer(name, priority, "", 0, whole, Layer.Status.SKIPPED,
                    "budget " + budget + " tokens, not even one of " + entries.size() + " entries fits");
        }
        if (!close.isEmpty()) {
            text.append('\n').append(close);
        }
        String rendered = text.toString();
        Layer.Status status = kept == entries.size() ? Layer.Status.KEPT : Layer.Status.CUT;
        return new Layer(name, priority, rendered, counter.count(rendered), whole, status,
                status == Layer.Status.CUT ? kept + " of " + entries.size() + " entries" : "");
    }
}
