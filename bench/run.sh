#!/bin/sh
# Runs every benchmark binary $BUILD_DIR/bench-* in turn; each prints its own figures. bench-fair
# also writes CSV files into BUILD_DIR/plots, rendered there as PNGs (bench/plot.sh).
# usage: bench/run.sh BUILD_DIR
set -u
build=${1:?usage: bench/run.sh BUILD_DIR}
VSCHED=$(readlink -f "$build/vsched"); export VSCHED
BENCH_CSV_DIR=$(readlink -f "$build")/plots; export BENCH_CSV_DIR
rm -rf "$BENCH_CSV_DIR"
mkdir -p "$BENCH_CSV_DIR"
status=0 n=0
for b in "$build"/bench-*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	n=$((n + 1))
	echo "== $(basename "$b")"
	"$b" || { echo "$(basename "$b") failed (exit $?)"; status=1; }
	echo
done
[ "$n" -gt 0 ] || { echo "no benchmarks in $build"; exit 1; }
if [ -f "$BENCH_CSV_DIR/summary.csv" ]; then
	"$(dirname "$0")/plot.sh" "$BENCH_CSV_DIR" || status=1
fi
exit $status
