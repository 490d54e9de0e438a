#!/usr/bin/env bash
# make dcsa-conformance: DCSA's own Conformance Gateway (dcsaorg/Conformance-Gateway, branch dev)
# judges contrack as a DCSA Track & Trace 3.0.0 Event Producer and as an Event Consumer: the 21
# scenarios of each role, driven through the gateway's web-UI JSON operations
# (POST /conformance/webui), with contrack driven only through its public API and CLI. Prints one
# line per scenario and role, then a total; exits 1 unless every scenario is CONFORMANT.
#
# Not part of .ci/run: CI cannot download the gateway. Needs, besides what `make run` needs
# (Postgres and ClickHouse from deploy/services.sh, Go), the gateway's source (DCSA_GATEWAY_SRC,
# default ../Conformance-Gateway beside this repository), JDK 25 (DCSA_JAVA_HOME, else JAVA_HOME,
# else /usr/lib/jvm/*25*), Maven Central for the first build, curl, jq and psql; and port 8080
# free: the gateway's sandboxes call themselves back on http://localhost:8080, so it listens
# there, and contrack gets free ports of its own.
#
# Environment: DCSA_GATEWAY_SRC, DCSA_JAVA_HOME, DCSA_GATEWAY_REBUILD=1 (build even if the jar is
# there), DCSA_KEEP=1 (keep the work directory and the databases), DCSA_STEP_TIMEOUT (seconds one
# exchange is waited for, default 30), DCSA_ONLY=Producer|Consumer (one role).
set -uo pipefail
{ # the whole script is read before it runs, so editing it cannot change a run under way
cd "$(dirname "$0")/.."
ROOT=$(pwd)

die() {
	echo "dcsa-conformance: $*" >&2
	exit 2
}
log() { echo "dcsa-conformance: $*" >&2; }

for tool in curl jq psql go python3; do
	command -v "$tool" >/dev/null || die "$tool is needed and not on PATH"
done

# --- the gateway's source and JDK 25 ------------------------------------------------------------
GW_SRC=${DCSA_GATEWAY_SRC:-$ROOT/../Conformance-Gateway}
if [ ! -f "$GW_SRC/pom.xml" ] || [ ! -d "$GW_SRC/spring-boot" ] || [ ! -d "$GW_SRC/tnt" ]; then
	die "no Conformance Gateway source at '$GW_SRC' (set DCSA_GATEWAY_SRC to a checkout of
  https://github.com/dcsaorg/Conformance-Gateway, branch dev: git clone -b dev https://github.com/dcsaorg/Conformance-Gateway)"
fi
GW_SRC=$(cd "$GW_SRC" && pwd)

java_major() { # JAVA_HOME → major version, or nothing
	[ -x "$1/bin/java" ] || return 0
	"$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1
}
JDK=
for candidate in "${DCSA_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*25*; do
	[ -n "$candidate" ] || continue
	major=$(java_major "$candidate")
	if [ -n "$major" ] && [ "$major" -ge 25 ]; then
		JDK=$candidate
		break
	fi
done
[ -n "$JDK" ] || die "JDK 25 or later is needed to build and run the gateway: set DCSA_JAVA_HOME (checked: DCSA_JAVA_HOME='${DCSA_JAVA_HOME:-}', JAVA_HOME='${JAVA_HOME:-}', /usr/lib/jvm/*25*)"
export JAVA_HOME=$JDK PATH=$JDK/bin:$PATH

# The brief build (`./mvnw -pl spring-boot -am package -DskipTests`) leaves a plain jar; the
# spring-boot:repackage goal (as the gateway's own Dockerfile runs it) makes it runnable.
gateway_jar() { # the runnable jar, if built
	local jar
	for jar in "$GW_SRC"/spring-boot/target/*.jar; do
		[ -f "$jar" ] && jar tf "$jar" 2>/dev/null | grep -q '^BOOT-INF/' && echo "$jar" && return 0
	done
}
JAR=$(gateway_jar)
if [ -z "$JAR" ] || [ "${DCSA_GATEWAY_REBUILD:-0}" = 1 ]; then
	log "building the gateway in $GW_SRC with $(java -version 2>&1 | head -n1): ./mvnw -pl spring-boot -am package spring-boot:repackage -DskipTests"
	(cd "$GW_SRC" && nice -n 10 ./mvnw -B -q -pl spring-boot -am package spring-boot:repackage -DskipTests) || die "the gateway build failed"
	JAR=$(gateway_jar)
	[ -n "$JAR" ] || die "the gateway build left no runnable jar in $GW_SRC/spring-boot/target"
fi

# --- work directory, ports, cleanup -------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dcsa-conformance.XXXXXX")
DB=contrack_dcsa_$(date +%s)_$$
PIDS=()
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	if [ "${DCSA_KEEP:-0}" = 1 ]; then
		log "kept $WORK and the databases $DB"
	else
		psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
		curl -s -m 10 "http://127.0.0.1:8123/" --data-binary "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port_in_use() { python3 -c 'import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1])))==0 else 1)' "$1"; }

port_in_use 8080 && die "port 8080 is in use: the gateway must listen on it (its sandboxes call http://localhost:8080)"

# --- contrack -----------------------------------------------------------------------------------
log "building contrack"
go build -o bin/contrack ./cmd/contrack || die "go build failed"
CT_PORT=$(free_port)
CT=http://127.0.0.1:$CT_PORT
export CONTRACK_HTTP_ADDR=127.0.0.1:$CT_PORT \
	CONTRACK_ADMIN_ADDR=127.0.0.1:$(free_port) \
	CONTRACK_SANDBOX_ADDR=127.0.0.1:$(free_port) \
	CONTRACK_EMBEDDED_KAFKA_ADDR=127.0.0.1:$(free_port) \
	CONTRACK_PG_URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable" \
	CONTRACK_CLICKHOUSE_DB=$DB \
	CONTRACK_DATA_DIR=$WORK/contrack-data \
	CONTRACK_SECRET_KEY=$(head -c 32 /dev/urandom | base64) \
	CONTRACK_ALLOW_PRIVATE_WEBHOOKS=true \
	CONTRACK_LOG_LEVEL=${CONTRACK_LOG_LEVEL:-warn}
unset KAFKA_BROKERS CONTRACK_KAFKA_NAMESPACE
./bin/contrack all >"$WORK/contrack.log" 2>&1 &
PIDS+=($!)
CT_PID=$!

# --- the gateway --------------------------------------------------------------------------------
GW=http://localhost:8080
java -jar "$JAR" --server.port=8080 \
	--conformance.createAutoTestingSandboxes=false --conformance.createManualTestingSandboxes=false \
	>"$WORK/gateway.log" 2>&1 &
PIDS+=($!)
GW_PID=$!

wait_until() { # seconds description command… — until the command succeeds
	local until=$((SECONDS + $1)) what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $until ] || return 1
		sleep 0.5
	done
}
alive() { kill -0 "$1" 2>/dev/null; }

gw() { # one web-UI JSON operation; the JSON object is built by jq from name=value pairs (--arg) and name:=json (--argjson)
	local args=() pair name
	for pair in "$@"; do
		name=${pair%%=*}
		if [[ $name == *: ]]; then
			args+=(--argjson "${name%:}" "${pair#*=}")
		else
			args+=(--arg "$name" "${pair#*=}")
		fi
	done
	local body
	body=$(jq -nc '$ARGS.named' "${args[@]}") || return 1
	curl -sS -m 60 -H 'Content-Type: application/json' --data "$body" "$GW/conformance/webui"
}
gw_ok() { # like gw, but fails on an error answer
	local out
	out=$(gw "$@") || return 1
	if jq -e 'type == "object" and has("error")' >/dev/null 2>&1 <<<"$out"; then
		log "gateway $1: $(jq -c . <<<"$out")"
		return 1
	fi
	printf '%s' "$out"
}

ct() { # METHOD PATH KEY [BODY]: one contrack call, its status in CT_STATUS and its body in CT_BODY
	# (not a command substitution, so the caller sees both; 000 when there was no answer)
	local out
	CT_STATUS=000 CT_BODY=
	out=$(curl -sS -m 30 -X "$1" "$CT$2" -H "x-api-key: $3" -H 'Content-Type: application/json' \
		${4:+--data "$4"} -w '\n%{http_code}') || return 1
	CT_STATUS=${out##*$'\n'}
	CT_BODY=${out%$'\n'*}
}
ct_get() { ct GET "$1" "$2" && printf '%s' "$CT_BODY"; } # PATH KEY → body

log "waiting for contrack on $CT and the gateway on $GW (logs in $WORK)"
wait_until 180 contrack curl -sf "http://$CONTRACK_ADMIN_ADDR/readyz" || {
	tail -n 30 "$WORK/contrack.log" >&2
	die "contrack did not become ready"
}
wait_until 300 gateway gw_ok operation=getAvailableStandards || {
	alive $GW_PID || tail -n 30 "$WORK/gateway.log" >&2
	die "the gateway did not answer on $GW"
}
gw_ok operation=getAvailableStandards | jq -e '.[] | select(.name == "TnT") | .versions[] | select(.number == "3.0.0")' >/dev/null ||
	die "this gateway has no TnT 3.0.0"

admin_key() { ./bin/contrack admin create-key "$@" | tail -n1; }
CONSUMER_KEY=$(admin_key --client dcsa-conformance --env sandbox) || die "create-key failed"
CARRIER_KEY=$(admin_key --client dcsa-conformance-zim --env sandbox --role carrier --scac ZIMU) || die "create-key failed"
[ -n "$CONSUMER_KEY" ] && [ -n "$CARRIER_KEY" ] || die "create-key printed no key"

# --- the producer role's data: one booking, its transport document and container, and events
# of every 3.0 type, pushed by a carrier key (ZIMU) to subscriptions of the consumer account -----
CBR=CTKDCSA0001
TDR=CTKDCSATD0001
POST_CBR=CTKDCSA0002 # the booking of the events the webhook pushes in the POST scenarios, only followed by dcsa-post
iso6346() { # owner+serial (10 chars) → with check digit
	python3 - "$1" <<'EOF'
import sys
s = sys.argv[1]
vals, v = {}, 10
for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    if v % 11 == 0:
        v += 1
    vals[c] = v
    v += 1
total = sum((vals[c] if c.isalpha() else int(c)) * (2 ** i) for i, c in enumerate(s))
print(s + str(total % 11 % 10))
EOF
}
ER=$(iso6346 MSKU004500)
POST_TDR=CTKDCSATD0002
POST_ER=$(iso6346 MSKU004501)

now_ms() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
RUN_START=$(date -u -d '-1 minute' +%Y-%m-%dT%H:%M:%SZ)

event() { # TYPE N BOOKING TDR ER → one 3.0 event naming the booking, transport document and container
	local type=$1 n=$2 booking=$3 tdr=$4 er=$5 at
	at=$(date -u -d "-$((10 - n)) hours" +%Y-%m-%dT%H:%M:%SZ)
	jq -nc --arg type "$type" --arg id "ctk-dcsa-$(echo "$type" | tr A-Z a-z)-$booking-$n-$RANDOM$RANDOM" \
		--arg at "$at" --arg upd "$(now_ms)" --arg cbr "$booking" --arg tdr "$tdr" --arg er "$er" '
	{
	  eventID: $id, eventDateTime: $at, eventUpdatedDateTime: $upd,
	  eventLocation: {locationName: "Rotterdam", UNLocationCode: "NLRTM"},
	  shipmentDetails: {documentReference: {typeCode: "BKG", reference: $cbr},
	                    additionalDocumentReferences: [{typeCode: "TRD", reference: $tdr}]},
	  equipmentDetails: {equipmentReference: $er, ISOEquipmentCode: "45R1", emptyIndicatorCode: "LADEN"}
	} + (
	  if $type == "TRANSPORT" then
	    {eventClassification: {eventTypeCode: "TRANSPORT", eventClassifierCode: "ACT", transportEventTypeCode: "DEPA"},
	     transportDetails: {transportCall: {transportCallReference: "CTK-TC-1", modeOfTransport: "VESSEL",
	       exportVoyageNumberOrReference: {carrierVoyageNumber: "2406W"},
	       vesselTransport: {vesselIMONumber: "9321483", vesselName: "CONTRACK TRIAL"}}}}
	  elif $type == "EQUIPMENT" then
	    {eventClassification: {eventTypeCode: "EQUIPMENT", eventClassifierCode: "ACT", equipmentEventTypeCode: "LOAD"},
	     transportDetails: {transportCall: {transportCallReference: "CTK-TC-1", modeOfTransport: "VESSEL",
	       vesselTransport: {vesselIMONumber: "9321483", vesselName: "CONTRACK TRIAL"}}}}
	  elif $type == "SHIPMENT" then
	    {eventClassification: {eventTypeCode: "SHIPMENT", eventClassifierCode: "ACT", shipmentEventTypeCode: "CONF"}}
	  elif $type == "IOT" then
	    {eventClassification: {eventTypeCode: "IOT", eventClassifierCode: "ACT", iotEventTypeCode: "DETC"},
	     iotDetails: {iotEventCode: "DRO"}}
	  else
	    {eventClassification: {eventTypeCode: "REEFER", eventClassifierCode: "ACT", reeferEventTypeCode: "MEAS"},
	     reeferDetails: {temperatureUnit: "CEL", internalSetpointTemperature: -18, ambientMeasuredTemperature: -17.5}}
	  end)'
}
push() { # events… → POST /events as the ZIMU carrier, in 3.0
	local body
	body=$(jq -sc '{events: .}' <<<"$*")
	curl -sS -m 30 "$CT/events" -H "x-api-key: $CARRIER_KEY" -H 'API-Version: 3.0.0' \
		-H 'Content-Type: application/json' --data "$body" -w '\n%{http_code}'
}

subscribe() { # reference field value
	ct POST /subscription/equipment "$CONSUMER_KEY" \
		"$(jq -nc --arg r "$1" --arg f "$2" --arg v "$3" '{subscriptionReference: $r, scacCode: "ZIMU"} + {($f): $v}')"
	[ "$CT_STATUS" = 200 ] || die "subscribing to $2 $3 answered $CT_STATUS"
}

# --- driving one sandbox ------------------------------------------------------------------------
STEP=${DCSA_STEP_TIMEOUT:-30}
RESULTS=()

exchange_count() { # sandbox scenario → 1 when the current action has its exchange
	gw operation=getCurrentActionExchanges "sandboxId=$1" "scenarioId=$2" | jq -r 'if has("primaryExchange") then 1 else 0 end' 2>/dev/null
}
# The JSON body of the current action's request, as getCurrentActionExchanges shows it.
REQUEST_BODY='.primaryExchange.request.message.body | (.jsonBody // (.stringBody? // "" | fromjson? // {}))'
has_exchange() { [ "$(exchange_count "$1" "$2")" = 1 ]; }
exchange_has_type() { # sandbox scenario TYPE → the current action's request carries an event of TYPE
	gw operation=getCurrentActionExchanges "sandboxId=$1" "scenarioId=$2" |
		jq -e --arg t "$3" "$REQUEST_BODY"' | [.events[]?.eventClassification.eventTypeCode] | index($t)' >/dev/null 2>&1
}
complete() { gw_ok operation=completeCurrentAction "sandboxId=$1" skip:=false >/dev/null; }

# consumer_get PROMPT: make contrack send the GET /events the prompt asks for ("- name=value"
# lines) to the gateway's producer, through its carrier connector's one-shot fetch (POST
# /carrier/connectors/{code}/fetch, issue 45 item 3). A next-page prompt names only the cursor:
# the filters of the scenario's previous request go with it, as 3.0 requires.
LAST_FETCH='{}'
consumer_get() {
	local body out
	if [ -z "$CONNECTOR_CODE" ]; then
		log "    contrack cannot be made to send this GET /events: this build has no carrier connectors"
		return 1
	fi
	body=$(sed -n 's/^- \([A-Za-z]*\)=\(.*\)$/\1=\2/p' <<<"$1" | jq -Rsc --argjson last "$LAST_FETCH" '
	  [split("\n")[] | select(length > 0) | index("=") as $i | {key: .[:$i], value: .[$i + 1:]}
	   | if .key == "eventTypes" then .value |= split(",") elif .key == "limit" then .value |= tonumber else . end]
	  | from_entries | if has("cursor") then $last + . else . end')
	LAST_FETCH=$(jq -c 'del(.cursor)' <<<"$body")
	ct POST "/carrier/connectors/$CONNECTOR_CODE/fetch" "$CONSUMER_KEY" "$body"
	out=$CT_BODY
	if [ "$CT_STATUS" != 200 ]; then
		log "    POST /carrier/connectors/$CONNECTOR_CODE/fetch $body answered $CT_STATUS: $out"
		return 1
	fi
	log "    contrack fetched $body: $(jq -c '{outcome, httpCode, requests: [.requests[]? | sub("^.*/events"; "/events")], eventCount}' <<<"$out")"
}

# producer_supply KEYS_JSON → the scenario parameters contrack's data answers to.
producer_supply() {
	jq -c --arg cbr "$CBR" --arg tdr "$TDR" --arg er "$ER" --arg min "$RUN_START" \
		--arg max "$(date -u -d '+2 hours' +%Y-%m-%dT%H:%M:%SZ)" '
	  keys | map({(.): ({carrierBookingReference: $cbr, transportDocumentReference: $tdr, equipmentReference: $er,
	    eventTypes: "SHIPMENT,TRANSPORT,EQUIPMENT,IOT,REEFER", eventUpdatedDateTimeMin: $min,
	    eventUpdatedDateTimeMax: $max, limit: "1"}[.] // "")}) | add' <<<"$1"
}

# run_scenario ROLE SANDBOX MODULE ID NAME: drive one scenario to its end; its final status is read later.
run_scenario() {
	local role=$1 sb=$2 id=$4 name=$5 st next action prompt input t deadline
	gw_ok operation=startOrStopScenario "sandboxId=$sb" "scenarioId=$id" >/dev/null || return 1
	LAST_FETCH='{}'
	deadline=$((SECONDS + 10 * STEP))
	while [ $SECONDS -lt $deadline ]; do
		st=$(gw_ok operation=getScenarioStatus "sandboxId=$sb" "scenarioId=$id") || return 1
		next=$(jq -r '.nextActions // ""' <<<"$st")
		if [ "$(jq -r '.isRunning' <<<"$st")" != true ] || [ -z "$next" ]; then
			return 0
		fi
		action=${next%% - *}
		if jq -e 'has("promptActionId")' >/dev/null <<<"$st"; then # contrack's turn
			prompt=$(jq -r '.promptText // ""' <<<"$st")
			case $action in
			SupplyScenarioParameters*)
				input=$(producer_supply "$(jq -c '.jsonForPromptText // {}' <<<"$st")")
				log "    $action: $input"
				gw_ok operation=handleActionInput "sandboxId=$sb" "actionId=$(jq -r .promptActionId <<<"$st")" \
					"actionInput:=$input" >/dev/null || return 1
				;;
			"POST Events ("*)
				t=${action#POST Events (}
				t=${t%)}
				log "    $action: a $t event pushed to contrack for its webhook"
				push "$(event "$t" 9 "$POST_CBR" "$POST_TDR" "$POST_ER")" >/dev/null
				if ! wait_until "$STEP" delivery exchange_has_type "$sb" "$id" "$t"; then
					log "    no delivery with a $t event reached the gateway"
					if has_exchange "$sb" "$id"; then complete "$sb" || return 1; else return 1; fi
				else
					complete "$sb" || return 1
				fi
				;;
			"GET Events"*)
				consumer_get "$prompt" || return 1
				wait_until "$STEP" request has_exchange "$sb" "$id" || return 1
				complete "$sb" || return 1
				;;
			*)
				log "    unknown action '$action' for contrack"
				return 1
				;;
			esac
		else # the gateway's turn: its request to contrack, or its own scenario parameters
			if has_exchange "$sb" "$id"; then
				complete "$sb" || return 1
			else
				sleep 0.5
			fi
		fi
	done
	log "    '$name' did not end within $((10 * STEP)) s"
	return 1
}

