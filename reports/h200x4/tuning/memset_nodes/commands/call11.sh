#!/usr/bin/env bash
# session 16, call 11 (bundle c85b2a6): the rest of the dpstep step (checks, ps and sharded); the best
# configuration with lockstep 1 then 2 in one invocation (a 1-GPU row right after a 4-GPU run), and at the power-capped
# steady state (600 warm-up steps)
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c11; mkdir -p $D
start=$SECONDS
timeout 120 bundle/bin/collbench_dpstep --check --algo nccl,ring,copy_engine --csv $D/dp_step_check.csv > $D/dpstep_check.log 2>&1; echo "check rc=$? after $((SECONDS - start)) s" >> $D/console.txt
timeout 150 bundle/bin/collbench_dpstep -g 1,2,4 --sync ps,sharded --bucket-mib 25 --check --csv $D/dp_step_schemes.csv > $D/dpstep_schemes.log 2>&1; echo "schemes rc=$? after $((SECONDS - start)) s" >> $D/console.txt
(cd $OUT && tar czf call11.tgz c11)
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --last-bucket-algo ring"
for r in 1 2 3; do
  echo "=== run $r, lockstep 1 then 2 (the second config's 1-GPU row follows a 4-GPU run)" >> $D/console.txt
  bundle/bin/collbench_dpstep -g 1,4 $common --lockstep 1,2 --csv $D/order_$r.csv >> $D/console.txt 2>&1
done
echo "after order runs: $((SECONDS - start)) s" >> $D/console.txt
(cd $OUT && tar czf call11.tgz c11)
for r in 1 2; do
  echo "=== run $r, steady state (600 warm-up steps)" >> $D/console.txt
  timeout 100 bundle/bin/collbench_dpstep -g 1,4 $common --lockstep 1 --warmup 600 --csv $D/steady_$r.csv >> $D/console.txt 2>&1
done
echo "done: $((SECONDS - start)) s" >> $D/console.txt
(cd $OUT && tar czf call11.tgz c11)
rm -rf $D
