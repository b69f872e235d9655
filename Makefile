# Note Bridge: the commands a developer and CI run. `make help` lists them.

GO       ?= go
# Go 1.27.3, fetched by the go command through the module proxy (about
# 76 MB, once): go1.26.8's standard library has vulnerabilities govulncheck
# reports (net/http, crypto/tls, crypto/x509, html/template), fixed in the
# releases after it. Everything make runs uses it.
export GOTOOLCHAIN := go1.27.3
FUZZTIME ?= 10m
# VERSION is what `starter --version` prints: the tag (or commit) of the
# checkout; a build without it prints the module's version.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null)
PKGS     := ./...
# bench/ is a Go module of its own (the benchmarks, their baselines and
# gonum/plot stay out of the product's go.mod): every step that runs the
# product's packages runs bench's too, from inside it.
BENCH    := cd bench &&

.PHONY: help test check vet fmt-check lint standalone-check temporal npm conformance emulator-graph emulator-notion bench bench-sim bench-limiter bench-limiter-properties fuzz clean

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

test: temporal chromium docker-compose npm check lint vulncheck standalone-check ## The whole test suite (CI runs exactly this): vet, gofmt, staticcheck, deadcode, workflowcheck, govulncheck, the unit tests with the race detector in a clone with nothing beside it, then every test including those on a real Temporal dev server and the SDK conformance suites.
	@scripts/test-full.sh
	$(BENCH) $(GO) test -count=1 -timeout 10m $(PKGS)

check: vet fmt-check ## Static checks only.

vet:
	$(GO) vet $(PKGS)
	$(BENCH) $(GO) vet $(PKGS)

lint: ## staticcheck, deadcode (no unreachable function, tests counted) and workflowcheck, each pinned and installed into ./bin once.
	@scripts/lint.sh

standalone-check: ## The unit tests, with the race detector, in a fresh clone of HEAD with nothing beside it (no ../shared): the repository stands on its own.
	@scripts/standalone-check.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

npm: ## Install the conformance suites' pinned Node packages (npm ci in conformance/*/); reused when current.
	@scripts/install-npm.sh

conformance: npm ## The SDK conformance suites alone: the official Graph and Notion JavaScript SDKs against the emulators.
	$(GO) test -count=1 -timeout 5m -v ./conformance/...

temporal: ## Install the pinned temporal CLI (v1.5.1) into ./bin, built from source; reused when present.
	@scripts/install-temporal.sh

emulator-graph: ## Run the Microsoft Graph OneNote emulator on 127.0.0.1 (flags: ARGS="...").
	$(GO) run ./emulator/cmd/graph-emulator $(ARGS)

emulator-notion: ## Run the Notion emulator on 127.0.0.1 (flags: ARGS="...").
	$(GO) run ./emulator/cmd/notion-emulator $(ARGS)

bench: ## Go benchmarks of the pure packages (limiter, convert, emulators); prints figures.
	$(GO) test -run '^$$' -bench . -benchmem ./limiter/ ./convert/ ./emulator/graph/

bench-sim: ## The limiter simulation: policies compared; table and PNG plots into bench/results/.
	$(BENCH) $(GO) run ./cmd/simulate -out results

bench-limiter-properties: ## The limiter over 1,000 generated workloads of the issue's whole space against its targets; into bench/results/limiter-properties.md (ARGS="-properties 500").
	$(BENCH) $(GO) run ./cmd/simulate -properties 1000 -size full -jobs 2 -out results $(ARGS)

bench-limiter: temporal ## The limiter entity on a dev server, ours beside the naive design, plus a 100,000-permit soak; into bench/results/limiter.md.
	$(BENCH) $(GO) run ./cmd/limiterbench -requesters 20 -each 25 -soak 100000 -out results

fuzz: ## Every fuzz target for FUZZTIME each (default 10m).
	@scripts/fuzz.sh $(FUZZTIME)

clean: ## Remove built binaries and the demo's work directory.
	rm -rf bin/ .demo/

.PHONY: demo demo-test

demo: temporal ## Run a whole migration end to end on the emulators (Ctrl-C stops everything).
	$(GO) build -o bin/demo ./cmd/demo && exec bin/demo $(ARGS)

demo-test: temporal ## The demo's end-to-end test: a fast run (-scale 600 -exit) checked against the Notion export.
	$(GO) test -count=1 -timeout 8m -run 'TestDemoRunsEndToEnd' -v ./cmd/demo/

.PHONY: chromium docker-compose browser-test

chromium: ## Install Debian's chromium package (for the browser test) when /usr/bin/chromium is missing.
	@scripts/install-deb.sh chromium /usr/bin/chromium

docker-compose: ## Install Debian's docker-compose package (for the compose file's check in internal/deploy) when it is missing.
	@scripts/install-deb.sh docker-compose /usr/bin/docker-compose

