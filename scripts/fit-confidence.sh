#!/bin/sh
# fit-confidence.sh: refits recall's confidence on the tune parts of every
# source (the project's own projects in fixtures/eval, and the tune halves
# of the shared recall sets beside the project, or GIT_MEM_SETS), rewrites
# index/confidence_weights.go, and prints the tune figures, the
# leave-one-source-out check and the feature ablation. Run the evals
# afterwards and, when the figures moved on purpose, rewrite the baselines:
#
#   go test ./index/evaluation -run 'TestEvalBaseline|TestSetsBaseline' -update-baseline -update-set-baseline
set -eu
cd "$(dirname "$0")/.."
exec go test ./index -run '^TestFitConfidence$' -fit -v -count 1
