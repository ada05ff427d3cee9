#!/bin/sh
# Renders a terminal capture (tmux capture-pane -p) as a PNG with gnuplot, for the docs: light
# text on a dark background, the column header (line 3) reversed, the cursor row ('>') yellow.
# usage: scripts/screen-png.sh CAPTURE.txt OUT.png
set -eu
in=${1:?usage: screen-png.sh CAPTURE.txt OUT.png}
out=${2:?usage: screen-png.sh CAPTURE.txt OUT.png}
rows=$(wc -l <"$in")
cols=$(awk '{ if (length > m) m = length } END { print m }' "$in")
gp=$(mktemp)
trap 'rm -f "$gp"' EXIT
{
	echo "set terminal pngcairo size $((cols * 8 + 16)),$((rows * 17 + 16))" \
		"background rgb '#1c1c1c' noenhanced"
	echo "set output '$out'"
	echo "unset border; unset tics; unset key; set margins 0,0,0,0"
	echo "set xrange [0:1]; set yrange [0:1]"
	# line n fills [1 - n/rows, 1 - (n-1)/rows] of the height; labels sit at its middle
	lo=$(awk -v r="$rows" 'BEGIN { print 1 - 3 / r }')
	hi=$(awk -v r="$rows" 'BEGIN { print 1 - 2 / r }')
	echo "set object 1 rect from screen 0, screen $lo to screen 1, screen $hi" \
		"fc rgb '#d0d0d0' fs solid noborder behind"
	awk -v rows="$rows" '{
		gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
		color = NR == 3 ? "#1c1c1c" : "#d0d0d0"
		font = "DejaVu Sans Mono,10"
		if ($0 ~ /^>/) color = "#ffd75f"
		printf "set label %d \"%s\" at screen 0.006, screen %.5f left font \"%s\" tc rgb \"%s\"\n",
			NR, $0, 1 - (NR - 0.5) / rows, font, color
	}' "$in"
	echo "plot -1"
} >"$gp"
gnuplot "$gp"
