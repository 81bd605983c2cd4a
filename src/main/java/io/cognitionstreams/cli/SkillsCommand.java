package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.cognitionstreams.app.Publisher;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.skills.SkillFiles;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "skills",
        description = {"Loads skills into, or deletes them from, the compacted cognition.skills topic.",
                "Running instances see the change with their next packet and tool call, no restart."},
        subcommands = {SkillsCommand.Load.class, SkillsCommand.Delete.class})
final class SkillsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "say what to do: load or delete");
    }

    @Command(name = "load",
            description = "Loads a directory of skills (<name>/SKILL.md), replacing skills of the same name.")
    static final class Load implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--dir", defaultValue = "skills",
                description = "Skills directory (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Override
        public Integer call() throws Exception {
            Topics topics = cluster.topics();
            Map<String, Skill> skills = SkillFiles.load(dir, Instant.now());
            Publisher.publish(cluster.clientConfig(), topics.skills, skills);
            for (Skill skill : skills.values()) {
                spec.commandLine().getOut().printf("%-16s %-8s %s%n", skill.getName(), skill.getVersion(),
                        skill.getPermissions());
            }
            spec.commandLine().getErr().printf("loaded %d skills from %s into %s%n", skills.size(), dir,
                    Topics.COGNITION_SKILLS);
            return 0;
        }
    }

    @Command(name = "delete",
            description = {"Deletes skills: writes each name's tombstone to cognition.skills.",
                    "The gatekeeper then denies calls under the skill as unknown, and the assembly dead-letters "
                            + "requests naming it. `run` loads its --skills-dir again when it starts, so delete "
                            + "a shipped skill's directory too, or it comes back."})
    static final class Delete implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Parameters(arity = "1..*", paramLabel = "NAME", description = "Skill to delete.")
        List<String> names;

        @Override
        public Integer call() throws Exception {
            Topics topics = cluster.topics();
            return Tombstones.write(cluster, topics, topics.skills, names, spec.commandLine().getErr());
        }
    }
}
