#!/usr/bin/env bash
# The control directory against the kernel's own cgroup2 (both in a scratch group): the same
# shell operations in both must print the same (modes, owners, link counts, errno texts): names
# longer than 255 bytes, a write to a read-only file, chmod and chown of files and directories,
# files owned by their creator, user.*/trusted.* xattrs with kernfs's limits. Needs root and a
# writable cgroup2 mount; otherwise it skips and says why.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
[ "$(id -u)" = 0 ] || { echo "needs root (the kernel's cgroup2, setpriv)"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler for the xattr helper"; exit 77; }
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$v2" ] || { echo "no cgroup2 mount to compare with"; exit 77; }
ctl_tmp
kdir=$v2/vsched-kdiff-$$
mkdir "$kdir" 2>/dev/null || { echo "cannot create $kdir (read-only cgroup2?)"; exit 77; }
cc -O2 -o "$TMPD/xattr" "$here/helpers/xattr.c" || { rmdir "$kdir"; echo "FAIL: helper"; exit 1; }
ctl_start kdiff --vcpus 2 || { rmdir "$kdir"; exit 1; }
mkdir "$D/s"
trap 'find "$kdir" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null; rmdir "$kdir"; ctl_teardown' EXIT

U=65534
as_u() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
X=$TMPD/xattr
# Runs CMD; prints "ok" or the error text the tool printed last (the strerror part).
r() {
	local out
	if out=$("$@" 2>&1); then echo "ok $out"; else echo "err ${out##*: }"; fi
}
st() { stat -c '%n %A %h %u %g' "$@"; }

# The transcript of the same operations in directory $1.
ops() {
	cd "$1" || return 1
	# statfs (simple_statfs(): page-sized blocks, NAME_MAX, no counts; the type differs: fuse)
	stat -f -c 'statfs %s %S %l %b %f %a %c %d' .
	r mkdir g; st g
	# Names past 255 bytes (kernfs has no NAME_MAX); 4094 makes "g/NAME" longer than PATH_MAX.
	# (vsched limits a group's whole path below the VM to 4095 bytes: 4090 fits under s/g/.)
	r mkdir g/a g/b; st g
	# mkdir(2)'s mode, after the umask, is the group's (kernfs_create_dir_ns())
	(umask 077; r mkdir g/um); r mkdir -m 0750 g/m2; (umask 0; r mkdir g/m3); st g/um g/m2 g/m3
	r rmdir g/um g/m2 g/m3
	r rmdir g/b; st g
	for n in 255 256 1025 4090 4094; do
		name=$(head -c $n /dev/zero | tr '\0' n)
		echo "name $n: $(r mkdir "g/$name") $(r rmdir "g/$name")"
	done
	# Read-only files: root opens them for writing; the write fails.
	echo "write cgroup.events: $(r bash -c 'printf 1 > g/cgroup.events')"
	echo "write cgroup.stat: $(r bash -c 'printf 1 > g/cgroup.stat')"
	echo "write cgroup.controllers: $(r bash -c 'printf x > g/cgroup.controllers')"
	# chmod and chown of files and directories: each node on its own.
	r chmod 0600 g/cgroup.procs; r chmod 0700 g/a; st g/cgroup.procs g/a g/cgroup.threads
	r chmod 0644 g/cgroup.procs; r chmod 0755 g/a
	r chown $U:$U g; st g g/cgroup.procs g/cgroup.threads
	r chown $U g/cgroup.procs; st g/cgroup.procs
	echo "as U: write $(r as_u bash -c 'printf 1 > g/cgroup.max.depth')"
	r as_u chmod 0600 g/cgroup.max.depth
	# What U makes is U's, files included.
	r as_u mkdir g/c; st g/c g/c/cgroup.procs g/c/cgroup.max.depth
	echo "as U: $(r as_u bash -c 'printf 3 > g/c/cgroup.max.depth')"
	r as_u chmod 0640 g/c/cgroup.max.depth; st g/c/cgroup.max.depth
	r as_u rmdir g/c
	# Extended attributes.
	r "$X" set g user.a 1; r "$X" get g user.a
	r "$X" set g user.a 2 create; r "$X" set g user.b 2 replace; r "$X" set g user.a 3 replace
	r "$X" get g user.a; r "$X" get g user.none
	r "$X" set g/cgroup.procs user.f v; r "$X" get g/cgroup.procs user.f
	r "$X" set g trusted.t 1; r "$X" list g
	echo "as U: $(r as_u "$X" list g) $(r as_u "$X" get g trusted.t)"
	r "$X" set g system.x 1; r "$X" set g other.x 1
	r "$X" remove g user.a; r "$X" remove g user.a; r "$X" get g user.a
	for i in $(seq 130); do "$X" set g/a "user.k$i" v >/dev/null || { echo "user.k$i: $("$X" set g/a "user.k$i" v)"; break; }; done
	r "$X" set g/a trusted.more 1
	big=$(head -c 65000 /dev/zero | tr '\0' v)
	r "$X" set g/b user.big "$big"; r "$X" set g/b user.big2 "$big"; r "$X" set g/b user.big3 "$big"
	r rmdir g/a; r mkdir g/a; r "$X" list g/a
	r rmdir g/a; r rmdir g/b 2>/dev/null; r rmdir g
}

ops "$kdir" > "$TMPD/kernel" 2>&1
ops "$D/s" > "$TMPD/vsched" 2>&1
cd /
if diff -u "$TMPD/kernel" "$TMPD/vsched" > "$TMPD/diff"; then
	ok "$(wc -l < "$TMPD/kernel") lines of the kernel's cgroup2 and the control directory agree"
else
	bad "the control directory differs from the kernel's cgroup2:"
	sed 's/^/    /' "$TMPD/diff" | head -60
fi
# poll(2) on cgroup.events, a task moved in while a poll waits: a sleep on the kernel's side, a
# vCPU thread on vsched's.
if command -v python3 >/dev/null; then
	mkdir "$kdir/p" "$D/p"
	echo threaded >"$D/p/cgroup.type"
	sleep 30 &
	spid=$!
	kp=$(python3 "$here/helpers/poll_events.py" "$kdir/p" "echo $spid >$kdir/p/cgroup.procs")
	kill $spid; wait $spid 2>/dev/null
	vp=$(python3 "$here/helpers/poll_events.py" "$D/p" \
		"echo $(vcpu_tids "$HPID" | head -n 1) >$D/p/cgroup.threads")
	expect_eq "poll on cgroup.events as the kernel's" "$vp" "$kp"
	echo "$kp" | grep -q "waiting poll: pri within 2 s" && ok "kernel: a move wakes the poll" ||
		bad "kernel poll transcript: $kp"
	echo "$(vcpu_tids "$HPID" | head -n 1)" >"$D/cgroup.threads"
	rmdir "$kdir/p" "$D/p"
fi
# The transcript itself: what the kernel does, so that agreeing means something.
grep -q "^name 4090: ok  ok" "$TMPD/kernel" && ok "kernel: 4090-byte names" ||
	bad "kernel transcript: $(head -c 300 "$TMPD/kernel")"
grep -q '^write cgroup.events: err Invalid argument' "$TMPD/kernel" &&
	ok "kernel: a read-only file opens for writing, the write is EINVAL" || bad "kernel: write"
ctl_finish
