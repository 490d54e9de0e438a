#!/usr/bin/env bash
# Generates the Python client from docs/openapi.json into the directory $1
# (make sdk: src/contrack_sdk/openapi) with the openapi-python-client and ruff
# of requirements-dev.txt, which must be on PATH (the SDK venv's bin).
set -euo pipefail
out=${1:?usage: generate.sh OUTPUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openapi-python-client generate --path "$here/../../docs/openapi.json" \
	--config "$here/openapi-python-client.yaml" --meta none --output-path "$tmp/openapi" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log" >&2; exit 1; }
if grep -q "Warning" "$tmp/log"; then cat "$tmp/log" >&2; exit 1; fi
rm -rf "$out"
mv "$tmp/openapi" "$out"
