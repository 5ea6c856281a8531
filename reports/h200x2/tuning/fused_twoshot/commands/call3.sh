#!/usr/bin/env bash
# session 19, call 3 (bundle ec23a43, 2xH200): the 2-GPU best configuration with layer 0's bucket on the ring, twoshot, or twoshot with its update fused in at 64, 96 or 128 CTAs (COLLBENCH_TWOSHOT_CTAS); four repeats, the order reversed every other repeat; -g 2 only, then 1 GPU twice
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c3; mkdir -p $D
best="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --graph-memsets kernel"
names=(ring twoshot fused64 fused96 fused128)
envs=("" "" "COLLBENCH_TWOSHOT_CTAS=64" "COLLBENCH_TWOSHOT_CTAS=96" "COLLBENCH_TWOSHOT_CTAS=128")
flags=("--last-bucket-algo ring" "--last-bucket-algo twoshot" "--last-bucket-algo twoshot --fuse-last-update 1" "--last-bucket-algo twoshot --fuse-last-update 1" "--last-bucket-algo twoshot --fuse-last-update 1")
for r in 0 1 2 3; do
  for ((i = 0; i < 5; i++)); do
    c=$((r % 2 == 0 ? i : 4 - i))
    env ${envs[c]} bundle/bin/collbench_dpstep -g 2 $best ${flags[c]} --csv $D/r${r}_${names[c]}.csv >> $D/dp.log 2>&1; echo "r$r ${names[c]} rc=$? $SECONDS s" >> $D/console.txt
  done
done
for r in 0 1; do bundle/bin/collbench_dpstep -g 1 $best --csv $D/one_$r.csv >> $D/dp.log 2>&1; echo "one $r rc=$? $SECONDS s" >> $D/console.txt; done
cd $OUT && tar czf call3.tgz c3 && rm -rf c3
