# lockbench: `make run` runs the default comparison, `make test` the tests.
# Both install redis-server first when it is missing (Debian, as root); `make test`
# also valkey-server (the tests run on Valkey too) and headless Chromium, which the
# end-to-end test of lockbench report opens.

GO        ?= go
CC        ?= cc
BIN       := bin/lockbench
# The clock shim that clock faults preload into the redis-servers lockbench
# starts; lockbench finds it beside its binary (see clockshim/).
CLOCKSHIM := bin/lockbench-clock.so
# Arguments of `make run`, e.g. make run RUN_ARGS="--clients 8,64 --hold exp:2ms"
RUN_ARGS  ?= --duration 5s
# Length of `make soak`, e.g. make soak SOAK=1h
SOAK      ?= 5m

# The regression suite (a scenario file) and its baseline record; see docs/ci.md.
REGRESS_SUITE    ?= results/baselines/regress.yaml
REGRESS_BASELINE ?= results/baselines/regress.json
REGRESS_OUT      ?= results/runs/regress.json
# Extra run flags, e.g. REGRESS_ARGS="--target redis://127.0.0.1:6379" for a service container.
REGRESS_ARGS     ?=
REGRESS_FAIL_ON  ?= --fail-on 'throughput:-20%' --fail-on 'acquire.p99:+50%' --fail-on 'overlaps:>0' --fail-on 'lost_updates:>0'

# apt-get install, with one apt-get update first only when the install fails.
APT_INSTALL = DEBIAN_FRONTEND=noninteractive sh -c 'apt-get install -y -qq "$$@" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$$@" >/dev/null; }' apt-install
# npm ci in a driver folder when its node_modules is missing or older than its
# package-lock.json (npm writes node_modules/.package-lock.json on install).
NPM_CI = [ -f $(1)/node_modules/.package-lock.json ] && [ $(1)/node_modules/.package-lock.json -nt $(1)/package-lock.json ] || { command -v npm >/dev/null || { echo "drivers: npm not found (apt-get install -y nodejs npm)" >&2; exit 1; }; echo "drivers: npm ci in $(1)" >&2; cd $(1) && npm ci --no-audit --no-fund --loglevel=error >/dev/null; }

# A Python driver's virtual environment (python3 -m venv DIR/venv, then pip
# install --require-hashes of DIR/requirements.txt, from PyPI) when it is missing
# or older than its requirements file (venv/.installed is written last). Debian's
# python3 has venv's ensurepip only with python3-venv, installed when missing.
PY_VENV = [ -f $(1)/venv/.installed ] && [ $(1)/venv/.installed -nt $(1)/requirements.txt ] || { python3 -c 'import ensurepip, venv' 2>/dev/null || { echo "drivers: installing python3-venv" >&2; $(APT_INSTALL) python3 python3-venv; }; echo "drivers: python3 -m venv and pip install in $(1)" >&2; rm -rf $(1)/venv && python3 -m venv $(1)/venv && $(1)/venv/bin/pip install -q --disable-pip-version-check --require-hashes -r $(1)/requirements.txt >/dev/null && touch $(1)/venv/.installed; }

