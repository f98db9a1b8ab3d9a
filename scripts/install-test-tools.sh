#!/usr/bin/env bash
# install-test-tools.sh makes sure the programs the end-to-end tests drive
# are on this machine, installing the missing ones from Debian's packages
# when it can (as root, or with sudo that asks no password), and otherwise
# failing with one line that says what to install. Each tool is named with
# the test that needs it.
#
#   tmux       the interactive client runs under it (status line, /clear)
#   chromium   the browser tests of `ccmem ui` drive it headless
#   git        ccmem sync runs it; its tests use the real one (two HOMEs, a bare remote)
#   sqlite3    opencode keeps its sessions in SQLite; the import tests write
#              such a store with the real SQLite (pkg/session's TestImportOpencodeStore)
#   scowl, unicode-data, wordnet-base
#              the lexical data pkg/lexicon's tables are derived from
#              (internal/dev/lexgen's TestTablesAreCurrent)
#
# Usage: install-test-tools.sh [TOOL...]   (default: every tool above)
set -uo pipefail

fail() { echo "install-test-tools: $*" >&2; exit 1; }

# package: the Debian package that provides a command.
package() {
  case "$1" in
    tmux) echo tmux ;;
    chromium) echo chromium ;;
    git) echo git ;;
    sqlite3) echo sqlite3 ;;
    scowl | unicode-data | wordnet-base) echo "$1" ;;
    *) return 1 ;;
  esac
}

tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(tmux chromium git sqlite3 scowl unicode-data wordnet-base)
# present: the tool, or a stand-in the tests accept (Ubuntu names its
# Chromium chromium-browser; Google Chrome drives the same way).
present() {
  case "$1" in
    chromium) command -v chromium || command -v chromium-browser || command -v google-chrome ;;
    scowl) test -f /usr/share/dict/scowl/english-words.10 ;;
    unicode-data) test -f /usr/share/unicode/Unihan_Variants.txt.bz2 ;;
    wordnet-base) test -f /usr/share/wordnet/data.noun ;;
    *) command -v "$1" ;;
  esac >/dev/null 2>&1
}
missing=()
for t in "${tools[@]}"; do
  package "$t" >/dev/null || fail "unknown tool $t"
  present "$t" || missing+=("$t")
done
[ ${#missing[@]} -gt 0 ] || exit 0

pkgs=()
for t in "${missing[@]}"; do pkgs+=("$(package "$t")"); done
hint="install ${pkgs[*]} with your package manager (Debian, Ubuntu: sudo apt-get install ${pkgs[*]}; macOS: brew install ${pkgs[*]})"
command -v apt-get >/dev/null 2>&1 || fail "${missing[*]} not found and no apt-get here; $hint"
if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  fail "${missing[*]} not found, and installing needs root; $hint"
fi
echo "install-test-tools: installing ${pkgs[*]} from Debian's packages (the tests drive or read them)" >&2
log=$(mktemp "${TMPDIR:-/tmp}/install-test-tools.XXXXXX") || fail "cannot make a temporary file (is TMPDIR writable?)"
trap 'rm -f "$log"' EXIT
if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >"$log" 2>&1; then
  # The package lists may be missing on a fresh machine: update once, retry.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >>"$log" 2>&1 ||
    { tail -5 "$log" >&2; fail "apt-get could not install ${pkgs[*]} (its last lines are above); $hint"; }
fi
for t in "${missing[@]}"; do
  present "$t" || fail "$t is still not there after installing $(package "$t")"
done
