#!/usr/bin/env bash
# session 19, call 2 (bundle of the commit after 0597bda, 2xH200): the fused-update test again; traces (graph nodes one by one) of the 2-GPU step with twoshot as the last bucket, without and with its update fused in
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c2; mkdir -p $D
bundle/bin/training_gpu_tests --gtest_filter='*Fused*' > $D/training_fused.log 2>&1; echo "training fused rc=$? $SECONDS s" >> $D/console.txt
for fused in 0 1; do
  OUT=$D/tl_$fused DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo twoshot --fuse-last-update $fused --lockstep 1 --graph-memsets kernel" DP_TIMELINE_BUCKET_MIB=33 timeout 150 bash ci/device-run.sh dp_timeline > $D/tl_${fused}_console.txt 2>&1; echo "timeline fused=$fused rc=$? $SECONDS s" >> $D/console.txt
done
cd $OUT && tar czf call2.tgz c2 && rm -rf c2
