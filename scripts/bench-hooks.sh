#!/bin/sh
# bench-hooks.sh: what the session-start and prompt hooks cost at 10,000
# memories, as processes started the way an agent starts them (payload on
# stdin, JSON read from stdout), against a no-op Go binary started the same
# way, interleaved in one run. Prints the medians and the ratios.
#
#   scripts/bench-hooks.sh [RUNS]      (default 30 runs of each)
#   scripts/bench-hooks.sh --linked [RUNS]
#
# With --linked it times git-mem-hook's session-start and prompt in a project
# of 10,000 memories without and with a linked store of 10,000 more
# (BenchmarkHookCostLinked), and prints the ratios.
#
# With GIT_MEM_BENCH_BASELINE_REV=COMMIT that version's git-mem-hook is built
# the way the current one is (CGO_ENABLED=0) and timed in the same run too;
# GIT_MEM_BENCH_BASELINE=/path/to/another/git-mem-hook times that binary.
#
# On a busy machine the figures move with the load; the ratios are taken
# between commands run one after the other, so they move less.
#
# The benchmark (BenchmarkHookCost in hooks/bench_test.go) builds git-mem and
# a no-op Go program in a temporary directory, seeds a repository with 10,000
# memories, warms the caches once (as the first session does), then times
# the three commands in turn. Nothing outside the temporary directory is touched.
set -eu
bench=BenchmarkHookCost
if [ "${1:-}" = "--linked" ]; then
	bench=BenchmarkHookCostLinked
	shift
fi
runs=${1:-30}
cd "$(dirname "$0")/.."
if [ -n "${GIT_MEM_BENCH_BASELINE_REV:-}" ]; then
	base=$(mktemp -d)
	trap 'git worktree remove --force "$base/src" 2>/dev/null || true; rm -rf "$base"' EXIT
	git worktree add -q --detach "$base/src" "$GIT_MEM_BENCH_BASELINE_REV"
	(cd "$base/src" && CGO_ENABLED=0 go build -o "$base/git-mem-hook" ./cmd/git-mem-hook)
	GIT_MEM_BENCH_BASELINE="$base/git-mem-hook"
	export GIT_MEM_BENCH_BASELINE
fi
GIT_MEM_BENCH_RUNS=$runs go test ./hooks -run '^$' -bench "^$bench\$" -benchtime 1x -count 1 -timeout 30m
