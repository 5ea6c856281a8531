#!/usr/bin/env bash
# session 16, call 15 (bundle cf1badc): the GPU state in the rows (NVML) and --warmup-ms on the GPUs lent (4-GPU machines were not lent); GPU tests of it and of the topology
# (NVML loader moved)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c15; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='*PowerState*:*Memsets*' > $D/training_gpu_tests_power.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 60 bundle/bin/profiling_gpu_tests > $D/profiling_gpu_tests.log 2>&1; echo "profiling rc=$?" >> $D/console.txt
n=$(nvidia-smi -L | wc -l); echo "gpus=$n" >> $D/console.txt
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring --graph-memsets kernel"
echo "=== default window" >> $D/console.txt
timeout 60 bundle/bin/collbench_dpstep -g 1,$n $common --csv $D/best_default.csv >> $D/console.txt 2>&1
echo "=== --warmup-ms 2000" >> $D/console.txt
timeout 90 bundle/bin/collbench_dpstep -g 1,$n $common --warmup-ms 2000 --csv $D/best_warmup2000.csv >> $D/console.txt 2>&1
cd $OUT && tar czf call15.tgz c15 && rm -rf c15
