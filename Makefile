# kvtier build, test and tooling. `make test` runs everything CI runs.
GO      ?= go
PKG     := github.com/kvtier/kvtier
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X $(PKG)/cli.version=$(VERSION) -X $(PKG)/cli.commit=$(COMMIT)
# Fuzz budgets are counts, not durations: with Go 1.26 a duration -fuzztime
# races the coordinator's shutdown on a loaded machine and reports a bare
# "context deadline exceeded" without any failing input (golang/go#75804,
# fixed in Go 1.27). A count has no deadline to race.
FUZZTIME ?= 50000x
BENCHTIME ?= 1s
PREFIX  ?= /usr/local
UNITDIR ?= /etc/systemd/system
# The target architecture of build: amd64 or arm64 (`make build GOARCH=arm64`;
# both have committed BPF objects, see bpf/gen.go).
GOARCH  ?= $(shell $(GO) env GOARCH)

.PHONY: all build print-ldflags test unit lint fuzz bench bench-sim bench-scale bench-tiering generate e2e demo install install-files uninstall deb deb-package clean

all: build

## build: the static kvtier binary (no cgo) for GOARCH (amd64 or arm64)
build:
	CGO_ENABLED=0 GOARCH=$(GOARCH) $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o kvtier .

## print-ldflags: the -ldflags of build (tests and the demo build with them)
print-ldflags:
	@echo '$(LDFLAGS)'

## test: lint, unit and privileged tests, short fuzz runs, end-to-end tests
test: lint unit fuzz e2e

## unit: every package's tests (privileged ones run as root), printed as plain
##   go test prints them, then every skipped test with its reason
##   (internal/testsummary reads go test -json)
unit:
	CGO_ENABLED=0 bash -o pipefail -c '$(GO) test -count=1 -json ./... | $(GO) run ./internal/testsummary'

## lint: go vet and staticcheck (pinned in go.mod's tool block), and the
##   arm64 cross-build and vet (the arm64 BPF objects are parsed by bpf's
##   TestObjectsPerArch on every host; no aarch64 guest runs them)
lint:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	CGO_ENABLED=0 GOARCH=arm64 $(GO) build ./...
	GOARCH=arm64 $(GO) vet ./...

## fuzz: a short run of every fuzz target
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## bench: every benchmark
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-sim: kvtier sim against libCacheSim's cachesim, whole process, on a
##   5M-request Zipf(1.0) CSV over 1M objects (generated once into
##   $(SIMBENCH_TRACE)), LRU, ARC and S3-FIFO at 100,000 objects, alternating,
##   $(SIMBENCH_ROUNDS) rounds: accesses/s, ratio, peak RSS, hit ratios (not in test)
CACHESIM        ?= ../shared/tools/libcachesim/cachesim
SIMBENCH_TRACE  ?= .cache/zipf1.0-5M-1M.csv
SIMBENCH_ROUNDS ?= 3
bench-sim: build
	CGO_ENABLED=0 $(GO) run ./internal/simbench -kvtier ./kvtier -cachesim $(CACHESIM) \
	  -trace $(SIMBENCH_TRACE) -rounds $(SIMBENCH_ROUNDS)

## bench-scale: issue 13's daemon, planner and policy figures against their
##   targets (10M blocks, several GiB and about 4 minutes a round; root for the
##   daemon's): SCALE_ARGS='-base REV' alternates with another revision and
##   prints ratios, '-small' leaves out 10M, '-only policy,plan,daemon,hints'
##   picks suites, '-rounds N' (default 2), '-keep DIR' keeps the raw output
SCALE_ARGS ?=
bench-scale:
	CGO_ENABLED=0 $(GO) run ./internal/scalebench $(SCALE_ARGS)

## generate: rebuild the BPF objects with clang (bpf2go; Debian: apt-get install clang llvm libbpf-dev)
generate:
	$(GO) generate ./...

