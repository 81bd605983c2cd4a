package io.cognitionstreams.cli;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A temporary directory of this process's own, and the removal of those of processes that have ended. RocksDB and
 * ONNX Runtime unpack their native libraries into the temporary directory at every start and delete them only at a
 * normal exit, so each kill and each out-of-memory exit (which runs no shutdown hooks) left 15 MB in /tmp, and a
 * supervisor restarting a failing instance filled the disk with them.
 *
 * <p>Each process's directory lies under {@code <java.io.tmpdir>/cognition-streams-<user>/} and holds a file the
 * process keeps locked while it lives. The operating system releases the lock however the process ends, so a
 * directory whose lock is free is a dead process's: a start removes those, whatever their pid and in whatever
 * container they ran. The lock file takes its name only once locked; a directory without it is another process's,
 * just made, unless it is older than a minute.
 */
final class ScratchDirectory {

    static final String LOCK_FILE = ".lock";
    /** A process makes its directory and then its lock file; one without the file this long never made it. */
    private static final Duration UNLOCKED_GRACE = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(ScratchDirectory.class);

    /** The lock lasts while its channel is open, so it is kept reachable for the life of the process. */
    private static FileLock held;

    /** A process's directory, and its lock on it, which lasts while the lock is reachable. */
    record Claimed(Path directory, FileLock lock) {
    }

    private ScratchDirectory() {
    }

    /**
     * Points {@code java.io.tmpdir} at a directory of this process's own, after removing those of ended processes.
     * Must run before anything creates a temporary file, as the JDK reads the property once. Leaves the property as
     * it is, with a warning, when the directory cannot be had: temporary files then pile up as before.
     */
    static void claim() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try {
            Claimed own = claim(tmp, System.getProperty("user.name"));
            held = own.lock();
            System.setProperty("java.io.tmpdir", own.directory().toString());
        } catch (IOException | RuntimeException e) {
            LOG.warn("temporary files stay in {}: no directory of this process's own could be made there ({}); "
                    + "native libraries a killed process unpacked there are not removed", tmp, e.toString());
        }
    }

    /** Makes and locks a directory under {@code tmp} for this process, removing ended processes' first. */
    static Claimed claim(Path tmp, String user) throws IOException {
        Path base = tmp.resolve("cognition-streams-" + user.replaceAll("[^A-Za-z0-9._-]", "_"));
        try {
            Files.createDirectory(base, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
        } catch (FileAlreadyExistsException e) {
            // Made before, or by a process starting at the same moment; a link or a file in its place is refused.
            if (!Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(base + " is not a directory", e);
            }
        }
        requireOwn(base, user);
        removeEnded(base);
        Path own = Files.createTempDirectory(base, ProcessHandle.current().pid() + "-");
        // Locked before it takes its name: a lock file another start finds is held from the first, or its own is gone.
        Path pending = own.resolve(LOCK_FILE + ".new");
        FileChannel channel = FileChannel.open(pending, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.lock();
            Files.move(pending, own.resolve(LOCK_FILE), StandardCopyOption.ATOMIC_MOVE);
            return new Claimed(own, lock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * In a shared /tmp anyone may make the directory first; removing what lies under someone else's, or under a link
     * they point somewhere, would remove their files with this process's rights. By uid where /proc tells this
     * process's (a container's user may have no name), else by name.
     */
    private static void requireOwn(Path base, String user) throws IOException {
        Path self = Path.of("/proc/self");
        boolean byUid = Files.isDirectory(self);
        Object owner = byUid ? Files.getAttribute(base, "unix:uid", LinkOption.NOFOLLOW_LINKS)
                : Files.getOwner(base, LinkOption.NOFOLLOW_LINKS).getName();
        Object me = byUid ? Files.getAttribute(self, "unix:uid") : user;
        if (!owner.equals(me)) {
            throw new IOException(base + " belongs to " + owner + ", not to this process's user " + me);
        }
    }

    /** Removes the directories under {@code base} of processes that have ended. */
    static void removeEnded(Path base) throws IOException {
        try (DirectoryStream<Path> directories = Files.newDirectoryStream(base)) {
            for (Path directory : directories) {
                if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS) && ended(directory)) {
                    remove(directory);
                }
            }
        }
    }

    /** Whether {@code directory}'s process has ended; one that cannot be told is taken to run. */
    private static boolean ended(Path directory) {
        try {
            return lockFree(directory);
        } catch (IOException e) {
            LOG.debug("cannot tell whether the process of {} has ended: {}", directory, e.toString());
            return false;
        }
    }

    private static boolean lockFree(Path directory) throws IOException {
        Path lock = directory.resolve(LOCK_FILE);
        if (!Files.exists(lock, LinkOption.NOFOLLOW_LINKS)) {
            Instant made = Files.getLastModifiedTime(directory, LinkOption.NOFOLLOW_LINKS).toInstant();
            return made.isBefore(Instant.now().minus(UNLOCKED_GRACE));
        }
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock free = channel.tryLock();
            if (free == null) {
                return false;
            }
            free.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // this JVM's own
        }
    }

    /** Removes {@code directory} and what it holds, links as links; what another start removed first is no error. */
    private static void remove(Path directory) {
        try {
            Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path visited, IOException e) throws IOException {
                    Files.deleteIfExists(visited);
                    return FileVisitResult.CONTINUE;
                }
            });
            LOG.debug("removed {}, a temporary directory of a process that has ended", directory);
        } catch (IOException e) {
            LOG.warn("cannot remove {}, a temporary directory of a process that has ended: {}", directory,
                    e.toString());
        }
    }
}
