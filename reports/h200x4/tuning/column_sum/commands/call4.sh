#!/usr/bin/env bash
# session 15, call 4 (bundle 5f9e8bf): the fused update with fewer ring CTAs (ring + epilogue CTAs leave SMs to the other buckets' updates)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c4; mkdir -p $D
B=bundle/bin/collbench_dpstep
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2; do
  for c in 32 48; do
    echo "=== run $r ctas $c" >> $D/console.txt
    COLLBENCH_RING_CTAS=$c $B $common --fuse-last-update 0,1 --csv $D/ctas${c}_$r.csv >> $D/console.txt 2>&1
  done
done
cd $OUT && tar czf call4.tgz c4 && rm -rf c4
