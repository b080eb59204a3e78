#!/bin/sh
# bench-hooks.sh: what the session-start and prompt hooks cost at 10,000
# memories, as processes started the way an agent starts them (payload on
# stdin, JSON read from stdout), against a no-op Go binary started the same
# way, interleaved in one run. Prints the medians and the ratios.
#
#   scripts/bench-hooks.sh [RUNS]      (default 30 runs of each)
#
# With GIT_MEM_BENCH_BASELINE=/path/to/another/git-mem-hook (an earlier
# version, built by hand) that binary is timed in the same run too.
#
# On a busy machine the figures move with the load; the ratios are taken
# between commands run one after the other, so they move less.
#
# The benchmark (BenchmarkHookCost in hooks/bench_test.go) builds git-mem and
# a no-op Go program in a temporary directory, seeds a repository with 10,000
# memories, warms the caches once (as the first session does), then times
# the three commands in turn. Nothing outside the temporary directory is touched.
set -eu
runs=${1:-30}
cd "$(dirname "$0")/.."
GIT_MEM_BENCH_RUNS=$runs exec go test ./hooks -run '^$' -bench '^BenchmarkHookCost$' -benchtime 1x -count 1 -timeout 30m
