#!/usr/bin/env bash
# session 17, call 6 (bundle 528d5a4 = the final code): every GPU suite on 2xH200 (the 4-GPU machines were not lent this session)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c6; mkdir -p $D
timeout 120 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
timeout 60 bundle/bin/profiling_gpu_tests > $D/profiling_gpu_tests.log 2>&1; echo "profiling rc=$?" >> $D/console.txt
cd $OUT && tar czf call6.tgz c6 && rm -rf c6
