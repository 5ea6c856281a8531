#!/usr/bin/env bash
# End-to-end checks of the collbench binary that need no GPU: every bad input gives exactly one
# line on stderr naming the bad value and exit status 2; --list prints case names.
set -u
collbench=${1:?usage: cli_test.sh PATH_TO_COLLBENCH}
cli_binary=$collbench cli_name=collbench
source "$(dirname "$0")/../support/cli_checks.sh"

expect_usage_error "'allreduce'" --ops allreduce --list -g 2
expect_usage_error "'fp17'" -d fp17 --list -g 2
expect_usage_error "'xor'" -o xor --list -g 2
expect_usage_error "larger than --max-bytes" -b 1G -e 1M --list -g 2
expect_usage_error "'0'" -b 0 --list -g 2
expect_usage_error "'4Z'" -e 4Z --list -g 2
expect_usage_error "outside the 2 ranks" --ops broadcast -r 2 --list -g 2
expect_usage_error "--bogus" --bogus
expect_usage_error "--csv '/nonexistent/dir/x.csv' cannot be written" --csv /nonexistent/dir/x.csv
expect_usage_error "--trace '/' cannot be written: is a directory" --trace /
expect_usage_error "ring_ctas=0 is not 1..128" --algo ring:ctas=0 --list -g 2
expect_usage_error "--benchmark_format 'xml'" --benchmark_format=xml --list -g 2
expect_usage_error "--benchmark_filter '('" --benchmark_filter='(' --list -g 2
expect_usage_error "--benchmark_out '/nonexistent/x.json'" --benchmark_out=/nonexistent/x.json --list -g 2
expect_usage_error "--max-noise 101 is not a percentage" --max-noise 101 --list -g 2
expect_usage_error "--check 'x'" -c x --list -g 2
expect_usage_error "--min-time 2 is longer than --max-time 1" --min-time 2 --max-time 1 --max-noise 1 --list -g 2
# The communicator axes: NCCL's names and the allowed ones, CTA limits, split rules.
expect_usage_error "--nccl-algo 'Bus' is not one of Ring, Tree" --nccl-algo Ring,Bus --list -g 2
expect_usage_error "--nccl-proto 'LL64' is not one of LL, LL128, Simple, default" --nccl-proto LL64 --list -g 2
expect_usage_error "--nccl-max-ctas '65' is not a CTA count from 1 to 64" --nccl-max-ctas 65 --list -g 2
expect_usage_error "split rule 'XOR 1' has an unknown operator" --split "XOR 1" --list -g 2
expect_usage_error "outside the 1 ranks of each --split group" --ops broadcast -r 1 --split "MOD 2" --list -g 2
expect_usage_error "--register 'global' is not one of none, local, symmetric, all" --register global --list -g 2
NCCL_MAX_CTAS=0 expect_usage_error "NCCL_MAX_CTAS '0' in the environment is not a CTA count from 1 to 64" --list -g 2
# The hidden --inject-fault: unknown kind, bad rank, fraction outside (0, 1], negative delay.
expect_usage_error "--inject-fault 'slow' is not corrupt_output" --inject-fault slow --list -g 2
expect_usage_error "--inject-fault 'skip_rank:x': rank 'x'" --inject-fault skip_rank:x --list -g 2
expect_usage_error "has fraction '1.5', not a share of the SMs in (0, 1]" --inject-fault slow_rank:1:1.5 --list -g 2
expect_usage_error "has delay '-1'" --inject-fault late_rank:0:-1 --list -g 2
# alltoallv's traffic: spreads in 0..1; a matrix file is read while parsing, and each bad file is
# one line naming the file, the line and the value.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '# bytes from row to column\n0 16\n16 x12\n' > "$scratch/bad.txt"
printf '0 16 32\n16 0 0\n' > "$scratch/short.txt"
printf '0 4K\n64K 16\n' > "$scratch/good.txt"
expect_usage_error "--a2av-spread '2' is outside 0..1" --ops alltoallv --a2av-spread 0,2 --list -g 2
expect_usage_error "--a2av-spread 'x' is not a number" --ops alltoallv --a2av-spread x --list -g 2
expect_usage_error "traffic matrix $scratch/bad.txt line 3: 'x12' is not a byte size" \
  --ops alltoallv --a2av-matrix "$scratch/bad.txt" --list -g 2
expect_usage_error "traffic matrix $scratch/short.txt line 2: only 2 rows of 3 values: not square" \
  --ops alltoallv --a2av-matrix "$scratch/short.txt" --list -g 2
expect_usage_error "traffic matrix $scratch/none.txt: cannot open: No such file or directory" \
  --ops alltoallv --a2av-matrix "$scratch/none.txt" --list -g 2
expect_usage_error "--a2av-matrix $scratch/good.txt is for 2 ranks, and --gpus gives 4,8" \
  --ops alltoallv --a2av-matrix "$scratch/good.txt" --list -g 4,8

# More GPUs than there are: bad input (2) where GPUs are visible, "no GPU" (4) where none is.
err=$("$collbench" -g 64 2>&1 >/dev/null); status=$?
if { [ "$status" -eq 2 ] && [[ $err == *"asks for 64 GPUs"* ]]; } ||
   { [ "$status" -eq 4 ] && [[ $err == *"no CUDA GPU is visible"* ]]; }; then
  echo "ok: collbench -g 64 -> exit $status: $err"; passed=$((passed + 1))
else
  echo "FAIL: collbench -g 64 -> exit $status, stderr: $err"; failures=$((failures + 1))
fi

