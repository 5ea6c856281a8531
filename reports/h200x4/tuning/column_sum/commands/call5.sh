#!/usr/bin/env bash
# session 15, call 5 (bundle of the --wgrad-workspace-kib commit): A/B of the dW GEMMs' workspace, one trace
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c5; mkdir -p $D
B=bundle/bin/collbench_dpstep
common="-g 1,4 --sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring"
for r in 1 2 3; do
  for w in -1 0 4; do
    echo "=== run $r wgrad_workspace_kib $w" >> $D/console.txt
    $B $common --lockstep 1 --wgrad-workspace-kib $w --csv $D/ws${w}_$r.csv >> $D/console.txt 2>&1
  done
done
for w in -1 0; do
  echo "=== lockstep 0,2 wgrad_workspace_kib $w" >> $D/console.txt
  $B $common --lockstep 0,2 --wgrad-workspace-kib $w --csv $D/ls02_ws${w}.csv >> $D/console.txt 2>&1
done
OUT=$D/tl DP_TIMELINE_ALGOS=copy_engine DP_TIMELINE_CE_ARGS="--comm-schedule pipelined --last-bucket-algo ring --lockstep 1 --wgrad-workspace-kib 0" DP_TIMELINE_BUCKET_MIB=33 timeout 200 bash ci/device-run.sh dp_timeline > $D/tl_console.txt 2>&1
cd $OUT && tar czf call5.tgz c5 && rm -rf c5
