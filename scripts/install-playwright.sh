#!/usr/bin/env bash
# Installs playwright-core, which the browser tests of `ccmem ui` use to
# drive Debian's chromium, with npm, into .cache/playwright-core-<version>
# (ignored by git), and prints the folder its node_modules are in. Only the
# driver library is fetched: no browser download (the tests pass
# chromium's path). A second run reuses the cached copy.
set -euo pipefail

version=1.65.1
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/playwright-core-$version"
if [ ! -f "$dir/node_modules/playwright-core/package.json" ] || [ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]; then
  command -v npm >/dev/null || { echo "install-playwright: npm is not installed; the browser tests need it to fetch playwright-core@$version" >&2; exit 1; }
  mkdir -p "$dir" || { echo "install-playwright: cannot make $dir; hint: is the clone writable?" >&2; exit 1; }
  echo "install-playwright: installing playwright-core@$version into ${dir#"$root"/} (about 10 MB, once)" >&2
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
    "playwright-core@$version" >&2 ||
    { echo "install-playwright: npm could not install playwright-core@$version; hint: check npm's registry (npm config get registry)" >&2; exit 1; }
  echo "$version" >"$dir/.version"
fi
echo "$dir/node_modules"
