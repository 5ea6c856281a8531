#!/usr/bin/env bash
# session 17, call 5 (bundle 528d5a4): the power test with the instantaneous power; the best configuration in the default window twice and after 2 s of warm-up, for instant_power_w beside power_w, on 2xH200
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c5; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='*MeasureReportsThePowerState*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
BEST="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --graph-memsets kernel"
for run in 1 2; do
  timeout 120 bundle/bin/collbench_dpstep $BEST -g 1,2 --csv $D/best_run$run.csv > $D/best_run$run.txt 2>&1; echo "best run$run rc=$?" >> $D/console.txt
done
timeout 200 bundle/bin/collbench_dpstep $BEST -g 1,2 --warmup-ms 2000 --csv $D/best_capped.csv > $D/best_capped.txt 2>&1; echo "best capped rc=$?" >> $D/console.txt
cd $OUT && tar czf call5.tgz c5 && rm -rf c5
