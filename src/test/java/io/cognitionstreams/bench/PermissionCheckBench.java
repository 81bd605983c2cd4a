package io.cognitionstreams.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.cognitionstreams.gatekeeper.Decision;
import io.cognitionstreams.gatekeeper.Gatekeeper;
import io.cognitionstreams.gatekeeper.SkillRegistry;
import io.cognitionstreams.skills.PermissionSet;
import io.cognitionstreams.skills.SkillDefinition;

/**
 * Permission checks per second on one thread: {@link PermissionSet#allows} with precompiled sets, over a seeded mix
 * of skills and tool names: allowed and denied, both delimiters, service wildcards, exact and dotted methods, and
 * names that are no tool name. {@code decide} is the whole {@link Gatekeeper} decision on the same mix, reason text
 * included. One op is one check; the allowed share is printed in setup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class PermissionCheckBench {

    /** A power of two, so the next index is a mask, not a division. */
    private static final int MIX = 4096;

    private static final Map<String, List<String>> SKILLS = Map.of(
            "git", List.of("git:*", "filesystem:read"),
            "writer", List.of("filesystem:read", "filesystem:write"),
            "researcher", List.of("web.search", "web.fetch", "filesystem.read", "memory:*"),
            "shell-operator", List.of("shell:run", "shell.status", "filesystem:*", "git.status", "git.diff"),
            "admin", List.of("*"));

    private static final String[] TOOLS = {
            "git.status", "git:commit", "git.remote.add", "git:remote.add", "git.push",
            "filesystem.read", "filesystem:read", "filesystem.write", "filesystem:delete", "filesystem.read.all",
            "web.search", "web:search", "web.fetch", "web.search.deep", "memory.store", "memory:recall",
            "shell.run", "shell:run", "shell.status", "shell.kill",
            "Git.status", "gitx.status", "filesystemX.read", "filesystem", "git.remote:add", "git..status", ""};

    private final PermissionSet[] sets = new PermissionSet[MIX];
    private final String[] tools = new String[MIX];
    private final Gatekeeper.Call[] calls = new Gatekeeper.Call[MIX];
    private Gatekeeper gatekeeper;
    private int next;

    @Setup
    public void setUp() {
        Map<String, SkillDefinition> skills = new HashMap<>();
        SKILLS.forEach((name, permissions) -> skills.put(name, new SkillDefinition(name, "1.0.0", "",
                PermissionSet.compile(permissions), List.of(), "# " + name + " protocol")));
        gatekeeper = new Gatekeeper(SkillRegistry.of(skills), Optional.empty());
        List<String> names = skills.keySet().stream().sorted().toList();
        Random random = new Random(42);
        int allowed = 0;
        for (int i = 0; i < MIX; i++) {
            String skill = names.get(random.nextInt(names.size()));
            sets[i] = skills.get(skill).permissions();
            tools[i] = TOOLS[random.nextInt(TOOLS.length)];
            calls[i] = new Gatekeeper.Call("s1", skill, skill, tools[i]);
            allowed += sets[i].allows(tools[i]) ? 1 : 0;
        }
        System.out.printf("%n%d checks in the mix, %d%% allowed%n", MIX, allowed * 100 / MIX);
    }

    @Benchmark
    public boolean allows() {
        int i = next++ & (MIX - 1);
        return sets[i].allows(tools[i]);
    }

    @Benchmark
    public Decision decide() {
        return gatekeeper.decide(calls[next++ & (MIX - 1)]);
    }
}
