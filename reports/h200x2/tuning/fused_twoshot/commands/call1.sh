#!/usr/bin/env bash
# session 19, call 1 (bundle 0597bda, 2xH200): the GPU suites after the twoshot gather policy and the fused twoshot update; then the last-bucket comparison (ring, twoshot, twoshot fused, ring:2, twoshot:2; two repeats, alternating order) and the checks
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c1; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpus.txt
bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$? $SECONDS s" >> $D/console.txt
bundle/bin/training_gpu_tests > $D/training_gpu_tests.log 2>&1; echo "training rc=$? $SECONDS s" >> $D/console.txt
OUT=$D/lb DP_LAST_BUCKET_REPEATS=2 timeout 330 bash ci/device-run.sh dp_last_bucket > $D/lb_console.txt 2>&1; echo "dp_last_bucket rc=$? $SECONDS s" >> $D/console.txt
cd $OUT && tar czf call1.tgz c1 && rm -rf c1
