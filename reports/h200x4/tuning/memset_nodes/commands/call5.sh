#!/usr/bin/env bash
# session 16, call 5 (bundle 50a8535): the copy engine's reductions on few blocks beside backward GEMMs sized for 128 SMs; trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c5; mkdir -p $D
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2; do
  for b in default 16 8 32; do
    v=$b; [ $b = default ] && v=
    for m in 0 4; do
      echo "=== run $r reduce blocks $b margin $m" >> $D/console.txt
      COLLBENCH_CE_REDUCE_BLOCKS=$v bundle/bin/collbench_dpstep -g 1,4 $common --gemm-sm-margin $m --csv $D/blocks${b}_margin${m}_$r.csv >> $D/console.txt 2>&1
    done
  done
done
OUT=$D/tl COLLBENCH_CE_REDUCE_BLOCKS=16 DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --gemm-sm-margin 4" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call5.tgz c5 && rm -rf c5
