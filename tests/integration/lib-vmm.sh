# Helpers for the VMM integration tests (sourced, not run: no t- prefix): the backends to run
# under (accel-lib.sh), and fields from `vsched run --stats` JSON, whose vCPU objects are one
# per line.
. "$(dirname "${BASH_SOURCE[0]}")/accel-lib.sh"

# vmm_field FILE KEY: a top-level number or string.
vmm_field() {
	sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"
}

# vmm_vcpu_field FILE VCPU KEY: a number from one vCPU's line.
vmm_vcpu_field() {
	grep "{\"id\": $2," "$1" | sed -n "s/.*\"$3\": \([0-9]*\).*/\1/p"
}

fail() {
	echo "FAIL: $*"
	exit 1
}
