#!/usr/bin/env bash
# session 16, call 16 (bundle cf1badc = the final code): every GPU suite on 2xH200 (the 4-GPU machines were not lent)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c16; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 120 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 40 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
cd $OUT && tar czf call16.tgz c16 && rm -rf c16
