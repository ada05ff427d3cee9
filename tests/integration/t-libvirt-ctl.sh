#!/usr/bin/env bash
# The hook and `vsched apply` against a real vsched control directory (FUSE, ctl/), served by
# the control-directory test harness with threads named vcpu0..3 as a VMM has them. The plan
# runs through cgroupfs-like files: threaded groups, cpu.* values, vCPU moves by TID.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
ctl_start ctlvm --vcpus 4 || exit 1
tid() { vcpu_tids "$HPID" | sed -n "$(($1 + 1))p"; }

dom() { # latency-weight
	cat > "$TMPD/d.xml" <<XML
<domain type='kvm'>
  <name>ctlvm</name>
  <memory unit='MiB'>64</memory>
  <vcpu>4</vcpu>
  <cputune><shares>300</shares><global_quota>150000</global_quota>
    <period>100000</period><quota>60000</quota><vcpusched vcpus='3' scheduler='idle'/></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="latency" weight="$1" burst="5000" quota="90000"/>
      <vs:group name="batch" weight="50"/>
      <vs:group name="bg" parent="batch" idle="yes"/>
      <vs:assign vcpus="0-1" group="latency"/>
      <vs:assign vcpus="2" group="bg"/>
    </vs:groups>
  </metadata>
</domain>
XML
}
dom 400
sed 's/parent="batch"/parent="bg"/' "$TMPD/d.xml" > "$TMPD/cycle.xml"

# prepare: a bad domain is refused (exit 1), nothing is made.
"$VSCHED" hook ctlvm prepare begin - < "$TMPD/cycle.xml" 2>"$TMPD/err" && fail "cycle accepted"
grep -q "nesting cycle: bg -> bg" "$TMPD/err" || fail "message: $(cat "$TMPD/err")"
[ -d "$D/libvirt" ] && fail "prepare made groups"

# started: the plan goes into the control directory.
"$VSCHED" hook ctlvm started begin - < "$TMPD/d.xml" 2>"$TMPD/err" ||
	fail "started: $(cat "$TMPD/err")"
grep -q "no cpu.weight here; '300' not applied" "$TMPD/err" || fail "no shares warning"
expect_file "$D/libvirt/cpu.max" '150000 100000\n'
expect_file "$D/libvirt/latency/cpu.weight" '400\n'
expect_file "$D/libvirt/latency/cpu.max" '90000 100000\n'
expect_file "$D/libvirt/latency/cpu.max.burst" '5000\n'
expect_file "$D/libvirt/batch/bg/cpu.idle" '1\n'
expect_file "$D/libvirt/latency/vcpu0/cpu.max" '60000 100000\n'
expect_file "$D/libvirt/latency/vcpu0/cgroup.type" 'threaded\n'
expect_file "$D/libvirt/latency/vcpu0/cgroup.threads" "$(tid 0)\n"
expect_file "$D/libvirt/latency/vcpu1/vsched.vcpus" '1\n'
expect_file "$D/libvirt/batch/bg/vcpu2/vsched.vcpus" '2\n'
expect_file "$D/libvirt/vcpu3/cpu.idle" '1\n'
expect_file "$D/libvirt/vcpu3/cgroup.threads" "$(tid 3)\n"

# apply: live re-tune, target found by name; dry run first.
dom 200
"$VSCHED" apply --domain "$TMPD/d.xml" --dry-run > "$TMPD/out" 2>/dev/null || fail "dry run"
grep -q "^write $D/libvirt/latency/cpu.weight 200$" "$TMPD/out" || fail "dry run: $(cat "$TMPD/out")"
expect_file "$D/libvirt/latency/cpu.weight" '400\n'
"$VSCHED" apply --domain "$TMPD/d.xml" 2>/dev/null || fail "apply"
expect_file "$D/libvirt/latency/cpu.weight" '200\n'
expect_file "$D/libvirt/latency/vcpu0/cgroup.threads" "$(tid 0)\n"

# Burst above the old quota with the quota now unlimited: the kernel's order rules (burst reset,
# cpu.max, then burst) make the change go through.
sed 's/burst="5000" quota="90000"/burst="95000"/' "$TMPD/d.xml" > "$TMPD/burst.xml"
"$VSCHED" apply --domain "$TMPD/burst.xml" --ctl "$D" 2>"$TMPD/err" ||
	fail "burst with unlimited quota refused: $(cat "$TMPD/err")"
expect_file "$D/libvirt/latency/cpu.max.burst" '95000\n'

ctl_stop "$HPID"
[ $fails = 0 ] || exit 1
echo ok
