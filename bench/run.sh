#!/usr/bin/env bash
# Runs every benchmark binary $BUILD/bench-* in turn. Usage: bench/run.sh BUILD_DIR
# Benchmarks print their own tables; a failing one is reported and the others still run.
set -u
build=${1:?usage: bench/run.sh BUILD_DIR}
export VSCHED=$(readlink -f "$build/vsched")
rc=0
for b in "$build"/bench-*; do
	[ -x "$b" ] || continue
	echo "== $(basename "$b")"
	"$b" || { echo "$(basename "$b"): exit $?"; rc=1; }
	echo
done
exit $rc
