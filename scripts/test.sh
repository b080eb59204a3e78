#!/usr/bin/env bash
# Runs every check and test of git-mem: formatting, go mod tidy, go vet,
# staticcheck, and go test (unit, process, eval and real-client tests).
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" $unformatted >&2
	exit 1
fi
if ! go mod tidy -diff; then
	echo "go mod tidy would change go.mod or go.sum: run go mod tidy" >&2
	exit 1
fi
go vet ./...
# the commands build for the other systems a user may install them on
for goos in windows darwin; do
	GOOS=$goos go build ./...
done
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# production code that only tests reach is dead code: the commands' main
# packages are the roots (test support packages exist for the tests alone)
unreached=$(go run golang.org/x/tools/cmd/deadcode@v0.38.0 ./...)
dead=$(grep -vE '^(embedding/embedtest|gitstore/gitstoretest|index/indextest|internal/gittest)/' <<<"$unreached" || true)
if [ -n "$dead" ]; then
	echo "no command reaches these functions; remove them, or move what tests need into a _test.go file:" >&2
	echo "$dead" >&2
	exit 1
fi
# Hooks are held to their real deadlines (700 ms for session end), and the
# cmd package's process tests (8 clones syncing at once, writers killed
# mid-write) load every core: packages run one at a time, and the real-agent
# tests (e2e), which start several agents at once, run last.
go test -p 1 -count=1 -timeout 30m $(go list ./... | grep -v '/e2e$')
go test -count=1 -timeout 30m ./e2e
# The fuzzers run a little past their seeds, their budgets counted in
# executions: a budget in seconds races Go's fuzz coordinator on a loaded
# machine, which then fails with "context deadline exceeded" and no failing
# input (golang/go#75804, fixed in Go 1.27).
# the installer's fuzzer: hostile config files of
# every format, each install refused untouched or undone byte for byte
go test -run '^$' -fuzz FuzzInstallConfig -fuzztime 4000x ./install
# git-mem's own git layer against git itself, a little past the seeds:
# config files against git config --list, ignore files against git
# check-ignore, loose ref files against git rev-parse
go test -run '^$' -fuzz FuzzParseConfigAsGit -fuzztime 4000x ./internal/gitconfig
go test -run '^$' -fuzz FuzzIgnoreRulesAsGit -fuzztime 500x ./internal/gitignore
go test -run '^$' -fuzz FuzzLooseRefAsGit -fuzztime 6000x ./internal/gitrefs
# a memory's text of any shape survives export --format md and import
go test -run '^$' -fuzz FuzzMarkdownRoundTrip -fuzztime 10000x ./memfile