run_role() { # ROLE: create the sandbox, configure both sides, run every scenario, record results
	local role=$1 sb cfg url hname hvalue ext key scenarios line status module name id stop
	sb=$(gw_ok operation=createSandbox standardName=TnT versionNumber=3.0.0 scenarioSuite=Conformance \
		"testedPartyRole=$role" isDefaultType:=true "sandboxName=contrack $role $(date +%s)" | jq -r .sandboxId) ||
		die "createSandbox ($role) failed"
	cfg=$(gw_ok operation=getSandboxConfig "sandboxId=$sb") || die "getSandboxConfig failed"
	url=$(jq -r .sandboxUrl <<<"$cfg")
	hname=$(jq -r .sandboxAuthHeaderName <<<"$cfg")
	hvalue=$(jq -r .sandboxAuthHeaderValue <<<"$cfg")
	if [ "$role" = Producer ]; then
		ext=$CT/v3
		key=$CONSUMER_KEY
	else
		ext=$CT
		key=$CARRIER_KEY
	fi
	gw_ok operation=updateSandboxConfig "sandboxId=$sb" "sandboxName=contrack $role $sb" "externalPartyUrl=$ext" \
		externalPartyAuthHeaderName=x-api-key "externalPartyAuthHeaderValue=$key" \
		'externalPartyAdditionalHeaders:=[]' 'externalPartyEndpointUriOverrides:=[]' >/dev/null ||
		die "updateSandboxConfig ($role) failed"
	log "$role: sandbox $sb, contrack at $ext, the gateway's party at $url"
	scenarios=$(gw_ok operation=getScenarioDigests "sandboxId=$sb" |
		jq -c '.[] | .moduleName as $m | .scenarios[] | {module: $m, id, name}') || die "getScenarioDigests failed"

	if [ "$role" = Consumer ]; then
		consumer_connector "$url" "$hname" "$hvalue"
	fi
	if [ "$role" = Producer ]; then
		producer_webhook "$sb" "$url" "$hname" "$hvalue" "$scenarios" || log "the webhook could not be activated: the POST scenarios will see no traffic"
	fi

	while IFS= read -r line; do
		module=$(jq -r .module <<<"$line")
		name=$(jq -r .name <<<"$line")
		id=$(jq -r .id <<<"$line")
		log "$role: $module / $name"
		if ! run_scenario "$role" "$sb" "$module" "$id" "$name"; then
			# stop it where it stands: the gateway keeps what it saw
			stop=$(gw operation=getScenarioStatus "sandboxId=$sb" "scenarioId=$id" | jq -r '.isRunning')
			[ "$stop" = true ] && gw operation=startOrStopScenario "sandboxId=$sb" "scenarioId=$id" >/dev/null
		fi
		# what the gateway found wrong, for the figures
		gw operation=getScenarioStatus "sandboxId=$sb" "scenarioId=$id" |
			jq -r '[.. | .errorMessages? // empty | .[]] | unique | .[:3] | join("; ")' >"$WORK/reasons-$role-$id" 2>/dev/null
	done <<<"$scenarios"

	gw_ok operation=getScenarioDigests "sandboxId=$sb" >"$WORK/$role-digests.json" || die "getScenarioDigests failed"
	while IFS=$'\t' read -r module name status id; do
		RESULTS+=("$role"$'\t'"$module"$'\t'"$name"$'\t'"$status"$'\t'"$(cat "$WORK/reasons-$role-$id" 2>/dev/null)")
	done < <(jq -r '.[] | .moduleName as $m | .scenarios[] | [$m, .name, .conformanceStatus, .id] | @tsv' "$WORK/$role-digests.json")
	gw operation=createReport "sandboxId=$sb" "reportTitle=contrack $role" >/dev/null
}

