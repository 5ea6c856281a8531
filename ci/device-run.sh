#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with bundle/ carried there (ci/build-bundle.sh):
# the GPU tests and the standard sweeps. Every log and report goes into one archive under $OUT
# (the device tool brings back few files), and a short summary is printed last.
# Usage: [ALGOS_COUNTS=2,4,6,8] [ALGOS_ITERS=50] [ONESHOT_PDL_MODES="off auto on"] [DP_GRID_ARGS=...] ci/device-run.sh STEP...
#   ALGOS_COUNTS: GPU counts of the algos and mpi_algos sweeps (every count from 2 by default).
#   steps: info tests quick smoke sweep graph faults avg1 linkpeak nsys mpi env signal algos_check algos
#          sanitizer dpstep dpstep_mpi dpstep_nsys mpi_hang tuning mpi_algos launch_profile dp_profile ring_protocols
#          dp_overlap_grid copy_engine ce_overlap_grid ring_ranks dpstep_local dp_timeline ce_margin_grid ce_mpi
#          launch_modes ring_ctas ce_trace ce_mpi_probe oneshot_pdl dp_grid dp_last_bucket
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
machine=h200x$gpus
every_count=$(seq -s, 2 "$gpus")                                  # 2,3,...,all
doubling=$(for g in 2 4 8; do ((g <= gpus)) && echo $g; done | paste -sd,)    # 2,4,8 up to all
dp_counts=$(for g in 1 2 4 8; do ((g <= gpus)) && echo $g; done | paste -sd,) # 1,2,4,8 up to all
# One GPU (nvidia-h200): the multi-GPU steps get it alone and say what they cannot run.
every_count=${every_count:-$gpus} doubling=${doubling:-$gpus}
export gpus every_count doubling dp_counts  # for the steps that run under bash -c
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
      # With this machine's committed link-peak report, every row also gets peak_fraction.
      peak=(); [ -f "reports/$machine/link_peak.csv" ] && peak=(--link-peak "reports/$machine/link_peak.csv")
      step sweep "$bin/collbench" --ops all -b 8 -e 8G -f 2 -g "$doubling" -d float -c 1 "${peak[@]}" \
        --csv "$work/reports/$machine/collectives.csv" ;;
    graph)
      step graph "$bin/collbench" --ops all_reduce -b 8 -e 64K -f 2 -g "$gpus" -G 10 --csv "$work/reports/graph.csv" ;;
    faults)
      step fault_hang "$bin/collbench" --ops all_reduce -b 1M -e 1M -g "$gpus" --timeout 5 --inject-fault skip_rank \
        --csv "$work/reports/fault_hang.csv"
      step fault_corrupt "$bin/collbench" --ops all_reduce,alltoall -b 4K -e 4K -g "$gpus" --inject-fault corrupt_output \
        --csv "$work/reports/fault_corrupt.csv"
      step fault_oom "$bin/collbench" --ops all_reduce -b 1K -e 1K -g 2 --inject-fault fail_allocation \
        --csv "$work/reports/fault_oom.csv" ;;
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
        "$bin/collbench" "$work/reports/signal.csv" ;;
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
    dpstep_nsys)
      # NVTX summary of a full-size overlap step (eager, so every step's ranges are recorded).
      mkdir -p "$work/reports/$machine/nsys"  # not beside the reports: ci/plots.sh reads every CSV there
      step dpstep_nsys env LD_LIBRARY_PATH="$nsys_libs" bash -c '"$0" profile -t cuda,nvtx \
        -s none --cpuctxsw=none -o "$1/dp_step_overlap" "$2" -g "$gpus" --sync overlap --bucket-mib 25 --warmup 2 --iters 5 \
        --eager && "$0" stats --report nvtx_sum --format csv -o "$1/dp_step_overlap" "$1/dp_step_overlap.nsys-rep"' \
        "$nsys" "$work/reports/$machine/nsys" "$bin/collbench_dpstep" ;;
    launch_profile)
      # Where an eagerly launched small all-reduce spends its host time: CUDA API call durations of
      # NCCL and of oneshot, launched through its one-kernel graph and directly, at 8 B on every GPU
      # (every rank thread's calls, summed by nsys).
      mkdir -p "$work/reports/launch_profile"
      # Several operations between two events (-m): what the GPU sustains when the host runs ahead.
      for agg in 1 8; do
        step "launch_agg$agg" "$bin/collbench" --ops all_reduce --algo nccl,oneshot -b 8 -e 8 -g "$every_count" -w 200 \
          -n 2000 -m $agg --in-place out --csv "$work/reports/launch_profile/agg$agg.csv"
      done
      for variant in nccl oneshot oneshot_direct; do
        mode=graph; [[ $variant == *_direct ]] && mode=direct
        step "launch_profile_$variant" env COLLBENCH_PEER_LAUNCH=$mode LD_LIBRARY_PATH="$nsys_libs" \
          bash -c '"$0" profile -t cuda,nvtx -s none --cpuctxsw=none -o "$1/$3" "$2" --ops all_reduce --algo "$4" -b 8 -e 8 \
          -g "$5" -w 200 -n 2000 --in-place out && "$0" stats --report cuda_api_sum --format csv -o "$1/$3" "$1/$3.nsys-rep" \
          && rm -f "$1/$3.nsys-rep" "$1/$3.sqlite"' "$nsys" "$work/reports/launch_profile" "$bin/collbench" "$variant" \
          "${variant%_direct}" "$gpus"
      done ;;
    launch_modes)
      # oneshot and the ring launched normally at latency-bound sizes, through their one-kernel
      # graphs (the default) and by plain kernel launches, each run beside NCCL.
      mkdir -p "$work/reports/launch_modes"
      for mode in graph direct; do
        step "launch_modes_$mode" env COLLBENCH_PEER_LAUNCH=$mode "$bin/collbench" --ops all_reduce \
          --algo nccl,oneshot,ring -d float -b 8 -e 64K -f 2 -g "$every_count" -w 100 -n 1000 --in-place out \
          --csv "$work/reports/launch_modes/$mode.csv"
      done
      # The same, timed nccl-tests' way: events around the whole loop only (--timing loop).
      step launch_modes_loop "$bin/collbench" --ops all_reduce --algo nccl,oneshot,ring -d float -b 8 -e 64K -f 2 \
        -g "$every_count" -w 100 -n 1000 --in-place out --timing loop --csv "$work/reports/launch_modes/loop.csv" ;;
    ring_protocols)
      # The push ring (remote stores, the default) against the pull ring (remote loads) and NCCL,
      # then the push ring's knobs at 4 GPUs.
      mkdir -p "$work/reports/ring_protocols"
      for protocol in push pull; do
        # Each protocol with the knobs it did best with.
        knobs=(); [ $protocol = pull ] && knobs=(COLLBENCH_RING_CTAS=32 COLLBENCH_RING_SLICE_BYTES=1048576)
        step "ring_$protocol" env COLLBENCH_RING_PROTOCOL=$protocol "${knobs[@]}" "$bin/collbench" --ops all_reduce --algo nccl,ring \
          -b 64M -e 8G -f 2 -g "$every_count" --in-place out -c 0 --csv "$work/reports/ring_protocols/$protocol.csv"
      done
      for ctas in 32 64; do
        for slice in 524288 2097152; do
          for slots in 2 8; do
            step "push_c${ctas}_s${slice}_k${slots}" env COLLBENCH_RING_CTAS=$ctas COLLBENCH_RING_SLICE_BYTES=$slice \
              COLLBENCH_RING_SLOTS=$slots "$bin/collbench" --ops all_reduce --algo ring -b 64M -e 4G -f 4 -g "$gpus" \
              --in-place out -c 0 --csv "$work/reports/ring_protocols/push_c${ctas}_s${slice}_k${slots}.csv"
          done
        done
      done ;;
    copy_engine)
      # The copy-engine all-reduce on every GPU of this machine: its GPU tests (one host thread
      # drives every rank there), its bandwidth beside NCCL and the ring, and the training step with
      # it beside NCCL and the ring.
      n=$gpus
      mkdir -p "$work/reports/copy_engine"
      STEP_TIMEOUT_S=240 step ce_tests "$bin/kernels_gpu_tests" \
        --gtest_filter='*CopyEngine.*:*copy_engine*:AllAlgorithms.*:-*Hang*:*Timeout*'
      STEP_TIMEOUT_S=120 step ce_tests_hang "$bin/kernels_gpu_tests" --gtest_filter='*CopyEngine.*Hang*:*/copy_engine:*/copy_engine_ring'
      STEP_TIMEOUT_S=150 step ce_dpstep "$bin/collbench_dpstep" -g "1,$n" --sync overlap --bucket-mib 25 \
        --algo nccl,ring,copy_engine --check --timeout 30 --csv "$work/reports/copy_engine/dp_step.csv"
      STEP_TIMEOUT_S=150 step ce_algos "$bin/collbench" --ops all_reduce --algo nccl,ring,copy_engine -d float \
        -b 1M -e 4G -f 4 -g "$(seq -s, 2 "$n")" --in-place out -w 2 -n 10 --timeout 20 \
        --csv "$work/reports/copy_engine/algos.csv" ;;
    ce_mpi)
      # copy_engine with one process per GPU (CUDA IPC), both lanes: the training step's checks and
      # its timing beside the ring, under mpirun on every GPU of this machine.
      n=$gpus
      mkdir -p "$work/reports/copy_engine/mpi"
      STEP_TIMEOUT_S=180 step ce_mpi "${mpirun[@]}" -np "$n" "$bin/collbench_dpstep" -g "1,$n" --sync overlap \
        --bucket-mib 25 \
        --algo copy_engine,ring --check --csv "$work/reports/copy_engine/mpi/dp_mpi.csv" ;;
    ce_mpi_probe)
      # copy_engine in collbench with one process per GPU, bounded: all processes in the case, some
      # sitting it out, then CE_MPI_PROBE_TRIES runs each with lazy and eager module loading. Before
      # the warm-up fix of 140c8db nearly every run hung (reports/h200x4/tuning/ce_mpi_hang/).
      mkdir -p "$work/reports/ce_mpi_probe"
      for setup in "2 2" "$gpus 2" "$gpus $gpus"; do
        read -r np g <<<"$setup"
        STEP_TIMEOUT_S=45 step "ce_mpi_np${np}_g$g" "${mpirun[@]}" -np "$np" "$bin/collbench" --ops all_reduce \
          --algo copy_engine -b 1K -e 1M -f 32 -g "$g" -w 1 -n 2 --timeout 15 \
          --csv "$work/reports/ce_mpi_probe/np${np}_g$g.csv"
      done
      for loading in LAZY EAGER; do
        for try in $(seq "${CE_MPI_PROBE_TRIES:-1}"); do
          STEP_TIMEOUT_S=45 step "ce_mpi_np${gpus}_${loading,,}_$try" "${mpirun[@]}" -x CUDA_MODULE_LOADING=$loading \
            -np "$gpus" "$bin/collbench" --ops all_reduce --algo copy_engine -b 1K -e 1M -f 32 -g "$gpus" -w 1 -n 2 \
            --timeout 15 --csv "$work/reports/ce_mpi_probe/np${gpus}_${loading,,}_$try.csv"
        done
      done ;;
    ce_overlap_grid)
      # The training step with the copy-engine all-reduce (and the ring at 32 CTAs beside it): its
      # reduction kernel needs SMs the backward GEMMs hold, so backward GEMMs sized for fewer SMs
      # (--gemm-sm-margin, applied with 2+ GPUs only) are swept with it; overlap, 25 MiB, one layer
      # (33 MiB) and 100 MiB buckets, 1 and all GPUs.
      n=$gpus
      mkdir -p "$work/reports/ce_overlap_grid"
      for margin in 0 8 16; do
        STEP_TIMEOUT_S=90 step "ce_grid_m$margin" "$bin/collbench_dpstep" -g "1,$n" --sync overlap --bucket-mib 25,33,100 \
          --algo copy_engine --gemm-sm-margin $margin --csv "$work/reports/ce_overlap_grid/copy_engine_m$margin.csv"
        STEP_TIMEOUT_S=90 step "ring32_grid_m$margin" env COLLBENCH_RING_CTAS=32 "$bin/collbench_dpstep" -g "1,$n" \
          --sync overlap --bucket-mib 25,33,100 --algo ring --gemm-sm-margin $margin \
          --csv "$work/reports/ce_overlap_grid/ring_c32_m$margin.csv"
      done ;;
    ce_probe)
      # Short, bounded runs of the copy-engine all-reduce: one round and many, 2 GPUs to all of them.
      mkdir -p "$work/reports/probe"
      for g in $(seq 2 "$gpus"); do
        STEP_TIMEOUT_S=30 step "probe_ce_${g}_one" "$bin/collbench" --ops all_reduce --algo copy_engine -b 4K -e 4M -f 32 \
          -g $g -w 1 -n 2 --timeout 10 --csv "$work/reports/probe/ce_${g}_one.csv"
        STEP_TIMEOUT_S=30 step "probe_ce_${g}_rounds" env COLLBENCH_CE_ROUND_BYTES=65536 "$bin/collbench" --ops all_reduce \
          --algo copy_engine -b 1M -e 1M -g $g -w 1 -n 2 --timeout 10 --csv "$work/reports/probe/ce_${g}_rounds.csv"
      done
      STEP_TIMEOUT_S=60 step probe_ce_tests "$bin/kernels_gpu_tests" --gtest_filter='*CopyEngine.*:-*Hang*' ;;
    oneshot_pdl)
      # oneshot launched with programmatic dependent launch (COLLBENCH_ONESHOT_PDL=on), through
      # one-kernel graphs (off) and by size (auto, the default), 8 B - 64 KiB launched normally:
      # timed nccl-tests' way (events around the loop) and with an event per iteration, NCCL
      # beside it; its GPU tests first.
      mkdir -p "$work/reports/oneshot_pdl"
      STEP_TIMEOUT_S=120 step oneshot_pdl_tests "$bin/kernels_gpu_tests" --gtest_filter='*oneshot*'
      for pdl in ${ONESHOT_PDL_MODES:-off auto on}; do
        STEP_TIMEOUT_S=90 step "oneshot_pdl_${pdl}_loop" env COLLBENCH_ONESHOT_PDL=$pdl "$bin/collbench" \
          --ops all_reduce --algo nccl,oneshot -d float,bfloat16 -b 8 -e 64K -f 2 -g "$every_count" --in-place out \
          -w 100 -n 1000 --timing loop --csv "$work/reports/oneshot_pdl/loop_$pdl.csv"
        STEP_TIMEOUT_S=90 step "oneshot_pdl_${pdl}_each" env COLLBENCH_ONESHOT_PDL=$pdl "$bin/collbench" \
          --ops all_reduce --algo nccl,oneshot -d float -b 8 -e 64K -f 2 -g "$every_count" --in-place out \
          -w 100 -n 1000 --csv "$work/reports/oneshot_pdl/each_$pdl.csv"
      done ;;
    dp_grid)
      # One overlapped training-step sweep of 1 and all GPUs with the flags in DP_GRID_ARGS (buckets,
      # algorithms, --comm-schedule ...), for a grid nothing else runs.
      mkdir -p "$work/reports/dp_grid"
      STEP_TIMEOUT_S=300 step dp_grid "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap ${DP_GRID_ARGS:-} \
        --csv "$work/reports/dp_grid/dp_step.csv" ;;
    ring_ctas)
      # The push ring at 64 and 128 CTAs (RING_CTAS_LIST) over the whole range from 64 KiB, both
      # types, every GPU count, NCCL beside it in each run; then the overlapped training step
      # with each (the ring's CTAs take SMs from the backward GEMMs).
      mkdir -p "$work/reports/ring_ctas"
      for ctas in ${RING_CTAS_LIST:-64 128}; do
        STEP_TIMEOUT_S=150 step "ring_ctas_$ctas" env COLLBENCH_RING_CTAS=$ctas "$bin/collbench" --ops all_reduce \
          --algo nccl,ring -d float,bfloat16 -b 64K -e 8G -f 2 -g "$every_count" --in-place out \
          --csv "$work/reports/ring_ctas/algos_c$ctas.csv"
        STEP_TIMEOUT_S=90 step "ring_ctas_dp_$ctas" env COLLBENCH_RING_CTAS=$ctas "$bin/collbench_dpstep" \
          -g "1,$gpus" --sync overlap --bucket-mib 25,33 --algo ring --csv "$work/reports/ring_ctas/dp_step_c$ctas.csv"
      done ;;
    ce_trace)
      # Where a copy_engine round spends its fixed cost: every copy and kernel of a few 1 MiB and
      # 32 MiB all-reduces on all GPUs (one host thread drives every rank), as nsys's GPU trace.
      mkdir -p "$work/reports/ce_trace"
      step ce_trace env LD_LIBRARY_PATH="$nsys_libs" bash -c '"$0" profile -t cuda,nvtx \
        -s none --cpuctxsw=none -o "$1/ce" "$2" --ops all_reduce --algo copy_engine -d float -b 1M -e 32M -f 32 -g "$3" \
        -w 2 -n 5 --csv "$1/ce.csv" && "$0" stats --report cuda_gpu_trace --format csv -o "$1/ce" "$1/ce.nsys-rep" && \
        rm -f "$1/ce.nsys-rep" "$1/ce.sqlite" && gzip -f "$1/ce_cuda_gpu_trace.csv"' \
        "$nsys" "$work/reports/ce_trace" "$bin/collbench" "$gpus" ;;
    ring_ranks)
      # The push ring with more CTAs at every GPU count, large sizes (3 GPUs plateaued lower at 64).
      mkdir -p "$work/reports/ring_ranks"
      for ctas in 96 128; do
        STEP_TIMEOUT_S=60 step "ring_c${ctas}" env COLLBENCH_RING_CTAS=$ctas "$bin/collbench" --ops all_reduce \
          --algo nccl,ring -b 1G -e 8G -f 2 -g "$every_count" --in-place out -c 0 --csv "$work/reports/ring_ranks/c${ctas}.csv"
      done ;;
    dp_overlap_grid)
      # How many SMs communication takes while it overlaps backward: ring CTAs and NCCL's maxCTAs,
      # each with and without backward GEMMs sized for fewer SMs (overlap, 25 MiB, 1 and 4 GPUs).
      mkdir -p "$work/reports/dp_overlap_grid"
      for margin in 0 16; do
        for ctas in 8 16 32; do
          step "dp_ring_c${ctas}_m${margin}" env COLLBENCH_RING_CTAS=$ctas "$bin/collbench_dpstep" -g "1,$gpus" \
            --sync overlap --bucket-mib 25 --algo ring --gemm-sm-margin $margin \
            --csv "$work/reports/dp_overlap_grid/ring_c${ctas}_m${margin}.csv"
        done
        for ctas in 8 16; do
          step "dp_nccl_c${ctas}_m${margin}" "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap --bucket-mib 25 --algo nccl \
            --nccl-max-ctas $ctas --gemm-sm-margin $margin --csv "$work/reports/dp_overlap_grid/nccl_c${ctas}_m${margin}.csv"
        done
      done ;;
    dp_profile)
      # Where the 1-GPU training step spends its time: the step with and without float32 master
      # weights (bfloat16 optimizer state by default) and fused epilogues, then a per-kernel GPU time summary of one eager run.
      mkdir -p "$work/reports/dp_profile"
      for variant in default master unfused master_unfused; do
        flags=(); [[ $variant == *master* ]] && flags+=(--master-weights)
        [[ $variant == *unfused* ]] && flags+=(--epilogue unfused)
        step "dp_profile_$variant" "$bin/collbench_dpstep" -g 1 --sync overlap --bucket-mib 25 "${flags[@]}" \
          --csv "$work/reports/dp_profile/$variant.csv"
      done
      step dp_profile_kernels env LD_LIBRARY_PATH="$nsys_libs" bash -c '"$0" profile -t cuda \
        -s none --cpuctxsw=none -o "$1/step" "$2" -g 1 --sync overlap --bucket-mib 25 --warmup 2 --iters 10 --eager && \
        "$0" stats --report cuda_gpu_kern_sum --format csv -o "$1/step" "$1/step.nsys-rep" && rm -f "$1/step.nsys-rep" \
        "$1/step.sqlite"' "$nsys" "$work/reports/dp_profile" "$bin/collbench_dpstep" ;;
    ce_margin_grid)
      # copy_engine's reductions need free SMs beside backward's GEMMs (how few will do), and its
      # buckets may alternate over two streams (--comm-lanes): both, per bucket size.
      gpus=${machine#h200x}
      mkdir -p "$work/reports/ce_margin_grid"
      for lanes in 1 2; do
        for margin in 0 4 8; do
          step "ce_lanes${lanes}_margin$margin" "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap \
            --bucket-mib 16,25,33 --algo copy_engine --gemm-sm-margin $margin --comm-lanes $lanes \
            --csv "$work/reports/ce_margin_grid/lanes${lanes}_margin$margin.csv"
        done
      done ;;
    dp_last_bucket)
      # The training step's best configuration with each choice for layer 0's bucket: the ring,
      # twoshot, or twoshot with the update sharded into it (--fuse-last-update) at its default 64
      # CTAs and at 96, on 1 GPU and all of them. A choice's leading NAME=VALUE words are its
      # environment. The GPUs warm up through a run,
      # so a configuration measured later measures slower: each repeat runs the configurations
      # in the opposite order to the one before (DP_LAST_BUCKET_REPEATS, 2).
      mkdir -p "$work/reports/$machine/dp_last_bucket"
      best="--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule pipelined --lockstep 1"
      best+=" --graph-memsets kernel"
      choices=("--last-bucket-algo ring" "--last-bucket-algo twoshot"
        "--last-bucket-algo twoshot --fuse-last-update 1"
        "COLLBENCH_TWOSHOT_CTAS=96 --last-bucket-algo twoshot --fuse-last-update 1")
      for ((repeat = 0; repeat < ${DP_LAST_BUCKET_REPEATS:-2}; repeat++)); do
        for ((i = 0; i < ${#choices[@]}; i++)); do
          choice=$((repeat % 2 == 0 ? i : ${#choices[@]} - 1 - i))
          read -ra words <<<"${choices[choice]}"
          environment=() flags=()
          for word in "${words[@]}"; do
            if [[ $word =~ ^[A-Z_]+= ]]; then environment+=("$word"); else flags+=("$word"); fi
          done
          # shellcheck disable=SC2086  # the flags split into words
          step "dp_last_bucket_${repeat}_${choice}" env "${environment[@]}" "$bin/collbench_dpstep" -g "1,$gpus" \
            $best "${flags[@]}" --csv "$work/reports/$machine/dp_last_bucket/repeat${repeat}_choice${choice}.csv"
        done
      done
      # shellcheck disable=SC2086
      step dp_last_bucket_check "$bin/collbench_dpstep" -g "$gpus" $best --last-bucket-algo twoshot \
        --fuse-last-update 0,1 --check --csv "$work/reports/$machine/dp_last_bucket/twoshot_check.csv" ;;
    dp_timeline)
      # Where a multi-GPU overlap step loses time against compute-only: every kernel and copy of
      # a few replayed steps (graph nodes traced one by one), per algorithm, as CSV for
      # ci/dp_timeline.py (run here after fetching). DP_TIMELINE_ALGOS picks the algorithms,
      # DP_TIMELINE_ARGS adds flags, DP_TIMELINE_CE_ARGS replaces them for copy_engine,
      # DP_TIMELINE_BUCKET_MIB is the bucket size (25).
      gpus=${machine#h200x}
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
    mpi_hang)
      # A rank that skips a collective under mpirun: every process must end by itself, soon.
      step mpi_hang bash -c 'start=$SECONDS; mpirun --allow-run-as-root --bind-to none -np "$gpus" -x NCCL_NVLS_ENABLE \
        -x LD_LIBRARY_PATH "$0" --ops all_reduce -b 1M -e 1M -g "$gpus" --timeout 5 --inject-fault skip_rank \
        --csv "$1"; status=$?; echo "mpirun exit status $status after $((SECONDS - start)) s"; [ $status -ne 0 ]' \
        "$bin/collbench" "$work/reports/mpi_hang.csv" ;;
    tuning)
      # Knobs of the hand-built ring and of the training step, measured side by side.
      for ctas in 32 48 64; do
        for slice in 1M 4M; do
          step "ring_ctas${ctas}_slice${slice}" env COLLBENCH_RING_CTAS=$ctas \
            COLLBENCH_RING_SLICE_BYTES=$(( ${slice%M} << 20 )) "$bin/collbench" --ops all_reduce --algo ring,nccl \
            -b 256M -e 4G -f 4 -g "$gpus" --in-place out -c 0 --csv "$work/reports/ring_ctas${ctas}_slice${slice}.csv"
        done
      done
      step dp_nomaster "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap --bucket-mib 25,50 --no-master-weights \
        --csv "$work/reports/dp_nomaster.csv"
      step dp_margin "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap --bucket-mib 25 --no-master-weights \
        --gemm-sm-margin 16 --csv "$work/reports/dp_margin.csv"
      step dp_ctas "$bin/collbench_dpstep" -g "1,$gpus" --sync overlap --bucket-mib 25 --no-master-weights \
        --nccl-max-ctas 16 --csv "$work/reports/dp_ctas.csv" ;;
    *) echo "unknown step $want" ;;
  esac
done

tar czf "$out/results.tgz" -C "$work" .
echo "=== summary"
printf '%s\n' "${summary[@]}"
