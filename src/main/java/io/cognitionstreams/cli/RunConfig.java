package io.cognitionstreams.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * `run`'s settings from the environment and a file, under its flags: for each flag not given on the command line,
 * {@code COGNITION_<NAME>} (the flag's name in capitals, dashes as underscores: {@code --metrics-port} is
 * {@code COGNITION_METRICS_PORT}), else the key {@code <name>} of the {@code --config} file (a properties file,
 * {@code metrics-port = 9464}), else the flag's default. {@code --print-config} shows what each setting is and where it
 * came from, in the file's format, so its output is a config file.
 */
final class RunConfig implements CommandLine.IDefaultValueProvider {

    static final String ENV_PREFIX = "COGNITION_";
    static final String CONFIG = "config";
    /** A flag with such a name holds a secret: its value is never printed. */
    private static final Pattern SECRET = Pattern.compile(".*(password|secret|token|api-key)$");

    private final Map<String, String> env;
    private final Optional<Path> file;
    private final Map<String, String> fileValues;

    private RunConfig(Map<String, String> env, Optional<Path> file, Map<String, String> fileValues) {
        this.env = Map.copyOf(env);
        this.file = file;
        this.fileValues = fileValues;
    }

    /**
     * The settings for `run` {@code args}: the file of their {@code --config}, else of {@code COGNITION_CONFIG}.
     *
     * @throws IllegalArgumentException when the file cannot be read
     */
    static RunConfig of(String[] args, Map<String, String> env) {
        Optional<Path> file = Optional.ofNullable(env.get(variable(CONFIG))).filter(name -> !name.isBlank())
                .map(Path::of);
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--" + CONFIG) && i + 1 < args.length) {
                file = Optional.of(Path.of(args[i + 1]));
            } else if (args[i].startsWith("--" + CONFIG + "=")) {
                file = Optional.of(Path.of(args[i].substring(CONFIG.length() + 3)));
            }
        }
        return new RunConfig(env, file, file.isPresent() ? read(file.get()) : Map.of());
    }

    private static Map<String, String> read(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot read the config file " + file + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot read the config file " + file + ": " + e.getMessage());
        }
        Map<String, String> values = new LinkedHashMap<>();
        properties.stringPropertyNames().forEach(key -> values.put(key.strip(), properties.getProperty(key).strip()));
        return values;
    }

    /** The environment variable of flag {@code name} (without its dashes). */
    static String variable(String name) {
        return ENV_PREFIX + name.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The flag's name without its dashes, or null for a positional parameter or a flag of one letter. */
    private static String name(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || !option.longestName().startsWith("--")) {
            return null;
        }
        return option.longestName().substring(2);
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        String name = name(arg);
        if (name == null || name.equals(CONFIG) || name.equals("print-config") || name.equals("help")
                || name.equals("version")) {
            return null;
        }
        String fromEnv = env.get(variable(name));
        if (fromEnv != null) {
            return fromEnv;
        }
        return fileValues.get(name);
    }

    /** The file's keys that name no flag of {@code command}: typos, refused before anything starts. */
    Set<String> unknownKeys(CommandSpec command) {
        Set<String> known = new TreeSet<>();
        command.options().forEach(option -> Optional.ofNullable(name(option)).ifPresent(known::add));
        Set<String> unknown = new TreeSet<>(fileValues.keySet());
        unknown.removeAll(known);
        unknown.removeAll(Set.of(CONFIG, "print-config", "help", "version"));
        return unknown;
    }

    Optional<Path> file() {
        return file;
    }

    /** Every setting of {@code command} as parsed, grouped by the room whose options it is, with where it came from. */
    void print(CommandSpec command, PrintWriter out) {
        CommandLine.ParseResult parsed = command.commandLine().getParseResult();
        out.printf("# cognition run: effective settings (flag > environment %s* > %s > default)%n", ENV_PREFIX,
                file.map(path -> "config file " + path).orElse("config file (none)"));
        Map<String, List<OptionSpec>> rooms = new LinkedHashMap<>();
        command.mixins().forEach((mixin, spec) -> rooms.put(room(spec), new ArrayList<>(spec.options())));
        List<OptionSpec> own = new ArrayList<>(command.options());
        rooms.values().forEach(own::removeAll);
        rooms.put("run", own);
        rooms.forEach((room, options) -> {
            List<String> lines = new ArrayList<>();
            for (OptionSpec option : options) {
                String name = name(option);
                if (name == null || Set.of(CONFIG, "print-config", "help", "version").contains(name)) {
                    continue;
                }
                lines.add(line(option, name, parsed));
            }
            if (!lines.isEmpty()) {
                out.printf("%n# --- %s%n", room);
                lines.forEach(out::println);
            }
        });
        out.flush();
    }

    private String line(OptionSpec option, String name, CommandLine.ParseResult parsed) {
        String source;
        String value;
        if (parsed != null && parsed.hasMatchedOption(option)) {
            source = "flag";
            value = String.join(",", option.originalStringValues());
            if (option.arity().max() == 0 && value.isEmpty()) {
                value = String.valueOf((Object) option.getValue());
            }
        } else if (env.containsKey(variable(name))) {
            source = "environment " + variable(name);
            value = env.get(variable(name));
        } else if (fileValues.containsKey(name)) {
            source = "config file";
            value = fileValues.get(name);
        } else {
            source = "default";
            value = option.defaultValue() != null || !((Object) option.getValue() instanceof Boolean) ? option.defaultValue()
                    : String.valueOf((Object) option.getValue());
        }
        if (value != null && SECRET.matcher(name).matches()) {
            value = "********";
        } else if (value != null && name.endsWith("-env")) {
            // Names a variable holding a secret: say whether it is set, never what it holds.
            source += System.getenv(value) != null ? "; $" + value + " is set" : "; $" + value + " is not set";
        }
        // Properties take no comment after a value: where a setting came from goes on the line above it.
        String from = source.equals("default") ? "" : "# from " + source + System.lineSeparator();
        return value == null ? String.format("# %s =", name)
                : from + name + " = " + value.replace("\\", "\\\\");
    }

    private static String room(CommandSpec mixin) {
        String type = mixin.userObject().getClass().getSimpleName();
        return type.endsWith("Options") ? type.substring(0, type.length() - "Options".length())
                .toLowerCase(Locale.ROOT) : type;
    }
}
