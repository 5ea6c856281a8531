#!/usr/bin/env bash
# session 15, call 11: the final code - every GPU suite, then the best configuration four times and checked
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c11; mkdir -p $D
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 200 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 120 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1"
for r in 1 2 3 4; do
  echo "=== run $r" >> $D/console.txt
  bundle/bin/collbench_dpstep $common --csv $D/best_$r.csv >> $D/console.txt 2>&1
done
bundle/bin/collbench_dpstep $common --fuse-last-update 0,1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
cd $OUT && tar czf call11.tgz c11 && rm -rf c11
