#!/usr/bin/env bash
# session 16, call 3 (bundle 50a8535): early gathers - GPU tests, A/B x2; fused update; layer 0 in two ring buckets; graph DOT; trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c3; mkdir -p $D
timeout 200 bundle/bin/training_gpu_tests --gtest_filter='*EarlyGathers*:*Memsets*' > $D/training_gpu_tests_early_gathers.log 2>&1; echo "training rc=$?" >> $D/console.txt
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1"
for r in 1 2; do
  echo "=== run $r early gathers 0,1,2" >> $D/console.txt
  bundle/bin/collbench_dpstep -g 1,4 $common --last-bucket-algo ring --early-gathers 0,1,2 --csv $D/early_$r.csv >> $D/console.txt 2>&1
done
echo "=== fused update 0,1 (early gathers 1)" >> $D/console.txt
bundle/bin/collbench_dpstep -g 1,4 $common --last-bucket-algo ring --early-gathers 1 --fuse-last-update 0,1 --csv $D/fused.csv >> $D/console.txt 2>&1
echo "=== layer 0 in two ring buckets, GEMM cut (early gathers 0,1)" >> $D/console.txt
bundle/bin/collbench_dpstep -g 1,4 $common --last-bucket-algo ring:2 --last-layer-buckets 2 --wgrad-split last --early-gathers 0,1 --csv $D/ring2.csv >> $D/console.txt 2>&1
mkdir -p $D/dot
COLLBENCH_DPSTEP_GRAPH_DOT=$D/dot bundle/bin/collbench_dpstep -g 4 $common --last-bucket-algo ring --early-gathers 1 --warmup 2 --iters 3 > $D/dot/console.txt 2>&1
bundle/bin/collbench_dpstep -g 1,4 $common --last-bucket-algo ring --early-gathers 1 --check --csv $D/checked.csv >> $D/console.txt 2>&1; echo "checked rc=$?" >> $D/console.txt
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --early-gathers 1" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call3.tgz c3 && rm -rf c3
