#!/usr/bin/env bash
# session 16, call 2 (bundle d1e2a92): memset nodes as kernel nodes - GPU tests, A/B x3, lockstep, trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c2; mkdir -p $D
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='GraphMemsets*' > $D/kernels_gpu_tests_graph_memsets.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='*Memsets*:*Lockstep*' > $D/training_gpu_tests_memsets.log 2>&1; echo "training rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring"
for r in 1 2 3; do
  echo "=== run $r" >> $D/console.txt
  bundle/bin/collbench_dpstep $common --lockstep 1 --graph-memsets memset,kernel --csv $D/ab_$r.csv >> $D/console.txt 2>&1
done
echo "=== lockstep 0,1,2 kernel" >> $D/console.txt
bundle/bin/collbench_dpstep $common --lockstep 0,1,2 --csv $D/lockstep.csv >> $D/console.txt 2>&1
bundle/bin/collbench_dpstep $common --lockstep 1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call2.tgz c2 && rm -rf c2
