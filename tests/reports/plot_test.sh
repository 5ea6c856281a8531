#!/usr/bin/env bash
# Tests plots/collplot.py on the fixtures: every plot is written as a non-empty PNG and SVG, from
# schema version 3 (intervals drawn) and version 1 (none); a malformed report gives exit 2 with
# its file and line.
# Usage: plot_test.sh PYTHON COLLPLOT FIXTURE_DIR
set -uo pipefail
python=$1 collplot=$2 fixtures=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

MPLBACKEND=Agg "$python" "$collplot" "$fixtures/base.csv" -o "$work/out" \
  --compare "$fixtures/base.csv" "$fixtures/new_regressed.csv" || fail "collplot exited $?"
for name in busbw_all_reduce latency_all_reduce busbw_all_gather latency_all_gather \
            all_reduce_algorithms dp_step_efficiency compare_all_reduce compare_all_gather; do
  for extension in png svg; do
    [ -s "$work/out/$name.$extension" ] || fail "$name.$extension missing or empty"
  done
done
head -c 8 "$work/out/busbw_all_reduce.png" | grep -q PNG || fail "busbw_all_reduce.png is not a PNG"
grep -q "NVIDIA H200, 2-4 GPUs, NCCL 2.28.3, 2026-11-22" "$work/out/busbw_all_reduce.svg" ||
  fail "busbw_all_reduce.svg lacks the GPU/NCCL/date title"

# Version 3 rows carry intervals: shaded p50 bands, and error bars on the compare ratio (named
# in the SVG by the script); version 1 rows have none, and plot all the same.
grep -q 'id="p50-interval' "$work/out/latency_all_reduce.svg" || fail "latency_all_reduce.svg has no p50 band"
grep -q 'id="ratio-interval' "$work/out/compare_all_reduce.svg" || fail "compare_all_reduce.svg has no error bars"
MPLBACKEND=Agg "$python" "$collplot" "$fixtures/base_v1.csv" -o "$work/v1" \
  --compare "$fixtures/base_v1.csv" "$fixtures/new_regressed.csv" >/dev/null || fail "version 1: collplot exited $?"
[ -s "$work/v1/latency_all_reduce.svg" ] || fail "version 1: latency_all_reduce.svg missing or empty"
! grep -q 'id="p50-interval' "$work/v1/latency_all_reduce.svg" || fail "version 1: a band without intervals"
! grep -q 'id="ratio-interval' "$work/v1/compare_all_reduce.svg" || fail "version 1 BASE: error bars without intervals"

# The algorithms' busbw panels share their y axis: the fewest GPUs' curves (here made 4x lower)
# must not fix its top before the larger counts are drawn.
MPLBACKEND=Agg "$python" - "$collplot" "$fixtures/base.csv" "$work/low.csv" <<'PYTHON' || fail "all_reduce_algorithms: a busbw curve above the panel's top"
import csv, os, sys
collplot_path, fixture, low = sys.argv[1:]
with open(fixture, newline="") as source, open(low, "w", newline="") as target:
    reader = csv.reader(source)
    writer = csv.writer(target)
    header = next(reader)
    writer.writerow(header)
    ranks, busbw = header.index("ranks"), header.index("busbw_gbps")
    for row in reader:
        if row[ranks] == "2":
            row[busbw] = str(float(row[busbw]) / 4)
        writer.writerow(row)
sys.path.insert(0, os.path.dirname(collplot_path))
import matplotlib.pyplot as plt
import collplot
figures = []
collplot.save = lambda plt_, figure, out_dir, name, formats: (figures.append(figure), [])[1]
collplot.plot_all_reduce_algorithms(plt, collplot.read_report(low), ".", ["png"])
panels = [axes for axes in figures[0].axes if axes.get_title().endswith("GPUs")]
highest = max(max(line.get_ydata()) for axes in panels for line in axes.get_lines())
sys.exit(0 if all(axes.get_ylim()[1] >= highest for axes in panels) else 1)
PYTHON

sed '1s/,time_us_p50_lo,/,time_us_p50_low,/' "$fixtures/base.csv" >"$work/renamed.csv"
got=0
output=$(MPLBACKEND=Agg "$python" "$collplot" "$work/renamed.csv" -o "$work/renamed" 2>&1) || got=$?
[ "$got" = 2 ] || fail "version 3 without an interval column: exit $got (want 2)"
grep -q "renamed.csv:1: missing columns time_us_p50_lo (schema version 3)" <<<"$output" ||
  fail "version 3 without an interval column: '$output'"

sed '3s/^[0-9]*,/9,/' "$fixtures/base.csv" >"$work/bad.csv"
got=0
output=$(MPLBACKEND=Agg "$python" "$collplot" "$work/bad.csv" -o "$work/bad" 2>&1) || got=$?
[ "$got" = 2 ] || fail "malformed report: exit $got (want 2)"
grep -q "bad.csv:3: unknown schema version '9'" <<<"$output" || fail "malformed report: '$output'"

exit $((failures > 0))
