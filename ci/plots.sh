#!/usr/bin/env bash
# Regenerates reports/<machine>/plots/ from the committed reports reports/<machine>/*.csv, and
# overlays each report on its baseline (reports/<machine>/baseline/, same file name) when the two
# differ.
# Usage: ci/plots.sh [REPORTS_DIR [OUT_ROOT]]   (defaults: reports of this checkout; plots go to
# REPORTS_DIR/<machine>/plots, or OUT_ROOT/<machine> when given)
# PYTHON may name a python3 with matplotlib; otherwise /usr/bin/python3, then python3 on PATH.
set -euo pipefail
shopt -s nullglob
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reports_dir=${1:-$root/reports}
out_root=${2:-}
collplot=$root/plots/collplot.py

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c "import matplotlib" 2>/dev/null; then python=$candidate; break; fi
  done
fi
if [ -z "$python" ]; then
  echo "ci/plots.sh: no python3 with matplotlib (apt-get install python3-matplotlib, or set PYTHON)" >&2
  exit 2
fi
export MPLBACKEND=Agg

plotted=0
for machine_dir in "$reports_dir"/*/; do
  machine=$(basename "$machine_dir")
  mapfile -t csvs < <(find "$machine_dir" -maxdepth 1 -name '*.csv' | sort)
  ((${#csvs[@]})) || continue  # source folders such as reports/collreport hold no reports
  out=${out_root:+$out_root/$machine}
  out=${out:-$machine_dir/plots}
  # Plots of reports since removed must not linger beside the fresh ones.
  mkdir -p "$out"
  rm -rf "$out"/*.png "$out"/*.svg "$out"/compare_*
  echo "ci/plots.sh: $machine: ${#csvs[@]} report(s) -> $out"
  rm -rf "$out"/*/
  for csv in "${csvs[@]}"; do
    name=$(basename "$csv" .csv)
    # One folder per report: runs of different kinds (MPI, network, probes) never share a plot.
    "$python" "$collplot" "$csv" -o "$out/$name" >/dev/null
    baseline=$machine_dir/baseline/$name.csv
    if [ -f "$baseline" ] && ! cmp -s "$baseline" "$csv"; then
      "$python" "$collplot" --compare "$baseline" "$csv" -o "$out/compare_$name" >/dev/null
    fi
  done
  plotted=$((plotted + 1))
done
if ((plotted == 0)); then
  echo "ci/plots.sh: no reports under $reports_dir/<machine>/: nothing to plot"
fi
