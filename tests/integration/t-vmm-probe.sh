#!/usr/bin/env bash
# Unhandled port and MMIO accesses read as all-ones, are logged rate-limited, and the VMM
# keeps running. A triple fault ends the VM with a register dump and exit status 3; an
# emulation failure ends it with a clear message, a dump and exit status 4. These test the CPU
# itself: KVM only (t-vmm-badflags checks that the thread backend refuses them).
set -u
. "$(dirname "$0")/lib-vmm.sh"
require_kvm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$VSCHED" run --accel kvm --payload probe --duration 1 --stats "$out/s.json" >"$out/log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$out/log"; fail "probe: exit $rc"; }
u=$(vmm_vcpu_field "$out/s.json" 0 units)
e=$(vmm_vcpu_field "$out/s.json" 0 errors)
n=$(vmm_vcpu_field "$out/s.json" 0 unhandled)
[ "${u:-0}" -gt 10 ] || fail "probe did only ${u:-0} rounds"
[ "${e:-1}" -eq 0 ] || fail "$e unhandled reads did not give all-ones"
[ "${n:-0}" -ge $((u * 5)) ] || fail "$n unhandled accesses for $u rounds"
logged=$(grep -c "unhandled" "$out/log")
[ "$logged" -ge 1 ] && [ "$logged" -le 15 ] || fail "$logged log lines for $n accesses"

"$VSCHED" run --accel kvm --vcpus 2 --payload fault --duration 5 >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 3 ] || fail "fault: exit $rc, want 3"
grep -q "triple fault" "$out/log" || fail "no triple fault message"
grep -q "rip " "$out/log" && grep -q "code:" "$out/log" || fail "no register/code dump"

"$VSCHED" run --accel kvm --vcpus 2 --payload 0=emufail,1=hog --duration 5 >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 4 ] || fail "emufail: exit $rc, want 4"
grep -q "emulation failure" "$out/log" || fail "no emulation failure message"
grep -q "code:" "$out/log" || fail "no code dump"
echo "probe, fault and emulation failure ok"
