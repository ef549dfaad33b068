# loci — build and test. Every go command needs the sqlite_fts5 tag (FTS5).
GO      ?= go
TAGS    := sqlite_fts5
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build run test test-short vet fmt bench eval clean

build:
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/loci ./cmd/loci

# run: build, then serve MCP on stdio with the embedded defaults.
run: build
	./bin/loci serve --palace default

# test: the whole suite, as CI runs it (.ci/run calls exactly this).
test: build
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -count=1 -timeout 15m ./...

test-short:
	$(GO) test -tags $(TAGS) -short ./...

vet:
	$(GO) vet -tags $(TAGS) ./...

fmt:
	gofmt -l -w .

bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
