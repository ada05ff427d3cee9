#!/usr/bin/env bash
# Bad flags give a usage error (exit 2) and start nothing (no stats file, no KVM needed).
set -u
. "$(dirname "$0")/lib-vmm.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bad=(
	"--vcpus 0" "--vcpus 129" "--vcpus x" "--memory 12Q" "--memory 0" "--duration -1"
	"--duration 5h" "--payload nope" "--payload hog:3" "--payload duty:10"
	"--payload duty:0/5" "--vcpus 2 --payload 0-2=hog" "--vcpus 2 --payload 0=hog,0=io:3"
	"--vcpus 2 --payload 0=hog,1" "--payload halt-duty:1/5000000" "--cpus 0" "--bogus"
	"--vcpus" "--initrd /x" "--cmdline x" "--kernel /k --payload hog" "extra"
	"--memory 64K" "--accel" "--accel bogus" "--accel KVM"
	# What needs a real CPU is refused on the thread backend before anything starts.
	"--accel thread --payload probe" "--accel thread --vcpus 2 --payload 1=fault"
	"--accel thread --payload emufail" "--accel thread --kernel /boot/vmlinuz"
	# A file's name as a group (issue 18 item 11): refused, not taken as "the group exists".
	"--group cpu.stat" "--group a/cpu.max:weight=5" "--group a/cgroup.procs"
	# The host scheduler's flags (issue 17): need --host, values as the interface files take.
	"--weight 200" "--partition /machine" "--max 50000" "--host --weight 0"
	"--host --weight 10001" "--host --max 500" "--host --partition machine"
	"--host --partition /a//b" "--host --partition /cpu.max" "--host --cpus 1"
	"--host --no-sched"
)
for b in "${bad[@]}"; do
	# shellcheck disable=SC2086
	"$VSCHED" run $b --stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { cat "$out/log"; fail "'$b': exit $rc, want 2"; }
	grep -q "vsched run" "$out/log" || fail "'$b': no message"
	[ ! -e "$out/s.json" ] || fail "'$b': a VM ran"
done
for g in "--group cpu.stat" "--group a/cpu.max:weight=5"; do
	# shellcheck disable=SC2086
	"$VSCHED" run $g >"$out/log" 2>&1
	grep -q "^vsched run: --group '${g#--group }': mkdir .*: an interface file, not a group$" \
		"$out/log" || fail "'$g': $(cat "$out/log")"
done

# Each names the flag and why.
for b in "--weight 200|^vsched run: --weight needs --host" \
	"--host --weight 0|^vsched run: invalid --weight '0' (1-10000, as cpu.weight)\$" \
	"--host --partition machine|^vsched run: invalid --partition 'machine': Partition path 'machine' must start with '/'\$" \
	"--host --cpus 1|^vsched run: --cpus is refused with --host: the host scheduler owns the lanes" \
	"--host --no-pin|^vsched run: --no-pin is refused with --host: the host scheduler places the lanes"; do
	# shellcheck disable=SC2086
	"$VSCHED" run ${b%%|*} >"$out/log" 2>&1
	grep -q "${b#*|}" "$out/log" || fail "'${b%%|*}': $(cat "$out/log")"
done
# --host without a host scheduler: exit 1, one line naming the socket, nothing started (no
# stats, no VM registered), whether the socket is missing or left by a dead daemon.
mkdir "$out/run"
for stale in no yes; do
	if [ $stale = yes ]; then
		python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' \
			"$out/run/host.sock" 2>/dev/null || continue
		why="Connection refused"
	else
		why="No such file or directory"
	fi
	VSCHED_RUN_DIR=$out/run "$VSCHED" run --host --weight 200 --payload hog --duration 1 \
		--stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 1 ] || { cat "$out/log"; fail "--host, no daemon (stale $stale): exit $rc"; }
	[ "$(cat "$out/log")" = "vsched run: no host scheduler at $out/run/host.sock: $why" ] ||
		fail "--host, no daemon (stale $stale): $(cat "$out/log")"
	[ ! -e "$out/s.json" ] && [ ! -e "$out/run/.vms" ] && [ ! -e "$out/run/vm" ] ||
		fail "--host, no daemon (stale $stale): something started"
done

# A stand-in kernel (an ELF vmlinux, tests/integration/linux-mini), where binutils are here.
mini=""
if command -v as >/dev/null && command -v ld >/dev/null &&
	as --64 -o "$out/mini.o" "$(dirname "$0")/linux-mini/mini.S" 2>/dev/null &&
	ld -m elf_x86_64 -N -Ttext=0x1000000 -e _start -o "$out/mini" "$out/mini.o" 2>/dev/null; then
	mini=$out/mini
fi

