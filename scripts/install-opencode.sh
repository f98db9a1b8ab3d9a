#!/usr/bin/env bash
# Installs the opencode that the end-to-end tests run, with npm, into
# .cache/opencode-<version> (ignored by git), with the plugin package of
# the same version beside it in .cache/opencode-<version>/config (opencode
# installs that package into every config folder it reads, and offline
# waits about 80 s for it: the tests copy it into their HOME's folder
# instead). Prints the client's path: the pinned version, or
# OPENCODE_VERSION. Nothing is installed globally; a second run reuses
# the cached copy.
set -euo pipefail

# The pin: the version ../shared/docs/opencode-contract.md was observed on.
pinned=1.18.33
version=${OPENCODE_VERSION:-$pinned}
case "$version" in
  *[!0-9.]* | "") echo "install-opencode: OPENCODE_VERSION must be a version such as 1.18.33, not '$version'" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/opencode-$version"
bin="$dir/node_modules/.bin/opencode"

if [ ! -x "$bin" ] || [ ! -d "$dir/config/node_modules/@opencode-ai/plugin" ] || [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]; then
  command -v npm >/dev/null || { echo "install-opencode: npm is not installed; the end-to-end tests need it to fetch opencode-ai@$version" >&2; exit 1; }
  mkdir -p "$dir/config" || { echo "install-opencode: cannot make $dir; hint: is the clone writable?" >&2; exit 1; }
  echo "install-opencode: installing opencode-ai@$version into ${dir#"$root"/} (about 190 MB, once)" >&2
  start=$(date +%s)
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "opencode-ai@$version" >&2 ||
     ! npm install --prefix "$dir/config" --no-audit --no-fund --loglevel=error "@opencode-ai/plugin@$version" >&2; then
    echo "install-opencode: npm install opencode-ai@$version failed (see above); hint: check that npm reaches its registry, then run make opencode again" >&2
    exit 1
  fi
  echo "install-opencode: done in $(( $(date +%s) - start )) s" >&2
  [ -x "$bin" ] || { echo "install-opencode: npm finished but $bin is missing" >&2; exit 1; }
  "$bin" --version >/dev/null 2>&1 || { echo "install-opencode: $bin does not run (its platform package missing?)" >&2; exit 1; }
  echo "$version" > "$dir/.version"
else
  echo "install-opencode: opencode $version is in ${dir#"$root"/}" >&2
fi
echo "$bin"
