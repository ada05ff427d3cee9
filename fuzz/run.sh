#!/usr/bin/env bash
# Runs libFuzzer targets one after the other, each for SECONDS (make fuzz; docs/fuzzing.md).
# Usage: fuzz/run.sh BUILD_DIR SECONDS TARGET[:SEED_DIR]...
# New inputs go to BUILD_DIR/corpus/TARGET (fuzz/corpus/TARGET is read, never written); a
# finding is saved as BUILD_DIR/findings/TARGET-crash-* (or leak-, timeout-, oom-) and fails.
set -u
dir=$1 secs=$2
shift 2
cd "$(dirname "$0")/.."
status=0
for arg in "$@"; do
	t=${arg%%:*} seeds=()
	[ "$t" != "$arg" ] && seeds=("${arg#*:}")
	bin=$dir/fuzz-$t log=$dir/$t.log
	mkdir -p "$dir/corpus/$t" "$dir/findings"
	dict=()
	[ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
	echo "fuzz: $t for ${secs}s (log: $log)"
	# -timeout: an input that takes seconds is a finding (quadratic growth, unbounded loops);
	# FUZZ_TIMEOUT raises it on a machine so loaded that a niced run stalls for seconds.
	"$bin" -max_total_time="$secs" -max_len=8192 -timeout="${FUZZ_TIMEOUT:-10}" \
		-print_final_stats=1 \
		"${dict[@]}" -artifact_prefix="$dir/findings/$t-" \
		"$dir/corpus/$t" "fuzz/corpus/$t" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	stat() { sed -n "s/^stat::$1: *//p" "$log"; }
	cov=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 |
		sed -E 's/.*(cov: [0-9]+ ft: [0-9]+ corp: [^ ]+).*/\1/')
	if [ "$rc" -ne 0 ]; then
		status=1
		echo "fuzz: $t: FINDING (exit $rc):"
		grep -E 'ERROR|invariant broken|Test unit written|SUMMARY' "$log" | head -n 8
		continue
	fi
	echo "fuzz: $t: $(stat number_of_executed_units) execs in ${secs}s," \
		"$(stat average_exec_per_sec)/s, ${cov:-no coverage line}," \
		"peak RSS $(stat peak_rss_mb) MB"
done
exit $status
