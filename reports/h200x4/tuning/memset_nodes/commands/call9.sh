#!/usr/bin/env bash
# session 16, call 9 (bundle c85b2a6, the final code): every GPU suite; the PyTorch DDP reference; the best configuration three times
export NCCL_NVLS_ENABLE=0; export LD_LIBRARY_PATH=$PWD/bundle/lib:/usr/local/cuda/lib64
D=$OUT/c9; mkdir -p $D
timeout 60 bundle/bin/training_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/training_gpu_tests.log 2>&1; echo "training rc=$?" >> $D/console.txt
timeout 200 bundle/bin/kernels_gpu_tests --gtest_filter='-*Hang*:*Timeout*' > $D/kernels_gpu_tests.log 2>&1; echo "kernels rc=$?" >> $D/console.txt
timeout 100 bundle/bin/kernels_gpu_tests --gtest_filter='*Hang*:*Timeout*' > $D/kernels_gpu_tests_hang.log 2>&1; echo "kernels hang rc=$?" >> $D/console.txt
(python3 -c 'import torch, sys; print("torch", torch.__version__, "cuda", torch.version.cuda, sys.executable)'; which python3) > $D/torch_env.txt 2>&1
timeout 150 python3 ci/torch_ddp_reference.py --gpus 1,4 --csv $D/torch_ddp_25mib.csv > $D/torch_ddp.txt 2>&1; echo "torch rc=$?" >> $D/console.txt
common="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1 --last-bucket-algo ring"
for r in 1 2 3; do
  echo "=== run $r best" >> $D/console.txt
  bundle/bin/collbench_dpstep -g 1,4 $common --csv $D/best_$r.csv >> $D/console.txt 2>&1
done
echo "=== nccl 25 MiB, default schedule (the issue's PyTorch comparison)" >> $D/console.txt
bundle/bin/collbench_dpstep -g 1,4 --sync overlap --bucket-mib 25 --algo nccl --csv $D/nccl_25mib.csv >> $D/console.txt 2>&1
cd $OUT && tar czf call9.tgz c9 && rm -rf c9
