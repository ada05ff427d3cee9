#!/usr/bin/env bash
# The libvirt hook under a real libvirtd with a real qemu-system-x86_64 domain, of type 'kvm'
# where KVM works and of type 'qemu' (TCG) always: `make install`'s hook script in
# /etc/libvirt/hooks/qemu.d/, libvirt calls it, and the QEMU vCPU threads ("CPU n/KVM" or
# "CPU n/TCG") must land in the groups of the domain's <metadata>, in the host's cgroup tree,
# with the values asked for. A domain with bad groups must not start.
# Sets up what libvirt needs here (docs: shared/reference/libvirt-on-this-machine.md),
# idempotently, and stops the daemons it started.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/accel-lib.sh"
skip() { echo "$1"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (libvirtd, cgroups)"
for b in libvirtd virtlogd virsh qemu-system-x86_64; do
	command -v $b >/dev/null || skip "$b missing (scripts/deps.sh installs libvirt and QEMU)"
done
export LIBVIRT_DEFAULT_URI=qemu:///system
name=vsched-lvtest
hookdir=/etc/libvirt/hooks/qemu.d
bin=/usr/local/bin/vsched
started_libvirtd= started_virtlogd= moved_bin= moved_hook= tmp=$(mktemp -d)

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
cleanup() {
	virsh destroy $name >/dev/null 2>&1
	virsh undefine $name >/dev/null 2>&1
	[ -n "$started_libvirtd" ] && stop /var/run/libvirtd.pid
	[ -n "$started_virtlogd" ] && stop /var/run/virtlogd.pid
	rm -f "$bin" "$hookdir/vsched"
	[ -n "$moved_bin" ] && mv "$bin.vsched-test" "$bin"
	[ -n "$moved_hook" ] && mv "$hookdir/.vsched.vsched-test" "$hookdir/vsched"
	rm -rf "$tmp"
}
trap cleanup EXIT

# libvirt's QEMU driver needs these even with user = "root".
getent group kvm >/dev/null || groupadd -r kvm
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
id libvirt-qemu >/dev/null 2>&1 ||
	useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
mkdir -p /var/log/libvirt /var/run/libvirt /var/lib/libvirt/qemu /var/cache/libvirt "$hookdir"
grep -q '^security_driver = "none"' /etc/libvirt/qemu.conf 2>/dev/null ||
	printf 'user = "root"\ngroup = "root"\ndynamic_ownership = 0\nremember_owner = 0\nsecurity_driver = "none"\n' \
		>> /etc/libvirt/qemu.conf

# The hook as `make install` puts it, finding this build's vsched where it looks.
[ -e "$bin" ] && { mv "$bin" "$bin.vsched-test"; moved_bin=1; }
[ -e "$hookdir/vsched" ] && { mv "$hookdir/vsched" "$hookdir/.vsched.vsched-test"; moved_hook=1; }
mkdir -p "$(dirname "$bin")"
ln -s "$VSCHED" "$bin"
install -m 0755 "$top/libvirt-hooks/qemu-hook" "$hookdir/vsched"

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
	cat > "$tmp/d.xml" <<XML
<domain type='$type'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>2</vcpu>
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
  <cpu mode='custom' check='none'><model fallback='allow'>qemu64</model>
    <feature policy='disable' name='svm'/></cpu>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator><serial type='pty'/></devices>
</domain>
XML
}

