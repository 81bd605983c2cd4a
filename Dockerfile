# Build stage: the same JDK line the project targets (release 17), so the jar matches what
# `mvn -B -DskipTests package` produces on a developer machine.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build

# The POM alone first: dependencies then sit in their own layer, and editing a source file
# does not download them all again. Failures here only cost that cache, so they are ignored;
# the package step below resolves whatever is still missing and fails loudly if it can't.
COPY pom.xml .
RUN mvn -B -q dependency:go-offline || true

COPY schemas ./schemas
COPY src ./src
# Tests need a broker and run in CI, not in every image build.
RUN mvn -B -DskipTests package

# Runtime stage: a JRE is enough to run the shaded jar, and leaves Maven and the JDK behind.
FROM eclipse-temurin:17-jre

# A fixed, unprivileged uid: the process never needs root, and a fixed id keeps the ownership
# of files in mounted volumes predictable. It gets a home of its own because libraries cache
# files under ~; the jar in /app stays root-owned, so the process cannot rewrite itself.
RUN groupadd --system --gid 10001 cognition \
 && useradd --system --uid 10001 --gid cognition --create-home --home-dir /home/cognition cognition \
 && mkdir -p /app /var/lib/cognition \
 && chown cognition:cognition /var/lib/cognition

# Docker copies this directory's ownership into an empty named volume mounted over it, which
# is what lets the non-root user write its state stores there.
VOLUME ["/var/lib/cognition"]

COPY --from=build /build/target/cognition-streams.jar /app/cognition-streams.jar
# `run` loads ./skills (here /app/skills) into the skills topic at start.
COPY skills /app/skills

USER cognition
WORKDIR /app
# An OutOfMemoryError anywhere ends the JVM (exit code 3) so the container's restart policy starts it again, rather
# than leaving it up answering nothing (docs/operations.md). More JVM options: JAVA_TOOL_OPTIONS.
ENTRYPOINT ["java", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/cognition-streams.jar"]
