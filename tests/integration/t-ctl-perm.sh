#!/usr/bin/env bash
# Modes and ownership as cgroupfs (root-owned, 0755 / 0644 / 0444; chown and chmod of any node,
# each node on its own), and cgroup v2 delegation: `chown USER dir` and its cgroup.procs,
# cgroup.threads, cgroup.subtree_control (and vsched.vcpus) let USER manage the subtree below dir
# but not dir's own limits, and move vCPUs only between groups it owns; everyone else gets EACCES.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
ctl_start perm --vcpus 4 || exit 1
cd "$D" || exit 1

EACCES="Permission denied"
EPERM="Operation not permitted"
U=65534	# nobody
O=65533	# a user with no delegation
as_u() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
as_o() { setpriv --reuid=$O --regid=$O --clear-groups "$@"; }
statof() { stat -c '%A %u %g %s' "$1"; }

read -r t0 t1 < <(vcpu_tids "$HPID" | head -n 2 | tr '\n' ' ')

mkdir d
expect_eq "root dir" "$(statof .)" "drwxr-xr-x 0 0 0"
expect_eq "group dir" "$(statof d)" "drwxr-xr-x 0 0 0"
expect_eq "rw file" "$(statof d/cpu.weight)" "-rw-r--r-- 0 0 0"
expect_eq "ro file" "$(statof d/cpu.stat)" "-r--r--r-- 0 0 0"
expect_eq "ro cgroup.events" "$(statof d/cgroup.events)" "-r--r--r-- 0 0 0"
# A group has mkdir(2)'s mode after the umask, as kernfs_create_dir_ns() makes it (branch
# ctlcheck: always 0755).
(umask 077; mkdir m1)
mkdir -m 0750 m2
(umask 0; mkdir m3)
expect_eq "umask 077" "$(statof m1)" "drwx------ 0 0 0"
expect_eq "mkdir -m 0750" "$(statof m2)" "drwxr-x--- 0 0 0"
expect_eq "umask 0" "$(statof m3)" "drwxrwxrwx 0 0 0"
expect_eq "its files as ever" "$(statof m1/cgroup.procs)" "-rw-r--r-- 0 0 0"
rmdir m1 m2 m3
expect_eq "rw cgroup.procs" "$(statof cgroup.procs)" "-rw-r--r-- 0 0 0"

# Before delegation nobody may change anything.
run_err "$EACCES" as_u mkdir d/x
run_err "$EACCES" as_u bash -c "echo 50 > d/cpu.weight"
run_err "$EPERM" as_u chown $U d

# Delegate d, threaded so that single vCPUs can move in; put vCPU 0 there.
echo threaded >d/cgroup.type
echo "$t0" >d/cgroup.threads
chown $U:$U d
# As on cgroupfs, the directory's files keep their owner: chown of the directory alone gives U
# no file in it.
expect_eq "chown of the directory only" "$(statof d/cgroup.procs)" "-rw-r--r-- 0 0 0"
chown $U:$U d/cgroup.procs d/cgroup.threads d/cgroup.subtree_control d/vsched.vcpus &&
	ok "chown of the delegatable files (recipe of cgroup-v2.rst)" || bad "chown of delegatable files"
# Root may chown and chmod any file, as on cgroupfs; each node keeps its own.
chown $U d/cpu.weight && chmod 0600 d/cpu.weight && ok "chown and chmod of d/cpu.weight" ||
	bad "chown/chmod of d/cpu.weight"
expect_eq "chowned, chmodded file" "$(statof d/cpu.weight)" "-rw------- $U 0 0"
expect_eq "its neighbour" "$(statof d/cpu.max)" "-rw-r--r-- 0 0 0"
chown 0 d/cpu.weight && chmod 0644 d/cpu.weight
run_err "$EPERM" as_u chmod 0666 d/cpu.max
expect_eq "delegated dir" "$(statof d)" "drwxr-xr-x $U $U 0"
expect_eq "delegated cgroup.threads" "$(statof d/cgroup.threads)" "-rw-r--r-- $U $U 0"
expect_eq "delegated cgroup.subtree_control" "$(statof d/cgroup.subtree_control)" "-rw-r--r-- $U $U 0"
expect_eq "delegated group's own cpu.weight stays root's" "$(statof d/cpu.weight)" "-rw-r--r-- 0 0 0"
expect_eq "delegated group's own cpu.max stays root's" "$(statof d/cpu.max)" "-rw-r--r-- 0 0 0"

# The delegatee manages the subtree.
as_u mkdir d/x && ok "delegatee mkdir d/x" || bad "delegatee mkdir d/x"
expect_eq "created group is the creator's" "$(statof d/x)" "drwxr-xr-x $U $U 0"
as_u bash -c "echo +cpu > d/cgroup.subtree_control" && ok "delegatee +cpu in d" || bad "+cpu in d"
expect_eq "files of a group inside the subtree" "$(statof d/x/cpu.weight)" "-rw-r--r-- $U $U 0"
as_u bash -c "echo 50 > d/x/cpu.weight" && ok "delegatee writes d/x/cpu.weight" || bad "d/x/cpu.weight"
expect_file d/x/cpu.weight '50\n'
as_u bash -c "echo '5000 100000' > d/x/cpu.max" && ok "delegatee writes d/x/cpu.max" || bad "d/x/cpu.max"
as_u bash -c "echo threaded > d/x/cgroup.type" && ok "delegatee makes d/x threaded" || bad "d/x threaded"
as_u mkdir d/x/deep && as_u rmdir d/x/deep && ok "delegatee mkdir/rmdir below" || bad "nested mkdir/rmdir"

