#!/usr/bin/env bash
# Tests ci/gate-reports.sh on report trees built from the fixtures: no baselines passes, noise
# passes, a regression and wrong elements fail with 1, against a version 3 baseline, a version
# 2 one (intervals both) and a version 1 one (fixed tolerance, as the committed baselines are);
# compare options pass
# through; a malformed report or one that matches nothing fails with 2; the log stays short and
# the full tables go to the tables file.
# Usage: gate_test.sh GATE_SCRIPT COLLREPORT FIXTURE_DIR
set -uo pipefail
gate=$1 collreport=$2 fixtures=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME CODE PATTERN [COMPARE_OPTION...]: runs the gate on $work/NAME and checks its exit
# code and output; the full tables go to $work/NAME.tables.md.
expect() {
  local name=$1 want=$2 pattern=$3 got=0
  shift 3
  local output
  output=$(bash "$gate" --reports-dir "$work/$name" --tables "$work/$name.tables.md" \
    "$collreport" -- "$@" 2>&1) || got=$?
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
tree noise_v1 new_noise.csv base_v1.csv
expect noise_v1 0 "judged by intervals 0, by fixed tolerance 112"

tree regression new_regressed.csv base.csv
expect regression 1 "REGRESSION +all_reduce +nccl +4 .*\[\+10\.0%, \+12\.2%\]"
tree regression_v2 new_regressed.csv base_v2.csv
expect regression_v2 1 "REGRESSION +all_reduce +nccl +4 .*\[\+10\.0%, \+12\.2%\]"
tree regression_v1 new_regressed.csv base_v1.csv
expect regression_v1 1 "REGRESSION +all_reduce +nccl +4 .*fixed tolerance: no interval in BASE"

# Options after -- reach compare: the 11% slower median passes a minimum effect of 12%.
tree min_effect new_regressed.csv base.csv
expect min_effect 0 "minimum effect 12%" --min-effect 12

tree wrong new_wrong.csv base.csv
expect wrong 1 "FAILED .* 3 wrong elements"

# check NAME WHAT CONDITION...: one more assertion on the last run.
check() {
  local name=$1 what=$2
  shift 2
  if "$@"; then echo "ok   $name: $what"; else echo "FAIL $name: $what"; failures=$((failures + 1)); fi
}

# The log is short: about 20 lines a report, whatever the number of rows; the tables file holds
# every row and is named in the log.
# A tolerance of 0.1% makes most rows regressions or improvements.
tree noisy_and_slow new_noise.csv base_v1.csv
log=$(bash "$gate" --reports-dir "$work/noisy_and_slow" --tables "$work/noisy.tables.md" \
  "$collreport" -- --tolerance 0.1 2>&1)
rows=$(($(wc -l <"$fixtures/base.csv") - 1))
check noisy_and_slow "log of $(wc -l <<<"$log") lines for one report of $rows rows" \
  test "$(wc -l <<<"$log")" -le 24
check noisy_and_slow "log names the tables file" grep -q "full tables: $work/noisy.tables.md" <<<"$log"
check noisy_and_slow "log says how many rows it left out" grep -qE "\.\.\. and [0-9]+ more rows" <<<"$log"
check noisy_and_slow "tables file lists every row" \
  test "$(grep -cE '^\| (REGRESSION|improved|no change|not compared) \|' "$work/noisy.tables.md")" -eq "$rows"

# Without --tables, the tables go beside the collreport binary (in a copy here, writable).
mkdir -p "$work/bin" && cp "$collreport" "$work/bin/collreport"
log=$(bash "$gate" --reports-dir "$work/noisy_and_slow" "$work/bin/collreport" 2>&1)
check default_tables "beside the binary" grep -q "full tables: $work/bin/gate-reports-tables.md" <<<"$log"
check default_tables "written" test -s "$work/bin/gate-reports-tables.md"

# A report that shares no row with its baseline (config, column 25, changed everywhere) compares
# nothing: bad input, not a pass.
tree disjoint base.csv base.csv
sed -i -E '2,$ s/^(([^,]*,){24})/\1other=1/' "$work/disjoint/h200x4/sweep.csv"
expect disjoint 2 "nothing compared: no row of NEW matches a row of BASE"

tree malformed base.csv base.csv
sed -i '4s/^[0-9]*,/7,/' "$work/malformed/h200x4/sweep.csv"
expect malformed 2 "sweep.csv:4: unknown schema version '7'"

# A second machine without a baseline is listed, and does not change the verdict.
tree unbaselined new_noise.csv base.csv
mkdir -p "$work/unbaselined/h100x1" && cp "$fixtures/new_regressed.csv" "$work/unbaselined/h100x1/sweep.csv"
expect unbaselined 0 "without a baseline \\(not gated\\): h100x1/sweep.csv"

# The gate refuses to run without a collreport binary.
got=0
bash "$gate" --reports-dir "$work/noise" /nonexistent/collreport >/dev/null 2>&1 || got=$?
if [ "$got" != 2 ]; then echo "FAIL missing binary: exit $got (want 2)"; failures=$((failures + 1)); fi

exit $((failures > 0))
