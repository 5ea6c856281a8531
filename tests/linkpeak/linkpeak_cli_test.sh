#!/usr/bin/env bash
# End-to-end checks of collbench_linkpeak that need no GPU: bad input is one line on stderr naming
# the value with exit status 2; --version names the build; without a GPU it says so (exit 4).
set -u
linkpeak=${1:?usage: linkpeak_cli_test.sh PATH_TO_COLLBENCH_LINKPEAK}
passed=0 failures=0

check() {  # check WANT_STATUS FRAGMENT ARGS...: one stderr line containing FRAGMENT, that status
  local want=$1 fragment=$2; shift 2
  local err status
  err=$("$linkpeak" "$@" 2>&1 >/dev/null); status=$?
  if [ "$status" -ne "$want" ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$fragment"* ]]; then
    echo "FAIL: collbench_linkpeak $* -> exit $status, stderr: $err (wanted $want, one line with '$fragment')"
    failures=$((failures + 1))
  else
    echo "ok: collbench_linkpeak $* -> $err"; passed=$((passed + 1))
  fi
}

check 2 "--iters 0 is not from 1" --iters 0
check 2 "--warmup 5000000 is not from 0" --warmup 5000000
check 2 "--gpus -1 is not from 0" --gpus -1
check 2 "'0'" --bytes 0
check 2 "--directions sideways: unknown direction" --directions sideways
check 2 "--bogus" --bogus
if [ "$(bash "$(dirname "$0")/../../ci/gpu-count.sh")" -eq 0 ]; then
  check 4 "no CUDA GPU is visible" --iters 1
fi
version=$("$linkpeak" --version); status=$?
if [[ $status -eq 0 && $version == "collbench_linkpeak "* ]]; then
  echo "ok: --version: $version"; passed=$((passed + 1))
else
  echo "FAIL: --version: exit $status, $version"; failures=$((failures + 1))
fi

echo "linkpeak cli: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
