#!/usr/bin/env bash
# session 19, call 4 (bundle ec23a43, scripts of the next commit, 2xH200): every GPU suite on the final code (hang tests apart); then ci/device-run.sh dp_last_bucket with three repeats (ring, twoshot, twoshot fused at 64 and 96 CTAs, ring:2, twoshot:2; -g 1,2; the order reversed every other repeat) and its checks
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c4; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,temperature.gpu --format=csv > $D/gpus.txt
for t in kernels_gpu_tests training_gpu_tests; do
  bundle/bin/$t --gtest_filter='-*Hang*:*Timeout*' > $D/$t.log 2>&1; echo "$t rc=$? $SECONDS s" >> $D/console.txt
  bundle/bin/$t --gtest_filter='*Hang*:*Timeout*' > $D/${t}_hang.log 2>&1; echo "$t hang rc=$? $SECONDS s" >> $D/console.txt
done
OUT=$D/lb DP_LAST_BUCKET_REPEATS=3 timeout 400 bash ci/device-run.sh dp_last_bucket > $D/lb_console.txt 2>&1; echo "dp_last_bucket rc=$? $SECONDS s" >> $D/console.txt
cd $OUT && tar czf call4.tgz c4 && rm -rf c4
