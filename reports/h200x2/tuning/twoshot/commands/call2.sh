#!/usr/bin/env bash
# session 18, call 2 (bundle d35d046, 2xH200): the kernels GPU suite after the PeerGroup refactor; layer 0 in two buckets of its own with its GEMM whole (--last-layer-buckets 2, both halves on the SMs: ring:2 or twoshot:2), so that the first half's update runs beside the second half's all-reduce, against one bucket; orders alternated
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c2; mkdir -p $D
timeout 150 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 60 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
BASE="-g 1,2 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --graph-memsets kernel"
one="--last-bucket-algo ring"
split="--last-layer-buckets 2 --last-bucket-algo ring:2"
split_twoshot="--last-layer-buckets 2 --last-bucket-algo twoshot:2"
n=0
for cfg in one split split_twoshot split one split_twoshot split_twoshot split one; do
  n=$((n+1))
  timeout 100 bundle/bin/collbench_dpstep $BASE ${!cfg} --csv $D/dp_${n}_$cfg.csv > $D/dp_${n}_$cfg.txt 2>&1; echo "dp $n $cfg rc=$?" >> $D/console.txt
done
timeout 100 bundle/bin/collbench_dpstep -g 2 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --graph-memsets kernel $split --check --csv $D/dp_check_split.csv > $D/dp_check_split.txt 2>&1; echo "dp check split rc=$?" >> $D/console.txt
cd $OUT && tar czf call2.tgz c2 && rm -rf c2