# --help is collbench's own (options, implementation settings, Google Benchmark's flags, exit
# statuses) in lines a terminal holds; --version names the build.
help=$("$collbench" --help); status=$?
longest=$(printf '%s\n' "$help" | awk '{ if (length > max) max = length } END { print max }')
if [ "$status" -ne 0 ] || [[ $help != *"--algo"* ]] || [[ $help != *"COLLBENCH_RING_CTAS"* ]] ||
   [[ $help != *"--benchmark_filter"* ]] || [[ $help != *"Exit status"* ]] || [ "$longest" -gt 100 ]; then
  echo "FAIL: --help gave exit $status, longest line $longest"; failures=$((failures + 1))
else
  echo "ok: --help ($longest columns at most)"; passed=$((passed + 1))
fi
version=$("$collbench" --version); status=$?
if [[ $status -eq 0 && $version == "collbench "* ]]; then
  echo "ok: --version: $version"; passed=$((passed + 1))
else
  echo "FAIL: --version: $version"; failures=$((failures + 1))
fi

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
  echo "ok: --list printed $cases cases without a GPU"; passed=$((passed + 1))
fi
# alltoallv's rows name their traffic (the default spread, 1): paramcount 0, 4, 8 floats on 2
# ranks, 0 and 4 on 4 ranks.
alltoallv=$(printf '%s\n' "$listing" | grep -c '^alltoallv/nccl:a2av_spread=1/ranks:')
if [ "$alltoallv" -eq 5 ]; then
  echo "ok: --list printed the 5 alltoallv cases"; passed=$((passed + 1))
else
  echo "FAIL: --list printed $alltoallv alltoallv cases (wanted 5)"; failures=$((failures + 1))
fi
# With a matrix: one case per rank count (the 4-rank one is skipped when run), whatever -b/-e.
matrix_listing=$("$collbench" --list -g 2,4 --ops alltoallv --a2av-matrix "$scratch/good.txt" -b 8 -e 1M 2>&1)
if [ "$(printf '%s\n' "$matrix_listing" | grep -c "^alltoallv/nccl:a2av_matrix=$scratch/good.txt/ranks:[24]/float/none/root:-1/out_of_place/bytes:65552\$")" -eq 2 ]; then
  echo "ok: --list printed one matrix case per rank count"; passed=$((passed + 1))
else
  echo "FAIL: --list with a matrix printed: $matrix_listing"; failures=$((failures + 1))
fi
# --repeat 2: the whole sweep twice, the second pass named apart.
listing=$("$collbench" --list --repeat 2 -g 2,4 --ops all -b 8 -e 64 2>&1)
repeated=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl/ranks:')
second=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl/ranks:.*/repeat:1$')
if [ "$repeated" -eq $((2 * expected)) ] && [ "$second" -eq "$expected" ]; then
  echo "ok: --list --repeat 2 printed $repeated cases"; passed=$((passed + 1))
else
  echo "FAIL: --list --repeat 2 printed $repeated cases, $second of the second pass (wanted $((2 * expected)))"
  failures=$((failures + 1))
fi
# --register: each mode's cases named apart (config in the name), plain ones as before.
listing=$("$collbench" --list --register none,local,symmetric -g 2 --ops all_reduce,sendrecv -b 8 -e 64 2>&1)
plain=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl/ranks:')
local_cases=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl:register=local/ranks:')
symmetric_cases=$(printf '%s\n' "$listing" | grep -c '^[a-z_]*/nccl:register=symmetric/ranks:')
if [ "$plain" -eq 12 ] && [ "$local_cases" -eq 12 ] && [ "$symmetric_cases" -eq 12 ]; then
  echo "ok: --list --register printed 12 cases per mode"; passed=$((passed + 1))
else
  echo "FAIL: --list --register printed $plain plain, $local_cases local, $symmetric_cases symmetric cases (wanted 12 each)"
  failures=$((failures + 1))
fi
# The user's NCCL_ALGO/NCCL_PROTO name the cases as --nccl-algo/--nccl-proto do (one key to compare).
by_options=$("$collbench" --list -g 2 --ops all_reduce,alltoallv -b 8 -e 64 --split "MOD 2" --nccl-algo Ring --nccl-proto LL 2>&1)
by_environment=$(NCCL_ALGO=ring NCCL_PROTO=ll "$collbench" --list -g 2 --ops all_reduce,alltoallv -b 8 -e 64 --split "MOD 2" 2>&1)
if [ "$by_options" = "$by_environment" ] && [[ "$by_environment" == *"alltoallv/nccl:a2av_spread=1;nccl_algo=Ring;nccl_proto=LL;split=MOD 2;groups=2/ranks:2/"* ]]; then
  echo "ok: NCCL_ALGO=ring NCCL_PROTO=ll lists the cases of --nccl-algo Ring --nccl-proto LL"; passed=$((passed + 1))
else
  echo "FAIL: NCCL_ALGO/NCCL_PROTO listed other cases than --nccl-algo/--nccl-proto:"
  diff <(printf '%s\n' "$by_options") <(printf '%s\n' "$by_environment") | head -5
  failures=$((failures + 1))
fi
filtered=$("$collbench" --list -g 4 --ops all -b 8 -e 64 --benchmark_filter='^alltoall/' | grep -c '^alltoall/')
if [ "$filtered" -eq 2 ]; then
  echo "ok: --benchmark_filter kept the 2 alltoall cases"; passed=$((passed + 1))
else
  echo "FAIL: --benchmark_filter kept $filtered alltoall cases"; failures=$((failures + 1))
fi

cli_summary "cli"
