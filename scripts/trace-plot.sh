#!/usr/bin/env bash
# Draws a window of a --trace file as a PNG timeline with gnuplot, for docs and for a look
# without a browser: one row per lane (coloured by the vCPU holding it), one per vCPU (coloured
# by state, kicks as ticks), and below them each group's CPU use (the "usage" counters).
#
#   scripts/trace-plot.sh TRACE.json OUT.png [FROM_MS TO_MS]     (default: the first 300 ms)
#
# Needs jq and gnuplot (gnuplot-nox). Perfetto (ui.perfetto.dev) shows the same file interactively.
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 4 ] || { echo "usage: $0 TRACE.json OUT.png [FROM_MS TO_MS]" >&2; exit 2; }
trace=$1 out=$2 from=${3:-0} to=${4:-300}
for t in jq gnuplot; do
	command -v $t >/dev/null || { echo "$0: $t is needed" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Rows: lanes from the top, then vCPUs. Times in ms. States and vCPUs map to colours 1-8.
jq -r --argjson from "$from" --argjson to "$to" '
  .traceEvents as $ev
  | ([$ev[] | select(.ph == "M" and .name == "process_name") | {(.args.name): .pid}] | add) as $p
  | ([$ev[] | select(.ph == "M" and .name == "thread_name" and .pid == $p.lanes)] | length) as $nl
  | ([$ev[] | select(.ph == "M" and .name == "thread_name" and .pid == $p.vCPUs)] | length) as $nv
  | {running: 1, waiting: 2, throttled: 3, sleeping: 4, lent: 5} as $col
  | ($ev[] | select(.ph == "M" and .name == "thread_name")
     | select(.pid == $p.lanes or .pid == $p.vCPUs)
     | "row \(if .pid == $p.lanes then .tid - 1 else $nl + .tid - 1 end) \(.args.name)"),
    ($ev[] | select(.ph == "X" and .ts / 1000 < $to and (.ts + .dur) / 1000 > $from)
     | [if .pid == $p.lanes then .tid - 1 else $nl + .tid - 1 end,
	([.ts / 1000, $from] | max), ([(.ts + .dur) / 1000, $to] | min),
	(if .pid == $p.lanes then 10 + (.args.vcpu % 8) else $col[.name] // 6 end)]
     | "slice \(join(" "))"),
    ($ev[] | select(.ph == "i" and .name == "kick" and .ts / 1000 >= $from and .ts / 1000 <= $to)
     | "kick \($nl + .tid - 1) \(.ts / 1000)"),
    ($ev[] | select(.ph == "C" and .name == "usage" and .ts / 1000 >= $from and .ts / 1000 <= $to)
     | "usage \(.pid) \(.ts / 1000) \(.args.cpus)"),
    ($ev[] | select(.ph == "M" and .name == "process_name" and (.args.name | startswith("group ")))
     | "group \(.pid) \(.args.name[6:])"),
    "rows \($nl + $nv)"
' "$trace" > "$tmp/all"

awk '$1 == "slice" { print $2, $3, $4, $5 }' "$tmp/all" > "$tmp/slices"
awk '$1 == "kick" { print $2, $3 }' "$tmp/all" > "$tmp/kicks"
rows=$(awk '$1 == "rows" { print $2 }' "$tmp/all")
nv=$(awk '$1 == "row" && $3 ~ /^vcpu/ { n++ } END { print n + 0 }' "$tmp/all")
ytics=$(awk '$1 == "row" { r = $2; $1 = $2 = ""; sub(/^ +/, "");
		printf "%s\"%s\" %d", n++ ? ", " : "", $0, r }' "$tmp/all")
# One data block per group that has counters in the window (the root's last).
plots=""
while read -r pid name; do
	awk -v p="$pid" '$1 == "usage" && $2 == p { print $3, $4 }' "$tmp/all" > "$tmp/u$pid"
	[ -s "$tmp/u$pid" ] || continue
	plots="$plots${plots:+, }'$tmp/u$pid' using 1:2 with steps lw 2 title '$name'"
done < <(awk '$1 == "group" { print $2, $3 }' "$tmp/all" | sort -k2)

gnuplot <<EOF
set terminal pngcairo size 1400,$((rows * 22 + 420)) font "sans,10"
set output "$out"
set multiplot layout 2,1 margins 0.1,0.8,0.08,0.95 spacing 0,0.06
set linetype 1 lc rgb "#2e7d32"
set linetype 2 lc rgb "#f9a825"
set linetype 3 lc rgb "#c62828"
set linetype 4 lc rgb "#cfd8dc"
set linetype 5 lc rgb "#6a1b9a"
set linetype 6 lc rgb "#000000"
vcol = "#1565c0 #ef6c00 #00838f #ad1457 #558b2f #4527a0 #6d4c41 #00695c"
do for [i=0:7] { set linetype 10+i lc rgb word(vcol, i+1) }
set title "vsched trace: lanes and vCPUs, $from-$to ms (running green, waiting yellow, ".\
	"throttled red, sleeping grey, lent purple; kicks black)"
set yrange [$rows - 0.5:-0.5]
set ytics ($ytics)
set xrange [$from:$to]
set format x ""
set grid xtics
set key outside right top title "lane colour"
plot for [i=0:($nv < 8 ? $nv - 1 : 7)] 1/0 with boxes fs solid lc 10+i title sprintf("vcpu%d", i), \
     '$tmp/slices' using ((\$2+\$3)/2):1:((\$3-\$2)/2):(0.38):4 \
	with boxxyerror fs solid 1.0 noborder lc variable notitle, \
     '$tmp/kicks' using 2:(\$1-0.42) with points pt 11 ps 0.6 lc rgb "#000000" notitle
set title "group CPU use (usage counters, CPUs)"
set autoscale y
set ytics auto
set yrange [0:*]
set format x "%g"
set xlabel "ms"
set key outside right top title "group"
plot ${plots:-1/0 notitle}
unset multiplot
EOF
echo "$out"