# The files the command line names are checked before anything starts (issue 18 item 11):
# exit status 1 (setup failed), one line naming the file, no vCPU ran, before /dev/kvm is
# opened (where it is missing, the file is what is reported).
printf 'not a kernel at all\n' >"$out/junk"
files=(
	"--kernel $out/nonexistent|^vsched run: kernel $out/nonexistent: No such file or directory\$"
	"--kernel $out/junk|^vsched run: $out/junk: kernel: neither a bzImage .* nor an ELF vmlinux\$"
	"--kernel $out|^vsched run: kernel $out: not a regular file\$"
	"--ctl-dir $out/junk --payload hog|^vsched run: --ctl-dir $out/junk: not a directory\$"
	"--ctl-dir /proc/nope/x --payload hog|^vsched run: --ctl-dir /proc/nope/x: cannot be made: No such file or directory\$"
	"--ctl-dir $out/junk/x --payload hog|^vsched run: --ctl-dir $out/junk/x: Not a directory\$"
	# $out/new is made and removed again: the check leaves nothing behind.
	"--ctl-dir $out/new/$(printf 'x%.0s' {1..300}) --payload hog|^vsched run: --ctl-dir $out/new/x*: cannot be made: File name too long\$"
)
[ -n "$mini" ] && files+=(
	"--kernel $mini --initrd $out/nonexistent|^vsched run: initrd $out/nonexistent: No such file or directory\$"
	"--kernel $mini --initrd $out|^vsched run: initrd $out: not a regular file\$"
)
nokvm=$(dirname "$0")/../../scripts/nokvm.sh
for f in "${files[@]}"; do
	b=${f%%|*} want=${f#*|}
	# shellcheck disable=SC2086
	"$VSCHED" run $b --duration 1 --stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 1 ] || { cat "$out/log"; fail "'$b': exit $rc, want 1"; }
	[ "$(wc -l <"$out/log")" = 1 ] && grep -q "$want" "$out/log" ||
		fail "'$b': $(cat "$out/log")"
	[ ! -e "$out/s.json" ] || fail "'$b': a VM ran"
	# Before /dev/kvm: without it (a private /dev, root only) the file is still the error.
	if [ "$(id -u)" = 0 ] && "$nokvm" true 2>/dev/null; then
		# shellcheck disable=SC2086
		"$nokvm" "$VSCHED" run --accel kvm $b >"$out/log" 2>&1
		grep -q "$want" "$out/log" || fail "'$b' without /dev/kvm: $(cat "$out/log")"
	fi
done
[ ! -e "$out/new" ] || fail "the --ctl-dir check left $out/new behind"

"$VSCHED" run --payload hog --stats "$out/no/such/dir.json" >"$out/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "unwritable --stats: exit $rc, want 1 (setup failed, as an unreadable --kernel)"
grep -q -- "--stats" "$out/log" || fail "unwritable --stats: no message"
"$VSCHED" run --accel thread --payload 0=probe >"$out/log" 2>&1
grep -q "probe (vCPU 0) needs a real CPU (KVM)" "$out/log" || fail "probe: $(cat "$out/log")"
# Where KVM does not work: auto falls back with one line saying why; what needs KVM is refused
# (exit 1) before anything starts. (Where it works, t-vmm-count runs both backends.)
if ! kvm_usable; then
	"$VSCHED" run --payload count:10 --no-ctl >/dev/null 2>"$out/err" || fail "auto: exit $?"
	[ "$(wc -l <"$out/err")" = 1 ] &&
		grep -q "^vsched run: no KVM here (.*); the vCPUs run as host threads (--accel thread)$" \
			"$out/err" || fail "auto: $(cat "$out/err")"
	needs_kvm=("--accel kvm --payload hog" "--payload fault")
	[ -n "$mini" ] && needs_kvm+=("--kernel $mini")
	for b in "${needs_kvm[@]}"; do
		# shellcheck disable=SC2086
		"$VSCHED" run $b --stats "$out/s.json" >"$out/log" 2>&1
		rc=$?
		[ $rc -eq 1 ] || { cat "$out/log"; fail "'$b' without KVM: exit $rc, want 1"; }
		grep -q "KVM" "$out/log" || fail "'$b' without KVM: $(cat "$out/log")"
		[ ! -e "$out/s.json" ] || fail "'$b' without KVM: a VM ran"
	done
fi
# VSCHED_TRACE_EVENTS that is no count of 16..2^26 with --trace: was taken as the default
# silently (1M gave 64 Ki events, and a simulation 64 Ki instead of its 4 Mi).
for v in 1M abc 15 -16 67108865 99999999999999999999; do
	VSCHED_TRACE_EVENTS=$v "$VSCHED" run --accel thread --duration 0.1 --no-ctl \
		--trace "$out/t.json" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { cat "$out/log"; fail "VSCHED_TRACE_EVENTS=$v: exit $rc, want 2"; }
	grep -q "^vsched run: VSCHED_TRACE_EVENTS '$v' is no count of 16 to 67108864" "$out/log" ||
		fail "VSCHED_TRACE_EVENTS=$v: $(cat "$out/log")"
	[ ! -e "$out/t.json" ] || fail "VSCHED_TRACE_EVENTS=$v: a VM ran"
	VSCHED_TRACE_EVENTS=$v "$VSCHED" sim --trace "$out/t.json" \
		"$(dirname "$0")/../../sim/scenarios/mixed.sim" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { cat "$out/log"; fail "sim, VSCHED_TRACE_EVENTS=$v: exit $rc, want 2"; }
	grep -q "^vsched sim: VSCHED_TRACE_EVENTS '$v' is no count" "$out/log" ||
		fail "sim, VSCHED_TRACE_EVENTS=$v: $(cat "$out/log")"
	[ ! -e "$out/t.json" ] || fail "sim, VSCHED_TRACE_EVENTS=$v: a trace written"
done
# Without --trace the variable means nothing and is not checked; empty is unset.
VSCHED_TRACE_EVENTS=abc "$VSCHED" sim -q "$(dirname "$0")/../../sim/scenarios/mixed.sim" \
	>"$out/log" 2>&1 || fail "VSCHED_TRACE_EVENTS=abc without --trace: $(cat "$out/log")"
VSCHED_TRACE_EVENTS= "$VSCHED" sim --trace "$out/t.json" \
	"$(dirname "$0")/../../sim/scenarios/mixed.sim" >"$out/log" 2>&1 ||
	fail "VSCHED_TRACE_EVENTS empty: $(cat "$out/log")"
rm -f "$out/t.json"
"$VSCHED" run --help | grep -q -- "--payload" || fail "--help lacks --payload"
"$VSCHED" run --help | grep -q -- "--accel BACKEND" || fail "--help lacks --accel"
echo "bad flags refused"
