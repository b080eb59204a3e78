#!/usr/bin/env bash
# Runs git-mem's benchmarks and prints the figures the README and closing notes
# quote. Machines are shared and noisy: compare ratios within one run (e.g. add
# at 10,000 memories against add at 1,000), not absolute times across runs.
#
#   scripts/bench.sh            scale table, store, recall, secret scan, sync, hooks
#   BENCHTIME=50x scripts/bench.sh   fewer iterations
#   SCALE_ONLY=1 scripts/bench.sh    only the scale table
#
# The scale table (BenchmarkScale in hooks/scale_bench_test.go) times add,
# the session-start and prompt hooks, recall, stats, list --limit 20 and
# reindex at 1,000, 10,000 and 100,000 memories (SCALE_SIZES), each as a
# ratio to a no-op Go binary in one interleaved run (SCALE_RUNS, default 30),
# and writes it to docs/bench-scale.md, which the README quotes.
# SCALE_BASELINE_REV=COMMIT builds that version's binaries the way the
# current ones are built (CGO_ENABLED=0: a cgo build starts its commands
# 10-15% slower) and times them in the same run; SCALE_BASELINE=DIR times the
# git-mem and git-mem-hook already in DIR. GIT_MEM_BENCH_KEEP=DIR keeps a
# copy of each warmed store in DIR/<size>, for profiling a command by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-200x}

if [ -n "${SCALE_BASELINE_REV:-}" ]; then
	base=$(mktemp -d)
	trap 'git worktree remove --force "$base/src" 2>/dev/null || true; rm -rf "$base"' EXIT
	git worktree add -q --detach "$base/src" "$SCALE_BASELINE_REV"
	(cd "$base/src" && CGO_ENABLED=0 go build -o "$base/bin/" ./cmd/...)
	SCALE_BASELINE="$base/bin"
fi

echo "== scale: the everyday commands at 1,000, 10,000 and 100,000 memories, against a no-op"
GIT_MEM_BENCH_SIZES=${SCALE_SIZES:-1000,10000,100000} GIT_MEM_BENCH_RUNS=${SCALE_RUNS:-30} \
	GIT_MEM_BENCH_BASELINE=${SCALE_BASELINE:-} GIT_MEM_BENCH_OUT="$PWD/docs/bench-scale.md" \
	go test ./hooks -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -count 1 -timeout 120m
if [ -n "${SCALE_ONLY:-}" ]; then
	exit 0
fi

echo "== store: add, list, show at 1,000 and 10,000 memories"
go test ./gitstore/ -run '^$' -bench '^Benchmark(Add|List|Show)$' -benchtime "$benchtime"

echo "== secret scan"
go test ./secret/ -run '^$' -bench . -benchtime 2000x

if ls index/*_test.go >/dev/null 2>&1 && grep -q '^func Benchmark' index/*_test.go; then
	echo "== recall"
	go test ./index/ -run '^$' -bench . -benchtime "${RECALL_BENCHTIME:-20x}" -timeout 60m
fi

echo "== MCP tool calls at 10,000 memories (one stdio connection)"
go test ./mcp/ -run '^$' -bench BenchmarkToolCall -benchtime 300x -timeout 30m

echo "== sync of 1,000 new memories"
go test ./gitstore/ -run '^$' -bench '^BenchmarkSyncThousandNew$' -benchtime 3x

if [ -x scripts/bench-hooks.sh ]; then
	echo "== hooks against a no-op Go binary"
	scripts/bench-hooks.sh
fi
