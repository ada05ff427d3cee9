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
)
for b in "${bad[@]}"; do
	# shellcheck disable=SC2086
	"$VSCHED" run $b --stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || { cat "$out/log"; fail "'$b': exit $rc, want 2"; }
	grep -q "vsched run" "$out/log" || fail "'$b': no message"
	[ ! -e "$out/s.json" ] || fail "'$b': a VM ran"
done
"$VSCHED" run --payload hog --stats "$out/no/such/dir.json" >"$out/log" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "unwritable --stats: exit $rc, want 2"
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
	for b in "--accel kvm --payload hog" "--kernel /boot/vmlinuz" "--payload fault"; do
		# shellcheck disable=SC2086
		"$VSCHED" run $b --stats "$out/s.json" >"$out/log" 2>&1
		rc=$?
		[ $rc -eq 1 ] || { cat "$out/log"; fail "'$b' without KVM: exit $rc, want 1"; }
		grep -q "KVM" "$out/log" || fail "'$b' without KVM: $(cat "$out/log")"
		[ ! -e "$out/s.json" ] || fail "'$b' without KVM: a VM ran"
	done
fi
"$VSCHED" run --help | grep -q -- "--payload" || fail "--help lacks --payload"
"$VSCHED" run --help | grep -q -- "--accel BACKEND" || fail "--help lacks --accel"
echo "bad flags refused"
