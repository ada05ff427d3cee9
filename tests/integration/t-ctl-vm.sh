#!/usr/bin/env bash
# The control directory of a real VM (`vsched run`): mounted at start with the vCPU threads'
# TIDs, --ctl-dir and --no-ctl, vCPUs moved while they run, removed on SIGINT, and a stale mount
# left by kill -9 cleaned when a VM of that name starts again. On every backend.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
if [ ! -c /dev/fuse ]; then
	echo "no /dev/fuse on this machine: control-directory tests need FUSE"
	exit 77
fi
ctl_tmp

# vm_start NAME ARGS...: `vsched run` in the background; waits for its directory (or record).
vm_start() {
	local name=$1 i
	shift
	"$VSCHED" run --accel "$accel" --name "$name" --payload hog --duration 60 "$@" \
		>"$TMPD/$name.log" 2>&1 &
	VPID=$!
	HPIDS="$HPIDS $VPID"
	for i in $(seq 100); do
		# Listed with a directory once it is mounted (or at once with --no-ctl).
		case " $* " in
		*" --no-ctl "*) "$VSCHED" list | grep -q "^$name " && return 0 ;;
		*) "$VSCHED" list | grep -q "^$name  *[0-9]*  */" && return 0 ;;
		esac
		kill -0 "$VPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "VM $name did not start:"
	cat "$TMPD/$name.log"
	return 1
}

for accel in $(test_accels); do
	echo "== $accel"
	vm_start web --vcpus 3 || exit 1
	D=$VSCHED_RUN_DIR/web
	if "$VSCHED" list | grep -Eq "^web +$VPID +$D\$"; then ok "listed with its directory"; else
		bad "vsched list: $("$VSCHED" list)"; fi
	expect_file "$D/cgroup.threads" "$(vcpu_tids "$VPID" | tr '\n' '#' | sed 's/#/\\n/g')"
	expect_eq "three vCPU threads" "$(wc -l <"$D/cgroup.threads")" 3
	expect_file "$D/cgroup.procs" "$VPID\\n"
	expect_file "$D/vsched.vcpus" '0-2\n'
	for t in $(cat "$D/cgroup.threads"); do
		case $(cat /proc/$VPID/task/$t/comm) in vcpu*) ok "TID $t is a vCPU thread" ;;
		*) bad "TID $t is $(cat /proc/$VPID/task/$t/comm)" ;; esac
	done

	# Groups and moves while the vCPUs run.
	mkdir "$D/batch"
	echo threaded >"$D/batch/cgroup.type"
	echo 1-2 >"$D/batch/vsched.vcpus"
	t1=$(vcpu_tids "$VPID" | sed -n 2p)
	expect_file "$D/batch/vsched.vcpus" '1-2\n'
	expect_file "$D/vsched.vcpus" '0\n'
	if grep -q "^$t1\$" "$D/batch/cgroup.threads"; then ok "vCPU 1's TID moved"; else bad "TID $t1 not in batch"; fi
	echo "50000 100000" >"$D/batch/cpu.max"
	expect_file "$D/batch/cpu.max" '50000 100000\n'
	echo "$t1" >"$D/cgroup.threads"
	expect_file "$D/batch/vsched.vcpus" '2\n'
	wr "$D/batch/cpu.weight" 0 "Numerical result out of range"
	expect_eq "vsched.vcpu.stat lists vCPU 2" "$(cut -d' ' -f1 "$D/batch/vsched.vcpu.stat")" 2

	# SIGINT: the VM stops, the directory and record go.
	kill -INT "$VPID"
	wait "$VPID"
	expect_eq "exit status after SIGINT" "$?" 130
	if [ -e "$D" ] || grep -q " $D " /proc/self/mounts; then bad "$D left"; else ok "removed on SIGINT"; fi
	if "$VSCHED" list | grep -q '^web '; then bad "still listed"; else ok "no longer listed"; fi

	# --ctl-dir and --no-ctl.
	vm_start db --ctl-dir "$TMPD/ctl/db" || exit 1
	expect_file "$TMPD/ctl/db/vsched.vcpus" '0\n'
	if [ -e "$VSCHED_RUN_DIR/db" ]; then bad "default directory made too"; else ok "only --ctl-dir mounted"; fi
	kill -TERM "$VPID"; wait "$VPID"
	if [ -e "$TMPD/ctl/db" ]; then bad "--ctl-dir left"; else ok "--ctl-dir removed"; fi
	vm_start quiet --no-ctl || exit 1
	if "$VSCHED" list | grep -Eq "^quiet +$VPID +-\$"; then ok "--no-ctl: listed without a directory"; else
		bad "list: $("$VSCHED" list)"; fi
	if [ -e "$VSCHED_RUN_DIR/quiet" ]; then bad "--no-ctl made a directory"; else ok "--no-ctl mounts nothing"; fi
	kill -TERM "$VPID"; wait "$VPID"

	# One VM per name; an unnamed VM never collides.
	vm_start dup || exit 1
	first=$VPID
	if "$VSCHED" run --accel "$accel" --name dup --payload hog --duration 5 >"$TMPD/dup2.log" 2>&1; then
		bad "second 'dup' ran"
	else
		grep -q "already running" "$TMPD/dup2.log" && ok "second 'dup' refused" || bad "dup2: $(cat "$TMPD/dup2.log")"
		# Refused before anything starts: no guest ran, so no exit summary.
		grep -q "first guest instruction" "$TMPD/dup2.log" &&
			bad "second 'dup' ran its guest before it was refused: $(cat "$TMPD/dup2.log")"
	fi

	# kill -9 leaves a stale mount; the next VM of that name cleans it.
	kill -KILL "$first"
	wait "$first" 2>/dev/null
	err=$(stat "$VSCHED_RUN_DIR/dup" 2>&1)
	case $err in *"Transport endpoint is not connected"*) ok "stale after kill -9" ;; *) bad "after kill -9: $err" ;; esac
	vm_start dup || exit 1
	expect_file "$VSCHED_RUN_DIR/dup/vsched.vcpus" '0\n'
	expect_eq "one mount" "$(grep -c " $VSCHED_RUN_DIR/dup fuse.vsched " /proc/self/mounts)" 1
	kill -TERM "$VPID"; wait "$VPID"
	if [ -e "$VSCHED_RUN_DIR/dup" ]; then bad "dup directory left"; else ok "clean after restart and stop"; fi
done

ctl_finish
