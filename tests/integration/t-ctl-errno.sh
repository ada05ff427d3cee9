#!/usr/bin/env bash
# Every errno path of cpu-controller.md §1, §2, §6 as the shell sees it: the message printed is
# the kernel's, and a refused write changes nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
ctl_start errno --vcpus 4 || exit 1
cd "$D" || exit 1

EINVAL="Invalid argument"
ERANGE="Numerical result out of range"
EBUSY="Device or resource busy"
EACCES="Permission denied"
EPERM="Operation not permitted"
EEXIST="File exists"
ENOENT="No such file or directory"
EOPNOTSUPP="Operation not supported"
E2BIG="Argument list too long"
ESRCH="No such process"
EAGAIN="Resource temporarily unavailable"
ENODEV="No such device"

t0=$(vcpu_tids "$HPID" | head -n 1)

echo +cpu >cgroup.subtree_control
mkdir g

# §1.1 generic rules: kstrtoull on cpu.weight, range ERANGE, nothing changes on error.
echo 150 >g/cpu.weight
for v in 0 10001 18446744073709551616; do wr g/cpu.weight "$v" "$ERANGE"; done
for v in -1 abc " 100" "100 " $'100\n\n' 1e2 08 $'\n' + 0x; do wr g/cpu.weight "$v" "$EINVAL"; done
expect_file g/cpu.weight '150\n'
wr g/cpu.weight $'100\n' ok
wr g/cpu.weight 010 ok
expect_file g/cpu.weight '8\n'
# Zero-length writes succeed and change nothing (`: > file` opens with O_TRUNC, writes nothing).
: >g/cpu.weight
expect_file g/cpu.weight '8\n'
# Longer than a page: E2BIG, whatever the content. iflag=fullblock: one read(2) of a pipe may
# return fewer than bs bytes, and dd would then write a short block (a 1-in-50 flake).
out=$(head -c 5000 /dev/zero | tr '\0' 1 | dd of=g/cpu.weight bs=5000 count=1 iflag=fullblock 2>&1)
case $out in *"$E2BIG"*) ok "5000-byte write: E2BIG" ;; *) bad "5000-byte write: $out" ;; esac
expect_file g/cpu.weight '8\n'
out=$(head -c 4096 /dev/zero | tr '\0' ' ' | dd of=g/cpu.weight bs=4096 count=1 iflag=fullblock 2>&1)
case $out in *"$EINVAL"*) ok "4096-byte write reaches the parser: EINVAL" ;; *) bad "4096 bytes: $out" ;; esac

# cpu.weight.nice (kstrtoll, [-20, 19]).
for v in -21 20 9223372036854775808; do wr g/cpu.weight.nice "$v" "$ERANGE"; done
for v in x 1.5 " 1"; do wr g/cpu.weight.nice "$v" "$EINVAL"; done

# cpu.idle: out of range is EINVAL, not ERANGE; weight writes are EINVAL while idle.
for v in 2 -1 x; do wr g/cpu.idle "$v" "$EINVAL"; done
echo 1 >g/cpu.idle
wr g/cpu.weight 50 "$EINVAL"
wr g/cpu.weight.nice 0 "$EINVAL"
wr g/cpu.idle 1 ok
expect_file g/cpu.weight '1\n'
echo 0 >g/cpu.idle

# cpu.max (§2.4 table).
for v in -1 "-1 100000" MAX maxx unlimited $'\n' 0 999 "500 100000" "1000 999" "max 999" \
	"1000 0" "1000 1000001" "max 2000000" 17592186044416; do
	wr g/cpu.max "$v" "$EINVAL"
done
expect_file g/cpu.max 'max 100000\n'
wr g/cpu.max "1000 1000000" ok
wr g/cpu.max "17592186044415 100000" ok
echo "5000 100000" >g/cpu.max

# cpu.max.burst: "max" and "-1" are EINVAL; burst above a finite quota is EINVAL.
for v in max -1 6000; do wr g/cpu.max.burst "$v" "$EINVAL"; done
wr g/cpu.max.burst 5000 ok
wr g/cpu.max 4000 "$EINVAL"
expect_file g/cpu.max '5000 100000\n'
echo 0 >g/cpu.max.burst
echo max >g/cpu.max
wr g/cpu.max.burst 18446744073709551 ok
wr g/cpu.max 1000 "$EINVAL"
echo 0 >g/cpu.max.burst

