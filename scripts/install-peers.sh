#!/usr/bin/env bash
# install-peers.sh fetches the peer make bench-peers times ccmem against,
# claude-mem (its plugin, as npm publishes it) and the Bun runtime its hooks
# need, into .cache/peers/. It prints one line, and exits 1 when it cannot.
set -u
CLAUDE_MEM_VERSION=13.25.3
BUN_VERSION=1.4.5
dir=.cache/peers
mkdir -p "$dir" || exit 1
fail() { echo "bench-peers: skipped: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is not installed (claude-mem's hooks run on Node and Bun)"
command -v npm >/dev/null || fail "npm is not installed"
if [ ! -f "$dir/claude-mem-$CLAUDE_MEM_VERSION/plugin/scripts/worker-service.cjs" ]; then
	tmp=$(mktemp -d) || exit 1
	(cd "$tmp" && npm pack --silent "claude-mem@$CLAUDE_MEM_VERSION" >/dev/null 2>&1) || fail "npm could not fetch claude-mem@$CLAUDE_MEM_VERSION"
	mkdir -p "$dir/claude-mem-$CLAUDE_MEM_VERSION" &&
		tar xzf "$tmp/claude-mem-$CLAUDE_MEM_VERSION.tgz" -C "$dir/claude-mem-$CLAUDE_MEM_VERSION" --strip-components=1 || fail "could not unpack claude-mem"
	rm -rf "$tmp"
fi
if [ ! -x "$dir/bun/node_modules/.bin/bun" ]; then
	npm install --silent --no-audit --no-fund --prefix "$dir/bun" "bun@$BUN_VERSION" >/dev/null 2>&1 || fail "npm could not install bun@$BUN_VERSION"
fi
"$dir/bun/node_modules/.bin/bun" --version >/dev/null 2>&1 || fail "bun@$BUN_VERSION does not run on this machine"
echo "peers: claude-mem $CLAUDE_MEM_VERSION, bun $BUN_VERSION, $(node --version) in $dir"
