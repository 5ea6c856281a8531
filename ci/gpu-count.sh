#!/usr/bin/env bash
# Prints how many GPUs this process may use: those CUDA_VISIBLE_DEVICES names when it is set (even
# empty), else every GPU nvidia-smi lists; 0 without a driver. For ci/main.sh and ci/device-run.sh.
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
  tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .
else
  nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | grep -c .
fi
exit 0
