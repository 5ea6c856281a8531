#!/usr/bin/env bash
# CI gate on committed reports: every reports/<machine>/<name>.csv with an accepted baseline
# reports/<machine>/baseline/<name>.csv is judged by `collreport compare BASELINE REPORT`; the
# Markdown summaries go to the log (and to $GITHUB_STEP_SUMMARY when set).
# Usage: ci/gate-reports.sh [--reports-dir DIR] [COLLREPORT] [-- COMPARE_OPTIONS...]
#   COLLREPORT: the collreport binary; default $COLLREPORT, else build/reports/collreport.
#   COMPARE_OPTIONS: passed to collreport compare, e.g. -- --tolerance 7
# Exit: 0 no regression (or no baselines yet), 1 a regression or wrong results, 2 bad input.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reports_dir=$root/reports
collreport=${COLLREPORT:-}
compare_options=()
while (($#)); do
  case $1 in
    --reports-dir) reports_dir=${2:?--reports-dir needs a folder}; shift 2 ;;
    --) shift; compare_options=("$@"); break ;;
    -*) echo "ci/gate-reports.sh: unknown option '$1'" >&2; exit 2 ;;
    *) collreport=$1; shift ;;
  esac
done
mapfile -t baselines < <(find "$reports_dir" -mindepth 3 -maxdepth 3 -path '*/baseline/*.csv' | sort)
if ((${#baselines[@]} == 0)); then
  echo "ci/gate-reports.sh: no baselines under $reports_dir/<machine>/baseline/ yet: nothing to gate (pass)"
  exit 0
fi

if [ -z "$collreport" ]; then
  for candidate in "$root/build/reports/collreport" "$root/build/collreport"; do
    if [ -x "$candidate" ]; then collreport=$candidate; break; fi
  done
fi
if [ -z "$collreport" ] || [ ! -x "$collreport" ]; then
  echo "ci/gate-reports.sh: collreport binary '${collreport:-build/reports/collreport}' not found;" \
       "build it (ninja -C build collreport) or pass its path" >&2
  exit 2
fi

summary_file=$(mktemp)
trap 'rm -f "$summary_file"' EXIT
worst=0
gated=0
for baseline in "${baselines[@]}"; do
  machine_dir=$(dirname "$(dirname "$baseline")")
  relative=${machine_dir#"$reports_dir"/}/$(basename "$baseline")
  report=$reports_dir/$relative
  if [ ! -f "$report" ]; then
    echo "ci/gate-reports.sh: baseline of $relative has no report reports/$relative (not gated)"
    continue
  fi
  status=0
  "$collreport" compare "${compare_options[@]}" --markdown "$summary_file" "$baseline" "$report" \
    >/dev/null || status=$?
  gated=$((gated + 1))
  echo "ci/gate-reports.sh: $relative: exit $status"
  if [ -s "$summary_file" ]; then
    { echo "#### reports/$relative vs its baseline"; echo; cat "$summary_file"; echo; } |
      tee -a "${GITHUB_STEP_SUMMARY:-/dev/null}"
  fi
  : >"$summary_file"
  ((status > worst)) && worst=$status
done

# Reports (reports/<machine>/*.csv) that no baseline covers are listed so that a forgotten
# baseline is noticed.
while IFS= read -r report; do
  relative=${report#"$reports_dir"/}
  [ -f "$(dirname "$report")/baseline/$(basename "$report")" ] ||
    echo "ci/gate-reports.sh: $relative has no baseline (not gated)"
done < <(find "$reports_dir" -mindepth 2 -maxdepth 2 -name '*.csv' | sort)

case $worst in
  0) echo "ci/gate-reports.sh: PASS ($gated report(s) compared)" ;;
  1) echo "ci/gate-reports.sh: FAIL: regression or wrong results (see the tables above)" ;;
  *) echo "ci/gate-reports.sh: FAIL: bad input (see the errors above)" ;;
esac
exit "$worst"
