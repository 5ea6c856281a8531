#!/usr/bin/env bash
# session 17, call 1 (bundle 59f9d81): the training suite (SeveralStepsPerGraph and the unrun review 4656883), GraphMemsets, then --steps-per-graph 1,5,10 A/B on the best configuration, three runs, on 2xH200
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c1; mkdir -p $D
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $D/gpus.csv 2>&1
timeout 90 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 30 bundle/bin/kernels_gpu_tests --gtest_filter='GraphMemsets*' > $D/kernels_graph_memsets.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
BEST="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --graph-memsets kernel"
for run in 1 2 3; do
  timeout 120 bundle/bin/collbench_dpstep $BEST --steps-per-graph 1,5,10 -g 1,2 --csv $D/best_run$run.csv > $D/best_run$run.txt 2>&1; echo "best run$run rc=$?" >> $D/console.txt
done
timeout 120 bundle/bin/collbench_dpstep --sync overlap --bucket-mib 25 --algo nccl --steps-per-graph 1,10 -g 1,2 --csv $D/nccl25.csv > $D/nccl25.txt 2>&1; echo "nccl25 rc=$?" >> $D/console.txt
cd $OUT && tar czf call1.tgz c1 && rm -rf c1
