#!/usr/bin/env bash
# session 16, call 13 (bundle c85b2a6): memset kernels against memset nodes with NCCL and the ring (25 MiB,
# default schedule), after the report gate flagged NCCL's 4-GPU 25 MiB row (p50 3482 -> 3725 us)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c13; mkdir -p $D
for r in 1 2; do
  echo "=== run $r" >> $D/console.txt
  bundle/bin/collbench_dpstep -g 1,4 --sync overlap --bucket-mib 25 --algo nccl,ring --graph-memsets memset,kernel --csv $D/ab_$r.csv >> $D/console.txt 2>&1
done
cd $OUT && tar czf call13.tgz c13 && rm -rf c13
