#!/usr/bin/env bash
# The libvirt hook and `vsched apply` against a running vsched VM: `vsched run` mounts its
# control directory ($VSCHED_RUN_DIR/<name>); the hook, called as libvirt calls it, puts the
# VM's own vCPU threads into the domain's groups; `vsched apply` re-tunes it live; and a VM
# started with --domain shows its groups in its control directory from the start. On every
# backend (the domain's type says which: 'kvm' or 'qemu').
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/accel-lib.sh"
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ -c /dev/fuse ] || skip "no /dev/fuse (control directory)"
"$VSCHED" run --help 2>/dev/null | grep -q -- '--ctl-dir' ||
	skip "vsched run mounts no control directory in this build (run without ctl integration)"

tmp=$(mktemp -d)
chmod 0755 "$tmp"
export VSCHED_RUN_DIR=$tmp/run
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	grep -o " $tmp[^ ]*" /proc/self/mounts 2>/dev/null | while read -r m; do umount -l "$m"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
wait_dir() { # dir pid
	local i
	for i in $(seq 100); do
		[ -e "$1/cgroup.procs" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
tid_of() { # pid vcpu
	local t
	for t in /proc/$1/task/*; do [ "$(cat "$t/comm")" = "vcpu$2" ] && basename "$t"; done
}

dom() { # name latency-weight
	cat > "$tmp/$1.xml" <<XML
<domain type='$(domain_type "$accel")'>
  <name>$1</name>
  <memory unit='MiB'>32</memory>
  <vcpu>4</vcpu>
  <cputune><period>100000</period><quota>50000</quota></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="latency" weight="$2"/>
      <vs:group name="batch" weight="50"/>
      <vs:assign vcpus="0-1" group="latency"/>
      <vs:assign vcpus="2-3" group="batch"/>
    </vs:groups>
  </metadata>
</domain>
XML
}

for accel in $(test_accels); do
	echo "== $accel"
	# 1. A VM started with flags; libvirt's "started" hook applies the domain to it.
	"$VSCHED" run --accel "$accel" --name hookvm --vcpus 4 --payload hog --duration 60s \
		>"$tmp/run1.out" 2>&1 &
	vm=$!
	pids+=("$vm")
	D=$VSCHED_RUN_DIR/hookvm
	wait_dir "$D" "$vm" || fail "no control directory $D: $(cat "$tmp/run1.out")"
	dom hookvm 400
	"$VSCHED" hook hookvm started begin - < "$tmp/hookvm.xml" 2>"$tmp/err" ||
		fail "hook: $(cat "$tmp/err")"
	[ "$(cat "$D/latency/cpu.weight")" = 400 ] || fail "latency weight $(cat "$D/latency/cpu.weight")"
	[ "$(cat "$D/latency/vcpu0/cpu.max")" = "50000 100000" ] || fail "vcpu0 cap"
	grep -qx "$(tid_of "$vm" 0)" "$D/latency/vcpu0/cgroup.threads" || fail "vcpu0 thread not moved"
	grep -qx "$(tid_of "$vm" 3)" "$D/batch/vcpu3/cgroup.threads" || fail "vcpu3 thread not moved"

	# 2. Live re-tune after an edit.
	dom hookvm 800
	"$VSCHED" apply --domain "$tmp/hookvm.xml" 2>"$tmp/err" || fail "apply: $(cat "$tmp/err")"
	[ "$(cat "$D/latency/cpu.weight")" = 800 ] || fail "re-tuned weight $(cat "$D/latency/cpu.weight")"

	# 3. A VM started from the domain: its groups are there from the start.
	dom domvm 300
	"$VSCHED" run --domain "$tmp/domvm.xml" --duration 60s >"$tmp/run2.out" 2>&1 &
	vm2=$!
	pids+=("$vm2")
	D2=$VSCHED_RUN_DIR/domvm
	wait_dir "$D2" "$vm2" || fail "no control directory $D2: $(cat "$tmp/run2.out")"
	[ "$(cat "$D2/latency/cpu.weight")" = 300 ] || fail "domvm latency weight"
	grep -qx "$(tid_of "$vm2" 1)" "$D2/latency/vcpu1/cgroup.threads" || fail "domvm vcpu1 not in place"
	for p in "$vm" "$vm2"; do
		kill -TERM "$p"
		wait "$p"
	done
	pids=()
done
echo ok
