# ccmem — see README.md. Everything builds into ./lib/ccmem; nothing is
# installed outside this folder except by `make install`. (./bin/ccmem is
# a committed script: the plugin's `ccmem` on the model's PATH, which runs
# the built one.)

GO        ?= go
LIB       := lib/ccmem
HOOKS     := ./hooks/sessionstart ./hooks/userpromptsubmit ./hooks/stop ./hooks/precompact ./hooks/pretooluse ./hooks/posttoolusefailure ./hooks/subagentstart
GOFLAGS_BUILD := -trimpath -ldflags='-s -w'
# Every go command builds without the clone's path in what it compiles, so a
# fresh clone finds in Go's build cache what another clone compiled (make
# test in a new clone: two minutes less).
GOFLAGS := $(strip $(filter-out -trimpath,$(GOFLAGS)) -trimpath)
export GOFLAGS

# goreleaser, built once from the version tools/go.mod pins (its own module:
# the product's go.mod stays small) into .cache, and reused. The first
# build downloads and compiles some 330 modules: it says so, and counts.
GORELEASER_VERSION := $(shell sed -n 's/^[[:space:]]*github.com\/goreleaser\/goreleaser\/v2 \(v[^ ]*\).*/\1/p' tools/go.mod)
GORELEASER := $(CURDIR)/.cache/goreleaser-$(GORELEASER_VERSION)

.PHONY: all build test test-steps unit e2e e2e-latest demo install uninstall vet cross release-snapshot release-pin torture clean claude-code codex gemini opencode test-tools newcomer bench bench-peers bench-triage bench-go fuzz recall agents

all: build

## build: compile ccmem, its hooks and ccmem-ui into ./lib/ccmem (bin/ccmem, which the plugin puts
## on the model's PATH, runs lib/ccmem/ccmem)
build:
	$(GO) build $(GOFLAGS_BUILD) -o $(LIB)/ ./cmd/ccmem $(HOOKS) ./cmd/ccmem-ui

## demo: run sessionstart on a built-in sample store and print what it injects (the demo is
## built with the binaries' own flags, so a cold run compiles the standard library once)
demo:
	@echo "demo: building ccmem, its hooks and the demo (the first time compiles Go's standard library: a minute or two)"
	@$(GO) build $(GOFLAGS_BUILD) -o $(LIB)/ ./cmd/ccmem $(HOOKS) ./cmd/ccmem-ui
	@mkdir -p .cache && $(GO) build $(GOFLAGS_BUILD) -o .cache/demo ./scripts/demo
	@.cache/demo

## test: vet, every target's build and vet (tests type-checked), the demo's self-check, unit tests,
## testscripts and the real-client end-to-end tests (the pinned client is fetched first);
## each step says what it does, and the tests report as they finish
## and last, the README's two commands again as a new user would run them (make newcomer)
test:
	@start=$$(date +%s); took() { t=$$(( $$(date +%s) - start )); echo "$$((t / 60))m$$((t % 60))s"; }; \
	if $(MAKE) --no-print-directory test-steps; then echo "make test: passed in $$(took)"; \
	else echo "make test: FAILED after $$(took)"; exit 1; fi

# SLOWEST are the packages whose tests take longest, listed first so that
# go test starts them first and the others fill the second core beside
# them (listed in go list's order, the slowest started last and ran alone).
SLOWEST := github.com/ccmem/ccmem/pkg/gitsync github.com/ccmem/ccmem/internal/dev/evalset \
	github.com/ccmem/ccmem/internal/dev/devcorpus github.com/ccmem/ccmem/testscripts

