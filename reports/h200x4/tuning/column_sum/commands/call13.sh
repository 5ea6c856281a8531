#!/usr/bin/env bash
# session 15, call 13: the review commit - training and kernels GPU suites, a checked run with and without the fused update
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c13; mkdir -p $D
timeout 150 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
bundle/bin/collbench_dpstep -g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --fuse-last-update 0,1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
cd $OUT && tar czf call13.tgz c13 && rm -rf c13
