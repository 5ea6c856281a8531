#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with bundle/ carried there (ci/build-bundle.sh):
# the GPU tests and the standard sweeps. Every log and report goes into one archive under $OUT
# (the device tool brings back few files), and a short summary is printed last.
# Usage: [ALGOS_COUNTS=2,4,6,8] [ALGOS_ITERS=20] [STEP_TIMEOUT_S=420] ci/device-run.sh STEP...
#   ALGOS_COUNTS: GPU counts of the algos and mpi_algos sweeps (every count from 2 by default).
#   REAL_MODES, REAL_FAULTS, REAL_RUNS, CLEAN_RUNS: the real_faults step's subset (see it below).
#   NCCL_TESTS_DIR: nccl-tests' *_perf binaries for the headline and nccl_modes steps (optional).
#   steps: info tests quick smoke sweep stability headline diagnose graph faults real_faults avg1 linkpeak nsys mpi mpi_algos
#          env signal register nccl_modes algos_check algos sanitizer dpstep dpstep_local dpstep_mpi dpstep_ddp dpstep_nsys
#          dp_timeline mpi_hang traces replay
#   REPLAY_SOURCES: the replay step's sources of each fixture job (nccl kineto fr by default);
#   REPLAY_FIXTURES: which machine's fixtures it replays (h100x2: tests/replay/fixtures/h100x2; every
#   machine's when unset).
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/device-out}
work=$(mktemp -d)
mkdir -p "$out" "$work/reports" "$work/logs"
# cuBLASLt (training step) comes from the machine's CUDA.
export LD_LIBRARY_PATH="$root/bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0  # NVLink multicast must stay off on these machines
bin="$root/bundle/bin"
# Nsight Systems on the lent machines, and the libraries its importer needs (bundle/nsys-lib).
nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
nsys_libs="$root/bundle/nsys-lib:$LD_LIBRARY_PATH"
# One process per GPU: the environment every process needs (add -np).
mpirun=(mpirun --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH)
summary=()

step() {  # step NAME COMMAND...: runs, logs to logs/NAME.log, records exit status and wall time
  local name=$1; shift
  local start=$SECONDS
  echo "=== $name: $*" | tee -a "$work/logs/commands.txt"
  timeout --signal=TERM --kill-after=10 "${STEP_TIMEOUT_S:-420}" "$@" >"$work/logs/$name.log" 2>&1
  local status=$?
  summary+=("$name: exit $status in $((SECONDS - start)) s")
  tail -n 25 "$work/logs/$name.log"
  # After every step, so a run cut short still brings back what finished.
  tar czf "$out/results.tgz" -C "$work" .
  return 0
}

# GPU counts come from this machine, so every step runs on 2, 4 or 8 GPUs alike.
gpus=$(bash "$root/ci/gpu-count.sh")
# Reports go under reports/<model>x<count> of the GPUs that actually ran ("NVIDIA H100 80GB HBM3"
# -> h100x2), whatever kind was asked for.
model=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed -E 's/^NVIDIA //' |
  awk '{print tolower($1)}' | cut -d- -f1)
machine=${model:-gpu}x$gpus
every_count=$(seq -s, 2 "$gpus")                                  # 2,3,...,all
doubling=$(for g in 2 4 8; do ((g <= gpus)) && echo $g; done | paste -sd,)    # 2,4,8 up to all
dp_counts=$(for g in 1 2 4 8; do ((g <= gpus)) && echo $g; done | paste -sd,) # 1,2,4,8 up to all
# One GPU (nvidia-h200): the multi-GPU steps get it alone and say what they cannot run.
every_count=${every_count:-$gpus} doubling=${doubling:-$gpus}
export gpus every_count doubling dp_counts  # for the steps that run under bash -c
# This machine kind's committed link-peak report, when there is one: collbench's peak_fraction,
# and collbench_diagnose's reference for a link loaded both ways where no healthy pair is left to
# compare with (two GPUs).
link_peak=()
[ -f "reports/$machine/link_peak.csv" ] && link_peak=(--link-peak "reports/$machine/link_peak.csv")

