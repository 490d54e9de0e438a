#!/usr/bin/env bash
# Runs every Fuzz* target of the repository for a short time each ($1, default 10s).
# go test -fuzz takes one target per run, so they are listed and run in turn.
set -euo pipefail
fuzztime=${1:-10s}
cd "$(dirname "$0")/.."
found=0
# files in a corpus directory (0 when it does not exist yet)
count_files() { if [ -d "$1" ]; then ls "$1" | wc -l; else echo 0; fi; }
while IFS= read -r file; do
	pkg=./$(dirname "$file")
	for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
		found=1
		echo "fuzz: $pkg $target for $fuzztime"
		corpus="$pkg/testdata/fuzz/$target"
		before=$(count_files "$corpus")
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg"; then
			# A real failure writes its input to the corpus. Go's fuzzer can
			# also fail with "context deadline exceeded" when its time ends
			# while a worker is busy, writing nothing: that one is retried once.
			if [ "$(count_files "$corpus")" != "$before" ]; then
				echo "fuzz: $target found a failing input (in $corpus)" >&2
				exit 1
			fi
			echo "fuzz: $target failed without a failing input (the fuzzer's own time-out); running it once more"
			go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg"
		fi
	done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' || true)
[ "$found" = 1 ] || echo "fuzz: no fuzz targets yet"