# The Redisson driver (drivers/redisson): one mvn package builds, from the committed
# pom.xml (every version pinned), offline first when ~/.m2 has it all, the thin
# target/redisson-driver.jar, target/redisson-observe.jar and Redisson's classpath in
# target/lib; target/.built, written last, says all three are there. Rebuilt only
# when that is missing or older than the pom or a source file, drivers/java-common's
# too (the bare loop the Java drivers share, compiled into each).
JAVA_COMMON_SRC := $(shell find drivers/java-common/src -name '*.java' 2>/dev/null)
REDISSON_JAR := drivers/redisson/target/.built
REDISSON_SRC := drivers/redisson/pom.xml $(shell find drivers/redisson/src -name '*.java' 2>/dev/null) $(JAVA_COMMON_SRC)
# ShedLock's driver (drivers/shedlock) the same way: target/shedlock-driver.jar and
# ShedLock's classpath in target/lib.
SHEDLOCK_JAR := drivers/shedlock/target/.built
SHEDLOCK_SRC := drivers/shedlock/pom.xml $(shell find drivers/shedlock/src -name '*.java' 2>/dev/null) $(JAVA_COMMON_SRC)
# Spring Integration's RedisLockRegistry driver (drivers/spring-redis-lock) too.
SPRING_LOCK_JAR := drivers/spring-redis-lock/target/.built
SPRING_LOCK_SRC := drivers/spring-redis-lock/pom.xml $(shell find drivers/spring-redis-lock/src -name '*.java' 2>/dev/null) $(JAVA_COMMON_SRC)
# The rslock driver (drivers/rslock): cargo build --release --locked from the committed
# Cargo.toml and Cargo.lock (every crate pinned), offline first when ~/.cargo has them all;
# rebuilt when the binary is missing or older than the manifest, the lock or a source.
# Cargo 1.85 or later (rustup's, in ~/.cargo/bin when not on PATH).
RSLOCK_BIN := drivers/rslock/target/release/rslock-driver
RSLOCK_SRC := drivers/rslock/Cargo.toml drivers/rslock/Cargo.lock $(shell find drivers/rslock/src -name '*.rs' 2>/dev/null)
CARGO      ?= $(shell command -v cargo 2>/dev/null || echo $(HOME)/.cargo/bin/cargo)

.PHONY: all build go-drivers cc clockshim run test test-loaded test-short bench lint redis valkey chromium clean findings regress baseline fuzz soak drivers

all: build

build: clockshim go-drivers
	$(GO) build -o $(BIN) ./cmd/lockbench

# The lock drivers written in Go, each into its folder beside its
# driver.json, where lockbench runs it (lockbench drivers lists them;
# docs/drivers.md).
go-drivers:
	$(GO) build -o drivers/go-lua/go-lua ./drivers/go-lua

# Without a C compiler lockbench still builds; only clock faults are refused
# (it says what to install). lockbench builds the shim itself, into the user's
# cache directory, when it finds none beside its binary.
clockshim: cc $(CLOCKSHIM)

# A C compiler, which the clock shim and go test -race need: Debian's gcc,
# installed when there is none (a warning where it cannot be).
cc:
	@command -v $(CC) >/dev/null 2>&1 || { echo "installing gcc (a C compiler: the clock shim, go test -race)" >&2; \
		$(APT_INSTALL) gcc libc6-dev || echo "warning: no C compiler, and gcc could not be installed" >&2; }

$(CLOCKSHIM): clockshim/src/clockshim.c
	@mkdir -p $(dir $@)
	@$(CC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl \
		|| echo "warning: $(CC) could not build $@: clock faults need it (apt-get install -y gcc)" >&2

redis:
	@./scripts/ensure-redis.sh

# Valkey beside Redis (--server valkey, --servers redis,valkey): the tests run
# lockbench on both; make run does not need it. On Debian 12 it comes from
# bookworm-backports, which the script adds to apt's sources.
valkey:
	@./scripts/ensure-valkey.sh

chromium:
	@./scripts/ensure-chromium.sh

# The lock drivers of drivers/ (see drivers/README.md): what each needs,
# installed only when missing, silent when all is there. One line per driver.
drivers: go-drivers $(REDISSON_JAR) $(SHEDLOCK_JAR) $(SPRING_LOCK_JAR) $(RSLOCK_BIN)
	@/usr/bin/python3 -c 'import redis' 2>/dev/null || { echo "drivers: installing python3-redis" >&2; $(APT_INSTALL) python3-redis; }
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "drivers: installing nodejs and npm" >&2; $(APT_INSTALL) nodejs npm; }
	@$(call NPM_CI,drivers/node-redlock)
	@$(call NPM_CI,drivers/sesame-redlock)
	@$(call NPM_CI,drivers/redlock-universal)
	@$(call NPM_CI,drivers/redis-semaphore)
	@$(call PY_VENV,drivers/redis-py-8)
	@$(call PY_VENV,drivers/python-redis-lock)
	@$(call PY_VENV,drivers/pottery-redlock)

