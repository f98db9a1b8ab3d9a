#!/usr/bin/env bash
# Installs the pinned Claude Code that the end-to-end tests run, with npm,
# into .cache/claude-code (ignored by git), and prints the client's path.
# Nothing is installed globally; a second run reuses the cached copy.
set -euo pipefail

version=2.1.328
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/claude-code"
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
  mkdir -p "$dir"
  echo "install-claude-code: installing @anthropic-ai/claude-code@$version into ${dir#"$root"/} (about 370 MB, once)" >&2
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
      "@anthropic-ai/claude-code@$version" >&2; then
    echo "install-claude-code: npm install @anthropic-ai/claude-code@$version failed (see above)" >&2
    exit 1
  fi
  [ -x "$bin" ] || { echo "install-claude-code: npm finished but $bin is missing" >&2; exit 1; }
  echo "$version" > "$dir/.version"
fi
echo "$bin"
