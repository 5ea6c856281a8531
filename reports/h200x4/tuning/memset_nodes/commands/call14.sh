#!/usr/bin/env bash
# session 16, call 14 (bundle 5d07266, memset nodes the default again): the standard training-step sweep
# (ci/device-run.sh dpstep's dp_step.csv command); traces of NCCL at 25 MiB with memset nodes and with memset kernels
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c14; mkdir -p $D
start=$SECONDS
timeout 200 bundle/bin/collbench_dpstep -g 1,2,4 --sync sync,overlap --bucket-mib 4,25,33,100 --algo nccl,ring,copy_engine --csv $D/dp_step.csv > $D/dpstep.log 2>&1; echo "dpstep rc=$? after $((SECONDS - start)) s" >> $D/console.txt
(cd $OUT && tar czf call14.tgz c14)
for mode in memset kernel; do
  OUT=$D/tl_$mode DP_TIMELINE_ALGOS=nccl DP_TIMELINE_ARGS="--graph-memsets $mode" DP_TIMELINE_BUCKET_MIB=25 timeout 100 bash ci/device-run.sh dp_timeline > $D/tl_${mode}_console.txt 2>&1
done
echo "done after $((SECONDS - start)) s" >> $D/console.txt
cd $OUT && tar czf call14.tgz c14 && rm -rf c14
