# robota-go — see README.md. Every Go tool (buf, protoc plugins) is pinned in
# go.mod and run with `go tool`, so a fresh machine needs only Go.
GO      ?= go
BIN     := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/robota-sdk/robota-go/pkg/version.Version=$(VERSION)
# How the binaries are built (DESIGN.md decision 10, PERF-NOTES.md): grpcnotrace keeps
# grpc's x/net/trace, and with it text/template's reflect-method mark, out of the link;
# CGO_ENABLED=0 gives static binaries (no dynamic loader, no libc pages). `go test -race`
# needs cgo, so tests keep the environment's CGO_ENABLED and only share the tags.
# Override to measure a variant: make build TAGS= CGO=1.
TAGS    ?= grpcnotrace
CGO     ?= 0
BUILD   := CGO_ENABLED=$(CGO) $(GO) build -tags '$(TAGS)' -ldflags '$(LDFLAGS)'

.PHONY: all build proto proto-check lint test bench demo clean

all: build

build:
	$(BUILD) -o $(BIN)/robota ./cmd/cli
	$(BUILD) -o $(BIN)/robota-engine ./cmd/engine
	$(BUILD) -o $(BIN)/robota-worker ./cmd/worker
	$(BUILD) -o $(BIN)/robota-sandbox ./cmd/sandbox
	$(BUILD) -o $(BIN)/robota-provider ./cmd/provider

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
	$(GO) vet -tags '$(TAGS)' ./...
	$(GO) tool buf lint

test: lint proto-check build
	ROBOTA_BIN_DIR=$(BIN) $(GO) test -race -tags '$(TAGS)' -count=1 -timeout 15m ./...

# Benchmarks report ratios against baselines measured in the same run. The
# search benchmarks walk $$(go env GOROOT)/src (or $$ROBOTA_BENCH_TREE) and
# compare with rg, grep -rn and find, so they run a fixed number of times.
# The process benchmarks (internal/procbench) build robota and a hello-world
# binary with this Makefile's TAGS and CGO (or take robota from
# $$ROBOTA_BIN_DIR) and measure whole processes, 20 paired runs each. The worker
# spawn benchmarks (pkg/runner/launcher) build robota-worker and the hello-world
# binary the same way (or take robota-worker from $$ROBOTA_BIN_DIR).
# The session's sandbox benchmarks start robota-sandbox, as robota does (not the test binary).
# The remote throughput (pkg/runner/remote) runs 40 paired rounds: its figure is a
# ratio of two p50s of ~40 ms rounds, which the default second leaves too few of.
bench: build
	ROBOTA_SANDBOX_HELPER=$(BIN)/robota-sandbox ROBOTA_BENCH_TAGS='$(TAGS)' ROBOTA_BENCH_CGO=$(CGO) $(GO) test -tags '$(TAGS)' -run '^$$' -bench . -skip 'BenchmarkThroughput$$' -benchmem $$($(GO) list ./... | grep -v '/pkg/tools/search\|/internal/procbench')
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench 'BenchmarkThroughput$$' -benchtime 40x ./pkg/runner/remote/
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench 'BenchmarkGrepContent|BenchmarkGlob' -benchtime 10x ./pkg/tools/search/
	ROBOTA_BENCH_TAGS='$(TAGS)' ROBOTA_BENCH_CGO=$(CGO) $(GO) test -run '^$$' -bench . -benchtime 20x ./internal/procbench/

demo: build
	$(GO) run ./internal/demo --bin $(BIN) --examples $(CURDIR)/examples

clean:
	rm -rf $(BIN)
	$(GO) clean -testcache
