#!/usr/bin/env bash
# Proves ccmem builds where its users are: for each target, builds every
# package and vets it. go vet type-checks every package with its tests for
# the target (its build tags and GOOS files), so a test that cannot build
# on macOS or Windows fails here, on Linux CI; linking each test binary
# (go test -c) proved nothing more and took most of the time. One
# architecture per OS: no file of ccmem is built for an architecture
# (only for an OS), and the release snapshot (e2e TestReleaseSnapshot)
# builds all six release targets anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${CROSS_TARGETS:-"darwin/arm64 windows/amd64"}
n=0
total=$(wc -w <<<"$targets")
for t in $targets; do
  n=$((n + 1))
  export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
  echo "cross: [$n/$total] $t: build" >&2
  go build -trimpath ./...
  echo "cross: [$n/$total] $t: vet" >&2
  go vet ./...
done
echo "cross: $total targets build and vet, tests included" >&2
