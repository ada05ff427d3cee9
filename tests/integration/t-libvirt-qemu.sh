#!/usr/bin/env bash
# The libvirt hook under a real libvirtd with a real qemu-system-x86_64 domain: `make install`'s
# hook script in /etc/libvirt/hooks/qemu.d/, libvirt calls it, and the QEMU vCPU threads must
# land in the groups of the domain's <metadata>, in the host's cgroup tree, with the values asked
# for; unassigned vCPUs stay in libvirt's vcpuN; `virsh schedinfo --live vcpu_quota=` keeps
# reaching moved vCPUs; a domain with bad groups must not start.
# Runs the domain under TCG (type='qemu', vCPU threads "CPU n/TCG"), so the hook is tested end to
# end on every machine, and also under KVM (type='kvm', "CPU n/KVM") where /dev/kvm exists;
# VSCHED_TEST_TCG=1 runs TCG only.
# Sets up what libvirt needs here (docs: shared/reference/libvirt-on-this-machine.md),
# idempotently, stops the daemons it started, and puts /etc/libvirt/hooks back exactly as it
# found it (libvirt runs every file in qemu.d/, dot-files too, so the test's hook is the only one
# there while it runs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/accel-lib.sh"
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (libvirtd, cgroups)"
# One run per machine: while it runs the test owns /etc/libvirt/hooks/qemu.d, /usr/local/bin/vsched
# and the domain vsched-lvtest. A second run (make check in another tree) took the first's test
# hook and binary for the originals and put them back after, leaving the hook installed.
exec 9>/tmp/vsched-t-libvirt-qemu.lock
flock -w 600 9 || skip "another t-libvirt-qemu run held /tmp/vsched-t-libvirt-qemu.lock for 600 s"
for b in libvirtd virtlogd virsh qemu-system-x86_64; do
	command -v $b >/dev/null || skip "$b missing (scripts/deps.sh installs libvirt and QEMU)"
done
accels=TCG
[ -c /dev/kvm ] && [ "${VSCHED_TEST_TCG:-0}" != 1 ] && accels="KVM TCG"
export LIBVIRT_DEFAULT_URI=qemu:///system
name=vsched-lvtest
hooks=/etc/libvirt/hooks
hookdir=$hooks/qemu.d
bin=/usr/local/bin/vsched
started_libvirtd= started_virtlogd= moved_bin= made_hooks= made_hookdir= tmp=$(mktemp -d)

# A live daemon by its pid file (zombies of earlier daemons do not count).
alive() {
	local p
	p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && [ -d "/proc/$p" ] &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$p/status"
}
stop() { # pid file
	local p i
	alive "$1" || return 0
	p=$(cat "$1")
	kill "$p"
	for i in $(seq 50); do alive "$1" || return 0; sleep 0.1; done
	kill -9 "$p" 2>/dev/null
}
# Everything under /etc/libvirt/hooks: names, types, modes, owners and contents.
hooks_state() {
	[ -d "$hooks" ] || { echo "no $hooks"; return; }
	find "$hooks" -printf '%P %y %m %u:%g %l\n' | sort
	find "$hooks" -type f -exec md5sum {} + | sort
}
cleanup() {
	virsh destroy $name >/dev/null 2>&1
	virsh undefine $name >/dev/null 2>&1
	rm -f "$bin" "$hookdir/vsched"
	# The hooks found in qemu.d go back, exactly.
	[ -d "$tmp/qemu.d" ] && find "$tmp/qemu.d" -mindepth 1 -maxdepth 1 -exec mv {} "$hookdir/" \;
	[ -e "$tmp/qemu.legacy" ] && mv "$tmp/qemu.legacy" "$hooks/qemu"
	[ -n "$made_hookdir" ] && rmdir "$hookdir"
	[ -n "$made_hooks" ] && rmdir "$hooks"
	# libvirtd read the test's hook at start: restart or re-read with the original set.
	if [ -n "$started_libvirtd" ]; then
		stop /var/run/libvirtd.pid
	elif alive /var/run/libvirtd.pid; then
		kill -HUP "$(cat /var/run/libvirtd.pid)"
	fi
	[ -n "$started_virtlogd" ] && stop /var/run/virtlogd.pid
	[ -n "$moved_bin" ] && mv "$bin.vsched-test" "$bin"
	if [ "$(hooks_state)" != "$(cat "$tmp/hooks.before")" ]; then
		echo "FAIL: $hooks not restored:"
		diff "$tmp/hooks.before" <(hooks_state)
		rm -rf "$tmp"
		exit 1
	fi
	rm -rf "$tmp"
}
hooks_state > "$tmp/hooks.before"
trap cleanup EXIT

