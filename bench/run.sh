#!/bin/sh
# Runs every benchmark binary $BUILD_DIR/bench-* in turn; each prints its own figures.
# usage: bench/run.sh BUILD_DIR
set -u
build=${1:?usage: bench/run.sh BUILD_DIR}
VSCHED=$(readlink -f "$build/vsched"); export VSCHED
status=0 n=0
for b in "$build"/bench-*; do
	[ -x "$b" ] || continue
	n=$((n + 1))
	echo "== $(basename "$b")"
	"$b" || { echo "$(basename "$b") failed (exit $?)"; status=1; }
	echo
done
[ "$n" -gt 0 ] || { echo "no benchmarks in $build"; exit 1; }
exit $status
