#!/usr/bin/env bash
# A group capped at cpu.max "50000 100000" with two hogs on 2 lanes, beside two uncapped hogs:
# over 3 s (30 periods) it uses 0.5 CPU within 10 % and nr_throttled grows. The uncapped hogs
# keep the lanes busy, so host noise cannot hide an overshoot; 10 % is the kernel selftest's
# own window for cpu.max.
. "$(dirname "$0")/runtime-lib.sh"
need_kvm 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$VSCHED" run --vcpus 4 --payload hog --cpus 2 --duration 3s --stats "$out" \
	--group c:max="50000 100000" --group h --assign 0-1=c --assign 2-3=h >/dev/null || exit 1
need_capacity "$out" 2
usage=$(group_stat "$out" /c usage_usec)
periods=$(group_stat "$out" /c nr_periods)
thr=$(group_stat "$out" /c nr_throttled)
echo "c: usage ${usage} us over ${periods} periods, nr_throttled ${thr}"
[ "$thr" -gt 0 ] || { echo "nr_throttled did not grow"; exit 1; }
# The quota over the periods that ran: 50 ms each.
check "$periods >= 25 && $usage >= 0.9 * 50000 * $periods && $usage <= 1.1 * 50000 * $periods" ||
	{ echo "usage not within 10 % of 50 ms x $periods periods"; exit 1; }
