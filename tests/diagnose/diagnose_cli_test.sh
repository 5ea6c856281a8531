#!/usr/bin/env bash
# collbench_diagnose end to end without a GPU: --help, --list, and bad input as one line naming
# the value with exit status 2.
set -u
diagnose=${1:?usage: diagnose_cli_test.sh PATH_TO_COLLBENCH_DIAGNOSE}
cli_binary=$diagnose cli_name=collbench_diagnose
source "$(dirname "$0")/../support/cli_checks.sh"

help=$("$diagnose" --help 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$help" == *"--slow-ratio"* ]] && [[ "$help" != *"--inject"* ]]
record "--help names the options, not the hidden faults" $? "exit $status"

listed=$("$diagnose" --list 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$listed" == *"diagnose/ranks:"* ]]
record "--list without a GPU" $? "exit $status: $listed"

expect_usage_error "--slow-ratio 1.5 is not above 0 and at most 1" --slow-ratio 1.5 --list
expect_usage_error "--inject 'slow_gpu:x'" --inject slow_gpu:x --list
expect_usage_error "--pair-bytes 4K is less than" --pair-bytes 4K --list
expect_usage_error "--json '/nonexistent/d.json' cannot be written" --json /nonexistent/d.json
expect_usage_error "--bogus" --bogus

cli_summary "diagnose cli"
