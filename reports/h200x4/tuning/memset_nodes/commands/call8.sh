#!/usr/bin/env bash
# session 16, call 8 (bundle 84654f9): copy-engine reductions on the SMs backward GEMMs leave free; GPU tests; trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c8; mkdir -p $D
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='*CopyEngine*:-*Hang*:*Timeout*' > $D/kernels_gpu_tests_copy_engine.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2; do
  for sm in 0:0 4:4 2:2; do
    m=${sm%:*}; s=${sm#*:}
    echo "=== run $r margin $m reduce sms $s" >> $D/console.txt
    COLLBENCH_CE_REDUCE_SMS=$s bundle/bin/collbench_dpstep -g 1,4 $common --gemm-sm-margin $m --csv $D/margin${m}_sms${s}_$r.csv >> $D/console.txt 2>&1
  done
done
COLLBENCH_CE_REDUCE_SMS=4 bundle/bin/collbench_dpstep -g 1,4 $common --gemm-sm-margin 4 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl COLLBENCH_CE_REDUCE_SMS=4 DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --gemm-sm-margin 4" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call8.tgz c8 && rm -rf c8
