#!/usr/bin/env bash
# End-to-end checks of the collbench binary that need no GPU: every bad input gives exactly one
# line on stderr naming the bad value and exit status 2; --list prints case names.
set -u
collbench=${1:?usage: cli_test.sh PATH_TO_COLLBENCH}
failures=0

expect_usage_error() {
  local fragment=$1; shift
  local err status
  err=$("$collbench" "$@" 2>&1 >/dev/null); status=$?
  if [ "$status" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$fragment"* ]]; then
    echo "FAIL: collbench $* -> exit $status, stderr: $err (wanted exit 2, one line containing '$fragment')"
    failures=$((failures + 1))
  else
    echo "ok: collbench $* -> $err"
  fi
}

expect_usage_error "'allreduce'" --ops allreduce --list -g 2
expect_usage_error "'fp17'" -d fp17 --list -g 2
expect_usage_error "'xor'" -o xor --list -g 2
expect_usage_error "larger than --max-bytes" -b 1G -e 1M --list -g 2
expect_usage_error "'0'" -b 0 --list -g 2
expect_usage_error "'4Z'" -e 4Z --list -g 2
expect_usage_error "outside the 2 ranks" --ops broadcast -r 2 --list -g 2
expect_usage_error "asks for 64 GPUs" -g 64
expect_usage_error "--bogus" --bogus

listing=$("$collbench" --list -g 2,4 --ops all -b 8 -e 64 2>&1); status=$?
cases=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl/ranks:')
# Per rank count: all_reduce, broadcast, reduce 4 sizes x 2 places, sendrecv 4 sizes; the
# block-rounded ops keep only sizes that move a new count (floats, 16-byte lines per rank):
# on 2 ranks 0, 4, 8 elements (3 sizes), on 4 ranks 0, 4 (2 sizes); all_gather, reduce_scatter,
# gather and scatter in and out of place, alltoall out of place only.
expected=$(( 2 * (3 * 8 + 4) + (4 * 3 * 2 + 3) + (4 * 2 * 2 + 2) ))
if [ "$status" -ne 0 ] || [ "$cases" -ne "$expected" ]; then
  echo "FAIL: --list gave exit $status and $cases cases"; failures=$((failures + 1))
else
  echo "ok: --list printed $cases cases without a GPU"
fi
filtered=$("$collbench" --list -g 4 --ops all -b 8 -e 64 --benchmark_filter='^alltoall/' | grep -c '^alltoall/')
[ "$filtered" -eq 2 ] || { echo "FAIL: --benchmark_filter kept $filtered alltoall cases"; failures=$((failures + 1)); }

echo "cli: $((9 + 2 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