## test-steps: make test's steps, untimed. The other agents' clients are fetched in the
## background while the unit tests run (npm waits on the network more than on the CPU); the
## end-to-end tests start once they are here.
test-steps: vet cross build claude-code test-tools
	@echo "test: the demo's self-check"
	@mkdir -p .cache && $(GO) build $(GOFLAGS_BUILD) -o .cache/demo ./scripts/demo && .cache/demo >/dev/null
	@echo "test: unit tests and testscripts (the other agents' clients fetched beside them)"
	@( bash scripts/install-codex.sh && bash scripts/install-gemini.sh && bash scripts/install-opencode.sh ) >.cache/clients.log 2>&1 & clients=$$!; \
	$(GO) run ./scripts/testprogress -count=1 -timeout 30m $$( { printf '%s\n' $(SLOWEST); $(GO) list ./... | grep -v '/e2e$$'; } | awk '!seen[$$0]++'); unit=$$?; \
	wait $$clients || echo "test: fetching the other agents' clients failed (.cache/clients.log); their end-to-end tests fetch them again"; \
	[ $$unit -eq 0 ]
	@echo "test: end-to-end tests with the pinned Claude Code against the scripted API"
	@mkdir -p .cache/test-artifacts
	@$(GO) run ./scripts/testprogress -tests -count=1 -timeout 30m ./e2e/ -artifacts -outputdir=$(CURDIR)/.cache/test-artifacts
	@$(NEWCOMER)

## newcomer: in a fresh clone with HOME an empty folder (npm's cache empty, Go's shared), as a
## new user: make demo, make test's recipe and install steps, and the end-to-end tests that need
## what those install (the client, a browser, git)
newcomer:
	@$(NEWCOMER)

# NEWCOMER is newcomer's recipe, which test-steps runs last (a line with $$(MAKE) in it
# would run under make -n, which the newcomer's own check does).
NEWCOMER = if [ -n "$$CCMEM_NEWCOMER" ]; then echo "newcomer: skipped (this is the newcomer's own run)"; \
	else echo "test: the README's commands in a fresh clone as a new user (HOME empty)"; bash scripts/newcomer.sh; fi

## unit: everything but the real-client end-to-end tests
unit:
	$(GO) test -short -count=1 ./...

## e2e: only the end-to-end tests with the pinned Claude Code (CLAUDE_CODE_VERSION=2.1.x make e2e
## runs them with another, fetched into its own cache)
e2e: claude-code test-tools
	@mkdir -p .cache/test-artifacts
	$(GO) test -count=1 -v ./e2e/ -artifacts -outputdir=$(CURDIR)/.cache/test-artifacts

## e2e-latest: the end-to-end tests with the newest Claude Code on npm
e2e-latest:
	@v=$$(npm view @anthropic-ai/claude-code version 2>/dev/null) || { echo "e2e-latest: npm view @anthropic-ai/claude-code version failed"; exit 1; }; \
	echo "e2e-latest: Claude Code $$v"; CLAUDE_CODE_VERSION=$$v $(MAKE) --no-print-directory e2e

## claude-code: fetch the pinned Claude Code into .cache/ (the e2e tests do it too)
claude-code:
	@bash scripts/install-claude-code.sh >/dev/null

## codex: fetch the pinned Codex CLI into .cache/ (its e2e test does it too)
codex:
	@bash scripts/install-codex.sh >/dev/null

## gemini: fetch the pinned Gemini CLI into .cache/ (its e2e test does it too)
gemini:
	@bash scripts/install-gemini.sh >/dev/null

## opencode: fetch the pinned opencode and its plugin package into .cache/ (its e2e test does it too)
opencode:
	@bash scripts/install-opencode.sh >/dev/null

## test-tools: the programs the e2e tests drive (tmux, chromium, git) from Debian's packages when
## missing, and playwright-core from npm into .cache/
test-tools:
	@bash scripts/install-test-tools.sh
	@bash scripts/install-playwright.sh >/dev/null

## bench: whole-process timings of every hook on generated stores, with baselines and targets,
## then the recall precision report
bench: build
	$(GO) run ./internal/dev/bench

## bench-triage: what triage, on by default, adds to a turn's end: the stop hook with triage on
## and off in the same rounds (docs/benchmarks.md)
bench-triage: build
	$(GO) run ./internal/dev/bench -triage

