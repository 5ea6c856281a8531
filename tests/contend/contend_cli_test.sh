#!/usr/bin/env bash
# collbench_contend's command line without a GPU: bad input is one line on stderr naming the value
# with exit status 2, --help exits 0, and a GPU fault without a GPU says so (exit 4).
set -u
contend=${1:?usage: contend_cli_test.sh PATH_TO_COLLBENCH_CONTEND}
cli_binary=$contend cli_name=collbench_contend
source "$(dirname "$0")/../support/cli_checks.sh"

expect_one_line 2 "no fault" --duration-s 1
expect_one_line 2 "--sm-load two: not a GPU index" --sm-load two
expect_one_line 2 "--link-load 3:3: SRC and DST are one GPU" --link-load 3:3
expect_one_line 2 "--direction needs --link-load" --sm-load 0 --direction both
expect_one_line 2 "--cpu-starve needs --target-rank R" --cpu-starve
expect_one_line 2 "--core 100000: not a core this process may use" --cpu-starve --target-rank 0 --core 100000
expect_one_line 2 "--target-process bin/x: a process name, not a path" --cpu-starve --target-rank 0 --target-process bin/x
expect_one_line 2 'x\x0ay' --sm-load $'x\ny'
# A pasted megabyte is quoted short: the line stays under 200 characters.
long=$(printf '9%.0s' $(seq 1 100000))
err=$("$contend" --sm-load "x$long" 2>&1 >/dev/null)
if [ ${#err} -lt 200 ] && [[ "$err" == *"--sm-load x999"*"...: not a GPU index"* ]]; then
  echo "ok: a 100001-character --sm-load is quoted in ${#err} characters"; passed=$((passed + 1))
else
  echo "FAIL: a 100001-character --sm-load gave ${#err} characters: ${err:0:300}"; failures=$((failures + 1))
fi
expect_one_line 2 "--bogus" --sm-load 0 --bogus
# CLI11's own message quotes an unknown option whole: the line is cut, never inside an escape.
err=$("$contend" --sm-load 0 "--bogus$(printf 'a\n%.0s' $(seq 1 200))" 2>&1 >/dev/null)
[ ${#err} -le 340 ] && [[ "$err" == *'a\x0a...' || "$err" == *'a...' ]]
record "a 600-byte unknown option is cut to ${#err} characters" $? "${err: -60}"
if [ "$(bash "$(dirname "$0")/../../ci/gpu-count.sh")" -eq 0 ]; then
  expect_one_line 4 "no CUDA GPU is visible" --sm-load 0
  expect_one_line 4 "no CUDA GPU is visible" --link-load 0:1
fi
help=$("$contend" --help); status=$?
if [[ $status -eq 0 && $help == *"collbench_contend: ready: <detail>"* ]]; then
  echo "ok: --help"; passed=$((passed + 1))
else
  echo "FAIL: --help: exit $status"; failures=$((failures + 1))
fi

cli_summary "contend cli"