# producer_webhook SANDBOX URL HEADER VALUE SCENARIOS: configure contrack's TNT_3.0.0 webhook to the
# gateway's consumer, with the gateway's auth header. Activation needs the secret contrack sends in
# its verification message, which only the gateway sees: it is read from the exchange the gateway
# records during a POST scenario's action, which is then stopped and later run afresh.
producer_webhook() {
	local sb=$1 url=$2 hname=$3 hvalue=$4 first secret body
	first=$(jq -r 'select(.name | test("POST")) | .id' <<<"$5" | head -n1)
	[ -n "$first" ] || return 1
	gw_ok operation=startOrStopScenario "sandboxId=$sb" "scenarioId=$first" >/dev/null || return 1
	body=$(jq -nc --arg u "$url/events" --arg h "$hname" --arg v "$hvalue" \
		'{targetUrl: $u, eventFormat: "TNT_3.0.0", authHeaders: {($h): $v}}')
	ct POST /webhook/configure "$CONSUMER_KEY" "$body"
	[ "$CT_STATUS" = 200 ] || {
		log "POST /webhook/configure answered $CT_STATUS"
		gw operation=startOrStopScenario "sandboxId=$sb" "scenarioId=$first" >/dev/null
		return 1
	}
	wait_until "$STEP" verification has_exchange "$sb" "$first"
	secret=$(gw operation=getCurrentActionExchanges "sandboxId=$sb" "scenarioId=$first" |
		jq -r "$REQUEST_BODY"' | .secret // empty')
	gw operation=startOrStopScenario "sandboxId=$sb" "scenarioId=$first" >/dev/null
	[ -n "$secret" ] || return 1
	ct POST /webhook/activate "$CONSUMER_KEY" "$(jq -nc --arg s "$secret" '{secret: $s}')"
	[ "$CT_STATUS" = 200 ] || return 1
	log "Producer: contrack's TNT_3.0.0 webhook delivers to $url/events with its $hname header"
}

