#!/usr/bin/env bash
# Runs git-mem's benchmarks and prints the figures the README and closing notes
# quote. Machines are shared and noisy: compare ratios within one run (e.g. add
# at 10,000 memories against add at 1,000), not absolute times across runs.
#
#   scripts/bench.sh            store, recall, secret scan, sync, hooks
#   BENCHTIME=50x scripts/bench.sh   fewer iterations
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-200x}

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
