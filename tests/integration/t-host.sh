#!/usr/bin/env bash
# `vsched host` with VMs joined by `vsched run --host`, on the thread backend (runs everywhere),
# the weight split also on KVM where it works:
#  - two VMs of four hogs on 2 lanes, cpu.weight 200:100 on their groups (written in the
#    daemon's control directory): CPU split within [1.6, 2.4] (ideal 2; +-20 % for a shared
#    2-CPU host over 2 s, as t-runtime-weights.sh; bench/host_split.sh measures the accuracy).
#    The split is of the rates of CPU time the core charged, each VM's over its own window
#    (usage_at), which a busy host shrinks for both VMs alike: judged when the VMs got at
#    least one of the two CPUs; and the two rates' sum at most 2.1 CPUs (2 lanes, plus the
#    reports' lag);
#  - a VMM killed with SIGKILL leaves the tree (printed: how fast; bounded by 2 s only, a busy
#    host may delay the poll) while the other goes on;
#  - the daemon killed: the VM says so once, runs unscheduled, joins again when a new daemon
#    starts, with its subtree (groups, weights, members);
#  - a weight and a mkdir in the VM's own directory reach the daemon's tree;
#  - a VMM stopped with SIGSTOP holds no lane in the daemon after the grace (100 ms; looked at
#    after 400 ms), and the other VM's hogs run (their CPU printed);
#  - a daemon stopped with SIGSTOP: a VM whose vCPUs wait falls back within a bound (printed),
#    all its vCPUs run (>= 50 ms each, 1 s after the fall-back), and it joins again after SIGCONT;
#    a VM whose vCPUs all hold lanes (none waits) falls back within 1 s too, and joins again;
#  - no daemon: `run --host` fails with one message; a second daemon is refused.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 2
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test reads the daemon's control directory"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-test
# usage_at NAME: U, usage_usec of NAME's group, and T, when it was read (us, the middle of the
# read), by the shell itself (no fork): each VM's CPU time over its own window. With a0=$(usage a)
# b0=$(usage b) t0=$(date), a's window began a fork and a read before b's and the wall time's:
# one make check read k1 3126843 us beside k2 1301282 us over 2020505 us (2.19 CPUs on 2, split
# 2.40; k2's rate nominal, as if k1's window were 0.4 s longer), which the daemon's charging
# cannot produce (test_host_charge_bound) and a 0.4 s stall between the two reads reproduces
# (docs/host.md). A read that took 10 ms or more (the shell preempted) is made again, up to 10
# times; R is how long the one kept took.
usage_at() {
	local i l t0 t1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		t0=${EPOCHREALTIME/./}
		mapfile -t l <"$H/machine/$1/cpu.stat"
		t1=${EPOCHREALTIME/./}
		[ $((t1 - t0)) -lt 10000 ] && break
	done
	U=${l[0]#usage_usec } T=$(((t0 + t1) / 2)) R=$((t1 - t0))
}
start_host() {
	"$VSCHED" host --cpus 2 --pidfile "$TMPD/host.pid" >"$TMPD/host$1.log" 2>&1 &
	HP=$!
	PIDS="$PIDS $HP"
	wait_for "[ -S $VSCHED_RUN_DIR/host.sock ] && [ -e $H/cgroup.procs ]" ||
		fail "the daemon did not start"
}
run_vm() {	# NAME SECONDS [run flags]
	local name=$1 secs=$2
	shift 2
	"$VSCHED" run --host --accel "${ACCEL:-thread}" --name "$name" --vcpus 4 --payload hog \
		--duration "${secs}s" "$@" >"$TMPD/$name.log" 2>&1 &
	PIDS="$PIDS $!"
	eval "PID_$name=$!"
}

mkdir -p "$VSCHED_RUN_DIR"
out=$("$VSCHED" run --host --accel thread --duration 1s 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "host scheduler" ||
	fail "run --host without a daemon: exit $rc, '$out'"
# A run directory the user cannot make is named (a new user's first error: /run/vsched as
# non-root); it said "vsched host: Permission denied".
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod 0755 "$TMPD"
	out=$(VSCHED_RUN_DIR=$TMPD/ro/run setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$VSCHED" host --cpus 1 --no-ctl 2>&1)
	rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q "run directory $TMPD/ro/run: Permission denied" ||
		fail "host with a run directory it cannot make: exit $rc, '$out'"
fi

start_host 1
[ "$(cat "$TMPD/host.pid")" = "$HP" ] || fail "--pidfile does not hold the daemon's pid"
"$VSCHED" host --cpus 2 >"$TMPD/second.log" 2>&1 && fail "a second daemon was not refused"
grep -q "another host scheduler" "$TMPD/second.log" || fail "second daemon: no message"

# split NAME_A NAME_B: a's share over b's over 2 s, judged unless the host was too busy. Each
# VM's CPU time is divided by its own window (usage_at), the split is of the two rates.
split() {
	local a0 b0 a1 b1 ta0 tb0 ta1 tb1 ra rb da db wa wb
	usage_at "$1"; a0=$U ta0=$T ra=$R
	usage_at "$2"; b0=$U tb0=$T rb=$R
	sleep 2
	usage_at "$1"; a1=$U ta1=$T ra="$ra/$R"
	usage_at "$2"; b1=$U tb1=$T rb="$rb/$R"
	da=$((a1 - a0)) db=$((b1 - b0)) wa=$((ta1 - ta0)) wb=$((tb1 - tb0))
	echo "${ACCEL:-thread}: weights 200:100: $1=$da us over $wa us, $2=$db us over $wb us" \
	     "(reads took $ra, $rb us)"
	# The core charges no more than its 2 lanes' wall time and the VMMs' other threads (a few
	# ms a second: docs/host.md, "A VMM's other threads are charged to its VM group"), but for
	# the reports' lag (tens of ms: "Charged usage above the lanes"); judged however busy the
	# host is.
	check "$da / $wa + $db / $wb <= 2.1" ||
		fail "the VMs were charged $(awk "BEGIN{print $da / $wa + $db / $wb}") CPUs on 2 lanes"
	if check "$da / $wa + $db / $wb < 0.5 * 2"; then
		echo "host too busy (the VMs got $(awk "BEGIN{print $da / $wa + $db / $wb}") CPUs): split not judged"
	else
		check "$db > 0 && ($da / $wa) / ($db / $wb) >= 1.6 && ($da / $wa) / ($db / $wb) <= 2.4" ||
			fail "split $1/$2 = $(awk "BEGIN{print ($da / $wa) / ($db / $wb)}") outside [1.6, 2.4]"
	fi
}

# With KVM where it works: the same split between two KVM VMs.
case " $(test_accels) " in
*" kvm "*)
	ACCEL=kvm run_vm k1 4
	ACCEL=kvm run_vm k2 4
	wait_for "[ -d $H/machine/k1 ] && [ -d $H/machine/k2 ]" || fail "the KVM VMs did not join"
	echo 200 >"$H/machine/k1/cpu.weight" || fail "cannot write cpu.weight"
	sleep 0.5
	ACCEL=kvm split k1 k2
	wait "$PID_k1" && wait "$PID_k2" || fail "a KVM VM failed"
	;;
esac

# Weights 200:100 between two VMs. The VMs below run until the test stops them (SIGKILL,
# SIGTERM): at load 25 the test reached b's re-join after b's 20 s had run out (b joined the
# new daemon and left at once: "b did not join the new daemon").
run_vm a 300
run_vm b 300 --group g:weight=300 --assign 0-1=g
wait_for "[ -d $H/machine/a ] && [ -d $H/machine/b ]" || fail "the VMs did not join"
echo 200 >"$H/machine/a/cpu.weight" || fail "cannot write cpu.weight"
sleep 0.5
split a b
[ "$(cat "$H/machine/b/g/cpu.weight")" = 300 ] || fail "b's subtree is not mirrored"

# SIGKILL of a VMM: it leaves the tree, the other goes on.
kill -9 "$PID_a"
t0=$(date +%s%N)
wait_for "[ ! -d $H/machine/a ]" || fail "a killed VMM stayed in the tree"
echo "killed VMM left the tree after $((($(date +%s%N) - t0) / 1000)) us (polled every 10 ms)"
grep -q "/machine/a (pid $PID_a) left" "$TMPD/host1.log" || fail "no log line for the VM that left"
# Judged by the daemon's lanes, not b's CPU time: a busy host may not run b's threads, but the
# daemon must give b both lanes. b's vCPUs sit in two files, read one after the other: a slice-end
# handoff between the reads (a lane moving from a vCPU of the file not read yet to one of the file
# read) hides that lane (CI at load ~15 saw 7 of 10), so a sample is up to three read pairs, in
# alternating order, and counts if one shows both lanes. A daemon that keeps a lane from b never
# shows two. 10 samples, 50 ms apart.
b_lanes() {
	local l x seen=" "
	mapfile -t l <"$H/machine/b/$1"
	mapfile -t -O ${#l[@]} l <"$H/machine/b/$2"
	for x in "${l[@]}"; do
		[[ $x =~ lane=([0-9]+) ]] && [[ $seen != *" ${BASH_REMATCH[1]} "* ]] &&
			seen="$seen${BASH_REMATCH[1]} "
	done
	set -- $seen
	echo $#
}
both=0 retries=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	for try in 1 2 3; do
		if [ $((try % 2)) = 1 ]; then
			n=$(b_lanes vsched.vcpu.stat g/vsched.vcpu.stat)
		else
			n=$(b_lanes g/vsched.vcpu.stat vsched.vcpu.stat)
		fi
		[ "$n" -eq 2 ] && { both=$((both + 1)); break; }
		retries=$((retries + 1))
	done
	sleep 0.05
done
echo "b held both lanes in $both of 10 samples (retries $retries)"
[ $both -ge 8 ] || fail "b did not take both lanes after a left ($both of 10 samples)"

# The daemon dies: b runs unscheduled, then joins the next daemon with its subtree.
kill -9 "$HP"
wait_for "grep -q 'host scheduler lost' $TMPD/b.log" || fail "b did not notice the daemon's death"
sleep 0.5
ts=${EPOCHREALTIME/./}
start_host 2
wait_for "[ -d $H/machine/b/g ]" || fail "b did not join the new daemon"
# What b ran in the fallback is not the new daemon's to charge: b's usage there is at most
# its 2 lanes since the daemon started (+0.2 s for the reports' lag and b's other threads).
usage_at b
echo "b's usage in the new daemon: $U us, $((T - ts)) us after its start"
[ "$U" -le $((2 * (T - ts) + 200000)) ] || fail "b's fallback time was charged in the new daemon"
# b's agent sends its subtree, then its vCPUs' TIDs and RUNNABLEs, and says it joined last: the
# daemon can show b/g before that line is written (the agent preempted in between by the daemon
# it woke, beside b's four hogs), so the line is waited for (up to 5 s), as s's and l's below.
wait_for "grep -q 'joined the host scheduler again as /machine/b' $TMPD/b.log" ||
	fail "no re-join message"
[ "$(grep -c 'host scheduler lost' "$TMPD/b.log")" = 1 ] || fail "the loss was not said once"
[ "$(cat "$H/machine/b/g/cpu.weight")" = 300 ] || fail "b's group weight was not kept"
[ "$(cat "$H/machine/b/g/vsched.vcpus" | wc -w)" = 1 ] || fail "b's group lost its members"

# The VM's own directory stays its subtree; changes there reach the daemon's tree.
echo 150 >"$VSCHED_RUN_DIR/b/g/cpu.weight" && mkdir "$VSCHED_RUN_DIR/b/n" ||
	fail "cannot change b's own directory"
wait_for "[ -d $H/machine/b/n ] && [ \"\$(cat $H/machine/b/g/cpu.weight)\" = 150 ]" ||
	fail "a change in the VM's directory did not reach the daemon"

# A stopped VMM holds no lane: c's hogs get both.
read -r _ dw0 dn0 </proc/$HP/schedstat
run_vm c 8 --vcpus 2	# ends by itself: a SIGTERM revokes its lanes as its threads go
wait_for "[ -d $H/machine/c ]" || fail "c did not join"
sleep 0.3
# b_held: lanes b's vCPUs hold in the daemon (read by the shell itself: polled every ~2 ms).
b_held() {
	local l x n=0
	mapfile -t l <"$H/machine/b/vsched.vcpu.stat"
	mapfile -t -O ${#l[@]} l <"$H/machine/b/g/vsched.vcpu.stat"
	for x in "${l[@]}"; do [[ $x == *lane=[0-9]* ]] && n=$((n + 1)); done
	echo $n
}
# From SIGSTOP to b holding no lane, five times: its slice (<= 8 ms) plus the answer time
# (HOST_ANSWER_NS, 5 ms), plus the poll; before, up to the grace (100 ms) past the slice.
took=""
for i in 1 2 3 4 5; do
	wait_for "[ \$(b_held) -gt 0 ]" || fail "b holds no lane before SIGSTOP"
	t0=${EPOCHREALTIME/./}
	kill -STOP "$PID_b"
	for j in $(seq 1000); do [ "$(b_held)" = 0 ] && break; sleep 0.002; done
	took="$took $(((${EPOCHREALTIME/./} - t0) / 1000))"
	kill -CONT "$PID_b"
	sleep 0.2
done
echo "b stopped: its lanes went to c in$took ms"
kill -STOP "$PID_b"
sleep 0.4
held=$(cat "$H/machine/b/vsched.vcpu.stat" "$H/machine/b/g/vsched.vcpu.stat" | grep -c 'lane=[0-9]')
usage_at c; c0=$U t0=$T
sleep 1
usage_at c; c1=$U t1=$T
kill -CONT "$PID_b"
echo "b stopped: it holds $held lanes; c got $((c1 - c0)) us over $((t1 - t0)) us"
[ "$held" = 0 ] || fail "the stopped VM still holds $held lanes"
kill -TERM "$PID_b"
wait "$PID_b"
rc=$?
[ $rc = 143 ] || fail "b exited $rc on SIGTERM"
wait "$PID_c" || fail "c exited $?"
# c ran all along: none of its vCPUs was revoked (the daemon's count as it left). At the grace
# (100 ms without a word: the old rule) is allowed only where the daemon's main thread waited
# for a CPU 500 us a run or more at the mean over c's life (its schedstat, as t-host-ahead): a
# host that busy starves a live VM's threads past the grace (t-host-freeze: 133 ms at load 28).
# A c that fell back and joined again (its agent heard nothing for 0.5 s: the daemon stalled on
# a loaded host) left the daemon once per join: every leave's line, summed (one line was two
# numbers, "0\n0", which no count equals).
nc=$((1 + $(grep -c 'joined the host scheduler again' "$TMPD/c.log")))
wait_for '[ "$(grep -c "/machine/c: .* revoked" "$TMPD/host2.log")" -ge $nc ]' ||
	fail "the daemon did not log c's $nc leaves"
read -r _ dw1 dn1 </proc/$HP/schedstat
dwait=$(((dw1 - dw0) / 1000 / (dn1 - dn0 + 1)))
sum_lines() { awk '{ s += $1; n++ } END { if (n) print s }'; }
rc=$(sed -nE 's|.*/machine/c: .* revoked ([0-9]+) \(.*|\1|p' "$TMPD/host2.log" | sum_lines)
grace=$(sed -nE 's|.*/machine/c: .* revoked [0-9]+ \(.*; at the grace ([0-9]+);.*|\1|p' \
	"$TMPD/host2.log" | sum_lines)
echo "revoked as they left: c $rc (at the grace $grace; the daemon waited for a CPU $dwait us" \
	"a run), b $(sed -nE 's|.*/machine/b: .* (revoked [0-9]+ \(.*)|\1|p' "$TMPD/host2.log")"
[ -n "$rc" ] && [ -n "$grace" ] || fail "no count of c's revocations"
if [ "$dwait" -ge 500 ]; then
	[ "$rc" = "$grace" ] || fail "the running VM c had $rc vCPUs revoked, $grace at the grace"
else
	[ "$rc" = 0 ] || fail "the running VM c had $rc vCPUs revoked"
fi

# A stopped daemon (SIGSTOP; its socket stays open): s's waiting vCPUs hear nothing, s asks
# (PING), falls back within RT_LIVE_QUIET_NS + RT_LIVE_REPLY_NS (0.5 s) and says so once; all
# four of its vCPUs then run (2 lanes: two of them waited); SIGCONT: s joins again. The
# daemon's directory is not read while it is stopped (its FUSE threads are stopped too).
# CPU time (clock ticks) of each of s's vCPU threads: what ran, whoever scheduled it.
vcpu_ticks() {
	local tid
	for tid in $(sed -n 's/.*tid=\([0-9]*\).*/\1/p' "$VSCHED_RUN_DIR/s/vsched.vcpu.stat"); do
		awk '{ print $14 + $15 }' "/proc/$PID_s/task/$tid/stat"
	done
}
run_vm s 300
wait_for "[ -d $H/machine/s ] && [ -e $VSCHED_RUN_DIR/s/vsched.vcpu.stat ]" || fail "s did not join"
sleep 0.3
kill -STOP "$HP"
t0=$(date +%s%N)
wait_for "grep -q 'host scheduler lost (it stopped answering)' $TMPD/s.log" ||
	{ kill -CONT "$HP"; fail "s did not notice the stopped daemon"; }
echo "stopped daemon: s fell back after $((($(date +%s%N) - t0) / 1000)) us (polled every 10 ms)"
u0=$(vcpu_ticks)
sleep 1
u1=$(vcpu_ticks)
kill -CONT "$HP"
ran=$(paste <(echo "$u0") <(echo "$u1") | awk '{ printf "%d ", $2 - $1 }')
echo "stopped daemon: s's vCPU threads ran (ticks of $(getconf CLK_TCK)/s): $ran"
[ "$(echo "$ran" | tr ' ' '\n' | awk -v hz="$(getconf CLK_TCK)" 'NF && $1 >= hz / 20' | wc -l)" = 4 ] ||
	fail "not all of s's vCPUs ran while the daemon was stopped: $ran"
wait_for "grep -q 'joined the host scheduler again as /machine/s' $TMPD/s.log" ||
	wait_for "grep -q 'joined the host scheduler again as /machine/s' $TMPD/s.log" ||
	fail "s did not join the daemon again after SIGCONT"
[ "$(grep -c 'host scheduler lost' "$TMPD/s.log")" = 1 ] || fail "s said the loss more than once"
wait_for "[ \"\$(wc -l <$H/machine/s/cgroup.threads 2>/dev/null)\" = 4 ]" ||
	fail "s's vCPUs are not back in its group"
kill -TERM "$PID_s"
wait "$PID_s"

# A stopped daemon seen by a VM none of whose vCPUs waits: l's two vCPUs hold the two lanes,
# so nothing is ever decided for it, yet it asks after 200 ms of silence whatever waits and
# falls back 300 ms after an unanswered PING: 0.5 s after the stop at most, plus the agent's
# wake-up on a host whose two CPUs l's hogs fill. Judged within 1 s (the test polls every
# 10 ms); before, such a VM never noticed. SIGCONT: it joins again and its vCPUs hold lanes.
run_vm l 300 --vcpus 2
wait_for "[ \"\$(grep -c 'lane=[0-9]' $H/machine/l/vsched.vcpu.stat 2>/dev/null)\" = 2 ]" ||
	fail "l's two vCPUs do not hold the two lanes"
sleep 0.3
# Polled by the shell itself (no fork: a grep and a sleep each 10 ms took so long at load 25
# that the test saw l's message 1691 ms after the stop, failed), up to 10 s.
mkfifo "$TMPD/nap"
exec {nap_fd}<>"$TMPD/nap"
lost_said() {	# LOG: whether it says the daemon stopped answering
	local x
	mapfile -t x <"$1"
	[[ ${x[*]} == *"host scheduler lost (it stopped answering)"* ]]
}
kill -STOP "$HP"
t0=${EPOCHREALTIME/./}
for i in $(seq 1000); do lost_said "$TMPD/l.log" && break; read -r -t 0.01 -u "$nap_fd"; done
dt=$(((${EPOCHREALTIME/./} - t0) / 1000))
lost_said "$TMPD/l.log" ||
	{ kill -CONT "$HP"; fail "l (all vCPUs on lanes) did not notice the stopped daemon"; }
kill -CONT "$HP"
echo "stopped daemon: l, its vCPUs all on lanes, fell back after $dt ms (polled every 10 ms)"
[ "$dt" -le 1000 ] || fail "l noticed the stopped daemon after $dt ms, more than 1 s"
wait_for "grep -q 'joined the host scheduler again as /machine/l' $TMPD/l.log" ||
	wait_for "grep -q 'joined the host scheduler again as /machine/l' $TMPD/l.log" ||
	fail "l did not join the daemon again after SIGCONT"
wait_for "[ \"\$(grep -c 'lane=[0-9]' $H/machine/l/vsched.vcpu.stat 2>/dev/null)\" = 2 ]" ||
	fail "l's vCPUs do not hold lanes again after the re-join"
[ "$(grep -c 'host scheduler lost' "$TMPD/l.log")" = 1 ] || fail "l said the loss more than once"
kill -TERM "$PID_l"
wait "$PID_l"
kill -TERM "$HP"
wait "$HP" || fail "the daemon exited $? on SIGTERM"
[ ! -e "$TMPD/host.pid" ] || fail "the pidfile was left behind"
echo "ok"
