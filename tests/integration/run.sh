#!/usr/bin/env bash
# Runs every tests/integration/t-*.sh with the vsched binary as $VSCHED.
# A test exits 0 to pass, 77 to skip (say why on stdout), anything else to fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export VSCHED=$(readlink -f "${1:?usage: run.sh path/to/vsched}")
export SHARED=${SHARED:-$(readlink -f "$here/../../../shared")}
. "$here/accel-lib.sh"
test_accels >/dev/null	# once, exported to every test
echo "integration: vCPU backends: $VSCHED_TEST_ACCEL"
pass=0 fail=0 skip=0 failed=()
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$(mktemp)
	bash "$t" >"$log" 2>&1
	rc=$?
	# A helper the test calls that does not exist is an error bash reports and goes past.
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
		grep -Eq "^$t: line [0-9]+: .*: command not found" "$log" && rc=127
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$log" | tail -n 40 ;;
	esac
	rm -f "$log"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