# ... but not the delegated group's own limits, nor anything outside it.
run_err "$EACCES" as_u bash -c "echo 500 > d/cpu.weight"
run_err "$EACCES" as_u bash -c "echo 1000 > d/cpu.max"
run_err "$EACCES" as_u bash -c "echo 1 > d/cgroup.max.depth"
run_err "$EACCES" as_u mkdir other
run_err "$EACCES" as_u rmdir d
run_err "$EACCES" as_u bash -c "echo -cpu > cgroup.subtree_control"
expect_file d/cpu.weight '100\n'

# vCPU moves: within the subtree yes; from outside (common ancestor = root, root's) EACCES.
as_u bash -c "echo $t0 > d/x/cgroup.threads" && ok "delegatee moves vCPU 0 inside its subtree" ||
	bad "move inside subtree"
expect_file d/x/vsched.vcpus '0\n'
run_err "$EACCES" as_u bash -c "echo $t1 > d/x/cgroup.threads"
run_err "$EACCES" as_u bash -c "echo 1 > d/x/vsched.vcpus"
run_err "$EACCES" as_u bash -c "echo $t0 > cgroup.threads"
expect_file vsched.vcpus '1-3\n'
as_u bash -c "echo 0 > d/vsched.vcpus" && ok "delegatee moves vCPU 0 back to d" || bad "vsched.vcpus in d"

# Another user has nothing: EACCES everywhere, reads are allowed (0644/0444).
run_err "$EACCES" as_o mkdir d/y
run_err "$EACCES" as_o bash -c "echo 10 > d/x/cpu.weight"
run_err "$EACCES" as_o bash -c "echo $t0 > d/x/cgroup.threads"
expect_eq "others read" "$(as_o cat d/x/cpu.weight)" "50"

# A move is checked with the credentials of the file's opener, as the kernel does since 5.16
# (of->file->f_cred, CVE-2021-4197): an inherited descriptor moves with its opener's rights, not
# its holder's. Root's descriptor, written by U: allowed (common ancestor the root); U's
# descriptor, written by root: EACCES. Compared with the 6.18 kernel's cgroup2 (branch
# ctlcheck); vsched checked the writer: the opposite answers.
exec 3>d/x/cgroup.procs
as_u bash -c "echo $HPID >&3" && ok "U moves the VM through root's descriptor" ||
	bad "U through root's descriptor refused"
exec 3>&-
expect_file d/x/vsched.vcpus '0-3\n'
echo "$HPID" >cgroup.procs
if command -v python3 >/dev/null; then
	out=$(python3 -c '
import errno, os, sys
os.setresgid(int(sys.argv[1]), int(sys.argv[1]), 0)
os.setresuid(int(sys.argv[1]), int(sys.argv[1]), 0)
fd = os.open(sys.argv[2], os.O_WRONLY)
os.setresuid(0, 0, 0)
os.setresgid(0, 0, 0)
try:
    os.write(fd, sys.argv[3].encode())
    print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])
' $U d/x/cgroup.procs "$HPID")
	expect_eq "root through U's descriptor" "$out" EACCES
	expect_file vsched.vcpus '0-3\n'
fi

# A move to where the vCPU already is still needs the destination's cgroup.procs, as on the
# kernel (the common ancestor of a group and itself): U holding only cgroup.threads gets EACCES.
# Branch ctlcheck: nothing moved, nothing was checked, the write succeeded.
mkdir n
echo threaded >n/cgroup.type
echo 2 >n/vsched.vcpus
chown $U n/cgroup.threads
t2=$(vcpu_tids "$HPID" | sed -n 3p)
run_err "$EACCES" as_u bash -c "echo $t2 > n/cgroup.threads"
chown $U n/cgroup.procs
as_u bash -c "echo $t2 > n/cgroup.threads" && ok "with n/cgroup.procs U's too: ok" ||
	bad "no-op move with n/cgroup.procs"
echo "$HPID" >cgroup.procs
rmdir n

# chown by the delegatee of its own group to another user: EPERM (no CAP_CHOWN); chmod of its
# own file is the owner's right.
run_err "$EPERM" as_u chown $O d/x
as_u chmod 0664 d/x/cpu.weight && ok "owner chmods its file" || bad "owner chmod"
expect_eq "chmod by the owner" "$(statof d/x/cpu.weight)" "-rw-rw-r-- $U $U 0"

# Files take the owner of whoever made them: root enabling +cpu in U's group makes the cpu.*
# files of its children root's (cgroup_add_file() uses the caller's fsuid), as on cgroupfs.
as_u bash -c "echo +cpu > d/x/cgroup.subtree_control"
as_u mkdir d/x/k
expect_eq "made by U" "$(statof d/x/k/cpu.weight)" "-rw-r--r-- $U $U 0"
as_u bash -c "echo -cpu > d/x/cgroup.subtree_control"
echo +cpu > d/x/cgroup.subtree_control
expect_eq "cpu.* files made again by root" "$(statof d/x/k/cpu.weight)" "-rw-r--r-- 0 0 0"
expect_eq "other files still U's" "$(statof d/x/k/cgroup.procs)" "-rw-r--r-- $U $U 0"
# cpu.stat is a core file (cgroup_base_files[]), made with the directory: not the +cpu writer's.
expect_eq "cpu.stat still U's" "$(statof d/x/k/cpu.stat)" "-r--r--r-- $U $U 0"
as_u rmdir d/x/k

# Taking the delegation back (chown to root) ends it.
echo "$HPID" >cgroup.procs
as_u rmdir d/x && ok "delegatee removes its group" || bad "rmdir d/x"
chown 0:0 d
run_err "$EACCES" as_u mkdir d/x
rmdir d

ctl_finish
