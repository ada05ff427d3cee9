#!/usr/bin/env bash
# `vsched apply` against a real cgroupfs directory laid out as libvirt lays out a QEMU domain
# (v1 "cpu" or v2): a domain group with libvirt's emulator and vcpuN groups, holding a stand-in
# QEMU whose threads are named "CPU n/TCG". Checks: --ctl takes only such a directory or a vsched
# control directory (a scratch directory and the cgroup root are refused and left untouched);
# groups are made with the right values and vCPU threads land in them; unassigned vCPUs stay in
# libvirt's vcpuN; a leaf follows libvirt's live per-vCPU cap (as `virsh schedinfo --live`
# writes it); --dry-run touches nothing, and shows the plan even when no VM runs; a bad domain
# changes nothing; a failure half way is undone; re-applying an edited domain re-tunes live.
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (writes the host's cgroup tree)"
command -v cc >/dev/null || skip "no C compiler for the helper"

tmp=$(mktemp -d)
export VSCHED_RUN_DIR=$tmp/run VSCHED_LIBVIRT_RUNDIR=$tmp/libvirt
helper_pid= other_pid= cg= root=
cleanup() {
	# The helper's exit also ends the sync process apply started for it.
	[ -n "$helper_pid" ] && kill "$helper_pid" 2>/dev/null && wait "$helper_pid" 2>/dev/null
	[ -n "$other_pid" ] && kill "$other_pid" 2>/dev/null && wait "$other_pid" 2>/dev/null
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		find "$cg" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$cg" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The cpu controller: a v1 hierarchy that has it, else cgroup v2 with cpu available.
v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -n "$v1" ]; then
	flavor=v1 root=$v1
elif [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
	flavor=v2 root=$v2
	echo +cpu > "$v2/cgroup.subtree_control" 2>/dev/null
else
	skip "no cgroup hierarchy with the cpu controller"
fi
cg=$root/vsched-test-$$
mkdir "$cg" 2>/dev/null || skip "cannot create $cg (read-only cgroup tree?)"

cc -O2 -pthread -o "$tmp/vcpu-threads" "$here/helpers/vcpu-threads.c" || fail "helper build"
"$tmp/vcpu-threads" 4 TCG > "$tmp/ready" &
helper_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/ready" 2>/dev/null && break; sleep 0.1; done
tid() { for t in /proc/$helper_pid/task/*; do [ "$(cat "$t/comm")" = "CPU $1/TCG" ] && basename "$t"; done; }
threads=cgroup.threads
[ $flavor = v1 ] && threads=tasks

# What libvirt makes: emulator (QEMU's process) and vcpuN (each vCPU thread, with the cap of
# <period>100000</period><quota>60000</quota>).
set_cap() { # group quota
	if [ $flavor = v1 ]; then
		echo 100000 > "$cg/$1/cpu.cfs_period_us" && echo "$2" > "$cg/$1/cpu.cfs_quota_us"
	else
		echo "$2 100000" > "$cg/$1/cpu.max"
	fi
}
for g in emulator vcpu0 vcpu1 vcpu2 vcpu3; do
	mkdir "$cg/$g" || fail "mkdir $g"
	[ $flavor = v2 ] && { echo threaded > "$cg/$g/cgroup.type" || fail "threaded $g"; }
done
[ $flavor = v2 ] && { echo +cpu > "$cg/cgroup.subtree_control" || fail "+cpu in $cg"; }
echo "$helper_pid" > "$cg/emulator/cgroup.procs" || fail "moving the helper into $cg/emulator"
for n in 0 1 2 3; do
	echo "$(tid $n)" > "$cg/vcpu$n/$threads" || fail "moving CPU $n/TCG"
	set_cap vcpu$n 60000 || fail "cap of vcpu$n"
done
in_group() { grep -qx "$(tid "$1")" "$cg/$2/$threads"; } # vcpu group

dom() { # weight-of-fast quota-of-fast assign-vcpu1-to
	cat > "$tmp/d.xml" <<XML
<domain type='qemu'>
  <name>applytest</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>4</vcpu>
  <cputune><period>100000</period><quota>60000</quota></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="fast" weight="$1" quota="$2"/>
      <vs:group name="batch" weight="50"/>
      <vs:group name="bg" parent="batch" idle="yes"/>
      <vs:assign vcpus="0${3:+,1}" group="fast"/>
      <vs:assign vcpus="2" group="bg"/>
    </vs:groups>
  </metadata>
</domain>
XML
}
weight_of() { # group -> weight as cpu.weight (v1: from cpu.shares)
	if [ $flavor = v1 ]; then cat "$cg/$1/cpu.shares"; else cat "$cg/$1/cpu.weight"; fi
}
quota_of() {
	if [ $flavor = v1 ]; then cat "$cg/$1/cpu.cfs_quota_us"; else cut -d' ' -f1 "$cg/$1/cpu.max"; fi
}
groups_of() { find "$1" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tr '\n' ' '; }
apply() { "$VSCHED" apply --domain "$tmp/d.xml" --pid "$helper_pid" "$@"; }

# --ctl takes a vsched control directory or a libvirt domain's cgroup, nothing else: a scratch
# directory and the root of the cgroup tree are refused, and nothing is made in them.
dom 400 150000 1
mkdir "$tmp/scratch"
before=$(groups_of "$root")
for bad in "$tmp/scratch" "$root" "$tmp/nonexistent"; do
	err=$(apply --ctl "$bad" 2>&1) && fail "--ctl $bad accepted"
	case $err in *"--ctl $bad: "*) ;; *) fail "--ctl $bad: message: $err" ;; esac
done
[ -z "$(groups_of "$tmp/scratch")" ] || fail "--ctl scratch made $(groups_of "$tmp/scratch")"
[ "$(groups_of "$root")" = "$before" ] || fail "--ctl $root changed the cgroup root"

# Dry run: prints the writes, touches nothing.
out=$(apply --ctl "$cg" --dry-run) || fail "dry run failed"
echo "$out" | grep -q "^mkdir $cg/fast$" || fail "dry run does not show mkdir: $out"
echo "$out" | grep -q "^write $cg/fast/vcpu0/" || fail "dry run misses the vCPU leaf: $out"
[ -d "$cg/fast" ] && fail "dry run created a group"

# Dry run of a domain that runs nowhere: the plan a vsched VM would get, nothing touched.
out=$("$VSCHED" apply --domain "$tmp/d.xml" --dry-run) || fail "dry run without a VM failed"
echo "$out" | grep -q "^# no VM named 'applytest' runs" || fail "no-VM dry run header: $out"
echo "$out" | grep -q "^write $VSCHED_RUN_DIR/applytest/fast/vcpu0/vsched.vcpus 0$" ||
	fail "no-VM dry run plan: $out"
[ -e "$VSCHED_RUN_DIR/applytest" ] && fail "no-VM dry run made the directory"

# A bad domain: one message with file, line, element, value; nothing changes.
sed 's/weight="50"/weight="0"/' "$tmp/d.xml" > "$tmp/bad.xml"
err=$("$VSCHED" apply --domain "$tmp/bad.xml" --ctl "$cg" --pid "$helper_pid" 2>&1) &&
	fail "bad domain accepted"
echo "$err" | grep -q "bad.xml:9: <group> '0': weight must be in range \[1, 10000\]" ||
	fail "error message: $err"
[ -d "$cg/fast" ] && fail "bad domain created a group"

# A failure half way (the process has no vCPU threads): everything made so far is undone.
sleep 300 & other_pid=$!
err=$("$VSCHED" apply --domain "$tmp/d.xml" --ctl "$cg" --pid "$other_pid" 2>&1) &&
	fail "apply without vCPU threads succeeded"
echo "$err" | grep -q "moving vCPU 0 to fast/vcpu0: No such process (looked for vCPU 0 in" ||
	fail "failure message: $err"
[ "$(groups_of "$cg")" = "emulator vcpu0 vcpu1 vcpu2 vcpu3 " ] ||
	fail "the failed apply left $(groups_of "$cg")"

# For real, the target found from --ctl. libvirt's vcpuN caps are the domain's: nothing to say.
apply --ctl "$cg" 2> "$tmp/err" || fail "apply: $(cat "$tmp/err")"
grep -q "cputune/quota" "$tmp/err" && fail "a cap warning with libvirt's caps as the domain's: $(cat "$tmp/err")"
in_group 0 fast/vcpu0 || fail "CPU 0/TCG not in fast/vcpu0"
in_group 1 fast/vcpu1 || fail "CPU 1/TCG not in fast/vcpu1"
in_group 2 batch/bg/vcpu2 || fail "CPU 2/TCG not in batch/bg/vcpu2"
in_group 3 vcpu3 || fail "CPU 3/TCG (unassigned) left libvirt's vcpu3"
if [ $flavor = v1 ]; then
	[ "$(weight_of fast)" = 4096 ] || fail "fast cpu.shares $(weight_of fast), want 4096"
else
	[ "$(weight_of fast)" = 400 ] || fail "fast cpu.weight $(weight_of fast), want 400"
fi
[ "$(quota_of fast)" = 150000 ] || fail "fast quota $(quota_of fast)"
[ "$(quota_of fast/vcpu0)" = 60000 ] || fail "fast/vcpu0 quota $(quota_of fast/vcpu0)"
[ "$(cat "$cg/batch/bg/cpu.idle")" = 1 ] || fail "bg not idle"

# libvirt's live per-vCPU tuning (`virsh schedinfo --live vcpu_quota=20000` writes libvirt's
# vcpuN groups) reaches the vCPUs in vsched's leaves.
for n in 0 1 2 3; do set_cap vcpu$n 20000; done
for _ in $(seq 50); do
	[ "$(quota_of fast/vcpu0)" = 20000 ] && [ "$(quota_of batch/bg/vcpu2)" = 20000 ] && break
	sleep 0.1
done
[ "$(quota_of fast/vcpu0)" = 20000 ] || fail "live vcpu_quota did not reach fast/vcpu0"
[ "$(quota_of fast/vcpu1)" = 20000 ] || fail "live vcpu_quota did not reach fast/vcpu1"
[ "$(quota_of batch/bg/vcpu2)" = 20000 ] || fail "live vcpu_quota did not reach batch/bg/vcpu2"

# Live re-tune: edit the domain (vCPU 1 no longer assigned), apply again, target by --ctl.
# libvirt's live caps (20000) are not the domain's <quota>60000: kept, and said so.
dom 200 80000
apply --ctl "$cg" 2> "$tmp/err" || fail "re-apply: $(cat "$tmp/err")"
grep -q "d.xml:5: <cputune/quota>: libvirt's live cap of vCPU 0 and others is quota 20000 period 100000, not the domain's: .* not applied (\`virsh schedinfo applytest --live vcpu_quota=60000 vcpu_period=100000\` sets it)" "$tmp/err" ||
	fail "no warning for the domain's <quota> that libvirt's live cap overrides: $(cat "$tmp/err")"
if [ $flavor = v1 ]; then
	[ "$(weight_of fast)" = 2048 ] || fail "re-tuned cpu.shares $(weight_of fast)"
else
	[ "$(weight_of fast)" = 200 ] || fail "re-tuned cpu.weight $(weight_of fast)"
fi
[ "$(quota_of fast)" = 80000 ] || fail "re-tuned quota $(quota_of fast)"
in_group 0 fast/vcpu0 || fail "vcpu0 moved away on re-apply"
in_group 1 vcpu1 || fail "CPU 1/TCG, no longer assigned, is not back in libvirt's vcpu1"
[ "$(quota_of fast/vcpu0)" = 20000 ] || fail "re-apply lost libvirt's live cap"
echo "ok ($flavor)"
