#!/usr/bin/env bash
# The headless browser the console's tests drive (cmd/contrack
# TestConsoleInBrowser): installs Debian's `chromium` when missing (as root,
# with apt-get). Idempotent: an installed browser is left alone. When it
# cannot install one it says so and exits 0: that test then skips with one
# line, and every other test runs as usual.
set -euo pipefail

say() { echo "browser: $*"; }

for name in chromium chromium-browser google-chrome headless-shell; do
	if p=$(command -v "$name"); then
		say "$p is installed (for the console browser test)"
		exit 0
	fi
done
if [ -n "${CONTRACK_TEST_CHROMIUM:-}" ]; then
	say "using CONTRACK_TEST_CHROMIUM=$CONTRACK_TEST_CHROMIUM"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	say "no chromium and cannot install it here (needs root and apt-get): the console browser test will skip"
	exit 0
fi
say "installing Debian's chromium for the console browser test (apt-get install chromium)"
apt-get update -qq >/dev/null
if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
	say "chromium installed: $(command -v chromium)"
else
	say "apt-get install chromium failed: the console browser test will skip"
fi
