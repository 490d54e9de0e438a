#!/bin/sh
# Creates contrack's Kafka topics with the settings docs/operations.md gives
# (partitions, replication, cleanup policy, retention), before any stage
# starts; topics that exist are left alone. Run by the kafka-topics job of
# docker-compose.yml; against another cluster:
#   KAFKA_BOOTSTRAP=broker:9092 KAFKA_BIN=/opt/kafka/bin deploy/kafka-topics.sh
# A stage that finds a topic missing creates it with CONTRACK_KAFKA_PARTITIONS
# and the broker's defaults, so run this first.
set -eu

bootstrap=${KAFKA_BOOTSTRAP:-kafka-1:9092}
bin=${KAFKA_BIN:-/opt/kafka/bin}
replication=${KAFKA_REPLICATION:-3}
min_isr=${KAFKA_MIN_ISR:-2}

# create TOPIC PARTITIONS CLEANUP_POLICY RETENTION_MS (-1: kept for ever)
create() {
	"$bin/kafka-topics.sh" --bootstrap-server "$bootstrap" --create --if-not-exists \
		--topic "$1" --partitions "$2" --replication-factor "$replication" \
		--config "cleanup.policy=$3" --config "retention.ms=$4" \
		--config "min.insync.replicas=$min_isr"
}

create contrack.subscriptions.v1 12 compact -1
create contrack.carrier-raw.v1 12 delete 604800000
create contrack.poll-attempts.v1 12 delete 2592000000
create contrack.events.v1 12 delete -1
create contrack.carrier-raw.dlq.v1 3 delete 2592000000
create contrack.delivery.dlq.v1 3 delete 7776000000
create contrack.journeys.v1 12 delete 86400000
create contrack.projector.dlq.v1 3 delete 2592000000
create contrack.vessel-positions.v1 12 delete 604800000
create contrack.alerts.v1 12 delete 2592000000

"$bin/kafka-topics.sh" --bootstrap-server "$bootstrap" --describe --topic 'contrack\..*'
