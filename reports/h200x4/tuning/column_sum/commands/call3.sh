#!/usr/bin/env bash
# session 15, call 3: GPU suites on the epilogue-CTA ring, A/B, one trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c3; mkdir -p $D
B=bundle/bin/collbench_dpstep
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2 3; do
  echo "=== run $r" >> $D/console.txt
  $B $common --fuse-last-update 0,1 --csv $D/ab_$r.csv >> $D/console.txt 2>&1
done
$B $common --fuse-last-update 1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --fuse-last-update 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call3.tgz c3 && rm -rf c3
