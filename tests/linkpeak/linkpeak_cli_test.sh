#!/usr/bin/env bash
# End-to-end checks of collbench_linkpeak that need no GPU: bad input is one line on stderr naming
# the value with exit status 2; --version names the build; without a GPU it says so (exit 4).
set -u
linkpeak=${1:?usage: linkpeak_cli_test.sh PATH_TO_COLLBENCH_LINKPEAK}
cli_binary=$linkpeak cli_name=collbench_linkpeak
source "$(dirname "$0")/../support/cli_checks.sh"

expect_one_line 2 "--iters 0 is not from 1" --iters 0
expect_one_line 2 "--warmup 5000000 is not from 0" --warmup 5000000
expect_one_line 2 "--gpus -1 is not from 0" --gpus -1
expect_one_line 2 "'0'" --bytes 0
expect_one_line 2 "--directions sideways: unknown direction" --directions sideways
expect_one_line 2 "--bogus" --bogus
if [ "$(bash "$(dirname "$0")/../../ci/gpu-count.sh")" -eq 0 ]; then
  expect_one_line 4 "no CUDA GPU is visible" --iters 1
fi
version=$("$linkpeak" --version); status=$?
if [[ $status -eq 0 && $version == "collbench_linkpeak "* ]]; then
  echo "ok: --version: $version"; passed=$((passed + 1))
else
  echo "FAIL: --version: exit $status, $version"; failures=$((failures + 1))
fi

cli_summary "linkpeak cli"
