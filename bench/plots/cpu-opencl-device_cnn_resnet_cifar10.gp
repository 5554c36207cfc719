# cnn_resnet_cifar10: written by dfc_bench_report (bench/report); run in this directory.
set terminal pngcairo size 800,500 noenhanced
set output 'cpu-opencl-device_cnn_resnet_cifar10.png'
set title 'cnn_resnet_cifar10' noenhanced
set xlabel 'batch'
set ylabel 'time (ms)'
set key outside right top noenhanced
set grid
set datafile missing '?'
set logscale x 2
set logscale y
set offsets graph 0.03, graph 0.03, 0, 0
set xtics (1, 16, 64)
plot 'cpu-opencl-device_cnn_resnet_cifar10.dat' using 1:2 title 'after' with linespoints lw 2 lc 1 pt 5, \
     'cpu-opencl-device_cnn_resnet_cifar10.dat' using 1:3 title 'before' with linespoints lw 2 lc 2 pt 6, \
     'cpu-opencl-device_cnn_resnet_cifar10.dat' using 1:4 title 'dfc' with linespoints lw 2 lc 3 pt 7, \
     'cpu-opencl-device_cnn_resnet_cifar10.dat' using 1:5 title 'onnxruntime' with linespoints lw 2 lc 4 pt 8, \
     'cpu-opencl-device_cnn_resnet_cifar10.dat' using 1:6 title 'pytorch' with linespoints lw 2 lc 5 pt 9
