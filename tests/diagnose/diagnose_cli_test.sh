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

# --from with --link-peak: a link loaded both ways between the only two GPUs (2xH100, committed)
# has no suspect once its saved link peak is taken out, and slow_link 0,1 against the link peak
# given now; a bad --link-peak file is bad input.
reports="$(dirname "$0")/../../reports/h100x2"
saved=$(mktemp --suffix=.json)
trap 'rm -f "$saved"' EXIT
sed 's/"link_peak_gbps": [0-9.e+]*/"link_peak_gbps": 0/' "$reports/diagnosis/real_link_both_single_1.json" > "$saved"
out=$("$diagnose" --from "$saved" 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$out" == *"Verdict: no suspect"* ]]
record "--from a link_both run without its link peak: no suspect" $? "exit $status: ${out: -200}"
out=$("$diagnose" --from "$saved" --link-peak "$reports/link_peak.csv" 2>&1); status=$?
[ "$status" -eq 1 ] && [[ "$out" == *"slow_link     ranks 0 and 1"*"against the link peak 396"* ]]
record "--from the same run with --link-peak: slow_link 0,1" $? "exit $status: ${out: -200}"
expect_usage_error "/nonexistent/peak.csv: cannot open" --from "$saved" --link-peak /nonexistent/peak.csv

cli_summary "diagnose cli"