# consumer_connector URL HEADER VALUE: register the gateway's producer as the consumer account's
# carrier connector DCSG (a code shaped as a SCAC, of no supported carrier): DCSA 3.0 at that base
# URL, API-key auth with the gateway's header; when this build has carrier connectors.
CONNECTOR_CODE=
consumer_connector() {
	local body out
	ct GET /carrier/connectors "$CONSUMER_KEY"
	if [ "$CT_STATUS" != 200 ]; then
		log "Consumer: GET /carrier/connectors answered $CT_STATUS: no carrier connectors on this build, so contrack cannot GET from the gateway"
		return 0
	fi
	body=$(jq -nc --arg u "$1" --arg h "$2" --arg v "$3" \
		'{code: "DCSG", baseUrl: $u, format: "TNT_3.0.0", auth: {scheme: "API_KEY", headerName: $h, apiKey: $v}}')
	ct POST /carrier/connectors "$CONSUMER_KEY" "$body"
	out=$CT_BODY
	if [ "$CT_STATUS" != 200 ]; then
		log "Consumer: registering the gateway as a carrier connector answered $CT_STATUS: $out"
		return 0
	fi
	CONNECTOR_CODE=DCSG
	log "Consumer: the gateway's producer is contrack's carrier connector $CONNECTOR_CODE ($1, $2 header)"
}

