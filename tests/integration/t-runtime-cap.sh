#!/usr/bin/env bash
# A group capped at cpu.max "25000 100000" holding two hogs on one lane: over 3 s (30 periods) it
# uses 25 ms per period within 10 % and nr_throttled grows (nothing else runs, so the pool runs
# dry every period). 10 % is the kernel selftest's own window for cpu.max; bench-fair's cap-alone
# scenario measures the real accuracy. The host only has to give the VM a quarter of a CPU.
# On every backend.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# vcpu_stat FILE ID FIELD: a per-vCPU field
vcpu_stat() {
	grep -E "\{\"id\": $2," "$1" | sed -E "s/.*\"$3\": ([0-9]+).*/\1/"
}
# A loaded host may give the lane less than the quota (load 22: 6.5 ms a period, nr_throttled
# 0: failed). The vCPU threads' run-queue waits in the host (guest steal less what vsched
# added; the steal payload is a hog that keeps the steal-time area) measure it: the floor and
# the throttling are judged unless those waits cover the shortfall below 90 % of the quota;
# then the VM runs again, up to 3 times, and if the host starves every run, they are not
# judged (said). The ceiling is judged on every run.
for accel in $(test_accels); do
	judged=0
	for run in 1 2 3; do
		"$VSCHED" run --accel "$accel" --vcpus 2 --payload steal --cpus 1 --duration 3s \
			--stats "$out" --group c:max="25000 100000" --assign 0-1=c >/dev/null || exit 1
		usage=$(group_stat "$out" /c usage_usec)
		periods=$(group_stat "$out" /c nr_periods)
		thr=$(group_stat "$out" /c nr_throttled)
		hw=0
		for id in 0 1; do
			hw=$((hw + ($(vcpu_stat "$out" $id guest_steal_ns) - $(vcpu_stat "$out" $id steal_ns)) / 1000))
		done
		echo "$accel: c: usage ${usage} us over ${periods} periods, nr_throttled ${thr};" \
			"the vCPUs waited ${hw} us for a host CPU"
		# Periods count while the group runs: a starved one (load 20: 23 in 3 s) has fewer.
		check "$usage <= 1.1 * 25000 * $periods" ||
			{ echo "$accel: usage above 110 % of 25 ms x $periods periods"; exit 1; }
		# A floor met is met whatever the waits (CI: usage 756 ms of 750 with waits of -81 ms
		# failed). They are below 0 on a quiet host (-61 to -81 ms): the guest's steal area
		# is brought up to date at its next entry, so a throttle the run ends in is vsched's
		# count only. Waits below 0 count as none.
		[ "$hw" -ge 0 ] || hw=0
		if check "0.9 * 25000 * $periods - $usage > $hw"; then
			echo "$accel: usage below 90 % of 25 ms x $periods periods, more than the host's waits"
			exit 1
		fi
		if check "$usage >= 0.9 * 25000 * $periods"; then
			judged=1
			break
		fi
		echo "$accel: host too busy: the floor and the throttling not judged on run $run"
	done
	[ $judged = 1 ] || { echo "$accel: host too busy in 3 runs: floor not judged"; continue; }
	[ "$periods" -ge 25 ] || { echo "$accel: $periods periods in 3 s"; exit 1; }
	[ "$thr" -ge 10 ] || { echo "$accel: nr_throttled did not grow with the periods"; exit 1; }
done
