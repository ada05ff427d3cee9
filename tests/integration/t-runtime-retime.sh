#!/usr/bin/env bash
# Re-times on a loaded host (issue 13). Two lanes on one host CPU deliver about half a CPU each,
# so the core's first bandwidth ends come before the pool is dry; in the simulator that crept up
# on the dry point and then re-timed the lane every nanosecond until the refill. Here two hogs in
# a group capped at cpu.max "50000 100000" run 3 s: the busiest second may move slice ends at most
# 1000 times (about 10 per period are needed: throttles, refills, early ends; a spin would be
# one per exit, tens of thousands), and the quota still holds within 10 %.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
command -v taskset >/dev/null || { echo "no taskset"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
taskset -c "$(taskset -pc $$ | sed -E 's/.*: ([0-9]+).*/\1/')" \
	"$VSCHED" run --vcpus 2 --payload hog --cpus 2 --duration 3s --stats "$out" \
	--group p:max="50000 100000" --assign 0-1=p >/dev/null || exit 1
peak=$(sed -nE 's/.*"retimes_peak_per_s": ([0-9]+).*/\1/p' "$out")
retimes=$(sed -nE 's/.*"retimes": ([0-9]+).*/\1/p' "$out")
usage=$(group_stat "$out" /p usage_usec)
periods=$(group_stat "$out" /p nr_periods)
echo "retimes ${retimes}, busiest second ${peak}; /p: ${usage} us over ${periods} periods"
[ -n "$peak" ] || { echo "no retimes_peak_per_s in --stats"; exit 1; }
check "$peak <= 1000" ||
	{ echo "the runtime re-timed slice ends $peak times in one second"; exit 1; }
check "$periods >= 25 && $usage <= 1.1 * 50000 * $periods" ||
	{ echo "usage not within the quota"; exit 1; }