# cgroup.subtree_control.
for v in +memory cpu $'+cpu\t-cpu' "+ cpu" +cpux; do wr g/cgroup.subtree_control "$v" "$EINVAL"; done
mkdir g/h
wr g/h/cgroup.subtree_control +cpu "$ENOENT"
echo +cpu >g/cgroup.subtree_control
echo +cpu >g/h/cgroup.subtree_control
wr g/cgroup.subtree_control -cpu "$EBUSY"
expect_file g/cgroup.subtree_control 'cpu\n'
wr g/cgroup.subtree_control "+cpu -cpu" "$EBUSY"
echo -cpu >g/h/cgroup.subtree_control
wr g/cgroup.subtree_control "" ok
rmdir g/h

# cgroup.type: only "threaded"; populated groups cannot become threaded.
for v in domain "domain threaded" x; do wr g/cgroup.type "$v" "$EINVAL"; done
echo "$HPID" >g/cgroup.procs
wr g/cgroup.type threaded "$EOPNOTSUPP"
expect_file g/cgroup.type 'domain threaded\n'
echo "$HPID" >cgroup.procs

# cgroup.procs / cgroup.threads: parse EINVAL, unknown ESRCH, other domain EOPNOTSUPP.
for v in abc -1 "1 2" 99999999999; do wr g/cgroup.threads "$v" "$EINVAL"; done
for v in abc -1 "1 2"; do wr g/cgroup.procs "$v" "$EINVAL"; done
wr g/cgroup.threads 1 "$ESRCH"
wr g/cgroup.procs 1 "$ESRCH"
wr g/cgroup.threads 0 "$ESRCH"
wr g/cgroup.threads "$t0" "$EOPNOTSUPP"
mkdir t
echo threaded >t/cgroup.type
mkdir t/inv
expect_file t/inv/cgroup.type 'domain invalid\n'
wr t/inv/cgroup.procs "$HPID" "$EOPNOTSUPP"
wr t/inv/cgroup.threads "$t0" "$EOPNOTSUPP"
wr t/inv/cgroup.subtree_control +cpu "$ENOENT"
out=$(cat t/cgroup.procs 2>&1)
case $out in *"$EOPNOTSUPP"*) ok "cat cgroup.procs of a threaded group: $EOPNOTSUPP" ;;
*) bad "cat t/cgroup.procs: $out" ;; esac
echo "$t0" >t/cgroup.threads
expect_file vsched.vcpus '1-3\n'
rmdir t/inv

# vsched.vcpus: syntax EINVAL, index beyond the VM ERANGE.
for v in abc "1-" "3-1" "1,,2"; do wr t/vsched.vcpus "$v" "$EINVAL"; done
wr t/vsched.vcpus 0-4 "$ERANGE"
expect_file t/vsched.vcpus '0\n'

# Limits: ERANGE below 0, EINVAL syntax, EAGAIN at mkdir.
wr cgroup.max.depth -1 "$ERANGE"
wr cgroup.max.depth abc "$EINVAL"
wr cgroup.max.descendants -5 "$ERANGE"
echo 1 >g/cgroup.max.depth
mkdir g/one
run_err "$EAGAIN" mkdir g/one/two
echo 1 >g/cgroup.max.descendants
run_err "$EAGAIN" mkdir g/second
rmdir g/one

# mkdir / rmdir.
run_err "$EEXIST" mkdir g
run_err "$EEXIST" mkdir cpu.stat
run_err "$EINVAL" mkdir "$(printf 'new\nline')"
run_err "$ENOENT" mkdir nope/child
run_err "$ENOENT" rmdir nope
mkdir g/kid
run_err "$EBUSY" rmdir g
rmdir g/kid
run_err "$EBUSY" rmdir t
echo "$HPID" >cgroup.procs
rmdir t
run_err "$EBUSY" rmdir "$D"

# A read-only file opens for writing (root passes the VFS's check; cgroupfs adds none), and the
# write is EINVAL (kernfs_fop_write_iter() without a write handler), as on the kernel here.
wr cpu.stat 1 "$EINVAL"
wr g/cgroup.events 1 "$EINVAL"
wr g/cgroup.controllers cpu "$EINVAL"
wr g/cgroup.stat 1 "$EINVAL"
wr g/vsched.vcpu.stat 1 "$EINVAL"

