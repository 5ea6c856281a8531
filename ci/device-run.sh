#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with bundle/ carried there (ci/build-bundle.sh):
# the GPU tests and the standard sweeps. Every log and report goes into one archive under $OUT
# (the device tool brings back few files), and a short summary is printed last.
# Usage: ci/device-run.sh STEP...   steps: info tests sweep quick graph faults avg1
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/device-out}
work=$(mktemp -d)
mkdir -p "$out" "$work/reports" "$work/logs"
export LD_LIBRARY_PATH="$root/bundle/lib:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0  # NVLink multicast must stay off on these machines
bin="$root/bundle/bin"
summary=()

step() {  # step NAME COMMAND...: runs, logs to logs/NAME.log, records exit status and wall time
  local name=$1; shift
  local start=$SECONDS
  echo "=== $name: $*" | tee -a "$work/logs/commands.txt"
  timeout --signal=TERM "${STEP_TIMEOUT_S:-420}" "$@" >"$work/logs/$name.log" 2>&1
  local status=$?
  summary+=("$name: exit $status in $((SECONDS - start)) s")
  tail -n 25 "$work/logs/$name.log"
  return 0
}

machine=h200x$(nvidia-smi -L 2>/dev/null | wc -l)
for want in "$@"; do
  case $want in
    info)
      step info bash -c 'date -u; nvidia-smi; nvidia-smi topo -m; ldd '"$bin"'/collbench; ls /usr/local/cuda/lib64 | grep -E "cublas|nccl" || true; ls -la /usr/lib/x86_64-linux-gnu/libnccl*' ;;
    tests)
      # Hang tests abort communicators on purpose: they run in a process of their own.
      for t in "$bin"/*_gpu_tests; do
        name=$(basename "$t")
        step "$name" "$t" --gtest_filter='-*Hang*:*Timeout*' --gtest_output=xml:"$work/logs/$name.xml"
        step "${name}_hang" "$t" --gtest_filter='*Hang*:*Timeout*' --gtest_output=xml:"$work/logs/${name}_hang.xml"
      done ;;
    quick)
      step quick "$bin/collbench" --ops all_reduce -b 8 -e 1G -f 8 -g 4 --csv "$work/reports/quick.csv" ;;
    sweep)
      mkdir -p "$work/reports/$machine"
      step sweep "$bin/collbench" --ops all -b 8 -e 8G -f 2 -g 2,4 -d float -c 1 \
        --csv "$work/reports/$machine/collectives.csv" ;;
    graph)
      step graph "$bin/collbench" --ops all_reduce -b 8 -e 64K -f 2 -g 4 -G 10 --csv "$work/reports/graph.csv" ;;
    faults)
      step fault_hang "$bin/collbench" --ops all_reduce -b 1M -e 1M -g 4 --timeout 5 --inject-fault skip_rank \
        --csv "$work/reports/fault_hang.csv"
      step fault_corrupt "$bin/collbench" --ops all_reduce,alltoall -b 4K -e 4K -g 4 --inject-fault corrupt_output \
        --csv "$work/reports/fault_corrupt.csv"
      step fault_oom "$bin/collbench" --ops all_reduce -b 1K -e 1K -g 2 --inject-fault fail_allocation \
        --csv "$work/reports/fault_oom.csv" ;;
    avg1)
      # NCCL's single-rank floating-point average, around counts that are not multiples of 4.
      step avg1 "$bin/collbench" --ops all_reduce,reduce -o avg,sum -d float,double,half -b 1048576 -e 1048588 -i 4 \
        -g 1,2 --in-place both --csv "$work/reports/avg1.csv" ;;
    *) echo "unknown step $want" ;;
  esac
done

tar czf "$out/results.tgz" -C "$work" .
echo "=== summary"
printf '%s\n' "${summary[@]}"
