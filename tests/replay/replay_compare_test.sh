#!/usr/bin/env bash
# Two replays' --csv rows through collreport: summary reads them; compare pairs every row of two
# identical replays (PASS, judged by intervals), and names the one row made 20% slower a
# REGRESSION (exit 1); two combinations of the swept settings pair across their protocol.
set -u
tool=${1:?usage: replay_compare_test.sh REPLAY_ROWS_TOOL COLLREPORT}
collreport=${2:?usage: replay_compare_test.sh REPLAY_ROWS_TOOL COLLREPORT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check NAME STATUS DETAIL
  if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAILED: $1: $3"; failures=$((failures + 1)); fi
}

"$tool" "$work/base.csv" && "$tool" "$work/same.csv" && "$tool" "$work/slower.csv" 1.2
check "the tool writes three replays" $? ""

out=$("$collreport" summary "$work/base.csv" 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$out" == *"replay_window"* ]] && [[ "$out" == *"sendrecv"* ]] &&
  [[ "$out" == *"bfloat16"* ]]
check "summary reads the rows" $? "exit $status: $out"

out=$("$collreport" compare "$work/base.csv" "$work/same.csv" 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$out" == *"PASS"* ]] && [[ "$out" == *"judged by intervals 6, by fixed tolerance 0"* ]]
check "identical replays pass, every row judged by intervals" $? "exit $status: $out"

out=$("$collreport" compare "$work/base.csv" "$work/slower.csv" --all 2>&1); status=$?
regression=$(printf '%s\n' "$out" | grep -cE '^REGRESSION +all_reduce +nccl +2 +bfloat16 ')
[ "$status" -eq 1 ] && [[ "$out" == *"FAIL: 1 regression, 0 failed rows"* ]] && [ "$regression" -eq 1 ]
check "the bfloat16 all_reduce 20% slower is a regression" $? "exit $status: $out"

"$tool" "$work/ll.csv" 1 LL && "$tool" "$work/simple.csv" 1.2 Simple
check "the tool writes two combinations" $? ""
grep -q ';nccl_proto=LL,' "$work/ll.csv" && grep -q ';nccl_proto=Simple,' "$work/simple.csv"
check "each combination's rows name its protocol in config" $? "$(head -3 "$work/ll.csv")"
out=$("$collreport" compare "$work/ll.csv" "$work/simple.csv" --across nccl_proto --all 2>&1); status=$?
regression=$(printf '%s\n' "$out" | grep -cE '^REGRESSION +all_reduce +nccl +2 +bfloat16 ')
[ "$status" -eq 1 ] && [[ "$out" == *"FAIL: 1 regression, 0 failed rows"* ]] && [ "$regression" -eq 1 ] &&
  [[ "$out" == *"judged by intervals 6"* ]]
check "--across nccl_proto pairs every row of two combinations" $? "exit $status: $out"

exit $((failures > 0))
