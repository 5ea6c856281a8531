#!/usr/bin/env bash
# session 15, call 7: the copy engine's reduction with fewer blocks
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c7; mkdir -p $D
B=bundle/bin/collbench_dpstep
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='*CopyEngine*:-*Hang*:*Timeout*' > $D/kernels_gpu_tests_copy_engine.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2; do
  for b in 256 128 64 32; do
    echo "=== run $r reduce blocks $b" >> $D/console.txt
    COLLBENCH_CE_REDUCE_BLOCKS=$b $B $common --csv $D/blocks${b}_$r.csv >> $D/console.txt 2>&1
  done
done
COLLBENCH_CE_REDUCE_BLOCKS=64 OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call7.tgz c7 && rm -rf c7
