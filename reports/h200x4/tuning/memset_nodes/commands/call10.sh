#!/usr/bin/env bash
# session 16, call 10 (bundle c85b2a6): the standard training-step sweep of ci/device-run.sh's dpstep step (its
# dp_step.csv command), then the NVTX summary of its dpstep_nsys step
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c10; mkdir -p $D/nsys
start=$SECONDS
timeout 420 bundle/bin/collbench_dpstep -g 1,2,4 --sync sync,overlap --bucket-mib 4,25,33,100 --algo nccl,ring,copy_engine --csv $D/dp_step.csv > $D/dpstep.log 2>&1; echo "dpstep rc=$? after $((SECONDS - start)) s" >> $D/console.txt
(cd $OUT && tar czf call10.tgz c10)
nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
if [ $((SECONDS - start)) -lt 480 ]; then
  LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH timeout 90 $nsys profile -t cuda,nvtx -s none --cpuctxsw=none -o $D/nsys/dp_step_overlap bundle/bin/collbench_dpstep -g 4 --sync overlap --bucket-mib 25 --warmup 2 --iters 5 --eager > $D/nsys/profile.log 2>&1 && LD_LIBRARY_PATH=$PWD/bundle/nsys-lib:$LD_LIBRARY_PATH $nsys stats --report nvtx_sum --format csv -o $D/nsys/dp_step_overlap $D/nsys/dp_step_overlap.nsys-rep >> $D/nsys/profile.log 2>&1; echo "nsys rc=$?" >> $D/console.txt
  rm -f $D/nsys/*.nsys-rep $D/nsys/*.sqlite
  (cd $OUT && tar czf call10.tgz c10)
fi
rm -rf $D
