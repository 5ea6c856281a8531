#!/usr/bin/env bash
# session 15, call 12: the weight-gradient GEMMs' algorithm rank (--wgrad-algo), training GPU tests, two traces
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c12; mkdir -p $D
timeout 150 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2; do
  for a in 0 1 2 3; do
    echo "=== run $r wgrad-algo $a" >> $D/console.txt
    bundle/bin/collbench_dpstep $common --wgrad-algo $a --csv $D/algo${a}_$r.csv >> $D/console.txt 2>&1
  done
done
for a in 1 2; do
  OUT=$D/tl$a DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --wgrad-algo $a" DP_TIMELINE_BUCKET_MIB=33 timeout 100 bash ci/device-run.sh dp_timeline > $D/tl${a}_console.txt 2>&1
done
cd $OUT && tar czf call12.tgz c12 && rm -rf c12
