#!/usr/bin/env bash
# session 18, call 4 (bundle 85d317f, 2xH200): traces of the 2-GPU step (graph nodes one by one) with ring and with twoshot as the last bucket, to time the last bucket's all-reduce inside the tail
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c4; mkdir -p $D
for last in ring twoshot; do
  OUT=$D/tl_$last DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo $last --lockstep 1 --graph-memsets kernel" DP_TIMELINE_BUCKET_MIB=33 timeout 150 bash ci/device-run.sh dp_timeline > $D/tl_${last}_console.txt 2>&1; echo "timeline $last rc=$? $SECONDS s" >> $D/console.txt
done
cd $OUT && tar czf call4.tgz c4 && rm -rf c4
