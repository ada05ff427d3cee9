#!/usr/bin/env bash
# Handoffs across VMs (docs/host.md, "Handoffs across VMs"): a 1-lane `vsched host`, two VMs of
# one vCPU each that runs 1 ms and sleeps 0.5 ms (duty:1000/500: 1.33 lanes of demand on one),
# so that one mostly waits while the other VM's holds the lane. The daemon publishes the waiter
# as the successor of the other VM's lane; the holder that blocks claims it in its own offer
# word and the successor's thread, parked on that word (read-only, shared between the VMMs),
# takes it without the daemon's wake-up. Judged on `--stats`: each VM took a lane from the
# other (runtime.xhandoffs) and released one to it (xhandoffs_out), the two VMs together took a
# third of their grants from the other's release, both VMs exited 0; and on the daemon's counts
# as each left: at most a fifth of the lanes taken from the other VM revoked by its core.
# Thread backend, then KVM.
#
# A third of both VMs' grants, both backends (the thread backend on a quiet machine only since
# the daemon left the lane's CPU: before, in about a quarter of the runs the daemon, woken on
# the lane's CPU by the holder's TOOK, settled the claims before the waker took them: 4-33 %;
# after, 98.7-100 % in 16 quiet runs). On KVM with the waker (sched/runtime/rt_xwait.c: a sleeper
# runnable at its sleep's end, the lane taken for the successor by a SCHED_FIFO thread), in 21
# runs at load 8-14 (10 beside two busy loops) the pairs crossed 41-99 % (one VM alone down to
# 18 % in one run, its claims missed: per VM is not a bound that holds; docs/host.md, "Handoffs
# across VMs"), and on a quiet machine 53-100 % in 30 runs. Before the waker, 10-24 % per pair
# at load 8-12 and 1-6 % on a quiet machine: a regression that loses most crossings fails.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-xhand
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl

# A loaded host starves the two vCPUs (load 26: 33 grants in 2 s, each waits for a CPU): the
# pair runs again, up to 4 times, until each VM's grants add up to 50; the counts are judged on
# the sums, the daemon's revocations run by run. A pair that never crosses fails at any count.
n=0
for accel in $(test_accels); do
	xs=0
	gs=0
	payload=duty:1000/500
	declare -A X=() O=() G=()
	runs=0 taken=0 revoked=0
	read -r _ dw0 dn0 </proc/$HP/schedstat
	while [ $runs -lt 4 ] && { [ ${G[a]:-0} -lt 50 ] || [ ${G[b]:-0} -lt 50 ]; }; do
		runs=$((runs + 1))
		pids=
		for vm in a b; do
			"$VSCHED" run --host --accel "$accel" --name "x$vm$accel" --vcpus 1 \
				--payload "$payload" --no-ctl --duration 2s --stats "$TMPD/$accel-$vm.json" \
				>"$TMPD/$accel-$vm.log" 2>&1 &
			pids="$pids $!"
		done
		for p in $pids; do
			wait "$p" || fail "$accel: a VM exited $?"
		done
		for vm in a b; do
			st=$TMPD/$accel-$vm.json
			x=$(sed -nE 's/.*"xhandoffs": ([0-9]+).*/\1/p' "$st")
			out=$(sed -nE 's/.*"xhandoffs_out": ([0-9]+).*/\1/p' "$st")
			grants=$(sed -nE 's/.*"grants": ([0-9]+).*/\1/p' "$st")
			parked=$(sed -nE 's/.*"xhandoffs_parked": ([0-9]+).*/\1/p' "$st")
			cpu0=$(sed -nE 's/.*"id": 0,.*"cpu_ns": ([0-9]+),.*/\1/p' "$st")
			echo "$accel $vm run $runs: ${x:-?} lanes taken from the other VM (${parked:-?} by its parked thread), ${out:-?} released to it, of ${grants:-?} grants; vCPU CPU ${cpu0:-?} ns"
			[ -n "$x" ] && [ -n "$out" ] && [ -n "$grants" ] ||
				fail "$accel $vm: no xhandoffs or grants in --stats"
			check "$cpu0 > 0" || fail "$accel $vm: its vCPU did not run"
			X[$vm]=$((${X[$vm]:-0} + x)) O[$vm]=$((${O[$vm]:-0} + out))
			G[$vm]=$((${G[$vm]:-0} + grants))
		done
		# The daemon's counts as each VM left: taken and revoked by its core.
		n=$((n + 2))
		wait_for '[ "$(grep -ac "left: hung up (handoffs" "$TMPD/host.log")" -ge $n ]' ||
			fail "$accel: the daemon did not log the VMs leaving"
		# Summed over the runs: a starved run may cross nothing (load 20: a VM's first guest
		# instruction 0.9 s after its start, 18 grants).
		while read -r line; do
			echo "daemon: $line"
			t=$(echo "$line" | sed -nE 's/.*from other VMs: ([0-9]+), revoked ([0-9]+),.*/\1/p')
			r=$(echo "$line" | sed -nE 's/.*from other VMs: ([0-9]+), revoked ([0-9]+),.*/\2/p')
			[ -n "$t" ] && [ -n "$r" ] || fail "$accel: no count of lanes taken from other VMs"
			taken=$((taken + t)) revoked=$((revoked + r))
		done < <(grep -a "left: hung up (handoffs" "$TMPD/host.log" | tail -2)
	done
	check "$taken > 0 && $revoked * 5 <= $taken" ||
		fail "$accel: $revoked of $taken taken from other VMs revoked"
	read -r _ dw1 dn1 </proc/$HP/schedstat
	dwait=$(((dw1 - dw0) / 1000 / (dn1 - dn0 + 1)))
	echo "$accel: the daemon waited for a CPU $dwait us a run at the mean"
	for vm in a b; do
		x=${X[$vm]} out=${O[$vm]} grants=${G[$vm]}
		check "$grants >= 50" || fail "$accel $vm: only $grants grants in $runs runs"
		check "$x >= 1" || fail "$accel $vm: none of $grants grants taken from the other VM"
		check "$out >= 1" || fail "$accel $vm: none of $grants grants released to the other VM"
		xs=$((xs + x))
		gs=$((gs + grants))
	done
	# A third where the daemon's main thread waited for a CPU under 200 us a run at the mean
	# (its schedstat, as t-host-ahead: a quiet host), else a fifth. Loaded (load 12-26, 13 runs:
	# the daemon waited 239-1553 us a run) the thread backend crossed 25.7-49 % whatever the
	# wait (457 us: 30 %, failed a third); before the waker 10-24 % at load 8-12, 1-6 % quiet.
	if [ $dwait -lt 200 ]; then
		check "$xs * 3 >= $gs" || fail "$accel: only $xs of both VMs' $gs grants crossed"
	else
		echo "$accel: host busy (the daemon waited $dwait us a run): a fifth judged"
		check "$xs * 5 >= $gs" || fail "$accel: only $xs of both VMs' $gs grants crossed"
	fi
done
host_daemon_stop
echo "ok"