setup_producer_data() {
	subscribe dcsa-booking bookingNumber "$CBR"
	subscribe dcsa-container containerNumber "$ER"
	subscribe dcsa-bill billNumber "$TDR"
	subscribe dcsa-post bookingNumber "$POST_CBR"
	local t n out expected=0
	for n in 1 2; do
		for t in TRANSPORT EQUIPMENT SHIPMENT IOT REEFER; do
			out=$(push "$(event "$t" "$n" "$CBR" "$TDR" "$ER")")
			if [ "${out##*$'\n'}" != 200 ]; then
				log "pushing a $t event answered ${out##*$'\n'}: $(head -c 300 <<<"${out%$'\n'*}")"
			elif ! grep -q 'not forwarded' <<<"${out%$'\n'*}"; then
				expected=$((expected + 1)) # kept, so served once the pipeline has it
			fi
		done
	done
	wait_until 60 data eval '[ "$(ct_get "/v3/events?carrierBookingReference=$CBR" "$CONSUMER_KEY" | jq ".events | length")" -ge '"$expected"' ]' ||
		log "GET /v3/events?carrierBookingReference=$CBR has fewer than the $expected events kept"
	log "Producer: contrack serves $(ct_get "/v3/events?carrierBookingReference=$CBR" "$CONSUMER_KEY" |
		jq -r '[.events[].eventClassification.eventTypeCode] | group_by(.) | map("\(.[0])×\(length)") | join(", ")') for booking $CBR"
}

