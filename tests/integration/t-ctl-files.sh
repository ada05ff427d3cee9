#!/usr/bin/env bash
# Every file of the control directory, byte for byte: which files exist where (root rules,
# +cpu), their defaults, and what they read after writes made with echo.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ctl-lib.sh"
ctl_require_fuse
ctl_tmp
ctl_start files --vcpus 4 || exit 1
cd "$D" || exit 1

tids=$(vcpu_tids "$HPID")
t0=$(echo "$tids" | sed -n 1p)
t1=$(echo "$tids" | sed -n 2p)

# File sets (ls sorts; the kernel's order does not matter for a listing).
expect_eq "root files" "$(ls | tr '\n' ' ')" \
	"cgroup.controllers cgroup.max.depth cgroup.max.descendants cgroup.procs cgroup.stat cgroup.subtree_control cgroup.threads cpu.stat cpu.stat.local vsched.lanes vsched.vcpu.stat vsched.vcpus "
# vsched's root starts with +cpu (a VM's groups exist to be scheduled); -cpu gives the kernel's
# fresh-root state.
expect_file cgroup.subtree_control 'cpu\n'
echo -cpu >cgroup.subtree_control
mkdir a
expect_eq "group files without +cpu" "$(ls a | tr '\n' ' ')" \
	"cgroup.controllers cgroup.events cgroup.max.depth cgroup.max.descendants cgroup.procs cgroup.stat cgroup.subtree_control cgroup.threads cgroup.type cpu.stat cpu.stat.local vsched.vcpu.stat vsched.vcpus "

# Root defaults.
expect_file cgroup.controllers 'cpu\n'
expect_file cgroup.subtree_control ''
expect_file cgroup.max.depth 'max\n'
expect_file cgroup.max.descendants 'max\n'
expect_file cgroup.stat 'nr_descendants 1\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n'
expect_file cpu.stat 'usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n'
expect_file cpu.stat.local 'throttled_usec 0\n'
expect_file cgroup.procs "$HPID\\n"
expect_file cgroup.threads "$(echo "$tids" | tr '\n' '#' | sed 's/#/\\n/g')"
expect_file vsched.vcpus '0-3\n'
expect_eq "vsched.vcpu.stat root" "$(head -n 1 vsched.vcpu.stat)" \
	"0 tid=$t0 usage_usec=0 user_usec=0 system_usec=0 state=idle lane=-1 wait_usec=0 nr_waits=0 wait_hist=-"
expect_eq "vsched.vcpu.stat lines" "$(wc -l <vsched.vcpu.stat)" 4

# A group under a root without +cpu: core files only, cpu.stat without bandwidth lines.
expect_file a/cgroup.type 'domain\n'
expect_file a/cgroup.controllers ''
expect_file a/cgroup.events 'populated 0\nfrozen 0\n'
expect_file a/cgroup.procs ''
expect_file a/cgroup.threads ''
expect_file a/vsched.vcpus '\n'
expect_file a/vsched.vcpu.stat ''
expect_file a/cgroup.stat 'nr_descendants 0\nnr_subsys_cpu 0\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n'
expect_file a/cpu.stat 'usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\n'
expect_file a/cpu.stat.local ''

# +cpu at the root gives a its cpu.* files with the kernel's defaults.
echo +cpu >cgroup.subtree_control
expect_file cgroup.subtree_control 'cpu\n'
expect_file a/cgroup.controllers 'cpu\n'
expect_eq "group files with +cpu" "$(ls a | tr '\n' ' ')" \
	"cgroup.controllers cgroup.events cgroup.max.depth cgroup.max.descendants cgroup.procs cgroup.stat cgroup.subtree_control cgroup.threads cgroup.type cpu.idle cpu.max cpu.max.burst cpu.stat cpu.stat.local cpu.weight cpu.weight.nice vsched.vcpu.stat vsched.vcpus "
expect_file a/cpu.weight '100\n'
expect_file a/cpu.weight.nice '0\n'
expect_file a/cpu.idle '0\n'
expect_file a/cpu.max 'max 100000\n'
expect_file a/cpu.max.burst '0\n'
expect_file a/cpu.stat 'usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n'
expect_file a/cpu.stat.local 'throttled_usec 0\n'
expect_file cgroup.stat 'nr_descendants 1\nnr_subsys_cpu 2\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n'