for accel in $(test_accels); do
	type=$(domain_type "$accel")
	# QEMU names its vCPU threads after its accelerator.
	threads=$([ "$type" = kvm ] && echo KVM || echo TCG)
	echo "== type '$type'"
	# 1. Groups the host cannot honour (v1: a vCPU cap above its group's cap): refused, not started.
	domain 20000
	virsh define "$tmp/d.xml" >/dev/null || fail "define"
	if flavor_v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print "yes"; exit }' /proc/self/mountinfo) &&
		[ "$flavor_v1" = yes ]; then
		out=$(virsh start $name 2>&1) && fail "a domain with refused groups started"
		echo "$out" | grep -q "cgroup v1 refuses a cap above the parent's" || fail "message: $out"
		virsh domstate $name | grep -q "shut off" || fail "domain not shut off"
	fi
	virsh undefine $name >/dev/null

	# 2. A good domain: vCPU threads in the right groups.
	domain 80000
	virsh define "$tmp/d.xml" >/dev/null || fail "define"
	virsh start $name >/dev/null || fail "start: $(virsh start $name 2>&1)"
	pid=$(cat /run/libvirt/qemu/$name.pid) || fail "no pid file"
	cpu_cgroup() { # tid -> path of the thread in the cpu hierarchy
		awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3; f=1 } END { if (!f) exit 1 }' \
			/proc/$pid/task/$1/cgroup 2>/dev/null ||
			awk -F: '$1 == "0" { print $3 }' /proc/$pid/task/$1/cgroup
	}
	unset tids
	declare -A tids
	for t in /proc/$pid/task/*; do
		case "$(cat "$t/comm")" in "CPU "*"/$threads") n=$(cut -d' ' -f2 "$t/comm" | cut -d/ -f1); tids[$n]=$(basename "$t") ;; esac
	done
	[ -n "${tids[0]:-}" ] && [ -n "${tids[1]:-}" ] || fail "no CPU n/$threads threads in $pid"
	p0=$(cpu_cgroup "${tids[0]}") p1=$(cpu_cgroup "${tids[1]}")
	case "$p0" in */fast/vcpu0) ;; *) fail "CPU 0/$threads is in $p0, want .../fast/vcpu0" ;; esac
	case "$p1" in */slow/vcpu1) ;; *) fail "CPU 1/$threads is in $p1, want .../slow/vcpu1" ;; esac
	mnt=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$mnt" ]; then
		dom=$mnt${p0%/fast/vcpu0}
		[ "$(cat "$dom/cpu.shares")" = 300 ] || fail "domain cpu.shares $(cat "$dom/cpu.shares")"
		[ "$(cat "$dom/fast/cpu.shares")" = 4096 ] || fail "fast cpu.shares"
		[ "$(cat "$dom/slow/cpu.shares")" = 512 ] || fail "slow cpu.shares"
		[ "$(cat "$dom/slow/cpu.cfs_quota_us")" = 80000 ] || fail "slow quota"
		[ "$(cat "$dom/fast/vcpu0/cpu.cfs_quota_us")" = 50000 ] || fail "vcpu0 quota"
	else
		mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
		dom=$mnt${p0%/fast/vcpu0}
		[ "$(cat "$dom/fast/cpu.weight")" = 400 ] || fail "fast cpu.weight"
		[ "$(cut -d' ' -f1 "$dom/slow/cpu.max")" = 80000 ] || fail "slow cpu.max"
	fi

	# 3. Live re-tune of the running QEMU domain with `vsched apply` (target found by name).
	sed -i 's/weight="400"/weight="800"/' "$tmp/d.xml"
	"$VSCHED" apply --domain "$tmp/d.xml" || fail "vsched apply on the QEMU domain"
	if [ -f "$dom/fast/cpu.shares" ]; then
		[ "$(cat "$dom/fast/cpu.shares")" = 8192 ] || fail "re-tuned cpu.shares"
	else
		[ "$(cat "$dom/fast/cpu.weight")" = 800 ] || fail "re-tuned cpu.weight"
	fi

	# 4. The libvirt way: change the groups with `virsh metadata --live`, apply the live XML.
	virsh metadata $name https://vsched.dev/xmlns/groups/1.0 --key vs --live --set \
		'<groups><group name="fast" weight="900"/><assign vcpus="0-1" group="fast"/></groups>' \
		>/dev/null || fail "virsh metadata"
	virsh dumpxml $name | "$VSCHED" apply --domain - || fail "apply from virsh dumpxml"
	p1=$(cpu_cgroup "${tids[1]}")
	case "$p1" in */fast/vcpu1) ;; *) fail "CPU 1/$threads is in $p1 after re-tune, want .../fast/vcpu1" ;; esac

	virsh destroy $name >/dev/null || fail "destroy"
	[ -d "$dom" ] && fail "libvirt left $dom behind"
	virsh undefine $name >/dev/null || fail "undefine"
done
echo ok
