#!/usr/bin/env bash
# session 17, call 2 (bundle 6 of two exec copies): SeveralStepsPerGraph test; --steps-per-graph 1,10 A/B twice; nsys trace of 10 steps per graph on 2 GPUs (kernels and CUDA API)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c2; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='*SeveralSteps*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
BEST="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --graph-memsets kernel"
for run in 1 2; do
  timeout 120 bundle/bin/collbench_dpstep $BEST --steps-per-graph 1,10 -g 1,2 --csv $D/best_run$run.csv > $D/best_run$run.txt 2>&1; echo "best run$run rc=$?" >> $D/console.txt
done
nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
for k in 1 10; do
  LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH timeout 200 $nsys profile -t cuda,nvtx --cuda-graph-trace=node -s none --cpuctxsw=none -o $D/k$k bundle/bin/collbench_dpstep $BEST --steps-per-graph $k -g 2 --warmup 3 --iters 20 --csv $D/trace_k$k.csv > $D/trace_k$k.txt 2>&1; echo "trace k$k rc=$?" >> $D/console.txt
  LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH $nsys stats --report cuda_gpu_trace,cuda_api_trace --format csv -o $D/k$k $D/k$k.nsys-rep >> $D/stats.txt 2>&1
  rm -f $D/k$k.nsys-rep $D/k$k.sqlite; gzip -f $D/k${k}_*.csv
done
cd $OUT && tar czf call2.tgz c2 && rm -rf c2
