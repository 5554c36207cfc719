# gemm_1024: written by dfc_bench_report (bench/report); run in this directory.
set terminal pngcairo size 800,500 noenhanced
set output 'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_gemm_1024.png'
set title 'gemm_1024' noenhanced
set xlabel 'batch'
set ylabel 'time (ms)'
set key outside right top noenhanced
set grid
set datafile missing '?'
set logscale x 2
set logscale y
set offsets graph 0.03, graph 0.03, 0, 0
set xtics (1, 16, 64, 1024, 8192)
plot 'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_gemm_1024.dat' using 1:2 title 'dfc' with linespoints lw 2 lc 1 pt 5, \
     'cpu-opencl-device-before-issue-55-5c653a7-2026-11-29-on-pthread-skylake-avx512_gemm_1024.dat' using 1:3 title 'pytorch' with linespoints lw 2 lc 2 pt 6
