#!/usr/bin/env bash
# Installs the Codex CLI that the end-to-end tests run, with npm, into
# .cache/codex-<version> (ignored by git), and prints the client's path:
# the pinned version, or CODEX_VERSION. Nothing is installed globally; a
# second run reuses the cached copy.
set -euo pipefail

# The pin: the version ../shared/docs/codex-contract.md was observed on.
pinned=0.169.0
version=${CODEX_VERSION:-$pinned}
case "$version" in
  *[!0-9.]* | "") echo "install-codex: CODEX_VERSION must be a version such as 0.169.0, not '$version'" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/codex-$version"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 triple=x86_64-unknown-linux-musl ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 triple=aarch64-unknown-linux-musl ;;
  Darwin-x86_64) platform=darwin-x64 triple=x86_64-apple-darwin ;;
  Darwin-arm64) platform=darwin-arm64 triple=aarch64-apple-darwin ;;
  *) echo "install-codex: no Codex CLI build for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac
bin="$dir/node_modules/@openai/codex-$platform/vendor/$triple/bin/codex"

if [ ! -x "$bin" ] || [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]; then
  command -v npm >/dev/null || { echo "install-codex: npm is not installed; the end-to-end tests need it to fetch @openai/codex@$version" >&2; exit 1; }
  mkdir -p "$dir" || { echo "install-codex: cannot make $dir; hint: is the clone writable?" >&2; exit 1; }
  echo "install-codex: installing @openai/codex@$version into ${dir#"$root"/} (about 400 MB, once)" >&2
  start=$(date +%s)
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "@openai/codex@$version" >&2; then
    echo "install-codex: npm install @openai/codex@$version failed (see above); hint: check that npm reaches its registry, then run make codex again" >&2
    exit 1
  fi
  echo "install-codex: done in $(( $(date +%s) - start )) s" >&2
  [ -x "$bin" ] || { echo "install-codex: npm finished but $bin is missing" >&2; exit 1; }
  echo "$version" > "$dir/.version"
else
  echo "install-codex: Codex CLI $version is in ${dir#"$root"/}" >&2
fi
echo "$bin"
