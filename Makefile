# neardup: build, test, demo, benchmarks, man pages.

GO       ?= go
PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR   := bin
STAGES   := $(notdir $(wildcard cmd/*))
# The recipes installed beside the stages, which they run: dedup
# (examples/dedup.sh) and dedup-incremental (examples/incremental.sh).
RECIPES  := dedup dedup-incremental
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/neardup/neardup/internal/cli.Version=$(VERSION)
FUZZTIME ?= 30s
BENCHTIME ?= 1s

.PHONY: all build test test-short check vet fmt-check man bench speed speed-ab scale copies-bench vectors-bench parts-recall pairs-recall larger-than-memory degenerate-bench peers fuzz demo install clean beam beam-test beam-portable-test

all: build

# The stages are linked statically (no cgo: a dependency imports net, whose
# resolver they never use): a process starts without the dynamic loader,
# about half a millisecond sooner, three times in a pipeline; and without
# urfave/cli's man page writer (the tag urfave_cli_no_docs: the man pages
# are made by internal/tools/genman), whose packages' init took another
# 0.3 to 0.5 ms.
build:
	@mkdir -p $(BINDIR)
	CGO_ENABLED=0 $(GO) build -trimpath -tags urfave_cli_no_docs -ldflags '$(LDFLAGS)' -o $(BINDIR)/ ./cmd/...
	install -m 755 examples/dedup.sh $(BINDIR)/dedup
	install -m 755 examples/incremental.sh $(BINDIR)/dedup-incremental

# Every test: unit, statistical, fuzz seeds, end-to-end scripts; vet, gofmt
# and the man pages and cmd/*/doc.go being current.
test: vet fmt-check
	$(GO) test -count=1 ./...

# The loop to run while working: every package, without the slow
# statistical runs and the large end-to-end scripts (under a minute).
test-short:
	$(GO) test -short ./...

check: test

# The Apache Beam pipeline is its own module (beam/go.mod), so that the
# toolkit keeps its few dependencies: it is built and tested apart. A cold
# build of the Beam SDK takes minutes; its tests run on Prism in seconds.
beam:
	@mkdir -p $(BINDIR)
	cd beam && $(GO) build -o ../$(BINDIR)/ ./cmd/neardup-beam

# The SDK's loopback runs leave an empty file each in the temporary
# directory: TMPDIR is one of the test's own, removed after.
beam-test:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cd beam && $(GO) vet ./... && TMPDIR=$$tmp $(GO) test -count=1 ./...

# The job on the path it takes on a cluster: Beam's job server (Prism) and
# the Go SDK's worker pool each run as a process of their own, built into
# bin/beam-sdk/ (apart from neardup's commands) from the Beam version
# beam/go.mod pins; neardup-beam is submitted to Prism (--runner=universal,
# --environment_type=EXTERNAL) and its workers run the staged binary. Its
# pairs, clusters, kept documents and report are compared with the command
# line's on real documents with planted copies (examples/beam-portable.sh;
# N, JOB_PORT, SHARDS; the worker pool takes port 50000).
beam-portable-test: build beam
	cd beam && $(GO) build -o ../$(BINDIR)/beam-sdk/prism github.com/apache/beam/sdks/v2/go/cmd/prism
	cd beam && $(GO) build -o ../$(BINDIR)/beam-sdk/beam-boot github.com/apache/beam/sdks/v2/go/container
	./examples/beam-portable.sh

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The man pages, and each command's manual as its package doc (cmd/*/doc.go).
man:
	$(GO) run ./internal/tools/genman man cmd

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./internal/...
	./examples/bench.sh

# Speed on real text in many languages against md5sum's time on the same
# file: the fused and piped pipelines on both cores, one core, and each
# stage's share (examples/speed.sh; N documents a language, RUNS, SHINGLE).
speed: build
	./examples/speed.sh

# The same rows for two builds side by side, interleaved, so that both see
# the machine in the same state (examples/speed-ab.sh; OLD is the directory
# of the other build's binaries, ROUNDS).
speed-ab: build
	@[ -n "$(OLD)" ] || { echo "make speed-ab OLD=DIR: DIR holds the binaries to compare bin/ with" >&2; exit 2; }
	./examples/speed-ab.sh $(OLD) bin

# The dedup job (examples/dedup.sh) on synthetic crawls of 1, 2, 5 and 10
# million documents given as .jsonl.zst: each stage's wall and CPU time and
# peak memory, the scratch space, the cost per document, and the same run
# under a hard memory limit per process (examples/scale.sh; SIZES, DIR,
# LIMIT MiB). The 10-million corpus is some 26 GB of text: give DIR room.
scale: build
	./examples/scale.sh

# What copies cost: examples/dedup.sh on 1M synthetic documents with and
# without 100,000 copies and 20,000 one-word variants (N, COPIES, VARIANTS).
copies-bench: build
	./examples/copies-bench.sh

parts-recall: build
	./examples/parts-recall.sh

# Embedding dedup against brute force: 100,000 clustered vectors of 256
# dimensions, recall and precision at cosine 0.95 and 0.9 (band --hamming)
# and 0.95, 0.9 and 0.8 (band --cosine, 1024 bits) on 20,000 of them, the
# pipeline's vectors a CPU-second beside a brute-force scan
# (examples/vectors-bench.sh; N, NB, DIM, BITS, COSINES, LBITS, BANDED).
vectors-bench: build
	./examples/vectors-bench.sh

# The default pairs against the exact join on real documents (examples/pairs-recall.sh).
pairs-recall: build
	./examples/pairs-recall.sh

# The pipeline on a corpus several times a hard memory limit per process,
# against the in-memory pipeline (examples/larger-than-memory-bench.sh; DOCS, LIMIT).
larger-than-memory: build
	./examples/larger-than-memory-bench.sh

# Each stage's peak resident memory on degenerate input (one-word documents,
# one huge document, one huge bucket, one fingerprint shared by thousands)
# against the bound its man page states (examples/degenerate-bench.sh; N,
# SHARED, QUERIES, BUCKET, HUGE_MB, JOBS). Run it on a quiet machine.
degenerate-bench: build
	./examples/degenerate-bench.sh

# neardup against a Go peer (peers/, its own module: dgryski/go-minhash and
# ekzhu/minhash-lsh, 128 values, LSH at 0.8) on the same corpus, on one
# core: the peer to candidate pairs, neardup to verified pairs, the ratio
# of their times, and the peer's recall and precision (examples/peers.sh;
# N documents a language, ROUNDS; "examples/peers.sh speed" on make speed's
# corpus). Run it on a quiet machine. The module's own tests, apart from
# make test: cd peers && go vet ./... && go test ./...
peers: build
	./examples/peers.sh

# Every fuzz target of every package of the module (./...: internal/, cmd/,
# e2e/; beam/ is its own module and has none), each for FUZZTIME: 41
# targets, so about 21 minutes at the default 30s, plus a build for each.
# A package whose tests do not build stops the run, as does a finding (its
# input is written under the package's testdata/fuzz). Fuzzing files go
# under /dev/shm when there is one (testutil.FuzzDir).
fuzz:
	@n=0; for pkg in $$($(GO) list ./...); do \
	  list=$$($(GO) test -list '^Fuzz' $$pkg) || { echo "$$list"; exit 1; }; \
	  for f in $$(echo "$$list" | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; n=$$((n+1)); \
	    $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done; echo "fuzz: $$n targets, $(FUZZTIME) each, no finding"

# The dedup job (examples/dedup.sh) on the text files of the Go source tree:
# the files kept, the first lines of the report, the time (examples/demo.sh).
demo: build
	./examples/demo.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(addprefix $(BINDIR)/,$(STAGES) $(RECIPES)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BINDIR)
