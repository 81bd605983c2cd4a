package io.cognitionstreams.serde;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.avro.Schema;

/**
 * Every schema a released version of the app wrote with, self-contained, shipped in the jar under
 * {@value #DIRECTORY} (written by {@code SchemaHistoryWriter} from the git history of {@code schemas/}). Without
 * them an upgraded app could not read what the previous version left on its topics: compacted ones (skills,
 * identity, memory, checkpoints, the tool ledger) hold such records for good, and each would become a dead letter
 * or, in a global store, be skipped. With them the decoder resolves an old record into today's shape, Avro's
 * schema resolution filling new fields with their defaults.
 */
public final class SchemaHistory {

    static final String DIRECTORY = "schema-history";
    static final String INDEX = DIRECTORY + "/index.txt";

    private SchemaHistory() {
    }

    /** The past schemas, parsed once per JVM: the serde factories of one process share them. */
    public static List<Schema> schemas() {
        return Loaded.SCHEMAS;
    }

    private static final class Loaded {
        static final List<Schema> SCHEMAS = load();

        private static List<Schema> load() {
            List<Schema> schemas = new ArrayList<>();
            for (String file : read(INDEX).split("\n")) {
                if (!file.isBlank()) {
                    // One parser per file: each is self-contained, and versions of one type share its name.
                    schemas.add(new Schema.Parser().parse(read(DIRECTORY + "/" + file.strip())));
                }
            }
            return List.copyOf(schemas);
        }

        private static String read(String resource) {
            try (InputStream in = SchemaHistory.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException(resource + " is missing from the class path: the build "
                            + "packages src/main/resources/" + resource);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
