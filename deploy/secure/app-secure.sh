#!/bin/sh
# Entry point of the secure profile's app and acl-setup: writes the client files of the principals whose
# passwords this container was given, then runs `cognition` with the arguments of its compose command.
set -eu
umask 077
dir=/tmp/principals
mkdir -p "$dir"
write() { # principal password
  cat >"$dir/$1.properties" <<PROPERTIES
bootstrap.servers=kafka-secure:9092
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$1" password="$2";
PROPERTIES
}
[ -n "${COGNITION_PASSWORD_ADMIN:-}" ] && write admin "$COGNITION_PASSWORD_ADMIN"
[ -n "${COGNITION_PASSWORD_APP:-}" ] && write app "$COGNITION_PASSWORD_APP"
[ -n "${COGNITION_PASSWORD_GOVERNANCE:-}" ] && write governance "$COGNITION_PASSWORD_GOVERNANCE"
# As the image's entrypoint: an OutOfMemoryError ends the JVM (exit 3) for the restart policy.
exec java -XX:+ExitOnOutOfMemoryError -jar /app/cognition-streams.jar "$@"
