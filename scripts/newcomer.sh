#!/usr/bin/env bash
# newcomer.sh runs the README's two commands as a newcomer would: in a fresh
# clone (with this checkout's uncommitted changes laid over it), as a new
# user whose HOME is an empty folder, so npm's cache, git's identity, tmux's
# and Claude Code's settings are all absent. Go's module and build caches
# are shared to keep it fast (the issue allows it); npm's is not.
#
# `make test` runs it as its last step (`make newcomer`). It does not run
# the whole suite again (the checkout's own make test just did): it runs
# make demo, checks make test's recipe, runs its install steps for the new
# user and the end-to-end tests that need what they install.
# NEWCOMER_ONLY=demo|install runs only that part (for quick checks).
set -uo pipefail

say() { echo "newcomer: $*" >&2; }
fail() { echo "newcomer: $*" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
command -v git >/dev/null || fail "git is not installed; it makes the fresh clone (apt-get install git)"
command -v go >/dev/null || fail "go is not installed; the README's commands need Go 1.26"
gomodcache=$(go env GOMODCACHE) && gocache=$(go env GOCACHE) || fail "go env failed"

work=$(mktemp -d "${TMPDIR:-/tmp}/ccmem-newcomer.XXXXXX") || fail "cannot make a temporary folder (is TMPDIR writable?)"
if [ -z "${NEWCOMER_KEEP:-}" ]; then
  trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
else
  say "keeping $work"
fi
clone=$work/ccmem home=$work/home tmp=$work/tmp
mkdir -p "$home" "$tmp" || fail "cannot make $home"

git clone -q --no-hardlinks "$root" "$clone" 2>/dev/null || fail "git clone of $root failed"
# The checkout's own changes, so a developer checks what they are about to
# commit: modified and untracked (not ignored) files copied, deleted removed.
(
  cd "$root" || exit 1
  git ls-files -z -m -o --exclude-standard | while IFS= read -r -d '' f; do
    if [ -e "$f" ]; then
      mkdir -p "$clone/$(dirname "$f")" && cp -p "$f" "$clone/$f"
    fi
  done
  git ls-files -z -d | while IFS= read -r -d '' f; do rm -f "$clone/$f"; done
) || fail "could not lay this checkout's changes over the clone"

# A new user on this machine: the machine's environment (its PATH, its
# certificate settings), but a new HOME and TMPDIR and nothing that points
# into the old user's folders; Go's caches shared, npm's not.
env_new=(
  env
  -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME
  -u CLAUDE_CONFIG_DIR -u CCMEM_HOME -u GOPATH -u GOENV
  -u npm_config_cache -u NPM_CONFIG_CACHE -u npm_config_userconfig -u NPM_CONFIG_USERCONFIG
  -u GIT_CONFIG_GLOBAL -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL
  -u TMUX -u TMUX_TMPDIR -u MAKEFLAGS -u MAKELEVEL -u MFLAGS
  "HOME=$home" "TMPDIR=$tmp" "LANG=C.UTF-8"
  "GOMODCACHE=$gomodcache" "GOCACHE=$gocache" "GOTOOLCHAIN=local" "CCMEM_NEWCOMER=1"
)

only=${NEWCOMER_ONLY:-}
if [ -z "$only" ] || [ "$only" = demo ]; then
  say "make demo in a fresh clone, HOME an empty folder"
  (cd "$clone" && "${env_new[@]}" make demo >"$work/demo.log" 2>&1) || {
    tail -20 "$work/demo.log" >&2
    fail "make demo failed for a new user (the last lines are above)"
  }
  grep -q '^# ' "$work/demo.log" || fail "make demo printed no memory block (see $work/demo.log)"
fi
if [ "$only" = install ]; then
  say "the client's install step with an empty HOME and npm cache"
  (cd "$clone" && "${env_new[@]}" make claude-code >"$work/install.log" 2>&1) || {
    tail -20 "$work/install.log" >&2
    fail "make claude-code failed for a new user with an empty npm cache (the last lines are above)"
  }
fi
if [ -z "$only" ]; then
  # make test's own steps run here already; what a fresh machine can lack
  # is what they install: the pinned client (npm, with an empty cache),
  # the test tools (chromium, tmux, git, playwright-core) and the build.
  # So: make test's recipe must parse, its install steps must pass for a
  # new user, and the tools they install must work, shown by end-to-end
  # tests that need each (the client, a browser, git) in the fresh clone.
  say "make test's recipe, then its install steps in a fresh clone, HOME an empty folder (fetches the client again: npm's cache is new)"
  (cd "$clone" && "${env_new[@]}" make -n test >/dev/null 2>"$work/plan.log") || {
    cat "$work/plan.log" >&2
    fail "make test's recipe does not parse in a fresh clone"
  }
  (cd "$clone" && "${env_new[@]}" make build claude-code test-tools >"$work/install.log" 2>&1) || {
    tail -20 "$work/install.log" >&2
    fail "make test's install steps failed for a new user (the last lines are above)"
  }
  smoke='^(TestInjectionReachesModelInline|TestUIInABrowser|TestSyncCarriesMemoryToTheOtherMachine)$'
  say "the real client, a browser and git, as installed for the new user ($smoke)"
  (cd "$clone" && "${env_new[@]}" go run ./scripts/testprogress -tests -count=1 -run "$smoke" ./e2e/ 2>&1 | sed -u 's/^/newcomer:   /'; exit "${PIPESTATUS[0]}") ||
    fail "end-to-end tests failed for a new user (see the lines above)"
fi
# A new user's HOME gets only npm's cache (the README's client fetch) and
# Go's own telemetry counters: nothing of ccmem's, nothing of Claude Code's.
stray=$(cd "$home" && find . -mindepth 1 \( -path ./.npm -o -path ./.config/go \) -prune -o ! -path ./.config -print | head -5)
[ -z "$stray" ] || fail "the README's commands wrote into the new user's HOME: $(echo $stray)"
case "$only" in
  "") say "ok: a new user's make demo passes, and make test's install steps and the tools they install work" ;;
  demo) say "ok: a new user's make demo passes" ;;
  install) say "ok: a new user's install step passes" ;;
esac
