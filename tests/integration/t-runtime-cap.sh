#!/usr/bin/env bash
# A group capped at cpu.max "25000 100000" holding two hogs on one lane: over 3 s (30 periods) it
# uses 25 ms per period within 10 % and nr_throttled grows (nothing else runs, so the pool runs
# dry every period). 10 % is the kernel selftest's own window for cpu.max; bench-fair's cap-alone
# scenario measures the real accuracy. The host only has to give the VM a quarter of a CPU; the
# lanes' holders must get half a CPU per second held (else skipped: the host starves the VM).
# On every backend.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --vcpus 2 --payload hog --cpus 1 --duration 3s \
		--stats "$out" --group c:max="25000 100000" --assign 0-1=c >/dev/null || exit 1
	# Half a CPU per second held lets the group use its 25 ms within 50 ms of its period.
	need_delivery "$out" 0.5
	usage=$(group_stat "$out" /c usage_usec)
	periods=$(group_stat "$out" /c nr_periods)
	thr=$(group_stat "$out" /c nr_throttled)
	echo "$accel: c: usage ${usage} us over ${periods} periods, nr_throttled ${thr}"
	[ "$thr" -ge 10 ] || { echo "$accel: nr_throttled did not grow with the periods"; exit 1; }
	# The quota over the periods that ran: 25 ms each.
	check "$periods >= 25 && $usage >= 0.9 * 25000 * $periods && $usage <= 1.1 * 25000 * $periods" ||
		{ echo "$accel: usage not within 10 % of 25 ms x $periods periods"; exit 1; }
done
