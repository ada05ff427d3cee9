#!/usr/bin/env bash
# Slice ends decided ahead (host/host_ahead.c, sched/runtime/rt_ahead.c, HOST_HELLO_AHEAD):
# two VMs of one hog vCPU each on a 1-lane daemon, 2 s. Every lane change is a slice end: the
# daemon decides it shortly before, publishes "PREEMPT at until" in the holder's entry and
# "GRANT from until" in the successor's, and the holder's VMM applies it at its own slice end.
# Judged on every host, per VM: none of the ends the daemon published was enforced by it at the
# grace, and the VMM applied (--stats runtime.ahead_preempts) at least three quarters, less two,
# of what the daemon logs as published ahead as it leaves (not counted: 0-6 of 31-44 at load 16,
# 1 of 1 at load 17; a VMM that applied a PREEMPT at once, not at `at`, counted 24-37 of 52-56
# when the daemon ran late: failed). Judged only where the daemon's main thread waited for a CPU
# under 500 us a run at the mean over the pair (its /proc schedstat; 5 HOST_AHEAD_NS), or that
# cannot be read: each VM published and applied ahead at least a tenth of its lane changes
# (grants), and at least 5. The daemon is a normal thread that wakes a lead before an end, learnt
# from its own timer path (100-400 us); when it waits for a CPU past that, it decides the end at
# once, as before (docs/host.md, "Slice ends decided ahead"). With a fixed 100 us a quiet CI machine
# published 1 of ~110 ends ahead, twice; the lead is printed. Measured: 245-366 us a run (load
# 9-12), 66-78 % of the ends published ahead; 1.3-9 ms (eight busy loops beside, load 9-12), 0-35 %:
# the tenth failed in 6 of 7 runs of the old test (twice each) at load 15-21. A daemon that decides
# nothing ahead waited 475-499 us a run at load 11 and failed, twice each. Each backend.
# Before: no ahead_preempts in --stats, no such log.
. "$(dirname "$0")/runtime-lib.sh"
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-ahead
mkdir -p "$VSCHED_RUN_DIR"

host_daemon_start --cpus 1 --no-ctl
pub_re='.*published ahead ([0-9]+) \(withdrawn ([0-9]+); enforced at the grace ([0-9]+); '
pub_re+='the daemon.s lead ([0-9]+) us, ([0-9]+) of ([0-9]+) runs late\).*'
# A field of a --stats file: st_field FILE KEY (the first)
st_field() { sed -nE "s/.*\"$2\": ([0-9]+).*/\1/p" "$1" | head -1; }
# The daemon's main thread's run-queue wait (ns) and its number of runs: "WAIT RUNS".
daemon_sched() { local run wait n; read -r run wait n </proc/$HP/schedstat; echo "$wait $n"; }
# One pair of VMs, 2 s, on the backend $1. False if the host was not too busy to judge and a VM
# applied fewer than a tenth of its lane changes ahead; fails the test on what no load explains.
pair() {
	local accel=$1 vm pid_a pid_b st ahead grants judged ok=0 line pub wd late d0 d1 wait starved=

	d0=$(daemon_sched)
	for vm in a b; do
		"$VSCHED" run --host --accel "$accel" --name "$vm$accel$n" --vcpus 1 --payload hog \
			--no-ctl --duration 2s --stats "$TMPD/$vm$accel$n.json" \
			>"$TMPD/$vm$accel$n.log" 2>&1 &
		eval "pid_$vm=\$!"
	done
	wait "$pid_a" || fail "$accel: VM a exited $?"
	wait "$pid_b" || fail "$accel: VM b exited $?"
	wait_for '[ "$(grep -ac "published ahead" "$TMPD/host.log")" -ge $((n + 2)) ]' ||
		fail "$accel: the daemon logged no leave of the pair (published ahead)"
	# The daemon's mean wait for a CPU per run over the pair (0 if schedstats tell nothing).
	d1=$(daemon_sched)
	wait=$(awk -v a="$d0" -v b="$d1" 'BEGIN { split(a, x); split(b, y)
		print (y[2] > x[2] ? (y[1] - x[1]) / (y[2] - x[2]) / 1000 : 0) }')
	judged=1
	check "$wait < 500" || judged=0
	for vm in a b; do
		st=$TMPD/$vm$accel$n.json
		ahead=$(st_field "$st" ahead_preempts)
		grants=$(st_field "$st" grants)
		line=$(grep -a "/machine/$vm$accel$n: its threads" "$TMPD/host.log")
		pub=$(sed -nE "s/$pub_re/\\1/p" <<<"$line")
		wd=$(sed -nE "s/$pub_re/\\2/p" <<<"$line")
		late=$(sed -nE "s/$pub_re/\\3/p" <<<"$line")
		echo "$accel $vm: ${ahead:-?} ends applied ahead of ${grants:-?} grants;" \
			"the daemon published ${pub:-?} ahead, withdrew ${wd:-?}, enforced ${late:-?};" \
			"$(sed -nE "s/$pub_re/its lead \\4 us, \\5 of \\6 timer runs late;/p" <<<"$line")" \
			"grants from an end taken $(st_field "$st" ahead_grants)," \
			"late p50 $(st_field "$st" ahead_grant_p50_ns) ns," \
			"p90 $(st_field "$st" ahead_grant_p90_ns) ns"
		[ -n "$ahead" ] && [ -n "$grants" ] || fail "$accel $vm: no ahead_preempts or grants"
		[ -n "$pub" ] && [ -n "$late" ] || fail "$accel $vm: no published ahead in the log: $line"
		[ "$late" = 0 ] || fail "$accel $vm: the daemon enforced $late published ends: $line"
		check "4 * $ahead + 8 >= 3 * ($pub - $wd)" ||
			fail "$accel $vm: the VMM applied $ahead of $pub ends published ahead" \
				"($wd withdrawn)"
		# A hog VM of a 2 s pair on one lane gets ~300 grants; under 20 its threads hardly
		# had a CPU (load 13: 8 and 9, the daemon's wait 200 us): nothing to judge a tenth of.
		[ "$grants" -ge 20 ] || { starved="$starved $vm ($grants grants)"; continue; }
		[ "$judged" = 1 ] || continue
		check "$ahead * 10 >= $grants && $pub >= 5" || ok=1
	done
	n=$((n + 2))
	echo "$accel: the daemon waited for a CPU $wait us a run at the mean"
	[ "$judged" = 1 ] || echo "$accel: host too busy: the daemon waited 500 us or more a run," \
		"how many ends it decided in time not judged"
	[ -z "$starved" ] || echo "$accel: host too busy: VM$starved not judged"
	return $ok
}

# With the fixed 100 us lead whether the daemon's timer woke in time was bimodal by run (a whole
# 2 s run with 3 of 105 applied ahead once in about ten here; on CI's machine every run): a
# second pair then, which must meet the same tenth. The lead is learnt since (94-100 % here).
n=0
for accel in $(test_accels); do
	pair "$accel" || { echo "$accel: again"; pair "$accel"; } ||
		fail "$accel: fewer than a tenth of the ends applied ahead, twice"
done
host_daemon_stop
echo "ok"
