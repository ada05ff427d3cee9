#!/usr/bin/env bash
# count:N does exactly N units per vCPU, then the VM powers off by itself (exit 0); the
# demo (no arguments) runs and ends by itself with a summary.
set -u
. "$(dirname "$0")/lib-vmm.sh"
vmm_require_kvm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$VSCHED" run --vcpus 3 --payload count:20000 --payload 1=count:50000 --duration 20 \
	--stats "$out/s.json" >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 0 ] || fail "exit $rc"
[ "$(vmm_field "$out/s.json" exit)" = poweroff ] || fail "did not power off"
[ "$(vmm_vcpu_field "$out/s.json" 0 units)" = 20000 ] || fail "vcpu0 units"
[ "$(vmm_vcpu_field "$out/s.json" 1 units)" = 50000 ] || fail "vcpu1 units"
[ "$(vmm_vcpu_field "$out/s.json" 2 units)" = 20000 ] || fail "vcpu2 units"

timeout 20 "$VSCHED" run >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 0 ] || fail "demo: exit $rc"
[ "$(grep -c '^vcpu[0-3] ' "$out/log")" -eq 4 ] || fail "demo: no 4-vCPU summary"
echo "count and demo ok"
