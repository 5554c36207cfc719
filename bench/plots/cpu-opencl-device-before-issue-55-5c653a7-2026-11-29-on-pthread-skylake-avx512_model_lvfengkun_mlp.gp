# model_lvfengkun_mlp: written by dfc_bench_report (bench/report); run in this directory.
set terminal pngcairo size 800,500 noenhanced
set output 'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.png'
set title 'model_lvfengkun_mlp' noenhanced
set xlabel 'batch'
set ylabel 'time (ms)'
set key outside right top noenhanced
set grid
set datafile missing '?'
set logscale x 2
set logscale y
set offsets graph 0.03, graph 0.03, 0, 0
set xtics (1, 64, 8192)
plot 'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.dat' using 1:2 title 'unfused' with linespoints lw 2 lc 1 pt 5, \
     'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.dat' using 1:3 title 'default' with linespoints lw 2 lc 2 pt 6, \
     'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.dat' using 1:4 title 'split' with linespoints lw 2 lc 3 pt 7, \
     'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.dat' using 1:5 title 'tuned' with linespoints lw 2 lc 4 pt 8, \
     'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_model_lvfengkun_mlp.dat' using 1:6 title 'bandwidth floor' with lines dashtype 2 lw 2 lc rgb 'black'
