#!/usr/bin/env bash
# make e2e: the ledger lines of the whole pipeline through the public
# interface (e2e/), on the embedded broker (KAFKA=embedded, the default),
# on the local three-node Apache Kafka cluster (KAFKA=real: deploy/kafka.sh,
# started if needed, each run in a fresh namespace), or each line on both,
# one after the other (KAFKA=both), so the two read side by side from one
# run. Exits 1 if any ledger is not balanced.
#
# On the cluster, Kafka's own EndToEndLatency tool runs first against it
# (deploy/kafka.sh floor: acks=all, 800-byte records, one at a time), and
# every line prints contrack's p50 and p99 beside that floor as a ratio
# (KAFKA_FLOOR=P50,P99 given in the environment skips the measurement).
#
# The 3,000 and 6,000 lines offer more than the first targets (2,500 single
# events/s, 5,000 in arrays): a ledger's throughput counts the final
# latency, so only a run offered more can read the sustained rate the
# pipeline reaches (latency per 10 s shows whether it kept pace). The last
# two are issue 32's targets: 5,000 single events/s and 20,000 in arrays of
# 10, each for 60 s (done when 4,750 and 19,000 are delivered); where the
# pipeline falls behind them, up to 10 minutes more for the last deliveries.
set -uo pipefail
cd "$(dirname "$0")/.."
E2E=${E2E:-go run ./e2e}
case "${KAFKA:-embedded}" in
embedded) modes=(embedded) ;;
real) modes=(real) ;;
both) modes=(embedded real) ;;
*)
	echo "e2e: KAFKA must be embedded, real or both, not '$KAFKA'" >&2
	exit 2
	;;
esac
brokers=
floor=
if [[ " ${modes[*]} " == *" real "* ]]; then
	brokers=$(./deploy/kafka.sh start 3 | sed -n 's/^KAFKA_BROKERS=//p')
	[ -n "$brokers" ] || exit 1
	floor=${KAFKA_FLOOR:-}
	if [ -z "$floor" ]; then
		out=$(./deploy/kafka.sh floor) || exit 1
		echo "$out"
		floor=$(sed -n 's/^KAFKA_FLOOR=//p' <<<"$out")
	fi
	[ -n "$floor" ] || exit 1
	echo "e2e: Apache Kafka's own floor on this cluster (EndToEndLatency p50,p99): $floor"
fi
status=0
line() { # e2e arguments…
	local m
	for m in "${modes[@]}"; do
		echo "e2e: ${m} broker: $*"
		if [ "$m" = real ]; then
			$E2E -kafka "$brokers" -kafka-floor "$floor" -label "ledger (Apache Kafka)" "$@" || status=1
		else
			$E2E -label "ledger (embedded broker)" "$@" || status=1
		fi
	done
}
line -limits 5s -rate 500 -duration 20s -batch 1
line -rate 2500 -duration 60s -batch 1
line -rate 5000 -duration 60s -batch 10
line -rate 3000 -duration 60s -batch 1 -timeline 10s
line -rate 6000 -duration 60s -batch 10 -timeline 10s
line -rate 5000 -duration 60s -batch 1 -timeline 10s -drain 10m
line -rate 20000 -duration 60s -batch 10 -timeline 10s -drain 10m
exit $status
