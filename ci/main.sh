#!/usr/bin/env bash
# The main job (README): checks for a GPU, installs dependencies, builds collbench, and runs its
# default sweep on the visible GPUs: every collective, 8 B to 128 MiB, every visible-GPU count from
# 2 up (1 on a single-GPU machine), results checked, rows written to collbench.csv. Extra
# arguments are passed to collbench and override these defaults.
# Exit status: collbench's, or 4 (before building anything) when no GPU is visible.
set -euo pipefail
cd "$(dirname "$0")/.."
gpus=$(bash ci/gpu-count.sh)
if [ "${gpus:-0}" -lt 1 ]; then
  echo "ci/main.sh: no GPU is visible (nvidia-smi lists none, or CUDA_VISIBLE_DEVICES is empty); nothing built" >&2
  exit 4
fi
bash ci/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target collbench
counts=all
if [ "$gpus" -ge 2 ]; then counts="2-$gpus"; fi
exec build/apps/collbench/collbench --ops all -g "$counts" --csv collbench.csv "$@"
