# loci — build and test. A plain `go build ./cmd/loci` works too: loci needs
# no build tag (its keyword index is its own, not SQLite FTS5).
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build run test test-short vet fmt bench eval clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/loci ./cmd/loci

# run: build, then serve MCP on stdio with the embedded defaults.
run: build
	./bin/loci serve --palace default

# test: the whole suite, as CI runs it (.ci/run calls exactly this).
test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 15m ./...
	# The keyword tokenizer against SQLite FTS5's own (needs go-sqlite3 with FTS5).
	$(GO) test -count=1 -tags sqlite_fts5 ./palace/bm25/

test-short:
	$(GO) test -short ./...

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
