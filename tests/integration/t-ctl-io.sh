#!/usr/bin/env bash
# How files read and write with everyday tools: the whole content in one read(), partial
# reads and offsets (cat, head -c, dd, shell read, Python), size 0 in stat like cgroupfs,
# appends and O_TRUNC writes, and a long file (cgroup.threads of 64 vCPUs).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
ctl_start io --vcpus 64 || exit 1
cd "$D" || exit 1

mkdir g
stat_want='usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n'
full=$(printf -- "$stat_want")
len=$(printf -- "$stat_want" | wc -c)

expect_eq "stat size is 0 (as cgroupfs)" "$(stat -c %s g/cpu.stat)" 0
expect_eq "cat" "$(cat g/cpu.stat)" "$full"
# One read() with a large buffer returns everything (the selftests' read_text()).
expect_eq "one read() returns the whole file" "$(dd if=g/cpu.stat bs=65536 count=1 status=none | wc -c)" "$len"
expect_eq "head -c 10" "$(head -c 10 g/cpu.stat)" "usage_usec"
expect_eq "byte-by-byte reads" "$(dd if=g/cpu.stat bs=1 status=none)" "$full"
expect_eq "read at an offset" "$(dd if=g/cpu.stat bs=1 skip=11 count=1 status=none)" "0"
expect_eq "read at offset 13" "$(dd if=g/cpu.stat bs=1 skip=13 count=11 status=none)" "user_usec 0"
expect_eq "read past the end" "$(dd if=g/cpu.stat bs=1 skip=4096 count=4 status=none | wc -c)" 0
read -r first <g/cpu.stat
expect_eq "shell read" "$first" "usage_usec 0"
n=0
while read -r k v; do n=$((n + 1)); last="$k $v"; done <g/cpu.stat
expect_eq "shell read loop: lines" "$n" 9
expect_eq "shell read loop: last line" "$last" "burst_usec 0"
expect_eq "tail -n 1" "$(tail -n 1 g/cpu.stat)" "burst_usec 0"
expect_eq "grep" "$(grep -c _usec g/cpu.stat)" 6
if command -v python3 >/dev/null; then
	expect_eq "python open().read()" "$(python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' g/cpu.stat)" "$full"
	expect_eq "python pread" "$(python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); sys.stdout.write(os.pread(fd, 9, 11).decode())' g/cpu.stat)" \
		"$(printf '0\nuser_us')"
	python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("321\n")
' g/cpu.weight
	expect_file g/cpu.weight '321\n'
else
	echo "note: python3 is not installed, its reads are not checked"
fi

# A long file (64 TIDs) in one read and in 100-byte pieces, identical.
all=$(vcpu_tids "$HPID" | tr '\n' '#' | sed 's/#/\\n/g')
expect_file cgroup.threads "$all"
expect_eq "cgroup.threads in 100-byte reads" "$(dd if=cgroup.threads bs=100 status=none | md5sum)" \
	"$(cat cgroup.threads | md5sum)"
expect_eq "cgroup.threads lines" "$(wc -l <cgroup.threads)" 64
expect_file vsched.vcpus '0-63\n'

# Writes: O_TRUNC (>), O_APPEND (>>), read-write descriptors, printf without newline.
echo 200 >g/cpu.weight
expect_file g/cpu.weight '200\n'
echo 300 >>g/cpu.weight
expect_file g/cpu.weight '300\n'
printf 400 >g/cpu.weight
expect_file g/cpu.weight '400\n'
exec 3<>g/cpu.weight
echo 500 >&3
exec 3>&-
expect_file g/cpu.weight '500\n'
# One value per write(): two writes on one descriptor are two values, the last one wins.
exec 3>g/cpu.weight
printf 600 >&3
printf 700 >&3
exec 3>&-
expect_file g/cpu.weight '700\n'
# A read on a descriptor sees writes made since its last read at offset 0.
exec 4<g/cpu.max
read -r before <&4
echo 2000 >g/cpu.max
expect_eq "first read" "$before" "max 100000"
expect_eq "re-read from offset 0" "$(cat /proc/self/fd/4 2>/dev/null || cat g/cpu.max)" "2000 100000"
exec 4<&-
# poll(2) on cgroup.events: POLLPRI before the first read and when populated changes, a waiting
# poll woken by a move (kernfs_notify()); t-ctl-kdiff runs the same against the kernel.
if command -v python3 >/dev/null; then
	mkdir pe
	echo threaded >pe/cgroup.type
	out=$(python3 "$here/helpers/poll_events.py" pe "echo $(vcpu_tids "$HPID" | head -n 1) >pe/cgroup.threads")
	expect_eq "poll on cgroup.events" "$(echo "$out" | tr '\n' '|')" \
		"before the first read: pri|read: populated 0|after the read: none|waiting poll: pri within 2 s|still, without a read: pri|read: populated 1|after the read: none|"
	echo "$(vcpu_tids "$HPID" | head -n 1)" >cgroup.threads
	rmdir pe
fi
ls -l >/dev/null && ok "ls -l" || bad "ls -l"
expect_eq "find lists files and dirs" "$(find . -name cpu.weight | sort | tr '\n' ' ')" "./g/cpu.weight "
rmdir g

ctl_finish
