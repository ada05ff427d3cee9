#!/usr/bin/env bash
# A delegation below a VM group survives the daemon (thread backend, runs everywhere): root
# chowns the VM group and its group d (directory, cgroup.procs, cgroup.subtree_control) to U
# (uid 65534) in the daemon's directory; U enables cpu in d, makes d/u (a forwarded mkdir: U's,
# directory and files), sets its cpu.weight and cpu.max, and makes its cpu.weight group-writable.
# After a SIGKILL and a new daemon (Restart=on-failure), then a SIGTERM and a new one, the VM
# re-joins with every owner, mode and setting, and U still writes d/u. Before, the owners lived
# in the old daemon's memory: the new daemon showed the VM group, d, d/u and its files as root's
# and U's writes were refused. A new VM of the name (the old one killed while no daemon ran)
# gets none of them. The VM's own directory keeps its own owners (its VMM's, which lives on).
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test writes the daemon's directory"; exit 77; }
command -v setpriv >/dev/null || { echo "no setpriv"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_deleg_begin host-deleg
start_w w1
wait_for "[ -d $D/d ]" || fail "w did not join"
chown $U:$U "$D" "$D/d" "$D/d/cgroup.procs" "$D/d/cgroup.subtree_control" ||
	fail "chown of w, d"
as_u bash -c "echo +cpu >$D/d/cgroup.subtree_control" || fail "U cannot enable cpu in d"
as_u mkdir "$D/d/u" || fail "U cannot make d/u"
as_u bash -c "echo 50 >$D/d/u/cpu.weight && echo '20000 100000' >$D/d/u/cpu.max" ||
	fail "U cannot write d/u's cpu.weight, cpu.max"
as_u chmod 664 "$D/d/u/cpu.weight" || fail "U cannot chmod d/u/cpu.weight"
V=$VSCHED_RUN_DIR/w	# the VM's own directory: a delegation there is its own
chown $U:$U "$V/d" "$V/d/cgroup.procs" || fail "chown in w's own directory"
OWNED="$D $D/d $D/d/cgroup.procs $D/d/cgroup.subtree_control $D/d/u $D/d/u/cgroup.type
	$D/d/u/cgroup.procs $D/d/u/cpu.weight $D/d/u/cpu.max"
# shellcheck disable=SC2086
want=$(stat -c '%n %u:%g %a' $OWNED)
host_tree_saved 'vown\t.*\t/machine/w/d/u\t65534\t65534\t' \
	'vattr\t.*\t/machine/w/d/u/cpu.weight\t0664\t' \
	'vattr\t.*\t/machine/w/d/cgroup.subtree_control\t-\t65534:65534\t'
check() {	# WHEN
	wait_for "[ -d $D/d/u ]" || fail "w did not join again ($1)"
	local now
	# The files' owners reach the directory right after the re-join's event (without the
	# tree's lock): a reader at that instant may see root's.
	# shellcheck disable=SC2086
	wait_for '[ "$(stat -c "%n %u:%g %a" $OWNED 2>&1)" = "$want" ]'
	# shellcheck disable=SC2086
	now=$(stat -c '%n %u:%g %a' $OWNED 2>&1)
	[ "$now" = "$want" ] || fail "owners and modes lost ($1): $(diff <(echo "$want") \
		<(echo "$now") | tr '\n' ' ')"
	[ "$(cat "$D/d/u/cpu.weight")" = 50 ] && [ "$(cat "$D/d/u/cpu.max")" = "20000 100000" ] ||
		fail "d/u's settings lost ($1): $(cat "$D/d/u/cpu.weight" "$D/d/u/cpu.max")"
	as_u bash -c "echo 60 >$D/d/u/cpu.weight" || fail "U cannot write d/u/cpu.weight ($1)"
	echo 50 >"$D/d/u/cpu.weight"
	as_u mkdir "$D/d/u/v" && as_u rmdir "$D/d/u/v" || fail "U cannot make d/u/v ($1)"
	[ "$(stat -c %u "$V/d" "$V/d/cgroup.procs" | sort -u)" = $U ] ||
		fail "w's own directory lost its owners ($1)"
}
check "the first daemon"
host_daemon_restart 9 --cpus 2
check "after SIGKILL"
host_daemon_restart TERM --cpus 2
check "after SIGTERM"

# The VM killed while no daemon runs, a new VM of the name and groups: root's, all of it.
kill -9 "$HP"
wait "$HP" 2>/dev/null
kill -9 "$WP"
wait "$WP" 2>/dev/null
host_daemon_start --cpus 2
wait_for "[ -e $H/cgroup.procs ]" || fail "no control directory $H (the new VM)"
start_w w2 --group d/u
wait_for "[ -d $D/d/u ]" || fail "the new w did not join"
# shellcheck disable=SC2086
own=$(stat -c '%n %u' $OWNED)
[ "$(awk '{ print $2 }' <<<"$own" | sort -u)" = 0 ] ||
	fail "the new VM's groups kept the old owners: $(tr '\n' ' ' <<<"$own")"
as_u bash -c "echo 70 >$D/d/u/cpu.weight" 2>/dev/null && fail "U wrote the new VM's d/u"
kill -9 "$WP"
host_daemon_stop
echo "a delegation below a VM group kept across daemon restarts, not given to a new VM"
