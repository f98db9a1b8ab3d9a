#!/usr/bin/env bash
# Installs the Claude Code that the end-to-end tests run, with npm, into
# .cache/claude-code-<version> (ignored by git), and prints the client's
# path: the pinned version, or CLAUDE_CODE_VERSION (one cache per version;
# `make e2e-latest` sets it to npm's newest). Nothing is installed
# globally; a second run reuses the cached copy.
set -euo pipefail

# The pin: the newest version the end-to-end suite passes with.
pinned=2.1.330
version=${CLAUDE_CODE_VERSION:-$pinned}
case "$version" in
  *[!0-9.]* | "") echo "install-claude-code: CLAUDE_CODE_VERSION must be a version such as 2.1.330, not '$version'" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/claude-code-$version"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  *) echo "install-claude-code: no Claude Code build for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac
bin="$dir/node_modules/@anthropic-ai/claude-code-$platform/claude"

if [ ! -x "$bin" ] || [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]; then
  command -v npm >/dev/null || { echo "install-claude-code: npm is not installed; the end-to-end tests need it to fetch @anthropic-ai/claude-code@$version" >&2; exit 1; }
  mkdir -p "$dir" || { echo "install-claude-code: cannot make $dir; hint: is the clone writable?" >&2; exit 1; }
  echo "install-claude-code: installing @anthropic-ai/claude-code@$version into ${dir#"$root"/} (about 370 MB, once)" >&2
  # npm is silent while it downloads; say every 10 s how far it got (what
  # its cache and the target folder hold, in MB).
  # A progress measure must never fail the step it measures: on a new
  # user's machine npm's cache folder does not exist yet, and du then exits 1.
  cache=$(npm config get cache 2>/dev/null) || cache=
  [ -n "$cache" ] || cache="${HOME:-/nonexistent}/.npm"
  mb() {
    local d total=0 n
    for d in "$dir" "$cache/_cacache"; do
      [ -d "$d" ] || continue
      n=$(du -sm "$d" 2>/dev/null | awk '{print $1 + 0; exit}') || n=0
      total=$((total + ${n:-0}))
    done
    echo "$total"
  }
  before=$(mb) || before=0
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
      "@anthropic-ai/claude-code@$version" >&2 &
  pid=$!
  start=$(date +%s)
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      now=$(mb) || now=$before
      echo "install-claude-code: $(( $(date +%s) - start )) s, $(( now - before )) MB fetched so far…" >&2
    fi
  done
  if ! wait "$pid"; then
    echo "install-claude-code: npm install @anthropic-ai/claude-code@$version failed (see above); hint: check that npm reaches its registry ($(npm config get registry 2>/dev/null || echo 'npm config get registry')), then run make claude-code again" >&2
    exit 1
  fi
  echo "install-claude-code: done in $(( $(date +%s) - start )) s" >&2
  [ -x "$bin" ] || { echo "install-claude-code: npm finished but $bin is missing" >&2; exit 1; }
  echo "$version" > "$dir/.version"
else
  echo "install-claude-code: Claude Code $version is in ${dir#"$root"/}" >&2
fi
echo "$bin"
