package io.cognitionstreams.assembly;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolSpec;
import io.cognitionstreams.skills.PermissionSet;

/**
 * The tools executors offer, by name, each rendered once for the model: its tools-index line ({@link ToolLines})
 * and its native spec ({@link ToolSpecs}). Built when cognition.tools changes, not per request: rendering parses
 * each tool's JSON schema.
 */
public final class RenderedTools {

    public static final RenderedTools EMPTY = new RenderedTools(List.of());

    /** One tool and how the model is shown it. */
    record Entry(ToolDescriptor tool, String line, ToolSpec spec) {
    }

    private final List<Entry> byName;

    private RenderedTools(List<Entry> byName) {
        this.byName = byName;
    }

    public static RenderedTools of(Collection<ToolDescriptor> tools) {
        List<Entry> entries = new ArrayList<>();
        for (ToolDescriptor tool : tools) {
            entries.add(new Entry(tool, ToolLines.line(tool), ToolSpecs.spec(tool)));
        }
        entries.sort(Comparator.comparing(entry -> entry.tool().getName()));
        return new RenderedTools(List.copyOf(entries));
    }

    /** The tools the active skill's permissions allow, by name: a model is shown no other. */
    List<Entry> permitted(Optional<Skill> skill) {
        if (skill.isEmpty() || byName.isEmpty()) {
            return List.of();
        }
        PermissionSet permissions;
        try {
            permissions = PermissionSet.compile(skill.get().getPermissions());
        } catch (IllegalArgumentException e) {
            return List.of(); // the gatekeeper denies every call of a skill whose permissions do not parse
        }
        return byName.stream().filter(entry -> permissions.allows(entry.tool().getName())).toList();
    }
}
