#!/usr/bin/env bash
# session 16, call 7 (bundle 2d62dbf): early gathers x tail updates, GPU tests, trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c7; mkdir -p $D
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='*EarlyGathers*' > $D/training_gpu_tests_tail_updates.log 2>&1; echo "training rc=$?" >> $D/console.txt
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2; do
  echo "=== run $r early gathers 0,1 x tail updates 0,1,2" >> $D/console.txt
  bundle/bin/collbench_dpstep -g 1,4 $common --early-gathers 0,1 --tail-updates 0,1,2 --csv $D/grid_$r.csv >> $D/console.txt 2>&1
done
bundle/bin/collbench_dpstep -g 1,4 $common --early-gathers 1 --tail-updates 1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --early-gathers 1 --tail-updates 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call7.tgz c7 && rm -rf c7