## e2e: emulated-CXL end-to-end tests in a QEMU guest
##   (QEMU guests, TCG; test/deps.sh installs QEMU and busybox-static and
##   fetches the Debian kernels into test/.cache on first use)
E2ETIMEOUT ?= 20m
e2e:
	CGO_ENABLED=0 $(GO) test -tags e2e -count=1 -v -timeout $(E2ETIMEOUT) ./test/...

## demo: boot a two-node guest (node 1 an emulated CXL expander), run the
##   daemon and a KV workload in it and tell the story (about 40 seconds;
##   as root, test/deps.sh installs QEMU and fetches the kernel on first use)
demo:
	CGO_ENABLED=0 $(GO) run ./test/demo

## bench-tiering: the head-to-head tiering benchmark of issue 11: first touch,
##   kernel TPP, DAMON DAMOS and kvtier (damon, auto, hints), one QEMU guest
##   each, full phases (about 35 minutes); writes test/headtohead/results
bench-tiering:
	CGO_ENABLED=0 $(GO) run ./test/headtohead -out test/headtohead/results

## install: binary, systemd unit, default config (kept if present), completions,
##   Grafana dashboard (DESTDIR and PREFIX as usual)
BIN     ?= kvtier
DISTDIR ?= dist
install: build
	$(MAKE) --no-print-directory install-files

## install-files: install an already built $(BIN)
install-files:
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/kvtier
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/bin/kvtier|$(PREFIX)/bin/kvtier|' systemd/kvtier.service > $(DESTDIR)$(UNITDIR)/kvtier.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/kvtier.service
	test -e $(DESTDIR)/etc/kvtier/kvtier.hcl || install -D -m 0644 systemd/kvtier.hcl $(DESTDIR)/etc/kvtier/kvtier.hcl
	install -D -m 0644 systemd/grafana/kvtier.json $(DESTDIR)$(PREFIX)/share/kvtier/grafana/kvtier.json
	install -D -m 0644 systemd/kernel-tunables.conf $(DESTDIR)$(PREFIX)/share/kvtier/kernel-tunables.conf
	install -D -m 0644 systemd/metrics-network.conf $(DESTDIR)$(PREFIX)/share/kvtier/metrics-network.conf
	install -D -m 0644 systemd/examples/kvtier-reference.hcl $(DESTDIR)$(PREFIX)/share/doc/kvtier/examples/kvtier-reference.hcl
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(abspath $(BIN)) completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kvtier
	$(abspath $(BIN)) completion zsh > $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_kvtier
	$(abspath $(BIN)) completion fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/kvtier.fish
	@test -n "$(DESTDIR)" || ! test -d /run/systemd/system || systemctl daemon-reload

## uninstall: remove what install put in place (the config stays)
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kvtier $(DESTDIR)$(UNITDIR)/kvtier.service \
	  $(DESTDIR)$(PREFIX)/share/kvtier/grafana/kvtier.json $(DESTDIR)$(PREFIX)/share/kvtier/kernel-tunables.conf \
	  $(DESTDIR)$(PREFIX)/share/kvtier/metrics-network.conf \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kvtier \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_kvtier \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/kvtier.fish \
	  $(DESTDIR)$(PREFIX)/share/doc/kvtier/examples/kvtier-reference.hcl
	-rmdir $(DESTDIR)$(PREFIX)/share/kvtier/grafana $(DESTDIR)$(PREFIX)/share/kvtier \
	  $(DESTDIR)$(PREFIX)/share/doc/kvtier/examples $(DESTDIR)$(PREFIX)/share/doc/kvtier 2>/dev/null
	@test -n "$(DESTDIR)" || ! test -d /run/systemd/system || systemctl daemon-reload

## deb: a Debian package built with dpkg-deb ($(DISTDIR)/kvtier_VERSION_ARCH.deb)
deb: build
	$(MAKE) --no-print-directory deb-package

## deb-package: package an already built $(BIN)
deb-package:
	systemd/mkdeb.sh "$(VERSION)" "$(DISTDIR)" "$(BIN)"

clean:
	rm -rf kvtier dist
