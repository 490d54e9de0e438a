#!/usr/bin/env bash
# A local Apache Kafka cluster in KRaft mode, run as plain JVM processes (no
# Docker): N nodes (default 3), every node a voter of one controller quorum
# and a broker, on loopback. For `make test-kafka`, `make e2e KAFKA=real`,
# `make chaos KAFKA=real`, or `make run` against a real cluster.
#
#   deploy/kafka.sh start [N]     start (or leave running) an N-node cluster; prints KAFKA_BROKERS=… last
#   deploy/kafka.sh status        each node's state; KAFKA_BROKERS=… last; exit 1 if a node is down
#   deploy/kafka.sh stop          stop every node (SIGTERM, then SIGKILL after 30 s); data is kept
#   deploy/kafka.sh wipe          stop, then delete the cluster's data (the cached jars stay)
#   deploy/kafka.sh node I start|stop|kill|pause|resume|pid
#                                 one node, for fault injection (kill: SIGKILL; pause: SIGSTOP)
#   deploy/kafka.sh floor [RECORDS] [BYTES]
#                                 the cluster's own latency floor: Kafka's EndToEndLatency tool
#                                 (acks=all, default 2000 records of 800 bytes, one at a time)
#                                 on a fresh topic replicated as contrack's are, deleted after;
#                                 prints KAFKA_FLOOR=<p50 ms>,<p99 ms> last
#
# The broker and its runtime dependencies are resolved from Maven Central by
# Maven (deploy/kafka/pom.xml, versions pinned) into a repository under the
# data directory; a JDK 17 (and Maven) are installed from Debian's packages
# when missing. Idempotent like deploy/services.sh: nodes already running are
# left alone, a formatted cluster is reused.
#
# Data lives under $CONTRACK_DATA_DIR/kafka (default .data/kafka). Node I
# (1-based) listens for clients on 127.0.0.1:$((CONTRACK_KAFKA_PORT+I-1)) and
# for the quorum on +100 (CONTRACK_KAFKA_PORT defaults to 9192; the embedded
# broker of `make run` uses 9092). Topics contrack creates here get
# replication factor 3 and min.insync.replicas 2 (fewer with fewer nodes).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=${CONTRACK_DATA_DIR:-$root/.data}
case "$data" in /*) ;; *) data=$root/$data ;; esac
dir=$data/kafka
cluster=$dir/cluster
base=${CONTRACK_KAFKA_PORT:-9192}
heap=${CONTRACK_KAFKA_HEAP:-768m}
pom=$root/deploy/kafka/pom.xml
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
classpath_file=$dir/classpath-$version

say() { echo "kafka: $*"; }
die() {
	echo "kafka: $*" >&2
	exit 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
broker_port() { echo $((base + $1 - 1)); }
controller_port() { echo $((base + 100 + $1 - 1)); }
node_dir() { echo "$cluster/node-$1"; }

apt_updated=
apt_install() {
	[ "$(id -u)" = 0 ] || die "$* missing and not running as root: install them yourself"
	command -v apt-get >/dev/null || die "$* missing and this is not Debian/Ubuntu (no apt-get)"
	if [ -z "$apt_updated" ]; then
		apt-get update -qq >/dev/null
		apt_updated=1
	fi
	say "installing $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

java_major() { java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -1; }

ensure_java() {
	if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
		apt_install openjdk-17-jre-headless
	fi
	[ "$(java_major)" -ge 17 ] || die "Kafka $version needs Java 17 or later; java -version says $(java_major)"
}

# ensure_jars resolves the broker's classpath once per version.
ensure_jars() {
	[ -s "$classpath_file" ] && return
	command -v mvn >/dev/null || apt_install maven
	mkdir -p "$dir"
	say "resolving Apache Kafka $version from Maven Central (once; cached under $dir/m2)"
	mvn -q -B -f "$pom" -Dmaven.repo.local="$dir/m2" dependency:build-classpath \
		-Dmdep.includeScope=runtime -Dmdep.outputFile="$classpath_file.tmp" >"$dir/maven.log" 2>&1 ||
		die "Maven could not resolve the broker (see $dir/maven.log)"
	mv "$classpath_file.tmp" "$classpath_file"
}

run_java() { # main class, arguments…
	java -Xms64m -Xmx256m -Dlog4j2.configurationFile="$root/deploy/kafka/log4j2.yaml" \
		-cp "$(cat "$classpath_file")" "$@"
}

# configure writes node I's properties for a cluster of n nodes.
configure() { # I n
	local i=$1 n=$2 voters="" j rf min_isr
	for j in $(seq 1 "$n"); do
		voters+="${voters:+,}$j@127.0.0.1:$(controller_port "$j")"
	done
	rf=$((n < 3 ? n : 3))
	min_isr=$((rf < 3 ? 1 : 2))
	mkdir -p "$(node_dir "$i")/data"
	cat >"$(node_dir "$i")/server.properties" <<EOF
# Written by deploy/kafka.sh: node $i of $n (controller and broker).
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(broker_port "$i"),CONTROLLER://127.0.0.1:$(controller_port "$i")
advertised.listeners=PLAINTEXT://127.0.0.1:$(broker_port "$i")
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$(node_dir "$i")/data
# As production should be: nothing created by accident, every write on
# $rf replicas and acknowledged by $min_isr of them.
auto.create.topics.enable=false
default.replication.factor=$rf
min.insync.replicas=$min_isr
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$min_isr
# A follower that stops fetching (a frozen or partitioned broker) leaves
# the ISR after 10 s instead of Kafka's default 30 s: until it has, every
# acks=all write to its partitions waits (make chaos KAFKA=real, the
# frozen broker). Choose it for production with docs/operations.md.
replica.lag.time.max.ms=10000
# Local-cluster settings (not for production): groups form without
# Kafka's 3-s wait for more members, and the internal topics have fewer
# partitions than the default 50, so a fresh cluster is ready in seconds.
group.initial.rebalance.delay.ms=0
offsets.topic.num.partitions=12
transaction.state.log.num.partitions=12
num.partitions=1
EOF
}

pid_of() { # I: the node's pid if it runs
	local f
	f="$(node_dir "$1")/pid"
	[ -f "$f" ] || return 1
	local pid
	pid=$(cat "$f")
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

start_node() { # I
	local i=$1 nd pid
	nd=$(node_dir "$i")
	if pid=$(pid_of "$i"); then
		say "node $i runs (pid $pid, 127.0.0.1:$(broker_port "$i"))"
		return
	fi
	port_open "$(broker_port "$i")" && die "port $(broker_port "$i") is taken by another process: set CONTRACK_KAFKA_PORT"
	setsid nohup java -Xms256m -Xmx"$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
		-Dlog4j2.configurationFile="$root/deploy/kafka/log4j2.yaml" \
		-cp "$(cat "$classpath_file")" kafka.Kafka "$nd/server.properties" >>"$nd/kafka.log" 2>&1 </dev/null &
	echo $! >"$nd/pid"
	say "node $i started (pid $!, 127.0.0.1:$(broker_port "$i"); log $nd/kafka.log)"
}

wait_node() { # I seconds
	for _ in $(seq 1 "$2"); do
		port_open "$(broker_port "$1")" && return 0
		pid_of "$1" >/dev/null || die "node $1 exited: $(tail -n 5 "$(node_dir "$1")/kafka.log")"
		sleep 1
	done
	die "node $1 did not open 127.0.0.1:$(broker_port "$1") within $2 s (see $(node_dir "$1")/kafka.log)"
}

size() { cat "$cluster/size" 2>/dev/null || echo 0; }

bootstrap() {
	local n out="" i
	n=$(size)
	for i in $(seq 1 "$n"); do out+="${out:+,}127.0.0.1:$(broker_port "$i")"; done
	echo "$out"
}

# wait_cluster waits until every broker is registered and unfenced: the
# metadata a client gets lists all n of them.
wait_cluster() { # n seconds
	local n=$1 seen=0
	for _ in $(seq 1 "$2"); do
		seen=$(run_java org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$(bootstrap)" 2>/dev/null |
			grep -c ' (id: [0-9]* rack: ') || true
		[ "$seen" -ge "$n" ] && return 0
		sleep 1
	done
	die "the cluster did not answer with $n brokers within $2 s ($seen registered; see $cluster/node-*/kafka.log)"
}

