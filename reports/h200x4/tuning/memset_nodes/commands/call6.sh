#!/usr/bin/env bash
# session 16, call 6 (bundle 50a8535): the copy engine's reductions on 4 or 2 blocks, beside backward GEMMs sized for 128 or 130 SMs; trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c6; mkdir -p $D
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2; do
  for bm in default:0 4:4 2:2 4:0; do
    b=${bm%:*}; m=${bm#*:}; v=$b; [ $b = default ] && v=
    echo "=== run $r reduce blocks $b margin $m" >> $D/console.txt
    COLLBENCH_CE_REDUCE_BLOCKS=$v bundle/bin/collbench_dpstep -g 1,4 $common --gemm-sm-margin $m --csv $D/blocks${b}_margin${m}_$r.csv >> $D/console.txt 2>&1
  done
done
OUT=$D/tl COLLBENCH_CE_REDUCE_BLOCKS=4 DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --gemm-sm-margin 4" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call6.tgz c6 && rm -rf c6
