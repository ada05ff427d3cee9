#!/usr/bin/env bash
# `vsched list` shows the whole tree's members (thread backend, runs everywhere):
#  - the host scheduler itself: "(host scheduler)", its pid, its control directory
#    <run dir>/host, its lanes and the number of VMs joined (1, then 2, then 1 again);
#  - a VM joined with --host: its line as before plus host=<its group in the daemon's tree>
#    (/machine/a, and /tenant/t1/p with --partition);
#  - an embedded VM beside them: its line unchanged ("NAME PID DIR", nothing after);
#  - no daemon: no host scheduler line;
#  - a joined VM whose daemon died runs unscheduled: host=fallback:<its group> (it said
#    host=<its group> as if joined), host=<its group> again once it joined a new daemon;
#  - a partition inside a joined VM's group is refused naming both; a refused join
#    (cgroup.max.descendants) leaves no partition group behind.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test reads the daemon's control directory"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_test_begin host-list
fail() { echo "FAIL: $*"; echo "--- list"; "$VSCHED" list; for f in "$TMPD"/*.log; do echo "--- $f"; cat "$f"; done; exit 1; }
listed() { "$VSCHED" list | grep -Eq "$1"; }
start_vm() {	# NAME SECONDS [run flags]
	local name=$1 secs=$2
	shift 2
	"$VSCHED" run --accel thread --name "$name" --vcpus 1 --payload hog --duration "${secs}s" \
		"$@" >"$TMPD/$name.log" 2>&1 &
	PIDS="$PIDS $!"
	eval "PID_$name=$!"
}

mkdir -p "$VSCHED_RUN_DIR"
listed '^\(host scheduler\)' && fail "a host scheduler listed where none runs"

"$VSCHED" host --cpus 2 >"$TMPD/host.log" 2>&1 &
HP=$!
PIDS="$PIDS $HP"
wait_for "[ -S $VSCHED_RUN_DIR/host.sock ] && [ -e $H/cgroup.procs ]" || fail "the daemon did not start"
listed "^\(host scheduler\) +$HP +$H lanes=2 vms=0\$" || fail "the daemon is not listed with 0 VMs"

# a, e and p run until stopped (SIGTERM: exit 143): with a fixed duration a loaded host (load
# 18) ended a before p left, and the count after p was 0, not 1 (waited for minutes).
start_vm a 120 --host
start_vm e 120
wait_for "listed '^a .* host=/machine/a\$' && listed '^e '" || fail "a or e not listed"
listed "^a +$PID_a +$VSCHED_RUN_DIR/a host=/machine/a\$" || fail "a: not listed with its group"
listed "^e +$PID_e +$VSCHED_RUN_DIR/e\$" || fail "the embedded VM's line changed"
listed "^\(host scheduler\) +$HP +$H lanes=2 vms=1\$" || fail "the daemon: not 1 VM joined"

# A partition inside a joined VM's group is refused, naming the partition and the VM.
"$VSCHED" run --accel thread --name q --vcpus 1 --payload hog --duration 1s --host \
	--partition /machine/a >"$TMPD/q.log" 2>&1 && fail "q joined inside a's group"
grep -q "partition '/machine/a' is inside VM 'a''s group /machine/a" "$TMPD/q.log" ||
	fail "q: the refusal does not name the partition and VM a"
# A join the tree refuses leaves no group behind (lim allows one descendant: q, not q/r).
mkdir "$H/lim" && echo 1 >"$H/lim/cgroup.max.descendants" || fail "cannot make /lim"
"$VSCHED" run --accel thread --name r --vcpus 1 --payload hog --duration 1s --host \
	--partition /lim/q/r >"$TMPD/r.log" 2>&1 && fail "r joined beyond lim's limit"
[ -e "$H/lim/q" ] && fail "the failed join left /lim/q behind"
rmdir "$H/lim" || fail "cannot remove /lim"

start_vm p 120 --host --partition /tenant/t1
wait_for "listed '^p .* host=/tenant/t1/p\$'" || fail "p not listed with its group /tenant/t1/p"
listed "^\(host scheduler\) +$HP +$H lanes=2 vms=2\$" || fail "the daemon: not 2 VMs joined"
kill -TERM "$PID_p"
wait "$PID_p"
rc=$?
[ $rc = 143 ] || fail "p exited $rc on SIGTERM"
wait_for "listed '^\(host scheduler\) .* vms=1\$'" || fail "the daemon: p did not leave the count"
listed '^p ' && fail "p listed after its end"

"$VSCHED" list
kill -TERM "$PID_a" "$PID_e"
wait "$PID_a"
rc=$?
[ $rc = 143 ] || fail "a exited $rc on SIGTERM"
wait "$PID_e"
rc=$?
[ $rc = 143 ] || fail "e exited $rc on SIGTERM"
kill -TERM "$HP"
wait "$HP" || fail "the daemon exited $?"
listed '^\(host scheduler\)' && fail "a stopped host scheduler is still listed"

# SIGHUP (the terminal of a `vsched host &` closed) stops it as SIGTERM does: exit 0, its
# directory unmounted and removed, no longer listed (killed by it, it left a stale mount).
"$VSCHED" host --cpus 1 >"$TMPD/host-hup.log" 2>&1 &
HP=$!
PIDS="$PIDS $HP"
wait_for 'listed "^\(host scheduler\) +$HP "' || fail "the second daemon is not listed"
kill -HUP "$HP"
wait "$HP" || fail "the daemon exited $? on SIGHUP"
grep -q " $H " /proc/self/mounts && fail "SIGHUP: $H still mounted"
[ -e "$H" ] && fail "SIGHUP: $H left"
listed '^\(host scheduler\)' && fail "SIGHUP: the host scheduler is still listed"

# The daemon killed: a joined VM falls back (unscheduled) and says so; a new daemon: joined again.
"$VSCHED" host --cpus 1 >"$TMPD/host-fb.log" 2>&1 &
HP=$!
PIDS="$PIDS $HP"
wait_for 'listed "^\(host scheduler\) +$HP "' || fail "the third daemon is not listed"
start_vm f 120 --host
wait_for "listed '^f .* host=/machine/f\$'" || fail "f not listed with its group"
kill -9 "$HP"
wait "$HP" 2>/dev/null
wait_for "listed '^f .* host=fallback:/machine/f\$'" || fail "f: not listed as fallback"
"$VSCHED" list
"$VSCHED" host --cpus 1 >"$TMPD/host-fb2.log" 2>&1 &
HP=$!
PIDS="$PIDS $HP"
wait_for "listed '^f .* host=/machine/f\$'" || fail "f: not listed as joined again"
listed "^\(host scheduler\) +$HP +$H lanes=1 vms=1\$" || fail "the new daemon: not 1 VM joined"
kill -9 "$PID_f"
kill -TERM "$HP"
wait "$HP" || fail "the daemon exited $?"
echo "ok"
