#!/usr/bin/env bash
# session 15, call 1: warm-up length and clocks (bundle 09192ce)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
B=bundle/bin/collbench_dpstep
D=$OUT/c1; mkdir -p $D
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
nvidia-smi > $D/smi_before.txt
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $D/smi.csv 2>&1 &
SMI=$!
run() { local name=$1; shift; echo "=== $(date +%T.%N) $name: $*" >> $D/console.txt; $B $common "$@" --csv $D/$name.csv >> $D/console.txt 2>&1; echo "rc=$? $(date +%T.%N)" >> $D/console.txt; }
run w10_i50_a
run w300_i500_a --warmup 300 --iters 500
run w10_i50_b
run w300_i500_b --warmup 300 --iters 500
run w1000_i500 --warmup 1000 --iters 500
kill $SMI
cd $OUT && tar czf call1.tgz c1 && rm -rf c1
