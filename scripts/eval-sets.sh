#!/bin/sh
# eval-sets.sh: measures recall on the recall sets written elsewhere (the
# shared sets beside the project, or the directory given) per source, set
# and kind, and holds the run to fixtures/eval/sets-baseline.json. Extra
# arguments go to git mem eval, e.g. --split test or --json.
#
#   scripts/eval-sets.sh [DIR] [--split tune|test] [--json]
set -eu
cd "$(dirname "$0")/.."
dir=../shared/eval
case "${1:-}" in
-*|"") ;;
*) dir=$1; shift ;;
esac
exec go run ./cmd/git-mem eval --baseline fixtures/eval/sets-baseline.json "$@" "$dir"
