#!/usr/bin/env bash
# Installs the Gemini CLI that the end-to-end tests run, with npm, into
# .cache/gemini-<version> (ignored by git), and prints the client's path:
# the pinned version, or GEMINI_VERSION. Nothing is installed globally; a
# second run reuses the cached copy.
set -euo pipefail

# The pin: the version ../shared/docs/gemini-contract.md was observed on.
pinned=0.61.0
version=${GEMINI_VERSION:-$pinned}
case "$version" in
  *[!0-9.]* | "") echo "install-gemini: GEMINI_VERSION must be a version such as 0.61.0, not '$version'" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/gemini-$version"
bin="$dir/node_modules/.bin/gemini"

if [ ! -x "$bin" ] || [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]; then
  command -v npm >/dev/null || { echo "install-gemini: npm is not installed; the end-to-end tests need it to fetch @google/gemini-cli@$version" >&2; exit 1; }
  mkdir -p "$dir" || { echo "install-gemini: cannot make $dir; hint: is the clone writable?" >&2; exit 1; }
  echo "install-gemini: installing @google/gemini-cli@$version into ${dir#"$root"/} (once)" >&2
  start=$(date +%s)
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "@google/gemini-cli@$version" >&2; then
    echo "install-gemini: npm install @google/gemini-cli@$version failed (see above); hint: check that npm reaches its registry, then run make gemini again" >&2
    exit 1
  fi
  echo "install-gemini: done in $(( $(date +%s) - start )) s" >&2
  [ -x "$bin" ] || { echo "install-gemini: npm finished but $bin is missing" >&2; exit 1; }
  echo "$version" > "$dir/.version"
else
  echo "install-gemini: Gemini CLI $version is in ${dir#"$root"/}" >&2
fi
echo "$bin"