browser-test: temporal chromium ## The browser test alone: a demo migration looked at in headless Chromium; screenshots into bench/results/browser/.
	$(GO) test -count=1 -timeout 10m -run 'TestMigrationInTheBrowser' -v ./internal/browsertest/ -args -browser.keep

.PHONY: starter

starter: ## Build the operator CLI into ./bin (bin/starter --help).
	$(GO) build -ldflags "-X main.buildVersion=$(VERSION)" -o bin/starter ./starter

.PHONY: codec-server vulncheck

codec-server: ## Run the codec server for the Web UI and CLI on 127.0.0.1:8234 (flags: ARGS="...").
	$(GO) run ./cmd/codec-server $(ARGS)

vulncheck: ## govulncheck against a local vulnerability database built from golang.org/x/vulndb (no vuln.go.dev needed).
	cd tools/vuln && $(GO) test ./...
	@scripts/govulncheck.sh $(ARGS)

.PHONY: fault-matrix sync-properties

sync-properties: temporal ## Sync's property test at length: 40 sync runs of 25 generated edits, a random seed each time (SEED=n replays one); make test runs 8 runs of seed 1.
	NOTEBRIDGE_SYNC_SEED=$${SEED:-$$(date +%s)} NOTEBRIDGE_SYNC_RUNS=40 NOTEBRIDGE_SYNC_EDITS=25 \
		$(GO) test -count=1 -timeout 30m -run TestSyncKeepsNotionEqualToOneNote -v ./workflows/

fault-matrix: temporal ## The fault matrix and bad-input cases alone (they also run in make test).
	$(GO) test -count=1 -timeout 15m -run TestFaultsAndBadInput -v ./workflows/

.PHONY: chaos chaos-refresh

chaos-refresh: temporal ## Kills inside token refreshes with 45-second tokens on Microsoft's refresh behaviour (about 8 minutes); ARGS="-strict-refresh-rotation" for the strict switch. Report: bench/results/chaos-refresh-run.md.
	$(GO) run ./cmd/chaos -pages 40 -kills 2 -refresh-kills 6 -server-restarts 1 -token-ttl 45s -notion-rate 2 -seed 3 -out bench/results/chaos-refresh-run.md $(ARGS)

chaos: temporal ## The chaos run: a 200-page migration while the worker is killed 20 times (SIGKILL) and Temporal restarted twice, checked block for block against the source; report in bench/results/chaos.md (ARGS="...").
	$(GO) run ./cmd/chaos -out bench/results/chaos.md $(ARGS)

.PHONY: bench-e2e

bench-e2e: temporal ## The end-to-end benchmark scenarios (1-6) on a dev server, both emulators and the bench's worker process (bench/cmd/worker: the product worker with -baseline); table in bench/results/e2e.md, PNG plots beside it (ARGS="-scenarios 1,3").
	$(BENCH) $(GO) run ./cmd/e2ebench -out results $(ARGS)

.PHONY: test-outage

test-outage: temporal ## A 10-minute Graph outage (time-scaled) and a 5-minute Notion outage (real time; NOTEBRIDGE_NOTION_OUTAGE=40s for a short one) named with the next action in the status display and the Web UI's details while they last (about 9 minutes; not in make test).
	NOTEBRIDGE_OUTAGE_E2E=1 $(GO) test -count=1 -timeout 25m -run 'Test(Graph|Notion)OutageIsNamedInStatus' -v ./workflows/

.PHONY: cluster cluster-stop cluster-check cluster-test

cluster: temporal ## The production topology on loopback: PostgreSQL 15, the Temporal server (built from source into ./bin the first time, about 5 minutes) with its schema and search attributes, the Web UI; prints where each runs. `make cluster-stop` stops it all.
	@scripts/cluster.sh start

cluster-stop: ## Stop everything `make cluster` started (the data stays for the next start; scripts/cluster.sh clean removes it).
	@scripts/cluster.sh stop

cluster-check: temporal ## Fail, saying what to run, unless the cluster answers and its schemas are the server's.
	@scripts/cluster.sh check

cluster-test: temporal ## The tests on a fresh cluster of their own: lifecycle and schema check, then the chaos run on PostgreSQL: five users migrating 40 pages each at once on four worker processes (20 SIGKILLs spread over the workers, 2 server restarts, 1 PostgreSQL restart).
	$(GO) test -count=1 -timeout 90m -v -run 'TestClusterLifecycle|TestChaosOnCluster' ./internal/cluster/ ./internal/chaos/ -args -cluster

.PHONY: cluster-bench

cluster-bench: temporal ## The cost scenario on the dev server and on a fresh cluster in one run (ARGS="-pages 1000"); table in bench/results/cluster.md.
	$(BENCH) $(GO) run ./cmd/clusterbench -out results/cluster.md $(ARGS)