# libvirt's QEMU driver needs these even with user = "root".
getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
id libvirt-qemu >/dev/null 2>&1 ||
	useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
mkdir -p /var/log/libvirt /var/run/libvirt /var/lib/libvirt/qemu /var/cache/libvirt
grep -q '^security_driver = "none"' /etc/libvirt/qemu.conf 2>/dev/null ||
	printf 'user = "root"\ngroup = "root"\ndynamic_ownership = 0\nremember_owner = 0\nsecurity_driver = "none"\n' \
		>> /etc/libvirt/qemu.conf

# The hook as `make install` puts it, finding this build's vsched where it looks. Hooks found in
# qemu.d/ leave the directory for the test (a renamed one would still run).
[ -d "$hooks" ] || { mkdir -p "$hooks"; made_hooks=1; }
[ -d "$hookdir" ] || { mkdir -p "$hookdir"; made_hookdir=1; }
mkdir "$tmp/qemu.d"
find "$hookdir" -mindepth 1 -maxdepth 1 -exec mv {} "$tmp/qemu.d/" \;
# The single-file hook libvirt also runs.
[ -e "$hooks/qemu" ] && mv "$hooks/qemu" "$tmp/qemu.legacy"
[ -e "$bin" ] && { mv "$bin" "$bin.vsched-test"; moved_bin=1; }
mkdir -p "$(dirname "$bin")"
ln -s "$VSCHED" "$bin"
install -m 0755 "$top/libvirt-hooks/qemu-hook" "$hookdir/vsched"
[ "$(ls -A "$hookdir")" = vsched ] || fail "another hook in $hookdir: $(ls -A "$hookdir")"

# Daemons: start them, or make a running libvirtd re-read its hooks (SIGHUP).
alive /var/run/virtlogd.pid || { virtlogd -d && started_virtlogd=1; }
if alive /var/run/libvirtd.pid; then
	kill -HUP "$(cat /var/run/libvirtd.pid)"
	sleep 1
else
	libvirtd -d && started_libvirtd=1
fi
for _ in $(seq 50); do virsh version >/dev/null 2>&1 && break; sleep 0.2; done
virsh version >/dev/null 2>&1 || fail "libvirtd does not answer"
virsh destroy $name >/dev/null 2>&1
virsh undefine $name >/dev/null 2>&1

domain() { # slow-quota
	local type=kvm cpu="<cpu mode='custom' check='none'><model fallback='allow'>qemu64</model>
    <feature policy='disable' name='svm'/></cpu>"
	[ $accel = TCG ] && type=qemu cpu=
	cat > "$tmp/d.xml" <<XML
<domain type='$type'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>3</vcpu>
  <cputune><shares>300</shares><period>100000</period><quota>50000</quota></cputune>
  <metadata>
    <vs:groups xmlns:vs="https://vsched.dev/xmlns/groups/1.0">
      <vs:group name="fast" weight="400"/>
      <vs:group name="slow" weight="50" quota="$1"/>
      <vs:assign vcpus="0" group="fast"/>
      <vs:assign vcpus="1" group="slow"/>
    </vs:groups>
  </metadata>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  $cpu
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator><serial type='pty'/></devices>
</domain>
XML
}

