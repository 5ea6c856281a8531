#!/usr/bin/env bash
# session 18, call 1 (bundle 2b057c5): twoshot on 2xH200 (no 4-GPU machine lent): the kernels GPU suite (twoshot added, oneshot and copy_engine now share the rank-order reduction); an all-reduce sweep of nccl, ring and twoshot; twoshot's knobs at 8-32 MiB; the training step with twoshot as the last bucket
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c1; mkdir -p $D
nvidia-smi --query-gpu=index,name,power.limit,clocks.max.sm --format=csv > $D/gpus.csv 2>&1
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
timeout 120 bundle/bin/collbench --ops all_reduce --algo nccl,ring,twoshot -d bfloat16 -b 1M -e 1G -f 2 -g 2 --in-place in -n 20 --csv $D/algos.csv > $D/algos.txt 2>&1; echo "algos rc=$?" >> $D/console.txt
for knobs in "65536 64" "32768 64" "131072 64" "16384 64" "65536 32" "65536 128"; do
  set -- $knobs
  COLLBENCH_TWOSHOT_SLICE_BYTES=$1 COLLBENCH_TWOSHOT_CTAS=$2 timeout 40 bundle/bin/collbench --ops all_reduce --algo twoshot,ring -d bfloat16 -b 8M -e 32M -f 2 -g 2 --in-place in -n 50 --csv $D/knobs_s$1_c$2.csv > $D/knobs_s$1_c$2.txt 2>&1; echo "knobs $1 $2 rc=$?" >> $D/console.txt
done
BASE="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --graph-memsets kernel"
timeout 120 bundle/bin/collbench_dpstep $BASE --last-bucket-algo twoshot -g 2 --check --csv $D/dp_check.csv > $D/dp_check.txt 2>&1; echo "dp check rc=$?" >> $D/console.txt
for run in 1 2 3; do
  timeout 150 bundle/bin/collbench_dpstep $BASE --last-bucket-algo ring,twoshot -g 1,2 --csv $D/dp_run$run.csv > $D/dp_run$run.txt 2>&1; echo "dp run$run rc=$?" >> $D/console.txt
done
cd $OUT && tar czf call1.tgz c1 && rm -rf c1