start() { # n
	local n=${1:-3} i cid
	[[ "$n" =~ ^[1-9][0-9]?$ ]] || die "start takes a node count from 1 to 99, not '$n'"
	if [ -f "$cluster/size" ] && [ "$(size)" != "$n" ]; then
		die "a $(size)-node cluster is formatted in $cluster: 'deploy/kafka.sh wipe' first to start one of $n"
	fi
	ensure_java
	ensure_jars
	mkdir -p "$cluster"
	if [ ! -f "$cluster/cluster-id" ]; then
		run_java kafka.tools.StorageTool random-uuid | tail -n 1 >"$cluster/cluster-id.tmp"
		mv "$cluster/cluster-id.tmp" "$cluster/cluster-id"
	fi
	cid=$(cat "$cluster/cluster-id")
	echo "$n" >"$cluster/size"
	for i in $(seq 1 "$n"); do
		configure "$i" "$n"
		if [ ! -f "$(node_dir "$i")/data/meta.properties" ]; then
			run_java kafka.tools.StorageTool format --ignore-formatted -t "$cid" -c "$(node_dir "$i")/server.properties" >/dev/null ||
				die "formatting node $i failed"
		fi
	done
	for i in $(seq 1 "$n"); do start_node "$i"; done
	for i in $(seq 1 "$n"); do wait_node "$i" 120; done
	wait_cluster "$n" 120
	say "Apache Kafka $version: $n nodes answer"
	echo "KAFKA_BROKERS=$(bootstrap)"
}

