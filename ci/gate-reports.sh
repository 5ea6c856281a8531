#!/usr/bin/env bash
# CI gate on committed reports: every reports/<machine>/<name>.csv with an accepted baseline
# reports/<machine>/baseline/<name>.csv is judged by `collreport compare BASELINE REPORT`: by the
# median's intervals where both rows have them, by a fixed tolerance elsewhere (the committed
# baselines are schema version 1, without intervals). The log
# gets a short summary per report (verdict counts and the worst rows); the full tables go to a
# Markdown file named at the end (and to $GITHUB_STEP_SUMMARY when set).
# Usage: ci/gate-reports.sh [--reports-dir DIR] [--tables FILE] [COLLREPORT] [-- COMPARE_OPTIONS...]
#   COLLREPORT: the collreport binary; default $COLLREPORT, else build/reports/collreport.
#   --tables FILE: where the full tables go; default gate-reports-tables.md beside COLLREPORT
#     (in the build directory), or in $TMPDIR when that folder is not writable.
#   COMPARE_OPTIONS: passed to collreport compare, e.g. -- --min-effect 3 (the default: the
#     smallest change of the median time that counts, for rows with intervals) or
#     -- --tolerance 5 (the default, for rows without: version 1 reports). Inconclusive rows
#     (intervals too wide to judge) are listed and do not fail.
# Exit: 0 no regression (or no baselines yet), 1 a regression or wrong results, 2 bad input.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
reports_dir=$root/reports
collreport=${COLLREPORT:-}
tables=
compare_options=()
# Rows listed per report in the log: with the verdict and origin lines, about 20 lines a report.
listed_rows=10
while (($#)); do
  case $1 in
    --reports-dir) reports_dir=${2:?--reports-dir needs a folder}; shift 2 ;;
    --tables) tables=${2:?--tables needs a file}; shift 2 ;;
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

if [ -z "$tables" ]; then
  tables=$(dirname "$collreport")/gate-reports-tables.md
  [ -w "$(dirname "$collreport")" ] || tables=${TMPDIR:-/tmp}/gate-reports-tables.md
fi
if ! : 2>/dev/null >"$tables"; then
  echo "ci/gate-reports.sh: cannot write the tables file '$tables' (--tables FILE)" >&2
  exit 2
fi

markdown_file=$(mktemp)
trap 'rm -f "$markdown_file"' EXIT
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
  : >"$markdown_file"
  echo "== reports/$relative vs its baseline"
  # stderr (a bad-input error, one line) joins the short summary in the log.
  "$collreport" compare "${compare_options[@]}" --max-rows "$listed_rows" \
    --markdown "$markdown_file" "$baseline" "$report" 2>&1 || status=$?
  gated=$((gated + 1))
  echo "ci/gate-reports.sh: $relative: exit $status"
  echo
  {
    echo "#### reports/$relative vs its baseline (exit $status)"
    echo
    if [ -s "$markdown_file" ]; then cat "$markdown_file"; else echo "No comparison: see the log."; fi
    echo
  } | tee -a "${GITHUB_STEP_SUMMARY:-/dev/null}" >>"$tables"
  ((status > worst)) && worst=$status
done

# Reports (reports/<machine>/*.csv) that no baseline covers are listed, on one line, so that a
# forgotten baseline is noticed.
unbaselined=()
while IFS= read -r report; do
  [ -f "$(dirname "$report")/baseline/$(basename "$report")" ] ||
    unbaselined+=("${report#"$reports_dir"/}")
done < <(find "$reports_dir" -mindepth 2 -maxdepth 2 -name '*.csv' | sort)
if ((${#unbaselined[@]} > 0)); then
  echo "ci/gate-reports.sh: ${#unbaselined[@]} report(s) without a baseline (not gated):" \
       "${unbaselined[*]}"
fi
echo "ci/gate-reports.sh: full tables: $tables"
case $worst in
  0) echo "ci/gate-reports.sh: PASS ($gated report(s) compared)" ;;
  1) echo "ci/gate-reports.sh: FAIL: regression or wrong results (see the rows above)" ;;
  *) echo "ci/gate-reports.sh: FAIL: bad input (see the errors above)" ;;
esac
exit "$worst"
