#!/usr/bin/env bash
# session 16, call 12 (bundle c85b2a6): why the 4-GPU step is slower at the power-capped steady state: GPU
# power and clocks every 100 ms through a steady-state run, and a trace of steady-state steps (nsys, after 400 warm-up steps)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c12; mkdir -p $D
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
nvidia-smi --query-gpu=timestamp,index,power.draw,clocks.sm,clocks.mem,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > $D/smi.csv 2>&1 &
smi=$!
sleep 1
bundle/bin/collbench_dpstep -g 4 $common --warmup 600 --csv $D/steady_4.csv > $D/steady_4.txt 2>&1
sleep 2
bundle/bin/collbench_dpstep -g 1 $common --warmup 600 --csv $D/steady_1.csv > $D/steady_1.txt 2>&1
sleep 1
kill $smi
nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH timeout 150 $nsys profile -t cuda,nvtx --cuda-graph-trace=node -s none --cpuctxsw=none -o $D/steady bundle/bin/collbench_dpstep -g 4 $common --warmup 400 --iters 6 > $D/nsys.log 2>&1
LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH timeout 120 $nsys stats --report cuda_gpu_trace --format csv -o $D/steady $D/steady.nsys-rep >> $D/nsys.log 2>&1
rm -f $D/steady.nsys-rep $D/steady.sqlite
python3 ci/dp_timeline.py $D/steady_cuda_gpu_trace.csv > $D/timeline.txt 2>&1
# (ana_breakdown.py was an uncommitted helper; the committed analysis is early_late.txt: ci/dp_timeline.py --steps 0:19 and 300:399 on GPU 0's rows)
gzip -f $D/steady_cuda_gpu_trace.csv; gzip -f $D/smi.csv
ls -la $D >> $D/files.txt
cd $OUT && tar czf call12.tgz c12 && rm -rf c12