stop_node() { # I
	local pid
	pid=$(pid_of "$1") || return 0
	kill -TERM "$pid" 2>/dev/null || true
	kill -CONT "$pid" 2>/dev/null || true # a paused node cannot stop
	for _ in $(seq 1 30); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$(node_dir "$1")/pid"
	say "node $1 stopped"
}

stop() {
	local i
	for i in $(seq 1 "$(size)"); do stop_node "$i" & done
	wait
}

status() {
	local i pid down=0 n
	n=$(size)
	[ "$n" -gt 0 ] || die "no cluster here ($cluster): deploy/kafka.sh start"
	for i in $(seq 1 "$n"); do
		if pid=$(pid_of "$i") && port_open "$(broker_port "$i")"; then
			say "node $i runs (pid $pid, 127.0.0.1:$(broker_port "$i"))"
		else
			say "node $i is down"
			down=1
		fi
	done
	echo "KAFKA_BROKERS=$(bootstrap)"
	return $down
}

node() { # I action
	local i=${1:-} action=${2:-} pid
	[[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$(size)" ] || die "node takes a node number from 1 to $(size)"
	case "$action" in
	start)
		start_node "$i"
		wait_node "$i" 120
		;;
	stop) stop_node "$i" ;;
	kill)
		pid=$(pid_of "$i") || die "node $i is not running"
		kill -KILL "$pid"
		rm -f "$(node_dir "$i")/pid"
		;;
	pause)
		pid=$(pid_of "$i") || die "node $i is not running"
		kill -STOP "$pid"
		;;
	resume)
		pid=$(pid_of "$i") || die "node $i is not running"
		kill -CONT "$pid"
		;;
	pid) pid_of "$i" || die "node $i is not running" ;;
	*) die "node $i: start, stop, kill, pause, resume or pid" ;;
	esac
}

# floor runs Kafka's own EndToEndLatency (kafka-tools, on the broker's
# classpath) against the running cluster: one producer (acks=all) sends a
# record, one consumer reads it, then the next, so each latency is a
# produce acknowledged by min.insync.replicas replicas plus the fetch that
# brings it back. The topic gets the replication contrack's topics get
# (the tool itself would create one with a single replica).
floor() { # records bytes
	local records=${1:-2000} bytes=${2:-800} n rf min_isr topic out p50 p99
	[[ "$records" =~ ^[1-9][0-9]*$ && "$bytes" =~ ^[1-9][0-9]*$ ]] || die "floor takes a record count and a record size, not '$records' '$bytes'"
	status >/dev/null || die "the cluster is not running: deploy/kafka.sh start"
	n=$(size)
	rf=$((n < 3 ? n : 3))
	min_isr=$((rf < 3 ? 1 : 2))
	topic=latency-floor-$$-$RANDOM
	run_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bootstrap)" --create --topic "$topic" \
		--partitions 1 --replication-factor "$rf" --config min.insync.replicas="$min_isr" >/dev/null ||
		die "could not create the topic $topic"
	out=$(run_java org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$(bootstrap)" --topic "$topic" \
		--num-records "$records" --producer-acks all --record-size "$bytes" 2>&1) || true
	run_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bootstrap)" --delete --topic "$topic" >/dev/null 2>&1 ||
		say "could not delete the topic $topic"
	# "Percentiles: 50th = 2, 99th = 13, 99.9th = 40" (whole milliseconds)
	p50=$(sed -n 's/^Percentiles: 50th = \([0-9]*\), 99th = \([0-9]*\).*/\1/p' <<<"$out")
	p99=$(sed -n 's/^Percentiles: 50th = \([0-9]*\), 99th = \([0-9]*\).*/\2/p' <<<"$out")
	[ -n "$p50" ] && [ -n "$p99" ] || die "EndToEndLatency printed no percentiles: $(tail -n 5 <<<"$out")"
	grep -E '^(Avg latency|Percentiles):' <<<"$out" | sed 's/^/kafka: EndToEndLatency: /'
	say "floor: $records records of $bytes bytes, acks=all, $rf replicas, min.insync.replicas $min_isr: p50 $p50 ms, p99 $p99 ms"
	echo "KAFKA_FLOOR=${p50}ms,${p99}ms"
}

case "${1:-}" in
start) start "${2:-3}" ;;
floor) floor "${2:-}" "${3:-}" ;;
stop) stop ;;
status) status ;;
wipe)
	stop
	rm -rf "$cluster"
	say "cluster data deleted ($cluster)"
	;;
node) node "${2:-}" "${3:-}" ;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
