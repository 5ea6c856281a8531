#!/usr/bin/env bash
# session 17, call 7 (review bundle): profiling suite (NVML) and a 1-GPU best-configuration row with instant_power_w, on one H200 (no multi-GPU machine lent)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c7; mkdir -p $D
timeout 60 bundle/bin/profiling_gpu_tests > $D/profiling_gpu_tests.log 2>&1; echo "profiling rc=$?" >> $D/console.txt
timeout 120 bundle/bin/collbench_dpstep --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --graph-memsets kernel -g 1 --csv $D/best_1gpu.csv > $D/best_1gpu.txt 2>&1; echo "best 1gpu rc=$?" >> $D/console.txt
cd $OUT && tar czf call7.tgz c7 && rm -rf c7
