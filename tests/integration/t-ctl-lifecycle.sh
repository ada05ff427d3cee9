#!/usr/bin/env bash
# Control directory lifecycle: default and chosen mount points, `vsched list`, removal on
# SIGTERM and SIGINT, one VM per name, and recovery from a stale mount after kill -9.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp

mounted() { grep -q " $1 fuse.vsched " /proc/self/mounts; }

# Default directory <run dir>/<name>, listed while running.
ctl_start vm1 || exit 1
expect_eq "default directory" "$D" "$VSCHED_RUN_DIR/vm1"
if mounted "$D"; then ok "mounted as fuse.vsched"; else bad "$D not mounted"; fi
if [ -f "$D/cgroup.threads" ]; then ok "root files present"; else bad "no $D/cgroup.threads"; fi
list=$("$VSCHED" list)
if echo "$list" | grep -Eq "^vm1 +$HPID +$D\$"; then ok "vsched list shows vm1"; else
	bad "vsched list: $list"; fi

# A second VM of the same name is refused while the first runs.
if "$HARNESS" --name vm1 --ctl-dir "$TMPD/other" >/dev/null 2>"$TMPD/dup.err"; then
	bad "second vm1 started"
else
	if grep -q "File exists" "$TMPD/dup.err"; then ok "second vm1 refused (EEXIST)"; else
		bad "second vm1: $(cat "$TMPD/dup.err")"; fi
fi

# SIGTERM: unmounted, directory and record gone.
ctl_stop "$HPID"
if mounted "$D"; then bad "still mounted after SIGTERM"; else ok "unmounted on SIGTERM"; fi
if [ -e "$D" ]; then bad "$D left after SIGTERM"; else ok "directory removed on SIGTERM"; fi
if "$VSCHED" list | grep -q '^vm1 '; then bad "vm1 still listed"; else ok "vm1 no longer listed"; fi

# SIGINT, with a chosen directory (which is created and removed).
ctl_start vm2 --ctl-dir "$TMPD/x/vm2dir" || exit 1
expect_eq "--ctl-dir" "$D" "$TMPD/x/vm2dir"
if "$VSCHED" list | grep -Eq "^vm2 +$HPID +$TMPD/x/vm2dir\$"; then ok "listed with its dir"; else
	bad "vsched list: $("$VSCHED" list)"; fi
kill -INT "$HPID"
wait "$HPID"
expect_eq "exit status after SIGINT" "$?" 0
if mounted "$D" || [ -e "$D" ]; then bad "$D left after SIGINT"; else ok "removed on SIGINT"; fi
# The parent it made for the directory ($TMPD/x) goes too.
if [ -e "$TMPD/x" ]; then bad "$TMPD/x (made for --ctl-dir) left"; else ok "made parents removed"; fi

# No directory at all (--no-ctl): still listed, with "-".
ctl_start vm3 --ctl-dir "" || exit 1
expect_eq "no directory" "$D" "-"
if "$VSCHED" list | grep -Eq "^vm3 +$HPID +-\$"; then ok "listed without a directory"; else
	bad "vsched list: $("$VSCHED" list)"; fi
ctl_stop "$HPID"

# A name with a space and a backslash (libvirt allows both) stays one column, as top -b shows it.
ctl_start 'web 1\b' --ctl-dir "$TMPD/web 1" || exit 1
row=$("$VSCHED" list | awk -v p="$HPID" '$2 == p { print NF, $1, $3 }')
expect_eq "a name with a space listed as one word" "$row" "3 web\\x201\\x5cb $TMPD/web\\x201"
ctl_stop "$HPID"

# A killed VMM leaves a stale mount; the next VM of that name cleans it and mounts afresh.
ctl_start vm4 || exit 1
old=$HPID
kill -KILL "$old"
wait "$old" 2>/dev/null
err=$(stat "$D" 2>&1)
case $err in
*"Transport endpoint is not connected"*) ok "stale mount after kill -9 (ENOTCONN)" ;;
*) bad "after kill -9: $err" ;;
esac
if "$VSCHED" list | grep -q '^vm4 '; then bad "dead vm4 listed as running"; else
	ok "dead vm4 not listed"; fi
if "$VSCHED" list --all | grep -Eq "^vm4 +$old .*\(stale\)\$"; then ok "list --all marks it stale"; else
	bad "list --all: $("$VSCHED" list --all)"; fi
ctl_start vm4 || exit 1
expect_eq "same directory again" "$D" "$VSCHED_RUN_DIR/vm4"
if [ "$(cat "$D/cgroup.max.depth" 2>&1)" = max ]; then ok "fresh mount answers"; else
	bad "fresh mount: $(cat "$D/cgroup.max.depth" 2>&1)"; fi
n=$(grep -c " $D fuse.vsched " /proc/self/mounts)
expect_eq "exactly one mount on $D" "$n" 1
ctl_stop "$HPID"
if mounted "$D" || [ -e "$D" ]; then bad "$D left"; else ok "clean after restart and stop"; fi

# A VMM killed but not reaped yet (a zombie: its parent, here a sleep, never waits) does not run:
# it is not listed and its name can be reused.
( "$HARNESS" --name vm6 >"$TMPD/vm6.out" 2>&1 & exec sleep 600 ) &
reaper=$!
HPIDS="$HPIDS $reaper"	# teardown ends the sleep, and init reaps the zombie
for _ in $(seq 100); do grep -q '^ready ' "$TMPD/vm6.out" 2>/dev/null && break; sleep 0.1; done
zpid=$(pgrep -P "$reaper" -f "vsched-ctl-harness --name vm6")
kill -KILL "$zpid"
for _ in $(seq 100); do grep -q '^State:[[:space:]]*Z' "/proc/$zpid/status" 2>/dev/null && break; sleep 0.05; done
if grep -q '^State:[[:space:]]*Z' "/proc/$zpid/status"; then ok "vm6's VMM is a zombie"; else
	bad "vm6's VMM is not a zombie: $(grep State "/proc/$zpid/status")"; fi
if timeout 10 "$VSCHED" list | grep -q '^vm6 '; then bad "zombie vm6 listed as running"; else
	ok "zombie vm6 not listed"; fi
ctl_start vm6 || exit 1
ok "vm6 restarted while the old VMM is a zombie"
ctl_stop "$HPID"
kill "$reaper"
wait "$reaper" 2>/dev/null

# Something else than a record in the registry (a FIFO) neither hangs `vsched list` nor shows.
mkfifo "$VSCHED_RUN_DIR/.vms/fifo"
if out=$(timeout 10 "$VSCHED" list --all); then ok "list with a FIFO in the registry"; else
	bad "list with a FIFO in the registry: exit $? $out"; fi
case $out in *fifo*) bad "the FIFO is listed: $out" ;; esac
rm -f "$VSCHED_RUN_DIR/.vms/fifo"

# A live file system on the chosen directory is not mounted over.
mkdir -p "$TMPD/busy"
mount -t tmpfs tmpfs "$TMPD/busy"
if "$HARNESS" --name vm5 --ctl-dir "$TMPD/busy" >/dev/null 2>"$TMPD/busy.err"; then
	bad "mounted over a live mount"
else
	if grep -q "busy" "$TMPD/busy.err"; then ok "live mount point refused (EBUSY)"; else
		bad "vm5: $(cat "$TMPD/busy.err")"; fi
fi
umount "$TMPD/busy"

ctl_finish
