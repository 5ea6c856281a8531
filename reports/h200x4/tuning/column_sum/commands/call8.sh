#!/usr/bin/env bash
# session 15, call 8 (bundle 08a81aa; bundle/bin/collbench_dpstep_old = 2ead9c3's): the banded column sum, GPU suites, A/B, trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c8; mkdir -p $D
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 120 bundle/bin/kernels_gpu_tests --gtest_filter='*CopyEngine*:-*Hang*:*Timeout*' > $D/kernels_gpu_tests_copy_engine.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2 3; do
  for v in old new; do
    bin=bundle/bin/collbench_dpstep; [ $v = old ] && bin=${bin}_old
    echo "=== run $r $v" >> $D/console.txt
    $bin $common --csv $D/${v}_$r.csv >> $D/console.txt 2>&1
  done
done
echo "=== new, reduce blocks 64" >> $D/console.txt
COLLBENCH_CE_REDUCE_BLOCKS=64 bundle/bin/collbench_dpstep $common --csv $D/new_blocks64.csv >> $D/console.txt 2>&1
bundle/bin/collbench_dpstep $common --check --csv $D/new_checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call8.tgz c8 && rm -rf c8
