#!/usr/bin/env bash
# Owners kept by the daemon's directory go with the group (thread backend, runs everywhere): a
# group U (uid 65534) made below a VM group through the daemon's directory (a forwarded mkdir)
# is U's, directory and files; once that VM leaves the tree (SIGKILL) and a new VM of the same
# name and groups joins, the new VM's groups are root's: U may not write the new d/u's
# cgroup.type nor move its vCPUs (cgroup.procs). Before, the directory kept the files' owners by
# path after the VM left (the daemon removed the groups, not an rmdir): the new VM's d/u/
# cgroup.type and cgroup.procs showed uid 65534 and U's write to cgroup.type was taken.
. "$(dirname "$0")/runtime-lib.sh"
[ -c /dev/fuse ] || { echo "no /dev/fuse: the test writes the daemon's control directory"; exit 77; }
command -v setpriv >/dev/null || { echo "no setpriv"; exit 77; }
. "$(dirname "$0")/host-lib.sh"
host_deleg_begin host-own
start_w w1
wait_for "[ -d $D/d ]" || fail "w did not join"
chown $U:$U "$D/d" || fail "chown of d"
as_u mkdir "$D/d/u" || fail "U cannot make d/u"
[ "$(stat -c %u "$D/d/u" "$D/d/u/cgroup.type" "$D/d/u/cgroup.procs" | sort -u)" = $U ] ||
	fail "d/u is not U's: $(stat -c '%n %u' "$D/d/u" "$D/d/u/cgroup.type")"
kill -9 "$WP"
wait "$WP" 2>/dev/null
wait_for "[ ! -d $D ]" || fail "w did not leave the tree"
start_w w2 --group d/u
wait_for "[ -d $D/d/u ]" || fail "the second w did not join"
own=$(stat -c '%n %u' "$D/d" "$D/d/u" "$D/d/u/cgroup.type" "$D/d/u/cgroup.procs")
[ "$(awk '{ print $2 }' <<<"$own" | sort -u)" = 0 ] ||
	fail "the new VM's groups kept the old owners: $(tr '\n' ' ' <<<"$own")"
as_u bash -c "echo threaded >$D/d/u/cgroup.type" 2>/dev/null &&
	fail "U wrote the new VM's d/u/cgroup.type"
kill -9 "$WP"
host_daemon_stop
echo "ok"
