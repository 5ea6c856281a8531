#!/usr/bin/env bash
# collbench_diagnose end to end without a GPU: --help, --list, and bad input as one line naming
# the value with exit status 2.
set -u
diagnose=${1:?usage: diagnose_cli_test.sh PATH_TO_COLLBENCH_DIAGNOSE}
failures=0
passed=0

check() {  # check NAME CONDITION-RESULT MESSAGE
  if [ "$2" = 0 ]; then echo "ok: $1"; passed=$((passed + 1)); else echo "FAIL: $1: $3"; failures=$((failures + 1)); fi
}

expect_usage_error() {
  local fragment=$1; shift
  local err status
  err=$("$diagnose" "$@" 2>&1 >/dev/null); status=$?
  [ "$status" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$fragment"* ]]
  check "collbench_diagnose $*" $? "exit $status, stderr: $err (wanted exit 2, one line containing '$fragment')"
}

help=$("$diagnose" --help 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$help" == *"--slow-ratio"* ]] && [[ "$help" != *"--inject"* ]]
check "--help names the options, not the hidden faults" $? "exit $status"

listed=$("$diagnose" --list 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$listed" == *"diagnose/ranks:"* ]]
check "--list without a GPU" $? "exit $status: $listed"

expect_usage_error "--slow-ratio 1.5 is not above 0 and at most 1" --slow-ratio 1.5 --list
expect_usage_error "--inject 'slow_gpu:x'" --inject slow_gpu:x --list
expect_usage_error "--pair-bytes 4K is less than" --pair-bytes 4K --list
expect_usage_error "--json '/nonexistent/d.json' cannot be written" --json /nonexistent/d.json
expect_usage_error "--bogus" --bogus

echo "diagnose cli: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
