#!/usr/bin/env bash
# Local services for contrack: installs (Debian, as root, when missing) and
# starts Postgres and ClickHouse on loopback, then waits until both answer.
# Idempotent: services already answering are left alone.
#
# ClickHouse keeps its data under $CONTRACK_DATA_DIR/clickhouse (default
# .data/ in the work tree, ignored by git). Kafka needs nothing here: contrack
# embeds a single-node broker when KAFKA_BROKERS is unset.
#
# Elsewhere (no root, not Debian): run `docker compose -f deploy/stores.compose.yml up -d`
# or point CONTRACK_PG_URL / CONTRACK_CLICKHOUSE_ADDR / KAFKA_BROKERS at existing servers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${CONTRACK_DATA_DIR:-$root/.data}
case "$data" in /*) ;; *) data=$root/$data ;; esac
ch_dir=$data/clickhouse
pg_port=5432
ch_port=9000

say() { echo "services: $*"; }
die() {
	echo "services: $*" >&2
	echo "services: alternatives: 'docker compose -f deploy/stores.compose.yml up -d', or set CONTRACK_PG_URL," >&2
	echo "services: CONTRACK_CLICKHOUSE_ADDR and KAFKA_BROKERS to servers you already run." >&2
	exit 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # name port seconds
	for _ in $(seq 1 "$3"); do
		port_open "$2" && return 0
		sleep 1
	done
	return 1
}

apt_updated=
apt_install() {
	[ "$(id -u)" = 0 ] || die "$* missing and not running as root: install them yourself"
	command -v apt-get >/dev/null || die "$* missing and this is not Debian/Ubuntu (no apt-get)"
	if [ -z "$apt_updated" ]; then
		say "updating the package lists (apt-get update) to install $*"
		apt-get update -qq >/dev/null
		apt_updated=1
	fi
	say "installing $* (downloads; a few minutes on a cold machine)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

start_postgres() {
	if port_open $pg_port; then
		say "postgres answers on 127.0.0.1:$pg_port"
		return
	fi
	command -v pg_ctlcluster >/dev/null || apt_install postgresql postgresql-client
	[ "$(id -u)" = 0 ] || die "postgres is not running on 127.0.0.1:$pg_port and starting it needs root"
	ver=$(ls /etc/postgresql | sort -n | tail -1)
	[ -n "$ver" ] || die "no postgres cluster found under /etc/postgresql"
	# Trust auth on loopback for local development and tests.
	hba=/etc/postgresql/$ver/main/pg_hba.conf
	if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
		sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
	fi
	say "starting postgres $ver"
	pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
	wait_port postgres $pg_port 30 || die "postgres did not start (see /var/log/postgresql/)"
	say "postgres started on 127.0.0.1:$pg_port"
}

start_clickhouse() {
	if port_open $ch_port; then
		say "clickhouse answers on 127.0.0.1:$ch_port"
		return
	fi
	command -v clickhouse-server >/dev/null || apt_install clickhouse-server clickhouse-client
	mkdir -p "$ch_dir/log" "$ch_dir/tmp" "$ch_dir/user_files" "$ch_dir/format_schemas"
	# Our own copy of the packaged config, with every path under $ch_dir and
	# loopback IPv4 only.
	sed -e "s#/var/lib/clickhouse/#$ch_dir/#g" \
		-e "s#/var/log/clickhouse-server/#$ch_dir/log/#g" \
		-e "s#<users_config>users.xml</users_config>#<users_config>/etc/clickhouse-server/users.xml</users_config>#" \
		-e "s#<listen_host>::1</listen_host>##" \
		/etc/clickhouse-server/config.xml >"$ch_dir/config.xml"
	say "starting clickhouse (waiting up to 60 s for it to answer)"
	clickhouse-server --config-file="$ch_dir/config.xml" --pid-file="$ch_dir/clickhouse.pid" --daemon \
		|| die "clickhouse-server failed to start (see $ch_dir/log/)"
	wait_port clickhouse $ch_port 60 || die "clickhouse did not answer on 127.0.0.1:$ch_port (see $ch_dir/log/)"
	say "clickhouse started on 127.0.0.1:$ch_port (data in $ch_dir)"
}

start_postgres
start_clickhouse
