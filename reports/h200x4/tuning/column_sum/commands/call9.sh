#!/usr/bin/env bash
# session 15, call 9 (bundle 08a81aa): lockstep and layer 0 in ring buckets of its own, with the banded column sum
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c9; mkdir -p $D
B=bundle/bin/collbench_dpstep
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined"
for r in 1 2; do
  echo "=== run $r lockstep 0,1,2" >> $D/console.txt
  $B $common --last-bucket-algo ring --lockstep 0,1,2 --csv $D/lockstep_$r.csv >> $D/console.txt 2>&1
  echo "=== run $r last-layer-buckets 2, ring:2" >> $D/console.txt
  $B $common --last-bucket-algo ring:2 --last-layer-buckets 2 --lockstep 1,2 --csv $D/layer0x2_$r.csv >> $D/console.txt 2>&1
done
echo "=== last-layer-buckets 4, ring:4" >> $D/console.txt
$B $common --last-bucket-algo ring:4 --last-layer-buckets 4 --lockstep 1,2 --csv $D/layer0x4.csv >> $D/console.txt 2>&1
cd $OUT && tar czf call9.tgz c9 && rm -rf c9
