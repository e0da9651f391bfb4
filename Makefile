# lockbench: `make run` runs the default comparison, `make test` the tests.
# Both install redis-server first when it is missing (Debian, as root).

GO        ?= go
BIN       := bin/lockbench
# Arguments of `make run`, e.g. make run RUN_ARGS="--clients 8,64 --hold exp:2ms"
RUN_ARGS  ?= --duration 5s

.PHONY: all build run test bench lint redis clean findings

all: build

build:
	$(GO) build -o $(BIN) ./cmd/lockbench

redis:
	@./scripts/ensure-redis.sh

run: build redis
	./$(BIN) run $(RUN_ARGS)

test: redis
	$(GO) test -race -count=1 -timeout 15m ./...
	@./scripts/check-leftovers.sh

# Runs every scenario against its variants (about two minutes) and writes
# docs/findings.md from that run.
findings: build redis
	./$(BIN) findings --out docs/findings.md

bench: redis
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin
