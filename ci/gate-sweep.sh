#!/usr/bin/env bash
# The sweep a CI gate compares (reports/README.md, "The CI gate"): every op from 8 B to 1 GiB on N
# GPUs in three passes (--repeat 3, each pass on communicators of its own, so that the spread
# between passes holds what a new process would see), sizes below 1 MiB timed in CUDA graphs (-G
# 10: launched normally, their times follow the host's launch path, which drifts between runs by
# more than any interval shows) and from 1 MiB launched normally; one merged CSV report. Extra
# arguments go to both collbench runs (e.g. -g 2,4).
# Usage: ci/gate-sweep.sh OUT.csv [COLLBENCH_ARGS...]   (COLLBENCH, COLLREPORT: the binaries;
# default build/apps/collbench/collbench and build/reports/collreport)
set -euo pipefail
out=${1:?usage: ci/gate-sweep.sh OUT.csv [COLLBENCH_ARGS...]}
shift
collbench=${COLLBENCH:-build/apps/collbench/collbench}
collreport=${COLLREPORT:-build/reports/collreport}
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
common=(--ops all -f 2 --repeat 3 "$@")
"$collbench" "${common[@]}" -b 8 -e 512K -G 10 --csv "$parts/graph.csv"
"$collbench" "${common[@]}" -b 1M -e 1G --csv "$parts/eager.csv"
"$collreport" merge "$parts/graph.csv" "$parts/eager.csv" -o "$out"
