#!/usr/bin/env bash
# session 18, call 3 (bundle 85d317f = the final code, 2xH200): the kernels GPU suite (twoshot at 2 ranks, and at 3, 5 and 8 ranks sharing the GPUs) and the training suite
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c3; mkdir -p $D
nvidia-smi --query-gpu=index,name,power.limit,clocks.max.sm --format=csv > $D/gpus.csv 2>&1
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
timeout 150 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
cd $OUT && tar czf call3.tgz c3 && rm -rf c3
