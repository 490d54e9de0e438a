# contrack — the two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Short fuzz run per parser in `make test`; longer with `make fuzz FUZZTIME=5m`.
FUZZTIME ?= 10s

.PHONY: build run test test-dates test-kafka kafka test-containers services browser console screenshots unit fuzz bench lint generate e2e e2e-scale e2e-population chaos dcsa-conformance clean sdk sdk-deps sdk-test

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/contrack ./cmd/contrack

services:
	./deploy/services.sh

# Each long step says what it does first: on a cold machine the services'
# install, the module download and the first compile take minutes. Once
# ready, contrack prints how to make a key (last, after its start-up lines).
run:
	@echo "run: 1/4 local services: Postgres and ClickHouse (installed on first use: a few minutes)"
	@./deploy/services.sh
	@echo "run: 2/4 Go modules (downloaded on first use: a few minutes)"
	@$(GO) mod download
	@echo "run: 3/4 compiling bin/contrack (a few minutes the first time, seconds after)"
	@$(GO) build -ldflags "$(LDFLAGS)" -o bin/contrack ./cmd/contrack
	@echo "run: 4/4 starting contrack all on http://127.0.0.1:8080; it says when it is ready (Ctrl-C stops it)"
	./bin/contrack all

# The whole suite against real Postgres, ClickHouse and an in-process
# Kafka-protocol broker, then a short fuzz of every parser.
test: services browser
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) --no-print-directory test-dates
	./scripts/fuzz.sh $(FUZZTIME)

# The packages whose tests pick sandbox containers by where their journeys
# stand (their TestMain pins the journeys to a date, journeydate): `make
# test` runs them at journeydate's default date, then again today and a
# year and a half ahead, so no test passes only on the day it was written.
DATE_TEST_PKGS = $(shell grep -rl --include='*_test.go' 'journeydate[.]\(Main\|Pin\)' . | xargs -n1 dirname | sort -u)
TEST_DATES ?= now 2027-12-01T15:45:00Z
test-dates: services
	@for d in $(TEST_DATES); do \
		echo "test-dates: CONTRACK_TEST_DATE=$$d $(DATE_TEST_PKGS)"; \
		CONTRACK_TEST_DATE=$$d $(GO) test -count=1 -timeout 20m $(DATE_TEST_PKGS) || exit 1; \
	done

# Every test that touches Kafka, again on a real Apache Kafka cluster: three
# KRaft nodes started by deploy/kafka.sh (installed from Maven Central on first
# use, left running), each test in a Kafka namespace of its own. Tests of the
# embedded broker itself and of kfake's injected faults stay on kfake.
KAFKA_TEST_PKGS = $(shell grep -rl --include='*_test.go' -e 'testenv[.]Kafka[[:punct:]]t' -e 'delivery/deliverytest"' . | xargs -n1 dirname | sort -u)
# KAFKA_BROKERS=host:port,... runs them on another cluster instead.
test-kafka: services
	@brokers="$(KAFKA_BROKERS)"; \
	if [ -z "$$brokers" ]; then brokers=$$(./deploy/kafka.sh start 3 | tee /dev/stderr | sed -n 's/^KAFKA_BROKERS=//p'); fi; \
	[ -n "$$brokers" ] || { echo "test-kafka: no Kafka cluster" >&2; exit 1; }; \
	echo "test-kafka: $(words $(KAFKA_TEST_PKGS)) packages on $$brokers"; \
	CONTRACK_TEST_KAFKA_BROKERS=$$brokers $(GO) test -count=1 -timeout 30m $(KAFKA_TEST_PKGS)

# The local three-node Apache Kafka cluster (deploy/kafka.sh; `deploy/kafka.sh stop` stops it).
kafka:
	./deploy/kafka.sh start 3

# The same suite on real servers in containers (testcontainers-go): Apache
# Kafka (KRaft) instead of kfake, Postgres 15 and a current ClickHouse, when a
# Docker engine answers. Otherwise one line says the containers were skipped
# and it runs as `make test`. See docs/testing.md.
test-containers: browser
	@mkdir -p bin && $(GO) build -o bin/containerprobe ./platform/testenv/containerprobe
	@rc=0; ./bin/containerprobe || rc=$$?; \
	if [ $$rc = 0 ]; then \
		$(GO) vet ./... && CONTRACK_TEST_CONTAINERS=1 $(GO) test -count=1 -timeout 60m ./... && ./scripts/fuzz.sh $(FUZZTIME); \
	elif [ $$rc = 3 ]; then \
		$(MAKE) --no-print-directory test; \
	else \
		exit $$rc; \
	fi

# Chromium for the console's browser test (installed if missing; skipped if it cannot be).
browser:
	./deploy/browser.sh

# The console and /docs viewer (console/web) built into console/dist, which is
# committed: only this target needs Node and npm.
console:
	cd console/web && npm ci --no-audit --no-fund && node build.mjs

# PNGs of every console page and /docs at desktop and phone width, from a real
# headless Chromium over an in-process `contrack all` (docs/screenshots/).
screenshots: services browser
	mkdir -p docs/screenshots
	CONTRACK_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run TestConsoleInBrowser ./cmd/contrack/

unit:
	$(GO) test -count=1 -short ./...

fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

bench: services
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...