# Weights and nice values (cpu-controller.md §2.2 tables).
echo 200 >a/cpu.weight
expect_file a/cpu.weight '200\n'
expect_file a/cpu.weight.nice '-3\n'
echo 0x64 >a/cpu.weight
expect_file a/cpu.weight '100\n'
echo 0144 >a/cpu.weight
expect_file a/cpu.weight '100\n'
echo +10000 >a/cpu.weight
expect_file a/cpu.weight.nice '-20\n'
echo 5 >a/cpu.weight.nice
expect_file a/cpu.weight '33\n'
echo -20 >a/cpu.weight.nice
expect_file a/cpu.weight '8668\n'
echo 19 >a/cpu.weight.nice
expect_file a/cpu.weight '1\n'

# cpu.idle forces weight 3 (reads 1 and nice 19); clearing it resets to 100.
echo 1 >a/cpu.idle
expect_file a/cpu.idle '1\n'
expect_file a/cpu.weight '1\n'
expect_file a/cpu.weight.nice '19\n'
echo 0 >a/cpu.idle
expect_file a/cpu.weight '100\n'

# cpu.max and cpu.max.burst, with the kernel's parse quirks.
echo 1000 >a/cpu.max
expect_file a/cpu.max '1000 100000\n'
echo "max 50000" >a/cpu.max
expect_file a/cpu.max 'max 50000\n'
echo 20000 >a/cpu.max
expect_file a/cpu.max '20000 50000\n'
printf '  3000\t100000\n' >a/cpu.max
expect_file a/cpu.max '3000 100000\n'
echo "1000 100000 5000" >a/cpu.max
expect_file a/cpu.max '1000 100000\n'
echo 1000abc >a/cpu.max
expect_file a/cpu.max '1000 100000\n'
echo "2000 abc" >a/cpu.max
expect_file a/cpu.max '2000 100000\n'
echo 200000 >a/cpu.max
expect_file a/cpu.max '200000 100000\n'
echo 500 >a/cpu.max.burst
expect_file a/cpu.max.burst '500\n'
echo max >a/cpu.max
echo 0 >a/cpu.max.burst
expect_file a/cpu.max 'max 100000\n'

# Threaded mode and vCPU membership.
echo threaded >a/cgroup.type
expect_file a/cgroup.type 'threaded\n'
echo "$t0" >a/cgroup.threads
expect_file a/cgroup.threads "$t0\\n"
expect_file a/vsched.vcpus '0\n'
expect_file vsched.vcpus '1-3\n'
expect_file a/cgroup.events 'populated 1\nfrozen 0\n'
echo "1-2,^2" >a/vsched.vcpus
expect_file a/vsched.vcpus '0-1\n'
expect_file a/cgroup.threads "$t0\\n$t1\\n"
expect_eq "vsched.vcpu.stat of a" "$(cut -d' ' -f1,2 a/vsched.vcpu.stat | tr '\n' ' ')" \
	"0 tid=$t0 1 tid=$t1 "
mkdir a/b
expect_file a/b/cgroup.type 'domain invalid\n'
expect_file a/cgroup.stat 'nr_descendants 1\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n'
echo threaded >a/b/cgroup.type
echo "$t1" >a/b/cgroup.threads
expect_file a/b/cgroup.threads "$t1\\n"
expect_file a/cgroup.threads "$t0\\n"
# The whole process back to the root through cgroup.procs.
echo "$HPID" >cgroup.procs
expect_file vsched.vcpus '0-3\n'
expect_file a/cgroup.events 'populated 0\nfrozen 0\n'
rmdir a/b a

# -cpu removes the files; +cpu again gives fresh defaults.
mkdir c
echo 300 >c/cpu.weight
echo -cpu >cgroup.subtree_control
if [ -e c/cpu.weight ]; then bad "c/cpu.weight exists after -cpu"; else ok "-cpu removes cpu.*"; fi
echo +cpu >cgroup.subtree_control
expect_file c/cpu.weight '100\n'

# Limits.
echo 2 >cgroup.max.depth
expect_file cgroup.max.depth '2\n'
echo max >cgroup.max.depth
expect_file cgroup.max.depth 'max\n'
echo 5 >c/cgroup.max.descendants
expect_file c/cgroup.max.descendants '5\n'
rmdir c

ctl_finish
