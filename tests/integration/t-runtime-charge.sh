#!/usr/bin/env bash
# Charging: the root's usage_usec equals the sum of the vCPU threads' CPU time (each read by
# the thread at its end) within 0.1 % + 1 ms, with contention (3 vCPUs on 1 lane) and sleepers;
# on every backend.
. "$(dirname "$0")/runtime-lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --vcpus 3 --payload 0=hog,1=duty:2000/3000,2=io:500 \
		--cpus 1 --duration 2s --stats "$out" --group a --group b --assign 0=a \
		--assign 1-2=b >/dev/null || exit 1
	root=$(group_stat "$out" / usage_usec)
	sum=$(vcpus_cpu_ns "$out")
	echo "$accel: root usage ${root} us, vCPU threads ${sum} ns"
	check "$root * 1000 >= $sum * 0.999 - 1000000 && $root * 1000 <= $sum * 1.001 + 1000000" ||
		{ echo "$accel: usage_usec differs from the threads' CPU time by more than 0.1 % + 1 ms"; exit 1; }
done
