#!/usr/bin/env bash
# Installs what the SDKs' generation and tests need (make sdk-deps): the
# TypeScript SDK's packages from its lockfile, and a Python venv under
# $1 (the data directory's sdk/) with requirements-dev.txt. Each is
# installed again only when its lockfile changed, so a second run takes
# no time; Go modules come through the module proxy as go test needs them.
set -euo pipefail
data=${1:?usage: deps.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$data"

for tool in npm node; do
	command -v "$tool" >/dev/null || { echo "sdk-deps: the TypeScript SDK needs Node.js 20+ and npm; $tool is not on PATH" >&2; exit 1; }
done
ts=$root/sdk/typescript
if ! cmp -s "$ts/package-lock.json" "$ts/node_modules/.package-lock.contrack"; then
	echo "sdk-deps: npm ci in sdk/typescript"
	(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
	cp "$ts/package-lock.json" "$ts/node_modules/.package-lock.contrack"
fi

venv=$data/venv
req=$root/sdk/python/requirements-dev.txt
python=$(command -v python3.11 || command -v python3 || true)
if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
	echo "sdk-deps: the Python SDK needs Python 3.11 or newer (python3.11 or python3 on PATH)${python:+; $python is $("$python" --version 2>&1)}" >&2
	exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
	echo "sdk-deps: python venv at $venv"
	"$python" -m venv "$venv"
fi
if ! cmp -s "$req" "$venv/requirements-dev.txt"; then
	echo "sdk-deps: pip install -r sdk/python/requirements-dev.txt"
	"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
	cp "$req" "$venv/requirements-dev.txt"
fi
