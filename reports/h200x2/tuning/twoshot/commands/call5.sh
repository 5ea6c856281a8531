#!/usr/bin/env bash
# session 18, call 5 (bundle 89364ff, 2xH200): the kernels GPU suite after the review commit (twoshot reads its own flags and staging from the rank tables)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c5; mkdir -p $D
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
cd $OUT && tar czf call5.tgz c5 && rm -rf c5
