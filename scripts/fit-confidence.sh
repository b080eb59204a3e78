#!/bin/sh
# fit-confidence.sh: refits recall's confidence on the tune splits of every
# project of fixtures/eval, rewrites index/confidence_weights.go, and prints
# the tune figures, the leave-one-project-out check and the feature
# ablation. Run the eval afterwards (go test ./index) and, when the figures
# moved on purpose, rewrite the baseline:
#
#   go test ./index -run TestEvalBaseline -update-baseline
set -eu
cd "$(dirname "$0")/.."
exec go test ./index -run '^TestFitConfidence$' -fit -v -count 1
