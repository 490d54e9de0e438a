#!/usr/bin/env bash
# make chaos: the e2e ledger under each fault in turn, one ledger line per
# fault at the end. Takes Postgres and ClickHouse down and up: run it alone,
# not beside other tests. Exits 1 if any ledger is not balanced.
set -uo pipefail
cd "$(dirname "$0")/.."
E2E=${E2E:-go run ./e2e}
RATE=${CHAOS_RATE:-300}
out=$(mktemp -d)
status=0
run() { # label, e2e arguments…
	local label=$1
	shift
	echo "chaos: $label"
	if ! $E2E -label "$label" -rate "$RATE" -timeline 5s "$@" | tee "$out/run.log"; then
		status=1
	fi
	grep -A1 "^$label " "$out/run.log" >>"$out/ledgers" || echo "$label: no ledger (see above)" >>"$out/ledgers"
}
run "SIGKILL contrack all" -duration 40s -kill all@10s+3s
run "SIGKILL each stage" -topology scale -duration 60s \
	-kill api-1@8s+3s -kill normalize-1@16s+3s -kill delivery-1@24s+3s -kill projector-1@32s+3s -kill poller-1@40s+3s
run "broker restart" -topology scale -duration 40s -kill broker@10s+5s
run "Postgres restart" -duration 40s -store-down postgres@10s+5s
run "ClickHouse down 60 s" -duration 90s -store-down clickhouse@10s+60s
run "receiver down 2 min" -duration 30s -receiver-down 5s+120s -drain 10m
echo
echo "chaos ledgers:"
cat "$out/ledgers"
rm -rf "$out"
exit $status
