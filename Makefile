# robota-go — see README.md. Every Go tool (buf, protoc plugins) is pinned in
# go.mod and run with `go tool`, so a fresh machine needs only Go.
GO      ?= go
BIN     := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/robota-sdk/robota-go/pkg/version.Version=$(VERSION)

.PHONY: all build proto proto-check lint test bench demo clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/robota ./cmd/cli
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/robota-engine ./cmd/engine
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/robota-worker ./cmd/worker

proto:
	$(GO) tool buf generate

# Regenerate into a temporary directory and diff against the committed code:
# a .proto change without `make proto` fails here.
proto-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GO) tool buf generate --output "$$tmp" && \
	if ! diff -ru gen "$$tmp/gen"; then \
		echo "proto-check: gen/ is out of date with proto/ — run 'make proto' and commit the result" >&2; exit 1; \
	fi && echo "proto-check: gen/ matches proto/"

lint:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool buf lint

test: lint proto-check build
	ROBOTA_BIN_DIR=$(BIN) $(GO) test -race -count=1 -timeout 15m ./...

# Benchmarks report ratios against baselines measured in the same run. The
# search benchmarks walk $$(go env GOROOT)/src (or $$ROBOTA_BENCH_TREE) and
# compare with rg, grep -rn and find, so they run a fixed number of times.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $$($(GO) list ./... | grep -v /pkg/tools/search)
	$(GO) test -run '^$$' -bench 'BenchmarkGrepContent|BenchmarkGlob' -benchtime 10x ./pkg/tools/search/

demo: build
	$(GO) run ./internal/demo --bin $(BIN) --examples $(CURDIR)/examples

clean:
	rm -rf $(BIN)
	$(GO) clean -testcache