# A file whose group was removed: ENODEV through an open descriptor.
mkdir gone
exec 5>gone/cpu.weight 6<gone/cpu.weight
rmdir gone
out=$({ echo 5 >&5; } 2>&1)
case $out in *"$ENODEV"*) ok "write to a removed group: ENODEV" ;; *) bad "write after rmdir: $out" ;; esac
out=$({ read -r x <&6; } 2>&1)
case $out in *"$ENODEV"*) ok "read of a removed group: ENODEV" ;; *) bad "read after rmdir: $out" ;; esac
# ... and stays so when a group of that name is made again: the descriptor names the old node
# (kernfs), not the path; it neither reads nor changes the new group.
mkdir gone
out=$({ echo 5 >&5; } 2>&1)
case $out in *"$ENODEV"*) ok "write to a removed group, name made again: ENODEV" ;;
*) bad "write after rmdir + mkdir: '$out', cpu.weight now $(cat gone/cpu.weight)" ;; esac
out=$({ read -r x <&6; } 2>&1)
case $out in *"$ENODEV"*) ok "read of a removed group, name made again: ENODEV" ;;
*) bad "read after rmdir + mkdir: '$out'" ;; esac
exec 5>&- 6<&-
rmdir gone
# A cpu.* file after -cpu and +cpu on the parent is a new file too.
mkdir p p/gone
echo +cpu >p/cgroup.subtree_control
exec 5>p/gone/cpu.weight 6<p/gone/cgroup.max.depth
echo -cpu >p/cgroup.subtree_control
echo +cpu >p/cgroup.subtree_control
out=$({ echo 5 >&5; } 2>&1)
case $out in *"$ENODEV"*) ok "cpu.weight after -cpu, +cpu: ENODEV" ;;
*) bad "cpu.weight after -cpu, +cpu: '$out', now $(cat p/gone/cpu.weight)" ;; esac
out=$({ read -r x <&6 && echo "$x"; } 2>&1)
[ "$out" = max ] && ok "a core file stays the same file across -cpu, +cpu" ||
	bad "cgroup.max.depth after -cpu, +cpu: '$out'"
exec 5>&- 6<&-
rmdir p/gone p
# A group named as a cpu.* file, removed, then +cpu on its grandparent: the old path now runs
# through a file, which the API calls ENOTDIR (a VFS walk); the descriptor still says ENODEV.
mkdir q q/p q/p/cpu.weight
exec 5>q/p/cpu.weight/cgroup.max.depth 6<q/p/cpu.weight/cgroup.max.depth
rmdir q/p/cpu.weight
echo +cpu >q/cgroup.subtree_control
out=$({ echo 5 >&5; } 2>&1)
case $out in *"$ENODEV"*) ok "write, its group's name now a file: ENODEV" ;; *) bad "write: '$out'" ;; esac
out=$({ read -r x <&6; } 2>&1)
case $out in *"$ENODEV"*) ok "read, its group's name now a file: ENODEV" ;; *) bad "read: '$out'" ;; esac
exec 5>&- 6<&-
echo -cpu >q/cgroup.subtree_control
rmdir q/p q

# O_DIRECT: kernfs files cannot (do_dentry_open()); the 6.18 kernel's cgroup2 says EINVAL
# (branch ctlcheck: the directory opened them).
run_err "$EINVAL" dd if=g/cpu.stat of=/dev/null iflag=direct status=none
run_err "$EINVAL" dd if=/dev/zero of=g/cpu.weight oflag=direct bs=1 count=1 status=none

# What kernfs does not implement.
run_err "$EPERM" rm g/cpu.weight
run_err "$EPERM" mv g g2
run_err "$EPERM" mv g/cpu.weight g/x
run_err "$EACCES" touch g/newfile
run_err "$EPERM" ln g/cpu.weight g/hard
run_err "$EPERM" ln -s cpu.weight g/soft
run_err "$EPERM" mknod g/fifo p
touch g/cpu.weight && ok "touch of an existing file" || bad "touch g/cpu.weight"
rmdir g

ctl_finish
