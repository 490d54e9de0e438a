#!/usr/bin/env bash
# make chaos: the e2e ledger under each fault in turn, one ledger line per
# fault at the end. Takes Postgres and ClickHouse down and up: run it alone,
# not beside other tests. Exits 1 if any ledger is not balanced.
#
# KAFKA=real runs every fault on the local three-node Apache Kafka cluster
# (deploy/kafka.sh, started if needed; each run in a fresh namespace) and
# adds the faults only a real cluster has: the broker leading the busiest
# partitions SIGKILLed and restarted after 10 s, the active controller
# SIGKILLed, a rolling restart of every broker, one broker frozen (SIGSTOP)
# for 30 s, and the broker coordinating most of the run's consumer groups and
# transactions frozen for 30 s. The embedded broker's restart is left out
# there. A process that ends on its own during a fault fails its run.
set -uo pipefail
cd "$(dirname "$0")/.."
E2E=${E2E:-go run ./e2e}
RATE=${CHAOS_RATE:-300}
out=$(mktemp -d)
status=0
kafka=()
case "${KAFKA:-embedded}" in
embedded) ;;
real)
	brokers=$(./deploy/kafka.sh start 3 | sed -n 's/^KAFKA_BROKERS=//p')
	[ -n "$brokers" ] || exit 1
	kafka=(-kafka "$brokers")
	;;
*)
	echo "chaos: KAFKA must be embedded or real, not '$KAFKA'" >&2
	exit 2
	;;
esac
run() { # label, e2e arguments…
	local label=$1
	shift
	echo "chaos: $label"
	if ! $E2E "${kafka[@]}" -label "$label" -rate "$RATE" -timeline 5s "$@" | tee "$out/run.log"; then
		status=1
	fi
	# The ledger line and the lines under it (throughput and latency, refusals,
	# recovery, the events topic's duplicates), up to the timeline or the CPU.
	awk -v l="$label " 'index($0, l) == 1 { f = 1 } /^latency by|^cpu over/ { f = 0 } f' "$out/run.log" >"$out/ledger"
	if [ -s "$out/ledger" ]; then cat "$out/ledger" >>"$out/ledgers"; else echo "$label: no ledger (see above)" >>"$out/ledgers"; fi
}
run "SIGKILL contrack all" -duration 40s -kill all@10s+3s
run "SIGKILL each stage" -topology scale -duration 60s -kill-each 8s+3s/6s
if [ ${#kafka[@]} -eq 0 ]; then
	run "broker restart" -topology scale -duration 40s -kill broker@10s+5s
else
	run "SIGKILL busiest leader" -topology scale -duration 40s -kafka-fault leader@10s+10s
	run "SIGKILL active controller" -topology scale -duration 40s -kafka-fault controller@10s+10s
	run "rolling restart" -topology scale -duration 90s -kafka-fault rolling@10s+0s
	run "broker frozen 30 s" -topology scale -duration 60s -kafka-fault freeze@10s+30s
	run "coordinator frozen 30 s" -topology scale -duration 60s -kafka-fault coordinator@10s+30s
fi
run "Postgres restart" -duration 40s -store-down postgres@10s+5s
run "ClickHouse down 60 s" -duration 90s -store-down clickhouse@10s+60s
run "receiver down 2 min" -duration 30s -receiver-down 5s+120s -drain 10m
echo
echo "chaos ledgers:"
cat "$out/ledgers"
rm -rf "$out"
exit $status
