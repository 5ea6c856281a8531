#!/usr/bin/env bash
# Tests ci/gate-reports.sh on report trees built from the fixtures: no baselines passes, noise
# passes, a regression and wrong elements fail with 1, a malformed report fails with 2.
# Usage: gate_test.sh GATE_SCRIPT COLLREPORT FIXTURE_DIR
set -uo pipefail
gate=$1 collreport=$2 fixtures=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME CODE PATTERN: runs the gate on $work/NAME and checks its exit code and output.
expect() {
  local name=$1 want=$2 pattern=$3 got=0
  local output
  output=$(bash "$gate" --reports-dir "$work/$name" "$collreport" 2>&1) || got=$?
  if [ "$got" != "$want" ] || ! grep -qE -- "$pattern" <<<"$output"; then
    echo "FAIL $name: exit $got (want $want), output lacks /$pattern/:"
    echo "$output" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok   $name: exit $got"
  fi
}

# tree NAME REPORT [BASELINE]: reports/h200x4/sweep.csv, with a baseline of the same name.
tree() {
  mkdir -p "$work/$1/h200x4"
  cp "$fixtures/$2" "$work/$1/h200x4/sweep.csv"
  if [ $# -ge 3 ]; then
    mkdir -p "$work/$1/h200x4/baseline"
    cp "$fixtures/$3" "$work/$1/h200x4/baseline/sweep.csv"
  fi
}

tree no_baselines base.csv
expect no_baselines 0 "no baselines .* nothing to gate"

tree noise new_noise.csv base.csv
expect noise 0 "PASS \(1 report"

tree regression new_regressed.csv base.csv
expect regression 1 "\| REGRESSION \| all_reduce \| nccl \| 4 \|"

tree wrong new_wrong.csv base.csv
expect wrong 1 "\| FAILED \| .* 3 wrong elements \|"

tree malformed base.csv base.csv
sed -i '4s/^1,/7,/' "$work/malformed/h200x4/sweep.csv"
expect malformed 2 "sweep.csv:4: unknown schema version '7'"

# A second machine without a baseline is listed, and does not change the verdict.
tree unbaselined new_noise.csv base.csv
mkdir -p "$work/unbaselined/h100x1" && cp "$fixtures/new_regressed.csv" "$work/unbaselined/h100x1/sweep.csv"
expect unbaselined 0 "h100x1/sweep.csv has no baseline"

# The gate refuses to run without a collreport binary.
got=0
bash "$gate" --reports-dir "$work/noise" /nonexistent/collreport >/dev/null 2>&1 || got=$?
if [ "$got" != 2 ]; then echo "FAIL missing binary: exit $got (want 2)"; failures=$((failures + 1)); fi

exit $((failures > 0))
