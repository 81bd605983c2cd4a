#!/usr/bin/env bash
# Entry point of the secure profile's Kafka: SASL/SCRAM-SHA-512 on the client listeners, PLAIN for the broker's
# own user on the controller listener (SCRAM credentials live in the metadata the controller serves), Kafka's
# StandardAuthorizer with no ACL meaning no access, and the broker's own user as the only super user.
set -euo pipefail
principals=(admin app governance operator council-prime council-lite council-codemind agent-tenant-a agent-tenant-b)
var() { local name=${1^^}; echo "COGNITION_PASSWORD_${name//-/_}"; }
scram=()
for principal in "${principals[@]}"; do
  name=$(var "$principal")
  password=${!name-}
  if [[ ! $password =~ ^[A-Za-z0-9]{16,}$ ]]; then
    echo "$(var "$principal") is empty or not 16+ letters and digits: run deploy/secure/make-credentials and set" \
      "COGNITION_CREDENTIALS_DIR (see docs/security.md)" >&2
    exit 1
  fi
  scram+=(--add-scram "SCRAM-SHA-512=[name=$principal,password=$password]")
done
admin=$COGNITION_PASSWORD_ADMIN
config=/tmp/server.properties
umask 077
cat >"$config" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@kafka-secure:9093
listeners=INTERNAL://:9092,HOST://:29094,CONTROLLER://:9093
advertised.listeners=INTERNAL://kafka-secure:9092,HOST://localhost:9094
controller.listener.names=CONTROLLER
inter.broker.listener.name=INTERNAL
listener.security.protocol.map=INTERNAL:SASL_PLAINTEXT,HOST:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.internal.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin";
listener.name.controller.sasl.enabled.mechanisms=PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin" user_admin="$admin";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin
log.dirs=/var/lib/kafka/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
# The healthcheck's login.
cat >/tmp/admin.properties <<PROPERTIES
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin";
PROPERTIES
# SCRAM users are created when the storage is first formatted; later passwords need kafka-configs --alter.
/opt/kafka/bin/kafka-storage.sh format --cluster-id "$CLUSTER_ID" -c "$config" --ignore-formatted "${scram[@]}"
exec /opt/kafka/bin/kafka-server-start.sh "$config"