# real_faults: faults made by another program (collbench_contend) against collbench_diagnose and
# collreport ranks, each verdict written beside its ground truth (docs/diagnose.md, "Testing the
# verdicts with real faults"). Targets on G GPUs: sm_load on GPU 0, G/2 and G-1 in turn (the
# sweeps: G-1); the link from GPU 1 to G-1, not ring-adjacent on 4 or more (0 to 1 on 2 GPUs);
# the host threads of rank G-1, G/2 (a middle rank on 4 or more) and G-1 in turn starved. Each run
# may take STEP_TIMEOUT_S (120 here): a hang under a fault must not eat the device's time.
real_timeout_s=${STEP_TIMEOUT_S:-120}
contend_load() {  # contend_load FAULT MODE RUN TOOL: sets load=(collbench_contend's arguments)
  local fault=$1 mode=$2 run=$3 tool=$4 last=$((gpus - 1))
  local src=$((1 % gpus)) sm_targets=(0 $((gpus / 2)) $last) starve_targets=($last $((gpus / 2)) $last)
  ((src == last)) && src=0
  case $fault in
    sm_load) load=(--sm-load "${sm_targets[$(((run - 1) % 3))]}") ;;
    link_load) load=(--link-load "$src:$last" --direction one) ;;
    link_both) load=(--link-load "$src:$last" --direction both) ;;
    # One process: only the target rank's thread is pinned, and a waking thread gets in at once
    # under the ordinary scheduler, so that thread is also lowered to nice 19 (real-time hogs need
    # a capability the lent machines do not grant).
    cpu_starve) load=(--cpu-starve --target-rank "${starve_targets[$(((run - 1) % 3))]}")
      [ "$mode" = single ] && load+=(--target-process "$tool" --cpu-policy nice) ;;
  esac
}
launcher() {  # launcher MODE: sets launch=(what runs a tool in that mode: nothing, or mpirun)
  launch=()
  [ "$1" = mpi ] && launch=("${mpirun[@]}" -np "$gpus")
  return 0
}
add_truth() {  # add_truth DIAGNOSIS TRUTH: the generator's truth object into the diagnosis JSON
  python3 - "$1" "$2" <<'EOF_PY'
import json, os, sys
diagnosis, truth = sys.argv[1:3]
doc = json.load(open(diagnosis)) if os.path.exists(diagnosis) else {"diagnosis_missing": True}
doc["truth"] = json.load(open(truth))["truth"] if os.path.exists(truth) else None  # None: never ready
with open(diagnosis, "w") as out:
    json.dump(doc, out, indent=1)
EOF_PY
}
real_diagnoses() {  # real_diagnoses MODE FAULT DIR: CLEAN_RUNS or REAL_RUNS diagnoses
  local mode=$1 fault=$2 d=$3 n name truth load launch
  launcher "$mode"
  if [ "$fault" = clean ]; then
    for n in $(seq 1 "${CLEAN_RUNS:-10}"); do
      STEP_TIMEOUT_S=$real_timeout_s step "real_clean_${mode}_$n" "${launch[@]}" "$bin/collbench_diagnose" "${link_peak[@]}" --json "$d/clean_${mode}_$n.json"
    done
    return
  fi
  for n in $(seq 1 "${REAL_RUNS:-3}"); do
    name="real_${fault}_${mode}_$n" truth="$work/truth/real_${fault}_${mode}_$n.json"
    contend_load "$fault" "$mode" "$n" collbench_diagnose
    STEP_TIMEOUT_S=$real_timeout_s step "$name" env CONTEND="$bin/collbench_contend" bash "$root/ci/contended.sh" "$truth" "${load[@]}" -- \
      "${launch[@]}" "$bin/collbench_diagnose" "${link_peak[@]}" --json "$d/$name.json"
    add_truth "$d/$name.json" "$truth"
  done
}
real_sweep() {  # real_sweep MODE FAULT DIR: a collbench --json sweep, then collreport ranks of it
  local mode=$1 fault=$2 d=$3 load launch
  local base="$d/ranks_${fault}_$mode"
  local sweep=("$bin/collbench" --ops all_reduce,all_gather,reduce_scatter,alltoall -b 1M -e 256M -f 4 -g "$gpus"
    --json "$base.json" --csv "$base.csv")
  launcher "$mode"
  if [ "$fault" = clean ]; then
    STEP_TIMEOUT_S=$real_timeout_s step "ranks_clean_$mode" "${launch[@]}" "${sweep[@]}"
  else
    contend_load "$fault" "$mode" 3 collbench
    STEP_TIMEOUT_S=$real_timeout_s step "ranks_${fault}_$mode" env CONTEND="$bin/collbench_contend" bash "$root/ci/contended.sh" \
      "$base.truth.json" "${load[@]}" -- "${launch[@]}" "${sweep[@]}"
  fi
  step "ranks_${fault}_${mode}_report" bash -c '"$0" ranks "$1" > "$2"' "$bin/collreport" "$base.json" "$base.txt"
}
for want in "$@"; do
  case $want in
    info)
      step info bash -c 'date -u; nvidia-smi; nvidia-smi topo -m; ldd '"$bin"'/collbench; ls /usr/local/cuda/lib64 | grep -E "cublas|nccl" || true; ls -la /usr/lib/x86_64-linux-gnu/libnccl*' ;;
    tests)
      # Hang tests abort communicators on purpose: they run in a process of their own.
      for t in "$bin"/*_gpu_tests; do
        name=$(basename "$t")
        step "$name" "$t" --gtest_filter='-*Hang*:*Timeout*' --gtest_output=xml:"$work/logs/$name.xml"
        step "${name}_hang" "$t" --gtest_filter='*Hang*:*Timeout*' --gtest_output=xml:"$work/logs/${name}_hang.xml"
      done ;;
    quick)
      step quick "$bin/collbench" --ops all_reduce -b 8 -e 1G -f 8 -g "$gpus" --csv "$work/reports/quick.csv" ;;
    smoke)
      # Every binary once, briefly: after host-side changes to code the GPU paths share.
      step smoke_collbench "$bin/collbench" --ops all --algo all -b 1K -e 64M -f 64 -g "$doubling" -n 5 \
        --csv "$work/reports/smoke_collbench.csv"
      step smoke_linkpeak "$bin/collbench_linkpeak" --bytes 256M --iters 5 --csv "$work/reports/smoke_linkpeak.csv"
      step smoke_dpstep "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap,ps --bucket-mib 25 --layers 4 --width 1024 \
        --batch 256 --check --csv "$work/reports/smoke_dpstep.csv" ;;
    sweep)
      mkdir -p "$work/reports/$machine"
      step sweep "$bin/collbench" --ops all -b 8 -e 8G -f 2 -g "$doubling" -d float -c 1 "${link_peak[@]}" \
        --csv "$work/reports/$machine/collectives.csv" ;;
    graph)
      step graph "$bin/collbench" --ops all_reduce -b 8 -e 64K -f 2 -g "$gpus" -G 10 --csv "$work/reports/graph.csv" ;;
    stability)
      # The CI gate's recipe (ci/gate-sweep.sh: three processes merged as passes) on every GPU,
      # run A, B, A, B, A: A/A pairs (a_1, a_2), (a_2, a_3), (a_1, a_3), A/B pairs against real
      # slowdowns measured beside their A runs in this call: NCCL_MAX_NCHANNELS=16 (5-35% from
      # 64 MiB on 4xH100) and NCCL_PROTO=Simple (small sizes, which NCCL runs on LL by default;
      # compared --across nccl_proto, which collbench writes in the config). Then every compare.
      d="$work/reports/$machine/stability"
      mkdir -p "$d"
      gate=(env COLLBENCH="$bin/collbench" COLLREPORT="$bin/collreport" bash "$root/ci/gate-sweep.sh")
      step stability_a_1 "${gate[@]}" "$d/a_1.csv" -g "$gpus"
      step stability_channels_16 env NCCL_MAX_NCHANNELS=16 "${gate[@]}" "$d/channels_16.csv" -g "$gpus"
      step stability_a_2 "${gate[@]}" "$d/a_2.csv" -g "$gpus"
      step stability_proto_simple env NCCL_PROTO=Simple "${gate[@]}" "$d/proto_simple.csv" -g "$gpus"
      step stability_a_3 "${gate[@]}" "$d/a_3.csv" -g "$gpus"
      for pair in a_1:a_2 a_2:a_3 a_1:a_3 a_1:channels_16 a_2:channels_16 a_2:proto_simple a_3:proto_simple; do
        across=(); [[ $pair == *proto_simple ]] && across=(--across nccl_proto)
        step "compare_${pair/:/_vs_}" bash -c '"$0" compare "$1" "$2" --all "${@:4}" > "$3" 2>&1
          echo "exit $?" >> "$3"; head -1 "$3"' \
          "$bin/collreport" "$d/${pair%:*}.csv" "$d/${pair#*:}.csv" "$d/compare_${pair/:/_vs_}.txt" "${across[@]}"
      done ;;
    headline)
      # The standard sweep twice, back to back, beside the median of three nccl-tests runs (when
      # NCCL_TESTS_DIR holds its *_perf binaries built for this machine; never committed), one
      # thread per GPU (-t N -g 1), 5 warm-up and 20 timed iterations, from 64 MiB (the sizes judged).
      d="$work/reports/$machine/headline"
      mkdir -p "$d"
      for run in 1 2; do
        step "headline_collbench_$run" "$bin/collbench" --ops all -b 8 -e 8G -f 2 -g "$gpus" -d float -c 1 \
          --csv "$d/collbench_$run.csv"
      done
      if [ -n "${NCCL_TESTS_DIR:-}" ]; then
        for run in 1 2 3; do
          for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall gather scatter sendrecv; do
            step "nccltests_${op}_$run" "$NCCL_TESTS_DIR/${op}_perf" -b 64M -e 8G -f 2 -t "$gpus" -g 1 -w 5 -n 20 -c 0
            cp "$work/logs/nccltests_${op}_$run.log" "$d/nccltests_${op}_$run.txt"
          done
        done
      fi ;;
    diagnose)
      # collbench_diagnose clean three times, then each injected fault, one process and under mpirun:
      # reports/<machine>/diagnosis/<scenario>.json (the JSON's "injected" names the fault).
      d="$work/reports/$machine/diagnosis"
      mkdir -p "$d"
      last=$((gpus - 1)) middle=$((gpus / 2))
      for run in 1 2 3; do step "diagnose_clean_$run" "$bin/collbench_diagnose" --json "$d/clean_$run.json"; done
      step diagnose_slow_gpu_last "$bin/collbench_diagnose" --inject "slow_gpu:$last" --json "$d/slow_gpu_rank$last.json"
      step diagnose_slow_gpu_middle "$bin/collbench_diagnose" --inject "slow_gpu:$middle" --json "$d/slow_gpu_rank$middle.json"
      step diagnose_slow_gpu_first "$bin/collbench_diagnose" --inject slow_gpu:0 --json "$d/slow_gpu_rank0.json"
      step diagnose_late_rank "$bin/collbench_diagnose" --inject "late_rank:$last" --json "$d/late_rank.json"
      step diagnose_missing_rank "$bin/collbench_diagnose" --inject "missing_rank:$last" --timeout 10 \
        --json "$d/missing_rank.json"
      mpi=("${mpirun[@]}" -np "$gpus")
      step diagnose_clean_mpi "${mpi[@]}" "$bin/collbench_diagnose" --json "$d/clean_mpi.json"
      step diagnose_missing_rank_mpi "${mpi[@]}" "$bin/collbench_diagnose" --inject "missing_rank:$last" --timeout 10 \
        --json "$d/missing_rank_mpi.json" ;;
    real_faults)
      # REAL_MODES (single mpi), REAL_FAULTS (clean sm_load link_load link_both cpu_starve),
      # REAL_RUNS (3), CLEAN_RUNS (10): a subset, to fit the device's time. Then every verdict in
      # the folder judged against its truth (ci/verdict_check.py), the table kept beside them.
      d="$work/reports/$machine/diagnosis"
      mkdir -p "$d" "$work/truth"
      if ((gpus < 2)); then echo "real_faults: needs 2 GPUs or more, this machine has $gpus"; continue; fi
      if [ ! -x "$bin/collbench_contend" ]; then echo "real_faults: no $bin/collbench_contend (build-bundle.sh)"; continue; fi
      for mode in ${REAL_MODES:-single mpi}; do
        [[ $mode == @(single|mpi) ]] || { echo "real_faults: REAL_MODES: $mode is not single or mpi"; continue; }
        for fault in ${REAL_FAULTS:-clean sm_load link_load link_both cpu_starve}; do
          [[ $fault == @(clean|sm_load|link_load|link_both|cpu_starve) ]] || { echo "real_faults: REAL_FAULTS: no fault $fault"; continue; }
          real_diagnoses "$mode" "$fault" "$d"
          real_sweep "$mode" "$fault" "$d"
        done
      done
      step verdict_check bash -c 'python3 "$0" "$1" > "$1/verdict_check.md"; status=$?; cat "$1/verdict_check.md"
        exit $status' "$root/ci/verdict_check.py" "$d" ;;
    faults)
      step fault_hang "$bin/collbench" --ops all_reduce -b 1M -e 1M -g "$gpus" --timeout 5 --inject-fault skip_rank \
        --csv "$work/reports/fault_hang.csv"
      step fault_corrupt "$bin/collbench" --ops all_reduce,alltoall -b 4K -e 4K -g "$gpus" --inject-fault corrupt_output \
        --csv "$work/reports/fault_corrupt.csv"
      step fault_oom "$bin/collbench" --ops all_reduce -b 1K -e 1K -g 2 --inject-fault fail_allocation \
        --csv "$work/reports/fault_oom.csv"
      # A slow rank (half its SMs held) and a late one (2 ms before each sample): ok rows, slower or
      # with rank 1's lateness in the JSON (collreport ranks flags it).
      step fault_slow "$bin/collbench" --ops all_reduce -b 64M -e 64M -g 2 --inject-fault slow_rank:1 \
        --csv "$work/reports/fault_slow.csv"
      step fault_late "$bin/collbench" --ops all_reduce -b 1M -e 1M -g 2 --inject-fault late_rank:1:2 \
        --json "$work/reports/fault_late.json" ;;
    avg1)
      # NCCL's single-rank floating-point average, around counts that are not multiples of 4.
      step avg1 "$bin/collbench" --ops all_reduce,reduce -o avg,sum -d float,double,half -b 1048576 -e 1048588 -i 4 \
        -g 1,2 --in-place both --csv "$work/reports/avg1.csv" ;;
    linkpeak)
      mkdir -p "$work/reports/$machine"
      step linkpeak "$bin/collbench_linkpeak" --csv "$work/reports/$machine/link_peak.csv" ;;
    nsys)
      dp_step=""; [ -x "$bin/collbench_dpstep" ] && dp_step="$bin/collbench_dpstep"
      step nsys env NSYS_LIBS="$root/bundle/nsys-lib" bash "$root/ci/nsys-check.sh" "$bin/collbench" \
        "$work/traces" $dp_step ;;
    mpi)
      # One process per GPU under mpirun: the standard sweep, then every op, type and reduction checked.
      mkdir -p "$work/reports/$machine"
      mpi=("${mpirun[@]}" -np "$gpus")
      step mpi_sweep "${mpi[@]}" "$bin/collbench" --ops all -b 8 -e 8G -f 2 -g "$doubling" -d float -c 1 \
        --csv "$work/reports/$machine/collectives_mpi.csv"
      step mpi_check "${mpi[@]}" "$bin/collbench" --ops all -d all -o all -r all -b 4 -e 4M -f 64 -g "1-$gpus" -w 1 -n 3 \
        --csv "$work/reports/mpi_check.csv"
      # NCCL's network transport between processes of one host: what a socket network gives.
      step mpi_network "${mpi[@]}" -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 "$bin/collbench" --ops all \
        -b 8 -e 256M -f 4 -g "$doubling" --in-place out --csv "$work/reports/$machine/collectives_net.csv" ;;
    mpi_algos)
      # The hand-built all-reduce across processes (CUDA IPC): every type and reduction checked, then
      # the algorithms side by side, to compare with the single-process allreduce_algos.csv.
      mkdir -p "$work/reports/$machine"
      mpi=("${mpirun[@]}" -np "$gpus")
      step mpi_algos_check "${mpi[@]}" "$bin/collbench" --ops all_reduce --algo all -d all -o all -b 8 -e 16M -f 16 \
        -g "$every_count" -w 1 -n 2 --timeout 60 --csv "$work/reports/mpi_algos_check.csv"
      step mpi_algos "${mpi[@]}" "$bin/collbench" --ops all_reduce --algo nccl,ring,ring_sendrecv,oneshot,twoshot -d float \
        -b 8 -e 8G -f 4 -g "${ALGOS_COUNTS:-$every_count}" --in-place out --csv "$work/reports/$machine/allreduce_algos_mpi.csv"
      step mpi_algos_graph "${mpi[@]}" "$bin/collbench" --ops all_reduce --algo nccl,oneshot,ring -d float -b 8 -e 64K \
        -f 8 -g "$doubling" --in-place out -G 20 --csv "$work/reports/$machine/allreduce_algos_graph_mpi.csv" ;;
    env)
      # torchrun-style launch: RANK/WORLD_SIZE/LOCAL_RANK and NCCL's own bootstrap, no MPI.
      step env_launch bash -c 'for r in $(seq 0 $((gpus - 1))); do RANK=$r WORLD_SIZE=$gpus LOCAL_RANK=$r NCCL_COMM_ID=127.0.0.1:29611 \
        '"$bin"'/collbench --ops all_reduce,all_gather,broadcast -b 1K -e 64M -f 8 -g "$doubling" \
        --csv '"$work"'/reports/env_launch.csv > '"$work"'/logs/env_rank$r.log 2>&1 & done; \
        status=0; for job in $(jobs -p); do wait $job || status=$?; done; cat '"$work"'/logs/env_rank0.log; exit $status'
      # A world missing a process: rank 0 alone must give up after a minute (the least joining gets,
      # whatever --timeout says) with one line and status 1.
      step env_missing_rank bash -c 'start=$SECONDS; RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 NCCL_COMM_ID=127.0.0.1:29614 "$0" \
        --ops all_reduce -b 1K -e 1K --timeout 10; status=$?; echo "exit status $status after $((SECONDS - start)) s"; \
        [ $status -eq 1 ]' "$bin/collbench" ;;
    signal)
      # SIGINT in the middle of a sweep: exit 130, every row measured before it intact.
      step signal bash -c '"$0" --ops all -b 8 -e 8G -g "$gpus" --csv "$1" & pid=$!; sleep 4; kill -INT $pid; wait $pid; status=$?
        echo "exit status $status"; echo "rows: $(($(wc -l < "$1") - 1))"; tail -c 300 "$1"; [ $status -eq 130 ]' \
        "$bin/collbench" "$work/reports/signal.csv"
      # SIGTERM while a plan of several hundred thousand cases is built and registered: 143 within
      # a second of the signal.
      step signal_plan bash -c '"$0" --ops all --algo all -d all -o all -r all -b 8 -e 8G -g "1-$gpus" --csv "$1" &
        pid=$!; sleep 0.5; kill -TERM $pid; sent=$(date +%s.%N); wait $pid; status=$?
        echo "exit status $status, $(awk -v a="$sent" -v b="$(date +%s.%N)" "BEGIN { print b - a }") s after the signal"; [ $status -eq 143 ]' \
        "$bin/collbench" "$work/reports/signal_plan.csv" ;;
    register)
      # NCCL buffer registration (--register): every op checked on plain, locally registered and
      # symmetric buffers, in one process, in CUDA graphs, and one process per GPU under mpirun.
      step register_check "$bin/collbench" --ops all --algo nccl,ring_sendrecv,oneshot --register all -d float \
        -o sum -b 4 -e 16M -f 16 -g "1-$gpus" -w 1 -n 3 --timeout 60 --csv "$work/reports/register_check.csv"
      step register_graph "$bin/collbench" --ops all_reduce,all_gather,reduce_scatter --register all -b 8 -e 64M -f 8 \
        -g "$doubling" -G 10 --csv "$work/reports/register_graph.csv"
      mpi=("${mpirun[@]}" -np "$gpus")
      step register_mpi "${mpi[@]}" "$bin/collbench" --ops all --register all -b 4 -e 16M -f 16 -g "$doubling" -w 1 -n 3 --timeout 60 \
        --csv "$work/reports/register_mpi.csv" ;;
    nccl_modes)
      # NCCL's modern modes (docs/collbench.md), each beside nccl-tests 2.19 when NCCL_TESTS_DIR holds
      # its *_perf binaries built for this machine (never committed): the same sizes, 5 warm-up and
      # 20 timed iterations, timed around the loop, one thread per GPU (-t N -g 1) against one
      # process driving every GPU. Convert and compare here: collreport nccl-tests, collreport beside.
      d="$work/reports/$machine/nccl_modes"
      mkdir -p "$d"
      nt=${NCCL_TESTS_DIR:-}
      sizes=(-b 8 -e 1G -f 8)
      loop=(-w 5 -n 20 --timing loop -d float)
      nt_args=(-w 5 -n 20 -d float)
      ops=(all_reduce all_gather reduce_scatter alltoall)
      step modes_register "$bin/collbench" --ops "$(IFS=,; echo "${ops[*]}")" "${sizes[@]}" "${loop[@]}" -g "$gpus" \
        --register none,local,symmetric --csv "$d/register.csv"
      if [ -n "$nt" ]; then
        for R in 0 1 2; do
          for op in "${ops[@]}"; do
            step "nccltests_${op}_R$R" "$nt/${op}_perf" "${sizes[@]}" "${nt_args[@]}" -t "$gpus" -g 1 -R "$R"
          done
        done
      fi
      # alltoallv: nccl-tests' default spread (1) and the uniform one (0), then a skewed matrix.
      step modes_alltoallv "$bin/collbench" --ops alltoallv "${sizes[@]}" "${loop[@]}" -g "$gpus" --a2av-spread 0,1 \
        --csv "$d/alltoallv.csv"
      # A relative name: the rows' config says a2av_matrix=<name as given>.
      matrix="a2av_matrix_$gpus.txt"
      for i in $(seq 0 $((gpus - 1))); do
        for j in $(seq 0 $((gpus - 1))); do printf '%dM ' $(( 4 + 8 * ((i + 2 * j) % 7) )); done; echo
      done > "$matrix"
      cp "$matrix" "$d/"
      step modes_alltoallv_matrix "$bin/collbench" --ops alltoallv --a2av-matrix "$matrix" "${loop[@]}" -g "$gpus" \
        --csv "$d/alltoallv_matrix.csv"
      if [ -n "$nt" ]; then
        for spread in 0 1; do
          step "nccltests_alltoallv_spread$spread" env NCCL_TESTS_ALLTOALLV_SPREAD=$spread "$nt/alltoallv_perf" \
            "${sizes[@]}" "${nt_args[@]}" -t "$gpus" -g 1
        done
        busiest=$(awk '{for (j = 1; j <= NF; j++) { v = $j + 0; row[NR] += v; col[j] += v } }
          END { m = 0; for (i in row) if (row[i] > m) m = row[i]; for (j in col) if (col[j] > m) m = col[j]; print m }' "$matrix")
        # nccl-tests reads plain byte counts.
        sed 's/M//g' "$matrix" | awk '{for (j = 1; j <= NF; j++) printf "%d ", $j * 1048576; print ""}' > "$matrix.bytes"
        step nccltests_alltoallv_matrix env NCCL_TESTS_ALLTOALLV_MATRIX_FILE="$matrix.bytes" "$nt/alltoallv_perf" \
          -b "${busiest}M" -e "${busiest}M" "${nt_args[@]}" -t "$gpus" -g 1
      fi
      # Concurrent groups, one process per GPU (nccl-tests splits MPI ranks).
      mpi=("${mpirun[@]}" -np "$gpus")
      for rule in "MOD 2" "DIV 2"; do
        name=${rule// /_}
        step "modes_split_$name" "${mpi[@]}" "$bin/collbench" --ops all_reduce,all_gather "${sizes[@]}" "${loop[@]}" \
          -g "$gpus" --split "$rule" --csv "$d/split_$name.csv"
        if [ -n "$nt" ]; then
          for op in all_reduce all_gather; do
            step "nccltests_split_${name}_$op" "${mpi[@]}" -x NCCL_TESTS_SPLIT="$rule" "$nt/${op}_perf" "${sizes[@]}" \
              "${nt_args[@]}" -g 1
          done
        fi
      done
      # NCCL's algorithms and protocols as axes, then two of them set in the environment instead:
      # collreport compare of those rows against the axes' must find no change.
      step modes_algo_proto "$bin/collbench" --ops all_reduce "${sizes[@]}" "${loop[@]}" -g "$gpus" \
        --nccl-algo Ring,Tree --nccl-proto LL,LL128,Simple --nccl-max-ctas default,8 --csv "$d/algo_proto.csv"
      for pair in Ring:LL Tree:Simple; do
        step "modes_env_${pair/:/_}" env NCCL_ALGO=${pair%:*} NCCL_PROTO=${pair#*:} "$bin/collbench" --ops all_reduce \
          "${sizes[@]}" "${loop[@]}" -g "$gpus" --csv "$d/env_${pair/:/_}.csv"
      done
      # The small-message table: oneshot against NCCL with plain and symmetric buffers, in CUDA
      # graphs and launched normally (nccl-tests' loop timing).
      step modes_oneshot_graph "$bin/collbench" --ops all_reduce --algo nccl,oneshot --register none,symmetric \
        -d float,bfloat16 -b 8 -e 64K -f 2 -g "$gpus" --in-place out -G 20 --csv "$d/oneshot_symmetric_graph.csv"
      step modes_oneshot_loop "$bin/collbench" --ops all_reduce --algo nccl,oneshot --register none,symmetric \
        -d float,bfloat16 -b 8 -e 64K -f 2 -g "$gpus" --in-place out -w 100 -n 1000 --timing loop \
        --csv "$d/oneshot_symmetric_loop.csv" ;;
    algos_check)
      # Every hand-built algorithm against exact expectations: all types, reductions, 2-4 GPUs.
      step algos_check "$bin/collbench" --ops all_reduce --algo all -d all -o all -b 8 -e 16M -f 16 -g "$every_count" \
        -w 1 -n 2 --csv "$work/reports/algos_check.csv" ;;
    algos)
      mkdir -p "$work/reports/$machine"
      step algos "$bin/collbench" --ops all_reduce --algo nccl,ring,ring_sendrecv,oneshot,twoshot,copy_engine \
        -d float,bfloat16 -b 8 -e 8G -f 2 -g "${ALGOS_COUNTS:-$every_count}" --in-place out -n "${ALGOS_ITERS:-20}" \
        --csv "$work/reports/$machine/allreduce_algos.csv"
      step algos_graph "$bin/collbench" --ops all_reduce --algo nccl,oneshot -d float,bfloat16 -b 8 -e 64K -f 2 \
        -g "$every_count" --in-place out -G 20 --csv "$work/reports/$machine/allreduce_algos_graph.csv"
      # Small sizes launched normally, timed nccl-tests' way (events around the loop only).
      step algos_loop "$bin/collbench" --ops all_reduce --algo nccl,oneshot -d float,bfloat16 -b 8 -e 64K -f 2 \
        -g "$every_count" --in-place out -w 100 -n 1000 --timing loop \
        --csv "$work/reports/$machine/allreduce_algos_loop.csv" ;;
    sanitizer)
      # compute-sanitizer over the kernels written here (NCCL's own are excluded).
      export COLLBENCH_PEER_TIMEOUT_S=300
      for tool in memcheck racecheck synccheck; do
        # API return codes are the program's to handle (NCCL probes kernels; peer access may be on).
        step "sanitizer_$tool" compute-sanitizer --tool "$tool" --kernel-name-exclude kns=nccl --report-api-errors no \
          --error-exitcode 9 \
          "$bin/collbench" --ops all_reduce,all_gather --algo all -d float,bfloat16 -b 4K -e 256K -f 64 -g 2 -w 1 -n 2 \
          --timeout 600
      done
      unset COLLBENCH_PEER_TIMEOUT_S ;;
    dpstep)
      mkdir -p "$work/reports/$machine"
      step dpstep_check "$bin/collbench_dpstep" --check --algo nccl,ring,copy_engine \
        --csv "$work/reports/dp_step_check.csv"
      step dpstep "$bin/collbench_dpstep" -g "$dp_counts" --sync sync,overlap --bucket-mib 4,25,33,100 \
        --algo nccl,ring,copy_engine --csv "$work/reports/$machine/dp_step.csv"
      step dpstep_schemes "$bin/collbench_dpstep" -g "$dp_counts" --sync ps,sharded --bucket-mib 25 --check \
        --csv "$work/reports/$machine/dp_step_schemes.csv" ;;
    dpstep_local)
      # The training step on 1 GPU and every GPU of this machine (any count): the default
      # (bfloat16 optimizer state) with NCCL, the ring and the copy engines, sync and overlap, its
      # checks, and float32 master weights.
      n=$gpus
      mkdir -p "$work/reports/$machine"
      STEP_TIMEOUT_S=120 step dpstep_local "$bin/collbench_dpstep" -g "1,$n" --sync sync,overlap --bucket-mib 25 \
        --algo nccl,ring,copy_engine --csv "$work/reports/$machine/dp_step.csv"
      STEP_TIMEOUT_S=120 step dpstep_local_check "$bin/collbench_dpstep" -g "1,$n" --sync overlap --check \
        --algo nccl,ring,copy_engine --csv "$work/reports/$machine/dp_step_check.csv"
      STEP_TIMEOUT_S=90 step dpstep_local_master "$bin/collbench_dpstep" -g "1,$n" --sync overlap --bucket-mib 25 \
        --algo nccl --master-weights --csv "$work/reports/$machine/dp_step_master.csv" ;;
    dpstep_mpi)
      # The training step with one process per GPU under mpirun (compare with dp_step.csv), its checks
      # for the ps and sharded schemes, then a short torchrun-style launch on NCCL's own bootstrap.
      mkdir -p "$work/reports/$machine"
      mpi=("${mpirun[@]}" -np "$gpus")
      step dpstep_mpi "${mpi[@]}" "$bin/collbench_dpstep" -g "$dp_counts" --sync sync,overlap --bucket-mib 25 \
        --algo nccl,ring --csv "$work/reports/$machine/dp_step_mpi.csv"
      step dpstep_mpi_check "${mpi[@]}" "$bin/collbench_dpstep" -g "$dp_counts" --sync ps,sharded --check \
        --csv "$work/reports/dp_step_mpi_check.csv"
      step dpstep_env bash -c 'for r in $(seq 0 $((gpus - 1))); do RANK=$r WORLD_SIZE=$gpus LOCAL_RANK=$r NCCL_COMM_ID=127.0.0.1:29612 \
        '"$bin"'/collbench_dpstep -g "1,$gpus" --sync overlap,sharded --layers 4 --width 1024 --batch 256 --warmup 2 \
        --iters 5 --check --csv '"$work"'/reports/dp_step_env.csv > '"$work"'/logs/dpstep_env_rank$r.log 2>&1 & done; \
        status=0; for job in $(jobs -p); do wait $job || status=$?; done; cat '"$work"'/logs/dpstep_env_rank0.log; exit $status' ;;
    dpstep_ddp)
      # The training step's default and --preset best on 1 GPU and every doubling up to all, beside
      # PyTorch DDP on the same model in the same call (ci/torch_ddp_reference.py, 25 MiB
      # buckets), each twice in turn: machine drift lands on both. PyTorch's python with its own
      # NCCL: LD_LIBRARY_PATH dropped.
      d="$work/reports/$machine/dp_step_vs_ddp"
      mkdir -p "$d"
      for run in 1 2; do
        step "dpstep_default_$run" "$bin/collbench_dpstep" -g "$dp_counts" --csv "$d/default_$run.csv"
        step "dpstep_best_$run" "$bin/collbench_dpstep" -g "$dp_counts" --preset best --csv "$d/best_$run.csv"
        step "torch_ddp_$run" env -u LD_LIBRARY_PATH "${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}" \
          "$root/ci/torch_ddp_reference.py" --gpus "$dp_counts" --csv "$d/torch_ddp_$run.csv"
      done ;;
    dpstep_nsys)
      # NVTX summary of a full-size overlap step (eager, so every step's ranges are recorded).
      mkdir -p "$work/reports/$machine/nsys"  # not beside the reports: ci/plots.sh reads every CSV there
      step dpstep_nsys env LD_LIBRARY_PATH="$nsys_libs" bash -c '"$0" profile -t cuda,nvtx \
        -s none --cpuctxsw=none -o "$1/dp_step_overlap" "$2" -g "$gpus" --sync overlap --bucket-mib 25 --warmup 2 --iters 5 \
        --eager && "$0" stats --report nvtx_sum --format csv -o "$1/dp_step_overlap" "$1/dp_step_overlap.nsys-rep"' \
        "$nsys" "$work/reports/$machine/nsys" "$bin/collbench_dpstep" ;;
    dp_timeline)
      # Where a multi-GPU overlap step loses time against compute-only: every kernel and copy of
      # a few replayed steps (graph nodes traced one by one), per algorithm, as CSV for
      # ci/dp_timeline.py (run here after fetching). DP_TIMELINE_ALGOS picks the algorithms,
      # DP_TIMELINE_ARGS adds flags, DP_TIMELINE_CE_ARGS replaces them for copy_engine,
      # DP_TIMELINE_BUCKET_MIB is the bucket size (25).
      gpus=${machine##*x}
      mkdir -p "$work/reports/dp_timeline"
      for algo in ${DP_TIMELINE_ALGOS:-nccl ring copy_engine}; do
        extra=${DP_TIMELINE_ARGS:-}
        [[ $algo == copy_engine ]] && extra="${DP_TIMELINE_CE_ARGS:-}"
        step "dp_timeline_$algo" env LD_LIBRARY_PATH="$nsys_libs" bash -c '"$0" profile \
          -t cuda,nvtx --cuda-graph-trace=node -s none --cpuctxsw=none -o "$1/$3" "$2" -g "$4" --sync overlap \
          --bucket-mib "$6" --algo "$3" --warmup 3 --iters 6 $5 --csv "$1/$3.csv" && "$0" stats --report cuda_gpu_trace \
          --format csv -o "$1/$3" "$1/$3.nsys-rep" && rm -f "$1/$3.nsys-rep" "$1/$3.sqlite" && gzip -f "$1/$3_cuda_gpu_trace.csv"' \
          "$nsys" "$work/reports/dp_timeline" "$bin/collbench_dpstep" "$algo" "$gpus" "$extra" \
          "${DP_TIMELINE_BUCKET_MIB:-25}"
      done ;;
    traces)
      # Communication traces of small PyTorch jobs on every GPU (ci/record_traces.py): NCCL's log,
      # Kineto and Flight Recorder per job and rank, for collbench_replay's importer fixtures.
      # PyTorch's python with its own NCCL: LD_LIBRARY_PATH (the machine's CUDA and NCCL) dropped.
      STEP_TIMEOUT_S=480 step traces env -u LD_LIBRARY_PATH "${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}" \
        "$root/ci/record_traces.py" --out "$work/traces" ;;
    replay)
      # collbench_replay run on every fixture job (tests/replay/fixtures/*/JOB), from each of its
      # sources, rescaled to this machine's GPU count where the job allows it (else on its own
      # ranks when there are GPUs enough, else left out, saying why), with --check: in one process,
      # then one process per rank under mpirun. Rows and JSON under reports/<machine>/replay/, named
      # JOB_SOURCE, or JOB_SOURCE_from_ORIGIN for a job recorded on another machine kind.
      d="$work/reports/$machine/replay"
      mkdir -p "$d" "$work/replay"
      for job_dir in tests/replay/fixtures/${REPLAY_FIXTURES:-*}/*/; do
        job=$(basename "$job_dir") origin=$(basename "$(dirname "$job_dir")")
        for source in ${REPLAY_SOURCES:-nccl kineto fr}; do
          name="${job}_$source"
          [[ $origin != "$machine" ]] && name+="_from_$origin"
          w="$work/replay/$name.jsonl"
          if ! "$bin/collbench_replay" import "$job_dir/$source".* -o "$w" >"$work/logs/replay_import_$name.log" 2>&1; then
            echo "replay: $name: import failed: $(tail -n 1 "$work/logs/replay_import_$name.log")"; continue
          fi
          ranks=$(head -n 1 "$w" | grep -o '"world_size":[0-9]*' | cut -d: -f2)
          if ((ranks != gpus)); then
            if "$bin/collbench_replay" rescale "$w" --ranks "$gpus" -o "$work/replay/${name}_$gpus.jsonl"               >"$work/logs/replay_rescale_$name.log" 2>&1; then
              w="$work/replay/${name}_$gpus.jsonl" ranks=$gpus
            elif ((ranks > gpus)); then
              echo "replay: $name: $ranks ranks, $gpus GPUs: $(tail -n 1 "$work/logs/replay_rescale_$name.log")"; continue
            fi
          fi
          step "replay_$name" "$bin/collbench_replay" run "$w" --check --csv "$d/$name.csv" --json "$d/$name.json"
          step "replay_${name}_mpi" "${mpirun[@]}" -np "$ranks" "$bin/collbench_replay" run "$w" --check \
            --csv "$d/${name}_mpi.csv" --json "$d/${name}_mpi.json"
        done
      done ;;
    mpi_hang)
      # A rank that skips a collective under mpirun: every process must end by itself, soon.
      step mpi_hang bash -c 'start=$SECONDS; mpirun --allow-run-as-root --bind-to none -np "$gpus" -x NCCL_NVLS_ENABLE \
        -x LD_LIBRARY_PATH "$0" --ops all_reduce -b 1M -e 1M -g "$gpus" --timeout 5 --inject-fault skip_rank \
        --csv "$1"; status=$?; echo "mpirun exit status $status after $((SECONDS - start)) s"; [ $status -ne 0 ]' \
        "$bin/collbench" "$work/reports/mpi_hang.csv" ;;
    *) echo "unknown step $want" ;;
  esac
done

tar czf "$out/results.tgz" -C "$work" .
echo "=== summary"
printf '%s\n' "${summary[@]}"
