#!/usr/bin/env bash
# Runs every Fuzz* target of the repository for a short time each ($1, default 10s).
# go test -fuzz takes one target per run, so they are listed and run in turn.
set -euo pipefail
fuzztime=${1:-10s}
cd "$(dirname "$0")/.."
found=0
while IFS= read -r file; do
	pkg=./$(dirname "$file")
	for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
		found=1
		echo "fuzz: $pkg $target for $fuzztime"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg"
	done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' || true)
[ "$found" = 1 ] || echo "fuzz: no fuzz targets yet"
