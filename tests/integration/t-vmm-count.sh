#!/usr/bin/env bash
# count:N does exactly N units per vCPU, then the VM powers off by itself (exit 0); the
# demo (no arguments but --accel) runs and ends by itself with a summary. On every backend.
set -u
. "$(dirname "$0")/lib-vmm.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for accel in $(test_accels); do
	echo "== $accel"
	"$VSCHED" run --accel "$accel" --vcpus 3 --payload count:20000 --payload 1=count:50000 \
		--duration 20 --stats "$out/s.json" >"$out/log" 2>&1
	rc=$?
	cat "$out/log"
	[ $rc -eq 0 ] || fail "$accel: exit $rc"
	[ "$(vmm_field "$out/s.json" exit)" = poweroff ] || fail "$accel: did not power off"
	[ "$(vmm_field "$out/s.json" accel)" = "$accel" ] || fail "$accel: backend not recorded"
	[ "$(vmm_vcpu_field "$out/s.json" 0 units)" = 20000 ] || fail "$accel: vcpu0 units"
	[ "$(vmm_vcpu_field "$out/s.json" 1 units)" = 50000 ] || fail "$accel: vcpu1 units"
	[ "$(vmm_vcpu_field "$out/s.json" 2 units)" = 20000 ] || fail "$accel: vcpu2 units"

	timeout 20 "$VSCHED" run --accel "$accel" >"$out/log" 2>&1
	rc=$?
	cat "$out/log"
	[ $rc -eq 0 ] || fail "$accel: demo: exit $rc"
	grep -q "^vsched demo: .*, $accel backend," "$out/log" || fail "$accel: demo: no header"
	[ "$(grep -c '^vcpu[0-5] ' "$out/log")" -eq 6 ] || fail "$accel: demo: no 6-vCPU summary"
	grep -q "^/web .*%" "$out/log" || fail "$accel: demo: no group shares"
done
echo "count and demo ok"
