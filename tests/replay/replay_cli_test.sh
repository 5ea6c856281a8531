#!/usr/bin/env bash
# collbench_replay end to end on the fixtures and on hostile variants of them made here: each bad
# input (truncated JSON, missing INIT lines, a rank's file missing, mismatched sequence numbers, an
# unknown dtype, a send without its receive, a deadlock, a workload that is no grid, run's options,
# its swept settings, and a workload run refuses before any GPU work) must give exactly one line naming the place and
# the value, exit status 2, and no half-written output.
set -u
replay=${1:?usage: replay_cli_test.sh PATH_TO_COLLBENCH_REPLAY FIXTURE_DIR}
fixtures=${2:?usage: replay_cli_test.sh PATH_TO_COLLBENCH_REPLAY FIXTURE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cli_binary=$replay cli_name=collbench_replay
source "$(dirname "$0")/../support/cli_checks.sh"

expect_ok() {  # expect_ok FRAGMENT ARGS...: exit 0, stdout holding FRAGMENT
  local fragment=$1; shift
  local out status
  out=$("$replay" "$@" 2>&1); status=$?
  [ "$status" -eq 0 ] && [[ "$out" == *"$fragment"* ]]
  record "collbench_replay $(echo "$*" | sed "s|$work/||g; s|$fixtures/||g")" $? "exit $status: $out"
}

expect_refusal() {  # expect_refusal FRAGMENT ARGS...: exit 2, one line on stderr holding FRAGMENT
  local fragment=$1; shift
  local err status
  err=$("$replay" "$@" 2>&1 >/dev/null); status=$?
  [ "$status" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$fragment"* ]]
  record "refuses: $fragment" $? "exit $status, stderr: $err (wanted exit 2, one line containing '$fragment')"
}

# copy JOB KIND DIR: the job's files of one kind (nccl, kineto, fr) into DIR.
copy() { mkdir -p "$3"; cp "$fixtures/$1/$2".* "$3/"; }

# --- what exists, and the fixtures' happy paths
help=$("$replay" --help 2>&1); status=$?
[ "$status" -eq 0 ] && [[ "$help" == *"import SOURCE..."* ]] && [[ "$help" == *"rescale FILE.jsonl --ranks N"* ]] &&
  [[ "$help" == *"run FILE.jsonl | SOURCE... [-w N] [-n N] [--check] [--gaps]"* ]] && [[ "$help" == *"--launcher"* ]]
record "--help names import, check, rescale, summary and run" $? "exit $status"
expect_ok "collbench_replay 0." --version
expect_ok "assumed:" import "$fixtures"/tp_dp/nccl.*.log -o "$work/tp_dp.jsonl"
expect_ok "ok: 4 ranks, 5 communicators, 180 ops" check "$work/tp_dp.jsonl"
expect_ok "ok: 4 ranks, 1 communicators, 108 ops (3 collectives, 48 send/recv pairs, 12 groups)" check "$fixtures"/pipeline/kineto.*
expect_ok "8 ranks (4 data-parallel x 2 tensor-parallel) from 4 (2 x 2)" rescale "$work/tp_dp.jsonl" --ranks 8 -o "$work/tp_dp8.jsonl"
expect_ok "rescaled from 4 ranks to 8" summary "$work/tp_dp8.jsonl"
expect_ok "ok: 4 ranks" check --from flight-recorder "$fixtures"/moe/fr.*

# --- truncated JSON: a profiler trace, a dump, a workload
copy ddp kineto "$work/kineto_cut"
gzip -dc "$fixtures/ddp/kineto.rank2.json.gz" | head -c 30000 | gzip > "$work/kineto_cut/kineto.rank2.json.gz"
expect_refusal "kineto.rank2.json.gz: not a JSON trace (" check "$work"/kineto_cut/*
head -c 30000 "$fixtures/ddp/kineto.rank1.json.gz" > "$work/kineto_cut/kineto.rank1.json.gz"
expect_refusal "kineto.rank1.json.gz: cannot be decompressed" check "$work"/kineto_cut/kineto.rank1.json.gz
copy tp_dp kineto "$work/kineto_pg"
gzip -dc "$fixtures/tp_dp/kineto.rank0.json.gz" | sed 's/"pg_name": "4314d7ee2124be4609c7b955eb07bdf5e29f70ab"/"pg_name": "0"/' |
  gzip > "$work/kineto_pg/kineto.rank0.json.gz"
expect_refusal "kineto.rank0.json.gz: distributedInfo.pg_config names process group '0' twice, with ranks 0,1,2,3 and 0,2" \
  check "$work"/kineto_pg/*
copy ddp fr "$work/fr_cut"
head -c 3000 "$fixtures/ddp/fr.rank3.json" > "$work/fr_cut/fr.rank3.json"
expect_refusal "fr.rank3.json: not a JSON dump (" import "$work"/fr_cut/* -o "$work/fr_cut.jsonl"
[ ! -e "$work/fr_cut.jsonl" ] && ! ls "$work"/fr_cut.jsonl.tmp* >/dev/null 2>&1
record "a refused import leaves no output behind" $? "$(ls "$work")"
head -c 2000 "$work/tp_dp.jsonl" > "$work/cut.jsonl"
expect_refusal "cut.jsonl:$(head -c 2000 "$work/tp_dp.jsonl" | wc -l | awk '{print $1 + 1}'): not JSON (" check "$work/cut.jsonl"

# --- missing INIT lines; a rank's file missing (each source)
copy ddp nccl "$work/no_init"
grep -v "Init START\|Init COMPLETE" "$fixtures/ddp/nccl.vm.5975.log" > "$work/no_init/nccl.vm.5975.log"
expect_refusal "comm '0x3b938730' has no INIT line before it in this log" import "$work"/no_init/* -o "$work/no_init.jsonl"
copy ddp nccl "$work/three_logs" && rm "$work/three_logs/nccl.vm.5977.log"
expect_refusal "commId 0x57256b02ad2efdbe has 4 ranks but 3 of the logs given show it: its rank 3" check "$work"/three_logs/*
expect_refusal "no trace of rank 3 (world_size 4" check "$fixtures"/ddp/kineto.rank[012].json.gz
expect_refusal "no dump of rank 3 (the process groups hold ranks 0-3" check "$fixtures"/ddp/fr.rank[012].json

# --- mismatched sequence numbers in a dump; an op one member never issued, in a workload
copy subgroups fr "$work/seq"
sed 's/"collective_seq_id":3,/"collective_seq_id":4,/' "$fixtures/subgroups/fr.rank2.json" > "$work/seq/fr.rank2.json"
expect_refusal "fr.rank2.json:entries[3]: seq 4 after seq 4 on rank 2" check "$work"/seq/*
grep -v '"rank":2,"comm":1,"seq":3,' "$work/tp_dp.jsonl" > "$work/seq.jsonl"
expect_refusal "all_reduce seq 3 on communicator 1 (ranks 0,2): rank 2 never issues it" check "$work/seq.jsonl"

# --- unknown dtypes: NCCL's enum, PyTorch's names
copy moe nccl "$work/dtype_log"
sed '0,/datatype 7 /s//datatype 42 /' "$fixtures/moe/nccl.vm.6270.log" > "$work/dtype_log/nccl.vm.6270.log"
expect_refusal "datatype 42 is no ncclDataType_t collbench knows (0-9)" import "$work"/dtype_log/* -o "$work/dtype.jsonl"
copy moe fr "$work/dtype_fr"
sed 's/"input_dtypes":\["Float"\]/"input_dtypes":["Short"]/' "$fixtures/moe/fr.rank1.json" > "$work/dtype_fr/fr.rank1.json"
expect_refusal "fr.rank1.json:entries[3]: dtype 'Short' is not one collbench replays" check "$work"/dtype_fr/*

# --- a send without its receive (the pipeline's first recv on rank 1 deleted: its later recvs
# count one short, so rank 0's last send to it is the one left over)
copy pipeline nccl "$work/no_recv"
sed '0,/NCCL INFO Recv:/{/NCCL INFO Recv:/d}' "$fixtures/pipeline/nccl.vm.6339.log" > "$work/no_recv/nccl.vm.6339.log"
expect_refusal "nccl.vm.6338.log:212: send of 10240 float to rank 1 (seq 9 on communicator 0 (ranks 0,1)) has no matching recv on rank 1" check "$work"/no_recv/*

# --- a deadlock: two communicators all-reduced in opposite orders
{
  echo '{"format":"collbench-workload","version":1,"source":"hand","source_files":[],"nccl_version":null,"nccl_env":{},"world_size":2,"assumptions":[],"time_origin_ns":null}'
  echo '{"communicator":0,"ranks":[0,1],"names":["a"]}'
  echo '{"communicator":1,"ranks":[0,1],"names":["b"]}'
  echo '{"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":4,"redop":"sum","stream":0}'
  echo '{"rank":0,"comm":1,"seq":0,"op":"all_reduce","dtype":"float","count":4,"redop":"sum","stream":0}'
  echo '{"rank":1,"comm":1,"seq":0,"op":"all_reduce","dtype":"float","count":4,"redop":"sum","stream":0}'
  echo '{"rank":1,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":4,"redop":"sum","stream":0}'
} > "$work/cycle.jsonl"
expect_refusal "cycle.jsonl:4: deadlock: rank 0 issues all_reduce seq 0 on communicator 0 (ranks 0,1)" check "$work/cycle.jsonl"

# --- rescaling what is no grid, or names peers across replicas
"$replay" import "$fixtures"/pipeline/nccl.*.log -o "$work/pipeline.jsonl" >/dev/null
expect_refusal "not a data-parallel x tensor-parallel grid: communicator 2 (ranks 1,2)" rescale "$work/pipeline.jsonl" --ranks 8 -o "$work/p8.jsonl"
"$replay" import "$fixtures"/moe/kineto.* -o "$work/moe.jsonl" >/dev/null
expect_refusal "cannot rescale: alltoallv names particular peers" rescale "$work/moe.jsonl" --ranks 8 -o "$work/moe8.jsonl"
expect_refusal "--ranks 3: not a multiple of the 2 ranks" rescale "$work/tp_dp.jsonl" --ranks 3 -o "$work/t3.jsonl"

# --- the command line itself
expect_refusal "--ranks 0 is not a rank count from 1 to" rescale "$work/tp_dp.jsonl" --ranks 0 -o "$work/x.jsonl"
expect_refusal "--from nccl: unknown source kind (expected nccl-log, kineto, flight-recorder)" check --from nccl "$work/tp_dp.jsonl"
expect_refusal "--redop mean: unknown reduction" import --redop mean "$fixtures"/ddp/fr.* -o "$work/x.jsonl"
expect_refusal "COMMAND replay: unknown subcommand (expected import, check, rescale, summary, run)" replay "$work/tp_dp.jsonl"
expect_refusal "a subcommand is needed" --from kineto
expect_refusal "--ranks: not an option of check" check "$work/tp_dp.jsonl" --ranks 8
expect_refusal "import: -o FILE.jsonl is needed" import "$fixtures"/ddp/fr.*
expect_refusal "summary: takes one workload, given 2 files" summary "$work/tp_dp.jsonl" "$work/tp_dp8.jsonl"
expect_refusal "a flight-recorder among nccl-log files" check "$fixtures/ddp/nccl.vm.5974.log" "$fixtures/ddp/fr.rank1.json"
expect_refusal "/nonexistent/x.jsonl: cannot be written" import "$fixtures"/ddp/fr.* -o /nonexistent/x.jsonl
expect_refusal "missing.log: cannot be read" check "$work/missing.log"

# --- run: its options, and what it refuses before any GPU work (this machine may have none)
expect_refusal "cycle.jsonl:4: deadlock: rank 0 issues all_reduce seq 0 on communicator 0 (ranks 0,1)" run "$work/cycle.jsonl"
expect_refusal "fr.rank2.json:entries[3]: seq 4 after seq 4 on rank 2" run "$work"/seq/*
expect_refusal "no dump of rank 3 (the process groups hold ranks 0-3" run "$fixtures"/ddp/fr.rank[012].json
expect_refusal "--iters 0 is not from 1 to 100000" run "$work/tp_dp.jsonl" -n 0
expect_refusal "--warmup -1 is not from 0 to 10000" run "$work/tp_dp.jsonl" -w -1
expect_refusal "--timeout 0 is not above 0" run "$work/tp_dp.jsonl" --timeout 0
expect_refusal "--launcher 'bogus' is not one of auto, single, mpi, env" run "$work/tp_dp.jsonl" --launcher bogus
expect_refusal "--ranks: not an option of run" run "$work/tp_dp.jsonl" --ranks 8
expect_refusal "--output: not an option of run" run "$work/tp_dp.jsonl" -o "$work/x.jsonl"
expect_refusal "--redop: applies to sources, not to a workload" run "$work/tp_dp.jsonl" --redop max
expect_refusal "--json '/nonexistent/x.json' cannot be written" run "$work/tp_dp.jsonl" --json /nonexistent/x.json
expect_refusal "--csv '/nonexistent/x.csv' cannot be written" run "$work/tp_dp.jsonl" --csv /nonexistent/x.csv
expect_refusal "--ops-csv '/nonexistent/ops.csv' cannot be written" run "$work/tp_dp.jsonl" --ops-csv /nonexistent/ops.csv
expect_refusal "--ops-csv: 1 required TEXT missing" run "$work/tp_dp.jsonl" --ops-csv
NCCL_MAX_CTAS=0 expect_refusal "NCCL_MAX_CTAS '0' in the environment is not a CTA count from 1 to 64" run "$work/tp_dp.jsonl"
expect_refusal "run: takes source files or one workload, given 0 files" run
# The swept settings: collbench's declarations, names and values.
expect_refusal "--nccl-proto 'LL64' is not one of LL, LL128, Simple, default" run "$work/tp_dp.jsonl" --nccl-proto LL,LL64
expect_refusal "--nccl-algo 'Star' is not one of Ring, Tree, CollNetDirect" run "$work/tp_dp.jsonl" --nccl-algo Star
expect_refusal "--nccl-algo 'Ring,,Tree' has an empty entry" run "$work/tp_dp.jsonl" --nccl-algo Ring,,Tree
expect_refusal "--nccl-max-ctas '65' is not a CTA count from 1 to 64 or default" run "$work/tp_dp.jsonl" --nccl-max-ctas 8,65
expect_refusal "--register 'global' is not one of none, local, symmetric, all" run "$work/tp_dp.jsonl" --register none,global
expect_refusal "--register symmetric: not built for replays yet" run "$work/tp_dp.jsonl" --register none,symmetric
expect_refusal "--register symmetric: not built for replays yet" run "$work/tp_dp.jsonl" --register all
NCCL_MAX_CTAS=8 expect_refusal "--nccl-max-ctas with NCCL_MAX_CTAS=8 in the environment" run "$work/tp_dp.jsonl" --nccl-max-ctas 4
help=$("$replay" --help 2>&1)
[[ "$help" == *"Settings swept over the replay (run only)"* ]] && [[ "$help" == *"--nccl-max-ctas"* ]] && [[ "$help" == *"[--register none,local]"* ]]
record "--help names the swept settings" $? "$help"
for option in --check --gaps "--json $work/x.json" "--csv $work/x.csv" "--ops-csv $work/o.csv" "--launcher single" "--timeout 5" "-n 3" "-w 1" "--nccl-algo Ring" "--nccl-proto LL" "--nccl-max-ctas 8" "--register local"; do
  name=${option%% *}
  [ "$name" = -n ] && name=--iters
  [ "$name" = -w ] && name=--warmup
  # shellcheck disable=SC2086  # the option and its value are two words
  expect_refusal "$name: not an option of check" check "$work/tp_dp.jsonl" $option
done

cli_summary "replay cli"
