#!/usr/bin/env bash
# --stats is valid JSON whatever the group names (quotes, backslashes, control bytes, bytes that
# are not UTF-8: all legal cgroup names), and the names read back through a JSON parser (jq).
# The line-oriented helpers of runtime-lib.sh keep working on the same file.
. "$(dirname "$0")/runtime-lib.sh"
need_cpus 1
command -v jq >/dev/null || { echo "jq missing (scripts/deps.sh installs it)"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
q='q"b\x' c=$'ctl\x01\x1f' n=$'bad\xff'
"$VSCHED" run --vcpus 3 --payload hog --cpus 1 --duration 300ms --stats "$out" \
	--group "$q:weight=200" --group "$c" --group "$n" --group plain:weight=50 \
	--assign "0=$q" --assign "1=$c" --assign 2=plain >/dev/null || { echo "FAIL: run"; exit 1; }
jq -e . "$out" >/dev/null || { echo "FAIL: --stats is not JSON:"; cat -v "$out"; exit 1; }
w=$(jq -r --arg p "/$q" '.groups[] | select(.path == $p) | .["cpu.weight"]' "$out")
[ "$w" = 200 ] || { echo "FAIL: group $q: weight '$w'"; exit 1; }
jq -e --arg p "/$c" '.groups[] | select(.path == $p)' "$out" >/dev/null ||
	{ echo "FAIL: control bytes in a name do not read back"; exit 1; }
jq -e '.groups[] | select(.path == "/bad\ufffd")' "$out" >/dev/null ||
	{ echo "FAIL: a byte that is not UTF-8 is not U+FFFD"; exit 1; }
[ "$(jq '.vcpus | length' "$out")" = 3 ] || { echo "FAIL: vcpus"; exit 1; }
u=$(group_stat "$out" /plain usage_usec)
[ -n "$u" ] && [ "$u" -gt 0 ] || { echo "FAIL: group_stat /plain: '$u'"; exit 1; }
[ "$(stat_top "$out" nr_vcpus)" = 3 ] || { echo "FAIL: stat_top"; exit 1; }
echo ok
