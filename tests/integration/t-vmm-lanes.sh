#!/usr/bin/env bash
# A 4-vCPU hog VM given 2 lanes (--cpus 2) runs all four vCPUs, on every backend.
set -u
. "$(dirname "$0")/lib-vmm.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A private run directory: the name is the test's, and another run of it (a second make check
# on the machine) or a VM of that name in /run/vsched refused this one ("already running").
export VSCHED_RUN_DIR=$out/run

for accel in $(test_accels); do
	"$VSCHED" run --accel "$accel" --name lanes-test --vcpus 4 --payload hog --cpus 2 \
		--duration 1.5 --verbose --stats "$out/s.json" 2>"$out/err" || fail "$accel: exit $?"
	[ "$(vmm_field "$out/s.json" name)" = lanes-test ] || fail "$accel: name not recorded"
	# --verbose reports every vCPU's units once a second.
	grep -q "units vcpu0=[0-9]* vcpu1=[0-9]* vcpu2=[0-9]* vcpu3=[0-9]*" "$out/err" ||
		fail "$accel: no --verbose progress line"
	[ "$(vmm_field "$out/s.json" nr_lanes)" = 2 ] || fail "$accel: lanes not recorded"
	for v in 0 1 2 3; do
		u=$(vmm_vcpu_field "$out/s.json" $v units)
		[ "${u:-0}" -gt 1000 ] || fail "$accel: vcpu$v did only ${u:-0} units"
	done
	# Each vCPU thread is named vcpuN and has its own TID.
	tids=$(grep -o '"tid": [0-9]*' "$out/s.json" | sort -u | wc -l)
	[ "$tids" -eq 4 ] || fail "$accel: $tids distinct TIDs"
	echo "$accel: lanes ok"
done