# A Java driver's mvn package, offline first when ~/.m2 has it all; the stamp last.
MVN_PACKAGE = command -v mvn >/dev/null && command -v javac >/dev/null || { echo "drivers: installing maven and a JDK (openjdk-17-jdk-headless)" >&2; $(APT_INSTALL) openjdk-17-jdk-headless maven; }; echo "drivers: mvn package in $(1)" >&2; cd $(1) && { mvn -B -q -o package >/dev/null 2>&1 || mvn -B -q package; }

$(REDISSON_JAR): $(REDISSON_SRC)
	@$(call MVN_PACKAGE,drivers/redisson)
	@touch $@

$(SHEDLOCK_JAR): $(SHEDLOCK_SRC)
	@$(call MVN_PACKAGE,drivers/shedlock)
	@touch $@

$(SPRING_LOCK_JAR): $(SPRING_LOCK_SRC)
	@$(call MVN_PACKAGE,drivers/spring-redis-lock)
	@touch $@

$(RSLOCK_BIN): $(RSLOCK_SRC)
	@[ -x "$(CARGO)" ] || { echo "drivers: cargo not found (rustup: cargo and rustc 1.85 or later)" >&2; exit 1; }
	@echo "drivers: cargo build --release in drivers/rslock" >&2
	@cd drivers/rslock && { "$(CARGO)" build --release --locked --offline -q 2>/dev/null || "$(CARGO)" build --release --locked -q; }
	@touch $@

run: build redis
	./$(BIN) run $(RUN_ARGS)

# Runs a mixed workload for SOAK on one local redis-server, printing resident
# memory, heap and goroutines each minute; exit status 1 unless they stay flat.
soak: build redis
	./$(BIN) soak --duration $(SOAK)

# Three test binaries at once, the two longest (the fault tests and the
# runner's, about 250 s each) first, then the packages that mostly wait on
# servers, then the command's and the client-fault timing tests, then the
# rest: the suite waits more than it computes (see docs/testing.md).
TEST_ORDER = ./runner/faultsuite ./runner ./topologies ./variants ./faults ./clients \
	./driver/... ./workloads ./calibrate ./linearize ./witness ./cmd/lockbench ./runner/clientsuite ./...

# gotestsum (the version tools/go.mod requires) and tools/flakytests, which
# reads gotestsum's events for the "flaky:" lines; the rule below make test's
# builds both.
GOTESTSUM  := bin/gotestsum
FLAKYTESTS := bin/flakytests

# make test runs go test through gotestsum (tools/go.mod pins it), which
# reruns a failed test once (none when more than three failed) and then
# names each test that passed only on its rerun on a "flaky:" line: a defect
# (docs/testing.md). check-rerun.sh, first, proves that on a test made to fail
# its first run only (scripts/testdata/flaky).
test: redis valkey chromium clockshim drivers $(GOTESTSUM) $(FLAKYTESTS)
	@./scripts/check-rerun.sh -race -count=1 -timeout 15m -p 3
	./scripts/test-rerun.sh "$(TEST_ORDER)" -race -count=1 -timeout 15m -p 3
	@./scripts/check-leftovers.sh

