# Plots of bench-fair's CSV files (bench/csv.h), run by bench/plot.sh:
#   gnuplot -e "mode='shares'; files='a.kvm.csv a.kernel.csv'; out='a.png'; name='a'" plot.gp
#   gnuplot -e "mode='summary'; files='summary.csv'; ncol=4; out='summary.png'" plot.gp
set datafile separator ','
set terminal pngcairo size 1000,300*words(files) font 'sans,10' noenhanced
set output out
set key outside right top
set grid ytics lc rgb '#dddddd'

if (mode eq 'shares') {
	set multiplot layout words(files),1 title name.': CPU per group, % of capacity (solid), and the ideal on what the host gave (dashed)'
	do for [k=1:words(files)] {
		f = word(files, k)
		side = f[strstrt(f, '.') + 1:strlen(f) - 4]
		stats f skip 1 nooutput
		ng = (STATS_columns - 1) / 2
		set title side
		set xlabel 'time in the window (s)'
		set ylabel '% of capacity'
		set yrange [0:100]
		set autoscale xfix
		plot for [i=2:ng+1] f using 1:i with lines lw 1.5 lc i-1 title columnhead(i), \
		     for [i=ng+2:2*ng+1] f using 1:i with lines lw 2 dt 2 lc i-ng-1 notitle
	}
	unset multiplot
}

if (mode eq 'summary') {
	set terminal pngcairo size 1000,420 font 'sans,10' noenhanced
	set output out
	set title 'bench-fair: max group error per scenario (% of capacity, normalised; lower is better)'
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.8 border -1
	set boxwidth 0.9
	set xtics rotate by -30
	set ylabel 'max group nerr (%)'
	set yrange [0:*]
	plot for [i=2:ncol] files using i:xtic(1) title columnhead(i)
}
