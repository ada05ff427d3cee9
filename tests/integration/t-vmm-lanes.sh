#!/usr/bin/env bash
# A 4-vCPU hog VM given 2 lanes (--cpus 2) runs all four vCPUs.
set -u
. "$(dirname "$0")/lib-vmm.sh"
vmm_require_kvm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$VSCHED" run --name lanes-test --vcpus 4 --payload hog --cpus 2 --duration 1.5 --verbose \
	--stats "$out/s.json" 2>"$out/err" || fail "exit $?"
[ "$(vmm_field "$out/s.json" name)" = lanes-test ] || fail "name not recorded"
# --verbose reports every vCPU's units once a second.
grep -q "units vcpu0=[0-9]* vcpu1=[0-9]* vcpu2=[0-9]* vcpu3=[0-9]*" "$out/err" ||
	fail "no --verbose progress line"
[ "$(vmm_field "$out/s.json" nr_lanes)" = 2 ] || fail "lanes not recorded"
for v in 0 1 2 3; do
	u=$(vmm_vcpu_field "$out/s.json" $v units)
	[ "${u:-0}" -gt 1000 ] || fail "vcpu$v did only ${u:-0} units"
done
# Each vCPU thread is named vcpuN and has its own TID.
tids=$(grep -o '"tid": [0-9]*' "$out/s.json" | sort -u | wc -l)
[ "$tids" -eq 4 ] || fail "$tids distinct TIDs"
echo "lanes ok"