run_domain() { # accel
	accel=$1
	# 1. Groups the host cannot honour (v1: a vCPU cap above its group's cap): refused, not started.
	domain 20000
	virsh define "$tmp/d.xml" >/dev/null || fail "define"
	if flavor_v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print "yes"; exit }' /proc/self/mountinfo) &&
		[ "$flavor_v1" = yes ]; then
		out=$(virsh start $name 2>&1) && fail "a domain with refused groups started"
		echo "$out" | grep -q "cgroup v1 refuses a cap above the parent's" || fail "message: $out"
		echo "$out" | grep -q "reformatted by libvirt" || fail "message does not name libvirt's XML: $out"
		virsh domstate $name | grep -q "shut off" || fail "domain not shut off"
	fi
	virsh undefine $name >/dev/null

	# 2. A good domain: vCPU threads in the right groups; vCPU 2 (unassigned) in libvirt's vcpu2.
	domain 80000
	virsh define "$tmp/d.xml" >/dev/null || fail "define"
	virsh start $name >/dev/null || fail "start ($accel): $(virsh start $name 2>&1)"
	pid=$(cat /run/libvirt/qemu/$name.pid) || fail "no pid file"
	cpu_cgroup() { # tid -> path of the thread in the cpu hierarchy
		awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3; f=1 } END { if (!f) exit 1 }' \
			/proc/$pid/task/$1/cgroup 2>/dev/null ||
			awk -F: '$1 == "0" { print $3 }' /proc/$pid/task/$1/cgroup
	}
	declare -A tids
	for t in /proc/$pid/task/*; do
		case "$(cat "$t/comm")" in "CPU "*"/$accel") n=$(cut -d' ' -f2 "$t/comm" | cut -d/ -f1); tids[$n]=$(basename "$t") ;; esac
	done
	[ -n "${tids[0]:-}" ] && [ -n "${tids[1]:-}" ] && [ -n "${tids[2]:-}" ] ||
		fail "no CPU n/$accel threads in $pid: $(cat /proc/$pid/task/*/comm | tr '\n' ',')"
	p0=$(cpu_cgroup "${tids[0]}") p1=$(cpu_cgroup "${tids[1]}") p2=$(cpu_cgroup "${tids[2]}")
	case "$p0" in */fast/vcpu0) ;; *) fail "CPU 0/$accel is in $p0, want .../fast/vcpu0" ;; esac
	case "$p1" in */slow/vcpu1) ;; *) fail "CPU 1/$accel is in $p1, want .../slow/vcpu1" ;; esac
	[ "$p2" = "${p0%/fast/vcpu0}/vcpu2" ] || fail "CPU 2/$accel (unassigned) is in $p2, not libvirt's vcpu2"
	mnt=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	v1=1
	[ -n "$mnt" ] || { v1=; mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo); }
	dom=$mnt${p0%/fast/vcpu0}
	quota_of() { if [ -n "$v1" ]; then cat "$dom/$1/cpu.cfs_quota_us"; else cut -d' ' -f1 "$dom/$1/cpu.max"; fi; }
	if [ -n "$v1" ]; then
		[ "$(cat "$dom/cpu.shares")" = 300 ] || fail "domain cpu.shares $(cat "$dom/cpu.shares")"
		[ "$(cat "$dom/fast/cpu.shares")" = 4096 ] || fail "fast cpu.shares"
		[ "$(cat "$dom/slow/cpu.shares")" = 512 ] || fail "slow cpu.shares"
	else
		[ "$(cat "$dom/fast/cpu.weight")" = 400 ] || fail "fast cpu.weight"
	fi
	[ "$(quota_of slow)" = 80000 ] || fail "slow quota"
	[ "$(quota_of fast/vcpu0)" = 50000 ] || fail "vcpu0 quota"
	[ "$(quota_of vcpu2)" = 50000 ] || fail "libvirt's vcpu2 quota"
	# libvirt's own record of QEMU's vCPU threads (what the hook reads first).
	grep -q "<vcpu id='0' pid='${tids[0]}'/>" /run/libvirt/qemu/$name.xml ||
		fail "libvirt's status file has no vCPU 0 thread: $(grep -A4 '<vcpus>' /run/libvirt/qemu/$name.xml)"

	# 3. libvirt's live per-vCPU tuning reaches the moved vCPUs' leaves too.
	virsh schedinfo $name --live vcpu_quota=20000 >/dev/null || fail "virsh schedinfo"
	for _ in $(seq 50); do
		[ "$(quota_of fast/vcpu0)" = 20000 ] && [ "$(quota_of slow/vcpu1)" = 20000 ] && break
		sleep 0.1
	done
	[ "$(quota_of vcpu2)" = 20000 ] || fail "libvirt did not write its vcpu2"
	[ "$(quota_of fast/vcpu0)" = 20000 ] || fail "vcpu_quota=20000 did not reach fast/vcpu0: $(quota_of fast/vcpu0)"
	[ "$(quota_of slow/vcpu1)" = 20000 ] || fail "vcpu_quota=20000 did not reach slow/vcpu1"

	# 4. Live re-tune of the running QEMU domain with `vsched apply` (target found by name).
	sed -i 's/weight="400"/weight="800"/' "$tmp/d.xml"
	"$VSCHED" apply --domain "$tmp/d.xml" || fail "vsched apply on the QEMU domain"
	if [ -n "$v1" ]; then
		[ "$(cat "$dom/fast/cpu.shares")" = 8192 ] || fail "re-tuned cpu.shares"
	else
		[ "$(cat "$dom/fast/cpu.weight")" = 800 ] || fail "re-tuned cpu.weight"
	fi
	[ "$(quota_of fast/vcpu0)" = 20000 ] || fail "vsched apply lost libvirt's live cap"

	# 5. The libvirt way: change the groups with `virsh metadata --live`, apply the live XML.
	virsh metadata $name https://vsched.dev/xmlns/groups/1.0 --key vs --live --set \
		'<groups><group name="fast" weight="900"/><assign vcpus="0-1" group="fast"/></groups>' \
		>/dev/null || fail "virsh metadata"
	virsh dumpxml $name | "$VSCHED" apply --domain - || fail "apply from virsh dumpxml"
	p1=$(cpu_cgroup "${tids[1]}")
	case "$p1" in */fast/vcpu1) ;; *) fail "CPU 1/$accel is in $p1 after re-tune, want .../fast/vcpu1" ;; esac
	[ "$(quota_of fast/vcpu1)" = 20000 ] || fail "fast/vcpu1 does not follow libvirt's vcpu1"

	virsh destroy $name >/dev/null || fail "destroy"
	[ -d "$dom" ] && fail "libvirt left $dom behind"
	virsh undefine $name >/dev/null || fail "undefine"

	# 6. <vcpus> is libvirt's master: vCPUs 0 and 2 online, 1 offline. The hook moved vCPUs 0
	# and 1 (current = 2), failed on the missing vCPU 1 and libvirt killed the domain.
	vcpus="<vcpus><vcpu id='0' enabled='yes' hotpluggable='no'/>"
	vcpus+="<vcpu id='1' enabled='no' hotpluggable='yes'/>"
	vcpus+="<vcpu id='2' enabled='yes' hotpluggable='yes'/></vcpus>"
	sed -e "s|<vcpu placement='static'>3</vcpu>|&$vcpus|" \
		-e 's|<vs:assign vcpus="1" group="slow"/>|<vs:assign vcpus="1-2" group="slow"/>|' \
		"$tmp/d.xml" > "$tmp/v.xml"
	grep -q "<vcpus>" "$tmp/v.xml" || fail "no <vcpus> in the test domain"
	virsh define "$tmp/v.xml" >/dev/null || fail "define <vcpus>"
	virsh start $name >/dev/null 2>"$tmp/err" || fail "<vcpus> {0,2}: not started: $(cat "$tmp/err")"
	pid=$(cat /run/libvirt/qemu/$name.pid) || fail "no pid file"
	t2=
	for t in /proc/$pid/task/*; do
		[ "$(cat "$t/comm")" = "CPU 2/$accel" ] && t2=$(basename "$t")
	done
	[ -n "$t2" ] || fail "<vcpus>: no CPU 2/$accel thread"
	p2=$(cpu_cgroup "$t2")
	case "$p2" in */slow/vcpu2) ;; *) fail "CPU 2/$accel is in $p2, want .../slow/vcpu2" ;; esac
	virsh destroy $name >/dev/null || fail "destroy <vcpus>"
	virsh undefine $name >/dev/null || fail "undefine <vcpus>"
}

for accel in $accels; do
	run_domain $accel
	echo "ok ($accel)"
done
