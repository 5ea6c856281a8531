#!/usr/bin/env bash
# Profiles a short collbench sweep (and a dp_step run, when given) under Nsight Systems and checks
# that collbench's NVTX ranges are there with the expected names and counts and that NCCL's
# kernels run inside them (ci/nsys_expect.py). Leaves in OUT_DIR what reports/traces/ keeps:
# the stats CSVs, the run's CSV and Chrome trace, one small .nsys-rep, and summary.txt.
#
# usage: ci/nsys-check.sh COLLBENCH_BIN OUT_DIR [DP_STEP_BIN]
# exit:  0 PASS, 1 FAIL, 2 bad usage, 77 skipped (no GPU or no nsys; ctest's SKIP_RETURN_CODE)
# env:   NSYS=path/to/nsys; NSYS_LIBS=dir with libdw.so.1/libelf.so.1 (default: .nsys-libs/ or
#        bundle/nsys-lib/ in the repository, see /work/shared/device/fetch-nsys-libs.sh); PYTHON;
#        COLLBENCH_ARGS / DP_STEP_ARGS replace the sweeps below.
set -uo pipefail

# ---- What runs. Short on purpose: the .nsys-rep is committed. ----
default_collbench_args="--ops all_reduce,all_gather --min-bytes 1M --max-bytes 4M --step-factor 4 \
--gpus all --warmup 2 --iters 5 --in-place out --check 1"
# dp_step with --eager: NVTX ranges then wrap real launches (a replayed graph has none).
default_dp_step_args="--layers 4 --width 1024 --batch 64 --sync overlap --warmup 1 --iters 3 --eager"
read -r -a collbench_args <<<"${COLLBENCH_ARGS:-$default_collbench_args}"
read -r -a dp_step_args <<<"${DP_STEP_ARGS:-$default_dp_step_args}"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: ci/nsys-check.sh COLLBENCH_BIN OUT_DIR [DP_STEP_BIN]" >&2
  exit 2
fi
collbench=$1
out=$2
dp_step=${3:-}
python=${PYTHON:-python3}
skip() { echo "nsys-check: SKIP: $*"; exit 77; }
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  skip "no NVIDIA GPU visible"
fi
nsys=${NSYS:-}
if [ -z "$nsys" ]; then
  for candidate in "$(command -v nsys 2>/dev/null)" \
      /opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys \
      /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/bin/nsys; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then nsys=$candidate; break; fi
  done
fi
[ -n "$nsys" ] && [ -x "$nsys" ] || skip "nsys not found (set NSYS=/path/to/nsys)"
for bin in "$collbench" ${dp_step:+"$dp_step"}; do
  [ -x "$bin" ] || { echo "nsys-check: '$bin' is not an executable" >&2; exit 2; }
done

# nsys's importer needs libdw/libelf to turn its .qdstrm into a .nsys-rep.
# Default: .nsys-libs/ or the device bundle's bundle/nsys-lib/ (ci/build-bundle.sh).
libs=${NSYS_LIBS:-}
for candidate in "$repo/.nsys-libs" "$repo/bundle/nsys-lib"; do
  if [ -z "$libs" ] && [ -d "$candidate" ]; then libs=$candidate; fi
done
if [ -n "$libs" ]; then export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

mkdir -p "$out" || exit 2
failed=0
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# profile NAME BIN ARGS...: runs BIN under nsys into OUT/NAME.nsys-rep, then exports the stats
# CSVs (OUT/NAME_nvtx_sum.csv, OUT/NAME_cuda_gpu_kern_sum.csv, OUT/NAME_nvtx_kern_sum.csv) and
# OUT/NAME.sqlite. Returns non-zero (after saying why) when any step fails.
profile() {
  local name=$1 bin=$2
  shift 2
  rm -f "$out/$name".{nsys-rep,qdstrm,sqlite} "$out/${name}"_*.csv
  say "nsys-check: profiling $name: $bin $*"
  if ! "$nsys" profile -t cuda,nvtx -s none --cpuctxsw=none --force-overwrite true \
      -o "$out/$name" "$bin" "$@" >"$out/$name.log" 2>&1; then
    say "nsys-check: FAIL  $name exited non-zero under nsys (see $out/$name.log):"
    tail -n 5 "$out/$name.log" | tee -a "$summary"
    return 1
  fi
  if [ ! -f "$out/$name.nsys-rep" ]; then
    say "nsys-check: FAIL  nsys wrote no $name.nsys-rep$( [ -f "$out/$name.qdstrm" ] && \
      echo " (only a .qdstrm: put libdw.so.1/libelf.so.1 in NSYS_LIBS, see fetch-nsys-libs.sh)")"
    return 1
  fi
  local report
  for report in nvtx_sum cuda_gpu_kern_sum nvtx_kern_sum; do
    if ! "$nsys" stats --report "$report" --format csv --force-export true --force-overwrite true \
        --output "$out/$name" "$out/$name.nsys-rep" >>"$out/$name.stats.log" 2>&1; then
      # nvtx_kern_sum is kept for reading only; the checks need the other two.
      if [ "$report" != nvtx_kern_sum ]; then
        say "nsys-check: FAIL  nsys stats --report $report failed (see $out/$name.stats.log)"
        return 1
      fi
    fi
  done
  return 0
}

# stats_csv NAME REPORT: the CSV nsys stats wrote for REPORT (OUT/NAME_REPORT.csv as of 2025.x).
stats_csv() {
  local exact="$out/${1}_$2.csv" match
  if [ -f "$exact" ]; then echo "$exact"; return; fi
  for match in "$out/$1"*"$2"*.csv; do
    if [ -f "$match" ]; then echo "$match"; return; fi
  done
  echo "$exact"  # missing: nsys_expect.py names it
}

# check NAME PROGRAM ARGS...: nsys_expect.py on NAME's exports, its lines into the summary.
check() {
  local name=$1 program=$2
  shift 2
  local sqlite=()
  [ -f "$out/$name.sqlite" ] && sqlite=(--sqlite "$out/$name.sqlite")
  "$python" "$here/nsys_expect.py" "$program" --nvtx-sum "$(stats_csv "$name" nvtx_sum)" \
    --kern-sum "$(stats_csv "$name" cuda_gpu_kern_sum)" "${sqlite[@]}" "$@" 2>&1 | tee -a "$summary"
  return "${PIPESTATUS[0]}"
}

if profile collbench "$collbench" "${collbench_args[@]}" --csv "$out/collbench.csv" \
    --trace "$out/collbench.trace.json"; then
  check collbench collbench --csv "$out/collbench.csv" --trace "$out/collbench.trace.json" || failed=1
else
  failed=1
fi

if [ -n "$dp_step" ]; then
  if profile dp_step "$dp_step" "${dp_step_args[@]}" --csv "$out/dp_step.csv"; then
    check dp_step dp_step || failed=1
  else
    failed=1
  fi
fi

# The .sqlite exports are large and derived: kept only to debug a failure.
if [ "$failed" -eq 0 ]; then rm -f "$out"/*.sqlite; fi
rm -f "$out"/*.qdstrm
if [ "$failed" -eq 0 ]; then
  say "nsys-check: PASS ($(ls "$out"/*.nsys-rep | wc -l) report(s) in $out)"
else
  say "nsys-check: FAIL (details above and in $out/*.log)"
fi
exit "$failed"
