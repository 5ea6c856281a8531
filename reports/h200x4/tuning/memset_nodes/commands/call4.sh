#!/usr/bin/env bash
# session 16, call 4 (bundle 50a8535): backward GEMMs on 128 or 130 SMs (4-wave tiles), with and without early gathers; trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c4; mkdir -p $D
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2; do
  for m in 0 4 2; do
    echo "=== run $r margin $m early gathers 0,1" >> $D/console.txt
    bundle/bin/collbench_dpstep -g 1,4 $common --gemm-sm-margin $m --early-gathers 0,1 --csv $D/margin${m}_$r.csv >> $D/console.txt 2>&1
  done
done
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --gemm-sm-margin 4" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call4.tgz c4 && rm -rf c4
