#!/bin/sh
# Writes deploy/.env (or the file given) with the secrets docker-compose.yml
# needs and ships no default for: a random CONTRACK_SECRET_KEY (32 bytes,
# base64) and random POSTGRES_PASSWORD and CLICKHOUSE_PASSWORD (24 bytes,
# hex: safe inside the Postgres URL). A variable already in the file is kept,
# so running it again changes nothing; the file is readable by its owner only.
# Keep it out of git (it is ignored) and back it up with the database: what
# the key sealed cannot be read without it.
set -eu
file=${1:-$(dirname "$0")/.env}
umask 077
touch "$file"
chmod 600 "$file"
random() { head -c "$1" /dev/urandom | od -An -v -tx1 | tr -d ' \n'; }
add() {
	if ! grep -q "^$1=" "$file"; then
		printf '%s=%s\n' "$1" "$2" >>"$file"
		echo "wrote $1 to $file"
	fi
}
add CONTRACK_SECRET_KEY "$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
add POSTGRES_PASSWORD "$(random 24)"
add CLICKHOUSE_PASSWORD "$(random 24)"
