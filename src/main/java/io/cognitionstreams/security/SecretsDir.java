package io.cognitionstreams.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.broker.SaslUsers;

/**
 * The secure deployment's passwords, one file per principal ({@code <name>.password}), generated once and kept, so
 * they never pass through a command line; and one client properties file per principal ({@code
 * <name>.properties}), rewritten at each start with the broker's address, to give any command as {@code
 * --command-config} to act as that principal. Files are readable by their owner only, the directory too.
 */
public final class SecretsDir {

    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    /** 32 characters of 62: about 190 bits. Letters and digits only: they go into JAAS lines unescaped. */
    private static final int PASSWORD_LENGTH = 32;

    private final Path dir;
    private final Map<String, String> passwords;

    private SecretsDir(Path dir, Map<String, String> passwords) {
        this.dir = dir;
        this.passwords = passwords;
    }

    /** Reads each principal's password, generating the missing ones. */
    public static SecretsDir loadOrCreate(Path dir, Principals principals, SecureRandom random) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                ownerOnly(dir, "rwx------");
            }
            Map<String, String> passwords = new LinkedHashMap<>();
            for (String name : principals.names()) {
                passwords.put(name, password(dir.resolve(name + ".password"), random));
            }
            return new SecretsDir(dir, passwords);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the secrets in " + dir + ": " + e.getMessage(), e);
        }
    }

    public Map<String, String> passwords() {
        return passwords;
    }

    public String password(String principal) {
        String password = passwords.get(principal);
        if (password == null) {
            throw new IllegalArgumentException("no principal '" + principal + "' in " + dir);
        }
        return password;
    }

    /** The users a secured broker starts with: its own ({@code admin}) and every principal's. */
    public SaslUsers saslUsers() {
        return new SaslUsers(Principals.ADMIN, password(Principals.ADMIN), passwords);
    }

    /** Each principal's client settings to reach {@code bootstrapServers}, without the address. */
    public Map<String, Object> clientSettings(String principal) {
        return EmbeddedKafkaBroker.scramClientSettings(principal, password(principal));
    }

    /** The file {@link #writeClientFiles} writes for the principal. */
    public Path clientFile(String principal) {
        return dir.resolve(principal + ".properties");
    }

    /** Writes (or rewrites) every principal's client properties file, with the cluster's address. */
    public void writeClientFiles(String bootstrapServers) {
        for (String principal : passwords.keySet()) {
            Properties properties = new Properties();
            properties.put("bootstrap.servers", bootstrapServers);
            clientSettings(principal).forEach((key, value) -> properties.put(key, value.toString()));
            Path file = clientFile(principal);
            try {
                createOwnerOnly(file);
                try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                    properties.store(writer, "Acts as User:" + principal + "; use as --command-config. Secret: "
                            + "keep it readable by its owner only");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }
    }

    private static String password(Path file, SecureRandom random) throws IOException {
        if (Files.exists(file)) {
            String password = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (!password.chars().allMatch(c -> ALPHABET.indexOf(c) >= 0) || password.length() < 16) {
                throw new IllegalArgumentException(file + " must hold one password of at least 16 letters and "
                        + "digits (it goes into a JAAS line unescaped)");
            }
            return password;
        }
        StringBuilder password = new StringBuilder(PASSWORD_LENGTH);
        for (int i = 0; i < PASSWORD_LENGTH; i++) {
            password.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        createOwnerOnly(file);
        Files.writeString(file, password + System.lineSeparator(), StandardCharsets.UTF_8);
        return password.toString();
    }

    /** Created with owner-only permissions before anything secret is written to it. */
    private static void createOwnerOnly(Path file) throws IOException {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            ownerOnly(file, "rw-------");
        } catch (UnsupportedOperationException e) {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        }
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system (Windows): its ACLs are the user's to set.
        }
    }
}
