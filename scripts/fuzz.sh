#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 1m), one after another.
# A finding fails the run and is saved under the package's testdata/fuzz/,
# where `make test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-1m}
targets=(
  "FuzzDecode ./internal/entry/hookio"
  "FuzzRead ./pkg/frontmatter"
  "FuzzParse ./pkg/transcript"
  "FuzzReadHead ./pkg/store"
  "FuzzEditIndex ./pkg/session"
  "FuzzFit ./pkg/inject"
  "FuzzCheckpointCodec ./pkg/checkpoint"
  "FuzzChars ./pkg/textfmt"
  "FuzzNeutralizeMatchesRegexp ./pkg/claudecode"
  "FuzzParseMatchesEncodingJSON ./pkg/transcript"
  "FuzzEnsure ./internal/service/settings"
  "FuzzNew ./pkg/sqlitefile"
  "FuzzCodexConfigRoundTrip ./internal/service/install"
)
for t in "${targets[@]}"; do
  set -- $t
  echo "fuzz: $1 in $2 for $fuzztime"
  go test -run '^$' -fuzz "^$1\$" -fuzztime "$fuzztime" -timeout 0 "$2"
done
