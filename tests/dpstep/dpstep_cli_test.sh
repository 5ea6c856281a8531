#!/usr/bin/env bash
# End-to-end checks of collbench_dpstep that need no GPU: every bad value gives exactly one line
# on stderr naming it and exit status 2; --list prints the sweep, honouring --benchmark_filter.
set -u
dpstep=${1:?usage: dpstep_cli_test.sh PATH_TO_COLLBENCH_DPSTEP}
cli_binary=$dpstep cli_name=collbench_dpstep
source "$(dirname "$0")/../support/cli_checks.sh"

expect_usage_error "fp17" --dtype fp17 --list
expect_usage_error "--sync async: unknown sync mode" --sync overlap,async --list
expect_usage_error "--bucket-mib 0" --bucket-mib 0 --list
expect_usage_error "--gpus '0'" -g 0 --list
expect_usage_error "--width 100" --width 100 --list
expect_usage_error "--algo nosuch" --algo nosuch --list
expect_usage_error "--layers many: not a whole number" --layers many --list
expect_usage_error "--bogus" --bogus
expect_usage_error "--csv '/nonexistent/dir/x.csv' cannot be written" --csv /nonexistent/dir/x.csv
expect_usage_error "--launcher 'srun'" --launcher srun --list
expect_usage_error "--algo copy_engine+ring: unknown all-reduce algorithm" --algo copy_engine+ring --list
expect_usage_error "--last-bucket-algo nosuch: unknown all-reduce algorithm" --last-bucket-algo nosuch --list
expect_usage_error "'2' is not SETTING=VALUE" --last-bucket-algo ring:2 --list
expect_usage_error "--comm-schedule deferred: unknown communication schedule" --comm-schedule deferred --list
# Options of experiments that did not pay are gone.
expect_usage_error "--wgrad-split" --wgrad-split last --list
expect_usage_error "--last-layer-buckets" --last-layer-buckets 2 --list
expect_usage_error "--defer-first" --defer-first 2 --list
# A launcher asked for but absent from the environment.
expect_usage_error "--launcher env: no launcher variables" --list --launcher env

listing=$("$dpstep" --list -g 1,2,4 --sync sync,overlap,ps,sharded --bucket-mib 4,25,100 2>&1); status=$?
configs=$(printf '%s\n' "$listing" | grep -c '^dp_step/')
# sync: 3 rank counts; overlap, ps, sharded: 3 buckets x 3 rank counts each.
if [ "$status" -ne 0 ] || [ "$configs" -ne $((3 + 3 * 9)) ]; then
  echo "FAIL: --list gave exit $status and $configs configurations"; failures=$((failures + 1))
else
  echo "ok: --list printed $configs configurations without a GPU"; passed=$((passed + 1))
fi
if ! printf '%s\n' "$listing" | grep -q 'layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;algo=nccl'; then
  echo "FAIL: --list does not show the config string"; failures=$((failures + 1))
else
  passed=$((passed + 1))
fi
filtered=$("$dpstep" --list -g 1,4 --sync sync,overlap --benchmark_filter='overlap.*ranks:4' | grep -c '^dp_step/')
if [ "$filtered" -ne 1 ]; then
  echo "FAIL: --benchmark_filter kept $filtered configurations"; failures=$((failures + 1))
else
  passed=$((passed + 1))
fi
last=$("$dpstep" --list -g 1,4 --sync overlap --algo copy_engine --last-bucket-algo same,ring 2>&1); status=$?
if [ "$status" -ne 0 ] || [ "$(printf '%s\n' "$last" | grep -c '^dp_step/overlap/bucket_mib:25/algo:copy_engine/last_bucket:ring/ranks:[14] .*;last_bucket_algo=ring')" -ne 2 ] || \
   [ "$(printf '%s\n' "$last" | grep -c '^dp_step/overlap/bucket_mib:25/algo:copy_engine/ranks:')" -ne 2 ]; then
  echo "FAIL: --list of last-bucket algorithms gave exit $status: $last"; failures=$((failures + 1))
else
  echo "ok: --list shows each last-bucket algorithm at 1 and 4 GPUs"; passed=$((passed + 1))
fi
best=$("$dpstep" --list -g 1,4 --preset best --bucket-mib 25 2>&1); status=$?
if [ "$status" -ne 0 ] || [ "$(printf '%s\n' "$best" | grep -c '^dp_step/overlap/bucket_mib:25/algo:copy_engine/comm_schedule:pipelined/last_bucket:ring/lockstep:1/graph_memsets:kernel/ranks:[14] ')" -ne 2 ]; then
  echo "FAIL: --list --preset best --bucket-mib 25 gave exit $status: $best"; failures=$((failures + 1))
else
  echo "ok: --preset best, its bucket size overridden"; passed=$((passed + 1))
fi
expect_usage_error "--preset fastest: unknown preset" --preset fastest --list
"$dpstep" --help | grep -q -- '  best: ' || { echo "FAIL: --help lacks the presets"; failures=$((failures + 1)); }
"$dpstep" --help | grep -q -- '--bucket-mib' || { echo "FAIL: --help"; failures=$((failures + 1)); }
"$dpstep" --help | grep -q -- '--launcher' || { echo "FAIL: --help lacks --launcher"; failures=$((failures + 1)); }

# One process per GPU (torchrun's variables): GPU counts follow the launch size, not the visible
# GPUs (none here), and only world rank 0 prints.
torchrun_env=(env WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500)
rank0=$("${torchrun_env[@]}" RANK=0 LOCAL_RANK=0 "$dpstep" --list --sync overlap 2>&1); status=$?
if [ "$status" -ne 0 ] || [ "$(printf '%s\n' "$rank0" | grep -c '^dp_step/')" -ne 2 ] || \
   ! printf '%s\n' "$rank0" | grep -q 'ranks:4'; then
  echo "FAIL: --list as rank 0 of 4 gave exit $status: $rank0"; failures=$((failures + 1))
else
  echo "ok: --list as rank 0 of 4 processes lists 1 and 4 ranks"; passed=$((passed + 1))
fi
rank1=$("${torchrun_env[@]}" RANK=1 LOCAL_RANK=1 "$dpstep" --list --sync overlap 2>&1); status=$?
if [ "$status" -ne 0 ] || [ -n "$rank1" ]; then
  echo "FAIL: --list as rank 1 gave exit $status and printed: $rank1"; failures=$((failures + 1))
else
  echo "ok: --list as rank 1 prints nothing"; passed=$((passed + 1))
fi

cli_summary "dpstep cli"