# The first build needs the Go module proxy (or a module cache that has gotestsum).
$(GOTESTSUM) $(FLAKYTESTS) &: tools/go.mod tools/go.sum $(wildcard tools/flakytests/*.go)
	@mkdir -p bin
	@$(GO) -C tools build -o ../bin/ gotest.tools/gotestsum ./flakytests || { \
		echo "make test: could not build gotestsum from tools/go.mod (gotest.tools/gotestsum $$(sed -n 's/^\tgotest.tools\/gotestsum \(v[^ ]*\).*/\1/p' tools/go.mod)): the first build needs the Go module proxy ($$($(GO) env GOPROXY)) or a module cache that has it" >&2; exit 1; }

# Runs the tests of PKGS twice under -race beside a busy loop that takes one
# core, as CI's other test packages do: every test added or changed that
# times or counts anything passes it before it is committed (docs/testing.md).
# make test-loaded PKGS=./runner/faultsuite (several: PKGS="./runner ./faults").
ifneq ($(filter test-loaded,$(MAKECMDGOALS)),)
ifeq ($(strip $(PKGS)),)
$(error make test-loaded needs PKGS, the packages to test, e.g. make test-loaded PKGS=./runner/faultsuite)
endif
endif
test-loaded: redis valkey chromium clockshim drivers
	@GO=$(GO) ./scripts/test-loaded.sh $(PKGS)

# The quick tier for the inner loop: every test but those that fault the
# servers they start (pauses, kills, failovers, partitions, clock jumps,
# processes signalled), which skip under -short; no race detector. Four
# packages at once, four parallel tests in each, the runner (the longest)
# first: it keeps both cores busy (its time and CPU in docs/testing.md).
test-short: redis valkey chromium clockshim drivers
	$(GO) test -short -count=1 -p 4 -parallel 4 ./runner ./...

# Runs every scenario against its variants and the library drivers (34 minutes
# here with the 26 driver forms, 7 December; a JVM per Java cell) and writes
# docs/findings.md from that run; its section "Redis and Valkey" comes from
# lockbench findings --servers redis,valkey (8.5 minutes), "Client clocks in the
# libraries" from a third command named there, and the last one is written by
# hand.
findings: build redis drivers
	./$(BIN) findings --out docs/findings.md --variants drv:redis-py,drv:node-redlock,drv:sesame-redlock,drv:sesame-redlock-using,drv:redis-py-8,drv:python-redis-lock,drv:python-redis-lock-renew,drv:pottery-redlock,drv:redisson,drv:redisson-unsynced,drv:redisson-lease,drv:redisson-fenced,drv:redisson-semaphore,drv:shedlock,drv:shedlock-safe,drv:spring-redis-lock,drv:spring-redis-lock-pubsub,drv:spring-redis-lock-renew,drv:spring-redis-lock-pubsub-renew,drv:redis-semaphore,drv:redis-semaphore-semaphore,drv:redis-semaphore-redlock,drv:redlock-universal,drv:redlock-universal-using,drv:rslock,drv:rslock-using

# Runs the regression suite and compares it with the baseline: exit status 1
# on a significant regression beyond REGRESS_FAIL_ON, 2 on bad input.
regress: build
	@case "$(REGRESS_ARGS)" in *--target*|*--cluster*|*--sentinel*) ;; *) ./scripts/ensure-redis.sh ;; esac
	./$(BIN) run --scenario $(REGRESS_SUITE) $(REGRESS_ARGS) --out $(REGRESS_OUT) --format markdown
	./$(BIN) compare $(REGRESS_BASELINE) $(REGRESS_OUT) $(REGRESS_FAIL_ON)

# Records the baseline from the suite on this machine (commit it).
baseline: build redis
	./$(BIN) run --scenario $(REGRESS_SUITE) $(REGRESS_ARGS) --out $(REGRESS_BASELINE)

bench: redis
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Fuzzes each parser in turn for FUZZTIME (go test runs one -fuzz target at a time).
FUZZTIME ?= 10s
fuzz:
	$(GO) test ./workloads -run '^$$' -fuzz '^FuzzParseDistribution$$' -fuzztime $(FUZZTIME)
	$(GO) test ./workloads -run '^$$' -fuzz '^FuzzParseRate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./workloads -run '^$$' -fuzz '^FuzzParseStages$$' -fuzztime $(FUZZTIME)
	$(GO) test ./plan -run '^$$' -fuzz '^FuzzLoadScenario$$' -fuzztime $(FUZZTIME)
	$(GO) test ./faults -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./record -run '^$$' -fuzz '^FuzzParseThreshold$$' -fuzztime $(FUZZTIME)
	$(GO) test ./record -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin drivers/go-lua/go-lua drivers/redisson/target drivers/shedlock/target drivers/spring-redis-lock/target drivers/rslock/target
