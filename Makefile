# loci — build and test. A plain `go build ./cmd/loci` works too: loci needs
# no build tag (its keyword index is its own, not SQLite FTS5).
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build windows run install test test-short vet fmt bench eval clean fuzz
PREFIX  ?= $(HOME)/.local

# Go fuzz targets, as package:Target. Each has a seed corpus in its
# package's testdata/fuzz/<Target>; `make test` runs every target for
# FUZZ_SMOKE, `make fuzz` for FUZZTIME.
FUZZ_TARGETS := ./palace/redact:FuzzString ./palace/redact:FuzzJSON ./palace/bm25:FuzzTokenize ./palace/bm25:FuzzExpand \
                ./server/httpapi:FuzzFilter ./server:FuzzNDJSON ./server:FuzzToolArgs \
                ./cmd/loci/claudecode:FuzzTranscript ./palace/words:FuzzCaseParts ./palace/words:FuzzLegible ./palace/words:FuzzEachEmoji \
                ./palace:FuzzTimeScan ./palace:FuzzExcerptWithin ./palace:FuzzSearchedTerms ./cmd/loci/claudecode:FuzzEndsOf ./cmd/loci/chatexport:FuzzWhatsApp ./cmd/loci/chatexport:FuzzLINE ./cmd/loci/chatexport:FuzzJSONExports
FUZZ_SMOKE   ?= 3s
FUZZTIME     ?= 2m

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/loci ./cmd/loci

# windows: cross-compile bin/loci.exe for windows/amd64 (SQLite's C with
# MinGW-w64; Debian: apt-get install gcc-mingw-w64-x86-64-posix).
WINDOWS_CC ?= x86_64-w64-mingw32-gcc
windows:
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$(WINDOWS_CC) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/loci.exe ./cmd/loci

# install: put the binary where host configs can rely on it ($(PREFIX)/bin).
install: build
	mkdir -p $(PREFIX)/bin
	install -m 0755 bin/loci $(PREFIX)/bin/loci.new && mv -f $(PREFIX)/bin/loci.new $(PREFIX)/bin/loci
	@echo "installed $(PREFIX)/bin/loci; next: loci install (sets up your agent host)"

# run: build, then serve MCP on stdio with the embedded defaults. stdout
# carries JSON-RPC frames only, so a host may spawn `make run` itself: the
# build and its echoed command go to stderr, and make echoes nothing else.
run:
	@$(MAKE) --no-print-directory build >&2
	@exec ./bin/loci serve --palace default

# PLATFORM_PKGS are the packages that hold files for some systems only
# (mmap, the AMX permission, a child's death signal and user) and need no cgo.
PLATFORM_PKGS = ./palace/index/... ./palace/bm25/... ./palace/embed/... ./palace/store/postgres/pgserver/...

# test: the whole suite, as CI runs it (.ci/run calls exactly this).
test: build
	$(GO) vet ./...
	# The benchmarks and soak runs behind build tags are not run here; vet
	# them so that they keep compiling.
	$(GO) vet -tags 'sqlite_fts5 bench eval stdiobench dreambench hookbench soak crosstest' ./...
	# The packages with files for some systems only, type-checked for macOS
	# on both its CPUs and for Windows (the rest needs cgo for SQLite: for
	# Windows the whole binary is cross-compiled with MinGW-w64 and run under
	# Wine by cmd/loci/windows_test.go; a Linux host has no compiler for macOS).
	GOOS=darwin GOARCH=amd64 $(GO) vet $(PLATFORM_PKGS)
	GOOS=darwin GOARCH=arm64 $(GO) vet $(PLATFORM_PKGS)
	GOOS=windows GOARCH=amd64 $(GO) vet $(PLATFORM_PKGS)
	# TZ=UTC: the suite's wall clocks without a zone ("[30/05/2023, 00:30]")
	# are read in the machine's zone; the tests that show that set their own.
	TZ=UTC $(GO) test -count=1 -timeout 15m ./...
	# The keyword tokenizer against SQLite FTS5's own (needs go-sqlite3 with FTS5).
	$(GO) test -count=1 -tags sqlite_fts5 ./palace/bm25/
	# The arm64 (NEON) kernels: these packages' tests built for linux/arm64
	# and run under QEMU (palace/internal/crosstest). A step of its own, after
	# the suite, so that emulation's load never meets the suite's timed tests.
	$(GO) test -count=1 -tags crosstest -run '^TestKernelsOnArm64$$' ./palace/embed/use/ ./palace/index/
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZ_SMOKE)

# fuzz: every fuzz target for FUZZTIME (failing inputs land in testdata/fuzz).
# A run that ends in "context deadline exceeded" without writing a failing
# input is the fuzzing engine's own race at the end of a timed run
# (go.dev/issue/75804, common on a loaded machine), not a finding: it is
# reported and the next target runs. Any other failure stops with the run's
# output.
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; dir=$$pkg/testdata/fuzz/$$name; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		before=$$(ls $$dir 2>/dev/null | wc -l); log=$$(mktemp); \
		if ! $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) "$$pkg" >$$log 2>&1; then \
			if [ "$$(ls $$dir 2>/dev/null | wc -l)" = "$$before" ] && grep -q 'context deadline exceeded' $$log; then \
				echo "  stopped by the fuzzing engine's deadline race (go.dev/issue/75804); no failing input"; \
			else \
				grep -v '^fuzz: elapsed' $$log | tail -40; rm -f $$log; exit 1; \
			fi; \
		fi; \
		rm -f $$log; \
	done

test-short:
	TZ=UTC $(GO) test -short ./...

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
