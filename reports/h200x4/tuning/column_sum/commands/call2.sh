#!/usr/bin/env bash
# session 15, call 2 (bundle 9b02099): GPU suites, then --fuse-last-update 0,1 A/B
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c2; mkdir -p $D
B=bundle/bin/collbench_dpstep
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='*Ring*:*ring*:-*Hang*:*Timeout*' > $D/kernels_gpu_tests_ring.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2 3; do
  echo "=== run $r" >> $D/console.txt
  $B $common --fuse-last-update 0,1 --csv $D/ab_$r.csv >> $D/console.txt 2>&1
done
echo "=== slices 128k" >> $D/console.txt
COLLBENCH_RING_SLICE_BYTES=131072 $B $common --fuse-last-update 0,1 --csv $D/slice128k.csv >> $D/console.txt 2>&1
$B $common --fuse-last-update 1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
cd $OUT && tar czf call2.tgz c2 && rm -rf c2
