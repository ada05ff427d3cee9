# Helpers for the runtime's integration tests (sourced, not run: no t- prefix).
# They start payload VMs under the scheduler, under every backend of accel-lib.sh, and read the
# per-group cpu.stat from --stats JSON.
. "$(dirname "${BASH_SOURCE[0]}")/accel-lib.sh"

# Skip (exit 77) unless the host has at least $1 CPUs.
need_cpus() {
	local want=${1:-1}
	[ "$(nproc)" -ge "$want" ] || { echo "needs $want host CPUs, have $(nproc)"; exit 77; }
}

# A cpu.stat field of a group ("/" is the root) from a --stats file: group_stat FILE PATH FIELD
group_stat() {
	grep -F "{\"path\": \"$2\"," "$1" | sed -E "s/.*\"$3\": ([0-9]+).*/\1/"
}

# A top-level number from a --stats file: stat_top FILE KEY
stat_top() {
	sed -nE "s/^  \"$2\": ([0-9]+),?$/\1/p" "$1"
}

# Sum of the vCPUs' thread CPU time (ns) in a --stats file.
vcpus_cpu_ns() {
	sed -nE 's/.*"cpu_ns": ([0-9]+).*/\1/p' "$1" | awk '{ s += $1 } END { print s }'
}

# awk as a calculator for checks on floats: check "EXPR" (exit 1 if false)
check() {
	awk "BEGIN { exit !($1) }"
}

# Skip when the host gave the VM's vCPU threads less than 80 % of LANES CPUs over the run: on a
# busy shared machine shares and caps cannot be judged. need_capacity FILE LANES
need_capacity() {
	local sum wall
	sum=$(vcpus_cpu_ns "$1")
	wall=$(stat_top "$1" wall_ns)
	if ! check "$sum >= 0.8 * $2 * $wall"; then
		echo "host too busy: the vCPUs got $(awk "BEGIN { printf \"%.2f\", $sum / $wall }") of $2 CPUs"
		exit 77
	fi
}
