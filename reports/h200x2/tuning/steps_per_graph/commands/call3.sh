#!/usr/bin/env bash
# session 17, call 3 (bundle with the leading replay): power test; --steps-per-graph 1,10 A/B with 200 timed steps, three runs, on 2xH200
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c3; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='*MeasureReportsThePowerState*:*SeveralSteps*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
BEST="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --graph-memsets kernel"
for run in 1 2 3; do
  timeout 150 bundle/bin/collbench_dpstep $BEST --steps-per-graph 1,10 -g 1,2 --iters 200 --csv $D/best_run$run.csv > $D/best_run$run.txt 2>&1; echo "best run$run rc=$?" >> $D/console.txt
done
cd $OUT && tar czf call3.tgz c3 && rm -rf c3