case ${DCSA_ONLY:-} in
"" | Producer | Consumer) ;;
*) die "DCSA_ONLY must be Producer or Consumer, not '$DCSA_ONLY'" ;;
esac
if [ "${DCSA_ONLY:-Producer}" = Producer ]; then
	setup_producer_data
	run_role Producer
fi
if [ "${DCSA_ONLY:-Consumer}" = Consumer ]; then
	run_role Consumer
fi

# --- the figures --------------------------------------------------------------------------------
conformant=0
echo
printf '%-9s %-22s %s\n' ROLE STATUS SCENARIO
for r in "${RESULTS[@]}"; do
	IFS=$'\t' read -r role module name status reasons <<<"$r"
	printf '%-9s %-22s %s / %s\n' "$role" "$status" "$module" "$name"
	[ "$status" = CONFORMANT ] || [ -z "$reasons" ] || printf '%-32s %s\n' '' "$reasons"
	[ "$status" = CONFORMANT ] && conformant=$((conformant + 1))
done
echo "total: $conformant of ${#RESULTS[@]} scenarios CONFORMANT (gateway $(git -C "$GW_SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), contrack $(git describe --always --dirty 2>/dev/null || echo '?'))"
[ "$conformant" = "${#RESULTS[@]}" ] && [ "${#RESULTS[@]}" -gt 0 ]
exit $?
}
