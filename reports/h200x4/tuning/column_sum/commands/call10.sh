#!/usr/bin/env bash
# session 15, call 10 (bundle 08a81aa): layer 0 cut in two ring buckets, the fused update, against the base, with the banded column sum
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c10; mkdir -p $D
B=bundle/bin/collbench_dpstep
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined"
for r in 1 2; do
  echo "=== run $r base lockstep 1,2" >> $D/console.txt
  $B $common --last-bucket-algo ring --lockstep 1,2 --csv $D/base_$r.csv >> $D/console.txt 2>&1
  echo "=== run $r wgrad-split last, last-layer-buckets 2, ring:2" >> $D/console.txt
  $B $common --last-bucket-algo ring:2 --wgrad-split last --last-layer-buckets 2 --lockstep 1,2 --csv $D/cut2_$r.csv >> $D/console.txt 2>&1
  echo "=== run $r fused update 0,1" >> $D/console.txt
  $B $common --last-bucket-algo ring --lockstep 1 --fuse-last-update 0,1 --csv $D/fused_$r.csv >> $D/console.txt 2>&1
done
cd $OUT && tar czf call10.tgz c10 && rm -rf c10
