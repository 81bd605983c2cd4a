package io.cognitionstreams.cli;

import java.nio.file.Path;
import java.time.Instant;
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
import picocli.CommandLine.Spec;

@Command(name = "skills", mixinStandardHelpOptions = true,
        description = {"Loads a directory of skills (<name>/SKILL.md) into the compacted cognition.skills topic.",
                "Running instances pick up a changed skill with their next packet and tool call, no restart."})
final class SkillsCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", defaultValue = "skills", description = "Skills directory (default: ${DEFAULT-VALUE}).")
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
