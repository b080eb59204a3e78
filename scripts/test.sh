#!/usr/bin/env bash
# Runs every check and test of git-mem: formatting, go vet, and go test (unit,
# process, eval and real-client tests).
set -euo pipefail
cd "$(dirname "$0")/.."

unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" $unformatted >&2
	exit 1
fi
go vet ./...
go test -count=1 -timeout 30m ./...
