# Reorder: the two commands of the README, plus benchmarks and load runs.
#   make run    installs missing packages, builds in release, serves the demo boards on :8080
#   make test   installs what the tests need, then lint + import check + unit/integration + browser tests

SWIFT ?= swift
RUN_FLAGS ?= --demo

.PHONY: run test build lint check-imports swift-test browser-test bench bench-web load clean

run:
	@scripts/install-deps.sh run
	$(SWIFT) build -c release --product reorder
	.build/release/reorder serve $(RUN_FLAGS)

build:
	@scripts/install-deps.sh run
	$(SWIFT) build

test:
	@scripts/install-deps.sh test
	$(MAKE) --no-print-directory check-imports lint swift-test browser-test

check-imports:
	scripts/check-imports.sh

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests

swift-test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

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

clean:
	rm -rf .build