# go vet, gofmt and golangci-lint (errcheck, govet, ineffassign, staticcheck,
# unused; .golangci.yml says why each exclusion is there). The linter is
# pinned and built with this Go into the data directory on first use (it
# must be built by a Go at least as new as the code it reads).
GOLANGCI_LINT_VERSION := v2.15.0
LINT_TOOLS := $(abspath $(or $(CONTRACK_DATA_DIR),.data)/tools)
GOLANGCI_LINT := $(LINT_TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)-$(shell $(GO) env GOVERSION)

$(GOLANGCI_LINT):
	@mkdir -p $(LINT_TOOLS)/build
	GOBIN=$(LINT_TOOLS)/build $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(LINT_TOOLS)/build/golangci-lint $@

lint: $(GOLANGCI_LINT)
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GOLANGCI_LINT) run ./...

# The ledger load test of the whole pipeline through the public interface
# (e2e/): carriers POST events, a webhook verifies and counts them; prints the
# ledger, latency and CPU per process; fails on any missing event. The lines
# are in scripts/e2e.sh. KAFKA=real runs them on the local Apache Kafka
# cluster (deploy/kafka.sh), KAFKA=both each on the embedded broker and then
# on the cluster; on the cluster Kafka's own EndToEndLatency runs first and
# every line prints contrack's latency as a ratio to it.
KAFKA ?= embedded
E2E = $(GO) run ./e2e
e2e: services build
	KAFKA=$(KAFKA) ./scripts/e2e.sh

# The same ledger against `contrack broker` and every role of the binary's
# role table as its own processes (two of each role of several replicas),
# one process of each role killed (SIGKILL) in turn and restarted mid-run.
e2e-scale: services build
	$(E2E) -topology scale -rate 500 -duration 60s -timeline 5s -kill-each 8s+3s/6s

# A population of trackings polled (issue 29): POPULATION trackings over 1,000
# sandbox accounts, subscribed in bulk requests of BULK_ITEMS at SUBSCRIBE_RATE/s;
# the poll interval is the time subscribing takes, so the re-polls follow the
# subscriptions at the same rate. 1,000,000 takes about two hours on 2 cores
# (the machine's whole capacity); try `make e2e-population POPULATION=100000`
# (about 12 minutes) first.
POPULATION ?= 1000000
SUBSCRIBE_RATE ?= 150
BULK_ITEMS ?= 100
e2e-population: services build
	$(E2E) -population $(POPULATION) -accounts 1000 -subscribe-rate $(SUBSCRIBE_RATE) -bulk-items $(BULK_ITEMS)

# The ledger under each fault in turn (SIGKILLs, broker and Postgres restarts,
# ClickHouse down, the receiver down); stops and starts the local stores.
# KAFKA=real: on the local Apache Kafka cluster, with its own faults (the
# busiest leader and the active controller SIGKILLed, a rolling restart, a
# broker frozen 30 s) instead of the embedded broker's restart.
chaos: services build
	KAFKA=$(KAFKA) ./scripts/chaos.sh

# DCSA's Conformance Gateway judging contrack in both Track & Trace 3.0.0 roles, all 42
# scenarios, one line each (docs/tnt3.md). Not in .ci/run: it needs the gateway's source
# (DCSA_GATEWAY_SRC, default ../Conformance-Gateway), JDK 25 and, for its first build, Maven
# Central.
dcsa-conformance: services
	./scripts/dcsa-conformance.sh

# The client libraries (sdk/): docs/openapi.json rewritten from the server's
# routes, then each SDK's generated client from it, with the generator
# versions pinned in sdk/go/generate.go, sdk/typescript/package-lock.json
# and sdk/python/requirements-dev.txt.
SDK_DATA ?= $(or $(CONTRACK_DATA_DIR),.data)/sdk
SDK_VENV := $(SDK_DATA)/venv
sdk: sdk-deps
	$(GO) test -count=1 -run TestOpenAPIDocument ./cmd/contrack -update
	cd sdk/go && $(GO) generate ./...
	cd sdk/typescript && npm run --silent generate
	PATH="$(abspath $(SDK_VENV))/bin:$$PATH" ./sdk/python/generate.sh sdk/python/src/contrack_sdk/openapi

# What the SDKs' tests need: the npm packages from the lockfile, and a
# Python venv (under the data directory) with the pinned packages; each
# is installed again only when its lockfile changed.
sdk-deps:
	./sdk/deps.sh "$(SDK_DATA)"

# Each SDK's own test runner (go test, node --test, pytest) against a real
# `contrack all` over fresh databases (sdk/harness); the generated code is
# checked against a fresh generation there too. Last, each SDK README's quick
# start as written, in a new directory with a HOME of its own, against a copy
# of sdk/ as a fresh clone has it (sdk/harness/quickstart).
sdk-test: services build sdk-deps
	$(GO) run ./sdk/harness \
		'go=cd sdk/go && $(GO) test -count=1 ./...' \
		'typescript=cd sdk/typescript && npm test --silent' \
		'python=cd sdk/python && "$(abspath $(SDK_VENV))/bin/python" -m pytest -q' \
		'quickstart=$(GO) run ./sdk/harness/quickstart sdk/go sdk/typescript sdk/python'

clean:
	rm -rf bin
