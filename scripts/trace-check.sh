#!/usr/bin/env bash
# Checks a trace written by `vsched sim|run --trace` against the Chrome trace-event format as
# Perfetto reads it, and prints what each vCPU track adds up to.
#
#   scripts/trace-check.sh TRACE.json
#
# Checked: valid JSON with a traceEvents array; known phases only (X B E i I C M); numeric
# pid/tid/ts; complete slices with dur >= 0, begin/end pairs balanced and matching per track;
# timestamps non-decreasing per track in file order (a thread's slices and instants, a process's
# instants, each counter); no two slices overlapping on one track (lanes and vCPUs are never in
# two slices at once); every slice of a track named by thread_name metadata.
# Output, one line per vCPU track: NAME CPU_NS RUNNING_NS, the CPU its slices were charged
# (args.cpu_ns) and the wall time of its "running" slices, both in ns. Exit 1 on a violation.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 TRACE.json" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: jq is needed (scripts/deps.sh)" >&2; exit 2; }

jq -r '
def num: type == "number";
def bad(msg): error("trace-check: " + msg);
if type != "object" or (.traceEvents | type) != "array" then bad("no traceEvents array")
else . end
| .traceEvents as $ev
| ($ev[] | select((.ph | IN("X", "B", "E", "i", "I", "C", "M")) | not)
  | bad("unknown phase \(.ph | tojson) in \(tojson)")) // empty,
  ($ev[] | select((.pid | num | not) or (.ph != "M" and ((.ts | num | not) or .ts < 0))
		  or ((.ph | IN("X", "B", "E")) and (.tid | num | not)))
  | bad("pid, tid or ts missing in \(tojson)")) // empty,
  ($ev[] | select(.ph == "X" and ((.dur | num | not) or .dur < 0))
  | bad("complete slice without dur >= 0: \(tojson)")) // empty,
  ([$ev[] | select(.ph == "M" and .name == "thread_name") | "\(.pid)/\(.tid)"] | map({(.): true})
   | add // {}) as $named
| ([$ev[] | select(.ph == "M" and .name == "process_name") | {("\(.pid)"): .args.name}] | add // {})
  as $procs
# One pass over the events in file order: per track the last time, the end of the last slice,
# the open B names.
| (reduce ($ev[] | select(.ph != "M")) as $e ({last: {}, end: {}, open: {}};
	(if ($e.ph | IN("X", "B", "E")) or ($e.ph | IN("i", "I")) and ($e.s // "t") == "t"
	 then "t \($e.pid)/\($e.tid)"
	 elif $e.ph == "C" then "c \($e.pid) \($e.name)"
	 else "p \($e.pid) \($e.s)" end) as $k
	| if (.last[$k] // -1) > $e.ts then
		bad("time goes back on track \($k): \(.last[$k]) then \($e | tojson)") else . end
	| .last[$k] = $e.ts
	| if ($e.ph | IN("X", "B")) and ($named["\($e.pid)/\($e.tid)"] | not) then
		bad("slice on an unnamed track: \($e | tojson)") else . end
	| if ($e.ph | IN("X", "B")) and (.end[$k] // -1) > $e.ts + 1e-6 then
		bad("overlapping slices on track \($k) (\($procs["\($e.pid)"] // "?")): "
		    + "one ends at \(.end[$k]), \($e | tojson) starts before") else . end
	| if $e.ph == "X" then .end[$k] = $e.ts + $e.dur
	  elif $e.ph == "B" then .open[$k] = ((.open[$k] // []) + [$e.name])
	  elif $e.ph == "E" then
		if (.open[$k] // []) | length == 0 then bad("E without B on \($k): \($e | tojson)")
		elif $e.name != null and .open[$k][-1] != $e.name then
			bad("E \($e.name) closes B \(.open[$k][-1]) on \($k)")
		else .open[$k] |= .[:-1] | .end[$k] = $e.ts end
	  else . end)
  | .open | to_entries[] | select(.value | length > 0)
  | bad("unbalanced B on \(.key): \(.value)")) // empty,
  ($procs | to_entries[] | select(.value == "vCPUs") | .key | tonumber) as $vp
| [$ev[] | select(.ph == "M" and .name == "thread_name" and .pid == $vp)] as $names
| $names[] | .tid as $t | .args.name as $n
| [$ev[] | select(.ph == "X" and .pid == $vp and .tid == $t)] as $s
| ([$s[] | .args.cpu_ns // 0] | add // 0) as $cpu
| ([$s[] | select(.name == "running") | .dur] | add // 0 | . * 1000 | round) as $run
| "\($n) \($cpu) \($run)"
' "$1"