## bench-peers: claude-mem's hook commands timed beside ccmem's on the same payloads (fetches
## claude-mem and Bun from npm into .cache/peers; skips with one line when it cannot)
bench-peers: build
	@if bash scripts/install-peers.sh; then $(GO) run ./internal/dev/bench -peers; fi

## recall: the evaluation corpus (realistic sessions replayed through the hooks: ccmem beside its engine over
## the full text, a plain BM25 and grep), then the precision of search and per-prompt recall on generated corpora
recall: build
	$(GO) run ./internal/dev/bench -recall

## agents: other agents' sessions from real people's public folders (Codex CLI, Gemini CLI), laid out
## under /tmp and imported: sessions, prompts, files changed and projects, the raw files beside ccmem
agents:
	$(GO) run ./internal/dev/agentcorpus

## bench-go: Go benchmarks (Stop on 1 MB vs 100 MB transcripts, first-pass MB/s)
bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./pkg/...

## torture: concurrent and random-SIGKILL rounds over every hook and writing command, checking
## ccmem's invariants after each (a few minutes; not part of make test)
torture:
	$(GO) run ./internal/dev/torture

## fuzz: run every fuzz target for FUZZTIME each (default 1m); findings join the corpus
fuzz:
	@bash scripts/fuzz.sh

vet:
	@echo "vet: go vet, gofmt, actionlint, staticcheck and deadcode"
	$(GO) vet ./...
	$(GO) tool -modfile=tools/go.mod actionlint
	$(GO) tool -modfile=tools/go.mod staticcheck ./...
	@out=$$($(GO) tool -modfile=tools/go.mod deadcode -test ./...); \
	if [ -n "$$out" ]; then echo "deadcode: these functions are reached by nothing, not even a test:"; echo "$$out"; exit 1; fi
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt: these files are not formatted:"; echo "$$out"; exit 1; fi

## cross: build and vet (tests type-checked) for macOS and Windows (one architecture each: no file is built for an architecture)
cross:
	@bash scripts/cross.sh

## release-snapshot: what a release publishes, built locally into ./dist by goreleaser (pinned in
## tools/go.mod, run with go tool): six archives, SHA256SUMS, .deb/.rpm/.apk, a Homebrew formula
## and a Scoop manifest, all with the plugin's version; nothing is published
release-snapshot: $(GORELEASER)
	CCMEM_VERSION=$$(sed -n 's/^  "version": "\(.*\)",$$/\1/p' .claude-plugin/plugin.json) \
		$(GORELEASER) release --snapshot --clean --skip=publish --parallelism 1

$(GORELEASER):
	@echo "release-snapshot: building goreleaser $(GORELEASER_VERSION) once into .cache (pinned in tools/go.mod)."
	@echo "release-snapshot: the first time downloads and compiles about 330 modules: 20 minutes and 2 GB on a small machine; later runs reuse it."
	@mkdir -p $(CURDIR)/.cache
	@$(GO) mod download -modfile=tools/go.mod && echo "release-snapshot: modules downloaded; compiling…"
	@$(GO) build -modfile=tools/go.mod -v -o $@.tmp github.com/goreleaser/goreleaser/v2 2>&1 | \
		awk '/^[a-z0-9.-]+\.[a-z]+\// || /^[a-z]+(\/|$$)/ { n++; if (n % 100 == 0) { printf "release-snapshot: %d packages compiled…\n", n; fflush() } next } { print }'
	@test -x $@.tmp && mv $@.tmp $@ && echo "release-snapshot: goreleaser ready: $@"

## release-pin: build the release reproducibly (release-snapshot) and pin its six archives' SHA-256 in
## .claude-plugin/release.sha256, which the plugin checks a download against; run before tagging a release
release-pin: release-snapshot
	$(GO) run ./scripts/releasepin

## install: build, then wire ccmem into your Claude Code (~/.local, ~/.claude/settings.json)
install: build
	$(LIB)/ccmem install

## uninstall: remove ccmem's hooks and binaries (your memory stays)
uninstall: build
	$(LIB)/ccmem uninstall

clean:
	rm -rf lib dist
