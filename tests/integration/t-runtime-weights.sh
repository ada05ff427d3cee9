#!/usr/bin/env bash
# cpu.weight 100:300 between two groups of two hogs each on one lane: the CPU ratio b/a must lie in
# [2.4, 3.6]. The fluid ideal is exactly 3; +-20 % leaves room for a shared host taking CPU from
# individual vCPU threads over a 3 s run (bench-fair measures the real accuracy). One lane, so
# that a busy 2-CPU host still gives the VM what it needs. On every backend.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --vcpus 4 --payload hog --cpus 1 --duration 3s \
		--stats "$out" --group a:weight=100 --group b:weight=300 --assign 0-1=a \
		--assign 2-3=b >/dev/null || exit 1
	need_capacity "$out" 1
	a=$(group_stat "$out" /a usage_usec)
	b=$(group_stat "$out" /b usage_usec)
	echo "$accel: usage a=$a us b=$b us"
	check "$a > 0 && $b / $a >= 2.4 && $b / $a <= 3.6" ||
		{ echo "$accel: ratio $(awk "BEGIN{print $b/$a}") outside [2.4, 3.6]"; exit 1; }
done
