#!/usr/bin/env bash
# Steal time for parked vCPUs. Two "steal" vCPUs (hogs that read their steal time and the
# other vCPU's preempted flag) share one lane for 2 s, so each waits about half the run. What
# the guest reads must cover that wait: guest steal + thread CPU within [0.85, 1.05] of the wall
# time (KVM alone reports only host run-queue waits, ~0.05 of it here, and the sum would be
# ~0.5). The host taking CPU away moves time from CPU to KVM's own steal, not out of the sum;
# 0.85 leaves room for lock waits and thread start-up. Above 1.05 the runtime counts what KVM
# counts too (a parked thread waiting for a CPU: 1.17 when it did). Each vCPU must also have
# seen the other flagged preempted in >= 25 % of its work units (~95 % here: the peer is parked
# whenever this one runs). On two lanes nobody is parked and vsched adds no steal (<= 1 %).
# On every backend (the thread backend keeps the steal-time area as KVM does).
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# A per-vCPU field: vcpu_stat FILE ID FIELD
vcpu_stat() {
	grep -E "\{\"id\": $2," "$1" | sed -E "s/.*\"$3\": ([0-9]+).*/\1/"
}

tested=0
for accel in $(test_accels); do
	# The floor (0.85) is judged on a run where each vCPU waited at most a quarter of the wall
	# for a host CPU (guest steal less what vsched added): at load 21 a vCPU waited 1.08 s of
	# 2.46 and the sum was 0.78 (thread start-up and lock waits grow with the host's load). Up
	# to 3 runs; a host that busy in all of them: the floor not judged (said). The ceiling and
	# the peer's flag are judged on every run; vsched adding no steal fails on a quiet host.
	floor=0
	for run in 1 2 3; do
		"$VSCHED" run --accel "$accel" --vcpus 2 --payload steal --cpus 1 --duration 2s \
			--stats "$out" >/dev/null || exit 1
		wall=$(stat_top "$out" wall_ns)
		# Exactly 0 only when KVM refused the area (a host without schedstats).
		[ "$(vcpu_stat "$out" 0 guest_steal_ns)" = 0 ] && break
		quiet=1
		for id in 0 1; do
			cpu=$(vcpu_stat "$out" $id cpu_ns)
			seen=$(vcpu_stat "$out" $id guest_steal_ns)
			added=$(vcpu_stat "$out" $id steal_ns)
			units=$(vcpu_stat "$out" $id units)
			peer=$(vcpu_stat "$out" $id peer_preempted)
			echo "$accel: vcpu$id: cpu ${cpu} ns, guest steal ${seen} ns (vsched added" \
				"${added}), wall ${wall} ns; peer preempted in ${peer} of ${units} units"
			check "($seen + $cpu) <= 1.05 * $wall" ||
				{ echo "$accel: vcpu$id: guest steal + CPU is above the wall time"; exit 1; }
			check "$peer >= 0.25 * $units" ||
				{ echo "$accel: vcpu$id: the parked peer was not flagged preempted"; exit 1; }
			check "$seen - $added <= 0.25 * $wall" || quiet=0
			check "($seen + $cpu) >= 0.85 * $wall" || floor=$((floor + 1))
		done
		[ $quiet = 1 ] && break
		echo "$accel: host too busy (a vCPU waited over a quarter of the wall for a CPU)"
		floor=0
	done
	if [ "$(vcpu_stat "$out" 0 guest_steal_ns)" = 0 ]; then
		echo "$accel: no steal time here"
		continue
	fi
	if [ $quiet = 1 ]; then
		[ $floor = 0 ] || { echo "$accel: guest steal + CPU is below 0.85 of the wall time"; exit 1; }
	else
		echo "$accel: host too busy in 3 runs: the floor not judged"
	fi

	"$VSCHED" run --accel "$accel" --vcpus 2 --payload steal --cpus 2 --duration 1s \
		--stats "$out" >/dev/null || exit 1
	wall=$(stat_top "$out" wall_ns)
	for id in 0 1; do
		added=$(vcpu_stat "$out" $id steal_ns)
		echo "$accel: two lanes: vcpu$id: vsched added ${added} ns of steal"
		check "$added <= 0.01 * $wall" || { echo "$accel: vcpu$id: steal added without a wait"; exit 1; }
	done
	tested=$((tested + 1))
done
[ $tested -gt 0 ] || { echo "no backend offers steal time here"; exit 77; }
