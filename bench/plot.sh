#!/bin/sh
# Renders bench-fair's CSV files in DIR (bench/csv.h) as PNGs with gnuplot: one per scenario
# (every side's group shares over the window beside the ideal) and summary.png (max error per
# scenario, each vsched backend and the kernel). usage: bench/plot.sh DIR
set -u
dir=${1:?usage: bench/plot.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
command -v gnuplot >/dev/null || { echo "bench plots: no gnuplot (scripts/deps.sh)"; exit 1; }
[ -f "$dir/summary.csv" ] || { echo "bench plots: no $dir/summary.csv (run make bench)"; exit 1; }
status=0
for scn in $(tail -n +2 "$dir/summary.csv" | cut -d, -f1); do
	# Sides in the summary's column order: the vsched backends, then the kernel.
	files=""
	for side in $(head -n 1 "$dir/summary.csv" | tr ',' ' ' | cut -d' ' -f2-); do
		[ -f "$dir/$scn.$side.csv" ] && files="$files $dir/$scn.$side.csv"
	done
	[ -n "$files" ] || continue
	gnuplot -e "mode='shares'; files='${files# }'; out='$dir/$scn.png'; name='$scn'" \
		"$here/plot.gp" || status=1
done
ncol=$(head -n 1 "$dir/summary.csv" | tr ',' '\n' | wc -l)
gnuplot -e "mode='summary'; files='$dir/summary.csv'; ncol=$ncol; out='$dir/summary.png'" \
	"$here/plot.gp" ||
	status=1
[ $status = 0 ] && echo "bench plots: $(ls "$dir"/*.png | wc -l) PNGs in $dir"
exit $status
