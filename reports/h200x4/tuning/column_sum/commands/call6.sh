#!/usr/bin/env bash
# session 15, call 6: --epilogue masked, GPU suite, A/B, trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c6; mkdir -p $D
B=bundle/bin/collbench_dpstep
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2 3; do
  for e in auto masked; do
    echo "=== run $r epilogue $e" >> $D/console.txt
    $B $common --epilogue $e --csv $D/${e}_$r.csv >> $D/console.txt 2>&1
  done
done
$B $common --epilogue masked --check --csv $D/masked_checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --epilogue masked" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call6.tgz c6 && rm -rf c6
