#!/usr/bin/env bash
# The sweep a CI gate compares (reports/README.md, "The CI gate"): every op from 8 B to 1 GiB on N
# GPUs, measured by GATE_PROCESSES (3) processes one after another, merged as the passes of one run
# (collreport merge --as-passes): a new process lands a few percent away from the last one at
# some sizes while its own passes agree, so the spread the compare uses must come from separate
# processes. Sizes below 1 MiB are timed in CUDA graphs (-G 10: launched normally, their times
# follow the host's launch path, which drifts between runs by more than any interval shows), from
# 1 MiB launched normally. Extra arguments go to every collbench run (e.g. -g 2,4).
# Usage: ci/gate-sweep.sh OUT.csv [COLLBENCH_ARGS...]   (COLLBENCH, COLLREPORT: the binaries;
# default build/apps/collbench/collbench and build/reports/collreport)
set -euo pipefail
out=${1:?usage: ci/gate-sweep.sh OUT.csv [COLLBENCH_ARGS...]}
shift
collbench=${COLLBENCH:-build/apps/collbench/collbench}
collreport=${COLLREPORT:-build/reports/collreport}
processes=${GATE_PROCESSES:-3}
[[ $processes =~ ^[1-9][0-9]?$ ]] || { echo "gate-sweep.sh: GATE_PROCESSES=$processes is not a count from 1 to 99" >&2; exit 2; }
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
common=(--ops all -f 2 "$@")
runs=()
for process in $(seq 1 "$processes"); do
  "$collbench" "${common[@]}" -b 8 -e 512K -G 10 --csv "$parts/graph_$process.csv"
  "$collbench" "${common[@]}" -b 1M -e 1G --csv "$parts/eager_$process.csv"
  "$collreport" merge "$parts/graph_$process.csv" "$parts/eager_$process.csv" -o "$parts/run_$process.csv"
  runs+=("$parts/run_$process.csv")
done
"$collreport" merge --as-passes "${runs[@]}" -o "$out"
