#!/usr/bin/env bash
# Proves ccmem builds where its users are: for each target, builds every
# package, vets it, and compiles every package's tests (go test -c), so a
# test that cannot build on macOS or Windows fails here, on Linux CI.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${CROSS_TARGETS:-"darwin/arm64 darwin/amd64 windows/amd64 windows/arm64 linux/arm64"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
total=$(wc -w <<<"$targets")
for t in $targets; do
  n=$((n + 1))
  export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
  echo "cross: [$n/$total] $t: build" >&2
  go build -trimpath ./...
  echo "cross: [$n/$total] $t: vet" >&2
  go vet ./...
  echo "cross: [$n/$total] $t: test compile" >&2
  go test -trimpath -c -o "$out/$GOOS-$GOARCH/" ./... >/dev/null
done
echo "cross: $total targets build, vet and compile their tests" >&2
