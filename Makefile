# Reorder: the two commands of the README, plus benchmarks and load runs.
#   make run    installs missing packages, builds in release, serves the demo boards on :8080
#   make test   installs what the tests need, then lint + import check + unit/integration + browser tests,
#               and builds every fuzz target without running it (fuzz-build)
#   make fuzz   libFuzzer targets of Fuzz/ (a package of its own), FUZZ_SECONDS each (docs/RELIABILITY.md)
#   make soak   kill-and-restart soak, one server then a cluster, SOAK_CYCLES cycles each, writes
#               reports/soak.json (docs/RELIABILITY.md); SOAK_MODE=redis-cluster: over a Redis Cluster

SWIFT ?= swift
RUN_FLAGS ?= --demo

.PHONY: run test build lint check-imports client-types swift-test fuzz-build browser-test bench bench-web load fuzz \
  soak clean

run:
	@scripts/install-deps.sh run
	$(SWIFT) build -c release --product reorder
	.build/release/reorder serve $(RUN_FLAGS)

build:
	@scripts/install-deps.sh run
	$(SWIFT) build

test:
	@scripts/install-deps.sh test
	$(MAKE) --no-print-directory check-imports client-types lint swift-test fuzz-build browser-test

check-imports:
	scripts/check-imports.sh

# The client's TypeScript declarations are up to date, and an app on them compiles.
client-types:
	scripts/client-types.sh --check

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests

swift-test:
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/swift-test.sh

browser-test:
	Tests/browser/run.sh

bench:
	@scripts/install-deps.sh run
	$(SWIFT) run -c release reorder-bench crdt

bench-web:
	@scripts/install-deps.sh test
	$(SWIFT) build --product reorder
	Tests/browser/run.sh -m perf -s -k long_tasks

load:
	@scripts/install-deps.sh load
	scripts/load.sh

# Fuzz/ is its own SwiftPM package (the root build never sees it). `make test` builds its targets
# (a debug build, Fuzz/build.sh) so that they follow the root's code; running them is `make fuzz`.
fuzz-build:
	Fuzz/build.sh

# Not part of `make test`: long, opt-in runs. FUZZ_SECONDS (default 60) per target, FUZZ_RUNS for a
# fixed count, FUZZ_TARGETS to pick.
fuzz:
	@scripts/install-deps.sh run
	FUZZ_SECONDS=$${FUZZ_SECONDS:-60} Fuzz/run.sh

# SOAK_CYCLES (default 100) kills and restarts per mode; SOAK_MODE single|cluster|redis-cluster runs
# one (default both: single, then cluster; redis-cluster: 3 nodes over a 3-master Redis Cluster).
soak:
	@scripts/install-deps.sh soak
	$(SWIFT) build -c release --product reorder
	scripts/soak.sh

clean:
	rm -rf .build
