#!/usr/bin/env bash
# session 19, call 5 (bundle of the review commit after 574f88a, 2xH200): training_gpu_tests after gradient_owners took over the sharded scheme's ranges (the gradient checks of every scheme and of the fused twoshot update), and the dp_last_bucket check
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c5; mkdir -p $D
bundle/bin/training_gpu_tests > $D/training_gpu_tests.log 2>&1; echo "training rc=$? $SECONDS s" >> $D/console.txt
best="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --graph-memsets kernel"
bundle/bin/collbench_dpstep -g 2 $best --last-bucket-algo twoshot --fuse-last-update 0,1 --check --csv $D/check.csv > $D/check.txt 2>&1; echo "check rc=$? $SECONDS s" >> $D/console.txt
cd $OUT && tar czf call5.tgz c5 && rm -rf c5
