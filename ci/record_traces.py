#!/usr/bin/env python3
"""Records the communication of small real PyTorch jobs from three sources at once, as test
fixtures for collbench_replay's importers: NCCL's own log, PyTorch profiler (Kineto) traces and
Flight Recorder dumps.

  record_traces.py --out DIR [--jobs ddp,fsdp,...] [--nproc N] [--warmup 2] [--steps 3]
                   [--timeout 60] [--dry-run]

The driver (this command) runs each job in turn under `python -m torch.distributed.run
--standalone --nproc-per-node N` (N: every visible GPU unless --nproc), with the job's own
environment, set before NCCL starts: NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL and
NCCL_DEBUG_FILE=DIR/JOB/nccl.%h.%p.log (one log per process), a 2000-entry Flight Recorder with
timing, and NVLink multicast off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1). Each
worker (`--worker JOB`, the same file) runs the job's warm-up steps, then --steps steps under
torch.profiler (CPU and CUDA, record_shapes) and writes, per rank R:

  DIR/JOB/kineto.rankR.json     the Kineto trace (gzipped to .json.gz when over 2 MiB)
  DIR/JOB/fr.rankR.json         the Flight Recorder dump (_dump_nccl_trace_json)
  DIR/JOB/nccl.HOST.PID.log     NCCL's log of that process (job.json maps PID to rank)

The driver then writes DIR/JOB/job.json (what the job ran: process groups and their ranks, the
operations each rank issues per step, dtypes, torch/NCCL versions, what it found in the traces),
the workers' output to DIR/logs/JOB.log (not a fixture) and DIR/MANIFEST.txt (files and sizes).
Each job's folder is emptied first. A job that fails or outlives --timeout is stopped and named
in one line; the others still run.

--dry-run prints the plan (jobs, environment, commands) without importing torch.
Exit status: 0, 1 when a job failed, 2 for bad arguments, 3 when torch or two GPUs are missing.
"""

import argparse
import glob
import gzip
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback

JOBS = {
    "ddp": "DistributedDataParallel on an MLP, 1 MiB buckets: several all_reduces per step",
    "fsdp": "FSDP2 (fully_shard) on an MLP, bf16 all-gathers and float32 reduce-scatters",
    "tp_dp": "2-D mesh (dp, tp): all_reduce of activations on tp, of gradients on dp",
    "moe": "expert all-to-all: all_to_all_single with uneven and even splits",
    "pipeline": "a stage per rank: send/recv of activations and gradients, a batched ring",
    "subgroups": "broadcast, all_gather_into_tensor, reduce_scatter_tensor (bf16, float32) "
                 "on dist.new_group subgroups and the world",
}
# Jobs whose process group binds its device (init_process_group(device_id=...)): NCCL starts
# the world at once and makes subgroups by ncclCommSplit; the others start each lazily.
EAGER_INIT_JOBS = ("fsdp", "tp_dp", "subgroups")
FLIGHT_RECORDER_ENTRIES = 2000
KINETO_GZIP_BYTES = 2 << 20
TORCH_PYTHON_HINT = "/opt/torch/.venv/bin/python3"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="output folder (required unless --worker)")
    parser.add_argument("--jobs", default=",".join(JOBS), help="jobs, comma separated (all)")
    parser.add_argument("--nproc", type=int, help="processes (GPUs) per job (all visible GPUs)")
    parser.add_argument("--warmup", type=int, default=2, help="steps before the profiled ones")
    parser.add_argument("--steps", type=int, default=3, help="profiled steps")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per job")
    parser.add_argument("--dry-run", action="store_true", help="print the plan; no torch")
    parser.add_argument("--worker", metavar="JOB", help=argparse.SUPPRESS)  # under torchrun
    args = parser.parse_args(argv)
    if not args.out:
        parser.error("--out DIR is required")
    args.job_list = [job for job in args.jobs.split(",") if job]
    if not args.job_list or any(job not in JOBS for job in args.job_list):
        parser.error(f"--jobs {args.jobs}: choose from {','.join(JOBS)}")
    if args.worker is not None and args.worker not in JOBS:
        parser.error(f"--worker {args.worker}: not a job")
    if args.nproc is not None and args.nproc < 2:
        parser.error(f"--nproc {args.nproc}: every job needs at least 2 processes")
    if args.warmup < 1 or args.steps < 1 or args.timeout <= 0:
        parser.error("--warmup and --steps must be at least 1, --timeout positive")
    return args


# ---------------------------------------------------------------------------------------------
# The plan: pure data, no torch.

def job_environment(out_dir, job):
    """The variables a job's processes get on top of the caller's environment."""
    return {
        "NCCL_DEBUG": "INFO",
        "NCCL_DEBUG_SUBSYS": "INIT,COLL",
        "NCCL_DEBUG_FILE": os.path.join(out_dir, job, "nccl.%h.%p.log"),
        "NCCL_NVLS_ENABLE": "0",  # NVLink multicast must stay off on the lent machines
        "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
        # Flight Recorder: 2.11 reads TORCH_FR_BUFFER_SIZE, then the older name.
        "TORCH_FR_BUFFER_SIZE": str(FLIGHT_RECORDER_ENTRIES),
        "TORCH_NCCL_TRACE_BUFFER_SIZE": str(FLIGHT_RECORDER_ENTRIES),
        "TORCH_NCCL_ENABLE_TIMING": "1",  # start events, so each entry gets duration_ms
        "OMP_NUM_THREADS": "1",
        "PYTHONUNBUFFERED": "1",
    }


def worker_command(args, job, nproc):
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            "--nproc-per-node", str(nproc), os.path.abspath(__file__), "--worker", job,
            "--out", os.path.abspath(args.out), "--warmup", str(args.warmup),
            "--steps", str(args.steps)]


def plan(args, nproc):
    """[(job, environment, command)] in the order asked for."""
    return [(job, job_environment(os.path.abspath(args.out), job),
             worker_command(args, job, nproc)) for job in args.job_list]


def print_plan(args):
    nproc = args.nproc if args.nproc is not None else "ALL"
    print(f"record_traces plan: out={os.path.abspath(args.out)} jobs={','.join(args.job_list)} "
          f"nproc={nproc} warmup={args.warmup} steps={args.steps} timeout_s={args.timeout:g}")
    for job, environment, command in plan(args, nproc):
        print(f"job {job}: {JOBS[job]}")
        for name, value in environment.items():
            print(f"  env {name}={value}")
        print(f"  eager_init {'yes' if job in EAGER_INIT_JOBS else 'no'}")
        print(f"  cmd {shlex.join(str(part) for part in command)}")
    return 0


# ---------------------------------------------------------------------------------------------
# The driver: launches each job, checks and completes what it wrote.

class JobError(Exception):
    """A job that ran but left incomplete or unusable files."""


def visible_gpu_count():
    try:
        import torch
    except ImportError as error:
        print(f"record_traces: torch is not importable ({error}); run it with the PyTorch "
              f"python, e.g. {TORCH_PYTHON_HINT}", file=sys.stderr)
        return None
    return torch.cuda.device_count()


def launch(command, environment, log_path, timeout_s, job_dir):
    """Runs one torchrun; returns its exit status, or None when it ran past timeout_s."""
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, env=environment, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            stop(process, job_dir)
            return None


def stop(process, job_dir):
    """SIGTERM to torchrun's process group (it stops its workers), then SIGKILL to what is left:
    the group and the workers by the PIDs they wrote at start."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    for pid_file in glob.glob(os.path.join(job_dir, ".worker.rank*.pid")):
        try:
            with open(pid_file) as handle:
                os.kill(int(handle.read().strip()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def first_error_line(log_path):
    """The workers' own one-line error if one wrote it, else the log's last line."""
    try:
        with open(log_path, errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        return "no log"
    for line in lines:
        if line.startswith("record_traces worker:"):
            return line[len("record_traces worker:"):].strip()
    return lines[-1][:200] if lines else "no output"


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        return json.load(handle)


def kineto_summary(path):
    """What an importer needs from a Kineto trace: NCCL kernels, record_param_comms events, and
    whether (and with which keys) they carry the collective's args."""
    events = load_json(path).get("traceEvents", [])
    kernels = [e for e in events
               if str(e.get("cat", "")).lower() == "kernel" and "nccl" in e.get("name", "").lower()]
    params = [e for e in events if e.get("name") == "record_param_comms"]

    def with_args(found):
        return sum("Collective name" in e.get("args", {}) for e in found)

    return {
        "file": os.path.basename(path),
        "events": len(events),
        "nccl_kernels": len(kernels),
        "nccl_kernels_with_collective_args": with_args(kernels),
        "record_param_comms": len(params),
        "record_param_comms_with_collective_args": with_args(params),
        "nccl_kernel_arg_keys": sorted({key for e in kernels for key in e.get("args", {})}),
    }


def gzip_if_large(path):
    if os.path.getsize(path) <= KINETO_GZIP_BYTES:
        return path
    with open(path, "rb") as source, gzip.open(path + ".gz", "wb", compresslevel=9) as target:
        shutil.copyfileobj(source, target)
    os.remove(path)
    return path + ".gz"


def flight_recorder_summary(path):
    if path.endswith(".pkl"):  # the pickle fallback: reading it back needs torch
        return {"file": os.path.basename(path), "format": "pickle"}
    dump = load_json(path)
    entries = dump.get("entries", [])
    return {
        "file": os.path.basename(path),
        "format": "json",
        "version": dump.get("version"),
        "entries": len(entries),
        "entries_with_duration_ms": sum("duration_ms" in e for e in entries),
        "profiling_names": sorted({e.get("profiling_name", "") for e in entries}),
        "process_groups": sorted(dump.get("pg_config", {})),
    }


def rank_files(job_dir, rank):
    """(Kineto trace, Flight Recorder dump) of one rank; JobError when one is missing."""
    found = []
    for what, names in (("Kineto trace", ("kineto.rank{}.json", "kineto.rank{}.json.gz")),
                        ("Flight Recorder dump", ("fr.rank{}.json", "fr.rank{}.pkl"))):
        paths = [os.path.join(job_dir, name.format(rank)) for name in names]
        paths = [path for path in paths if os.path.exists(path)]
        if not paths:
            raise JobError(f"rank {rank} wrote no {what}")
        found.append(paths[0])
    return tuple(found)


def merge_groups(parts):
    """Every process group any rank was in, by label, with its name, description and ranks."""
    groups = {}
    for part in parts:
        for label, group in part["groups"].items():
            groups.setdefault(f"{label}:{group['ranks']}", dict(group, label=label))
    return sorted(groups.values(), key=lambda g: (g["label"], g["ranks"]))


def finish_job(job_dir, job, nproc, settings):
    """Checks what a finished job wrote, gzips large Kineto traces, writes job.json; returns
    (summary line, warnings). JobError when something an importer needs is missing."""
    parts = []
    for rank in range(nproc):
        path = os.path.join(job_dir, f".part.rank{rank}.json")
        if not os.path.exists(path):
            raise JobError(f"rank {rank} did not finish (no {os.path.basename(path)})")
        parts.append(load_json(path))
    kineto, recorder = [], []
    for rank in range(nproc):
        kineto_path, recorder_path = rank_files(job_dir, rank)
        kineto.append(kineto_summary(kineto_path))
        kineto[-1]["file"] = os.path.basename(gzip_if_large(kineto_path))
        recorder.append(flight_recorder_summary(recorder_path))
    nccl_logs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(job_dir, "nccl.*.log")))
    problems = [f"{len(nccl_logs)} NCCL logs for {nproc} ranks"] if len(nccl_logs) < nproc else []
    problems += [f"rank {k}: no NCCL kernel in its Kineto trace" for k, s in enumerate(kineto)
                 if not s["nccl_kernels"]]
    problems += [f"rank {k}: no record_param_comms with collective args" for k, s in
                 enumerate(kineto) if not s["record_param_comms_with_collective_args"]]
    problems += [f"rank {k}: empty Flight Recorder dump" for k, s in enumerate(recorder)
                 if s.get("entries") == 0]
    if problems:
        raise JobError("; ".join(problems))
    warnings = [f"rank {k}: NCCL kernels carry no collective args" for k, s in enumerate(kineto)
                if not s["nccl_kernels_with_collective_args"]]
    warnings += [f"rank {k}: no Flight Recorder entry has duration_ms" for k, s in
                 enumerate(recorder) if s.get("entries_with_duration_ms") == 0]
    write_job_json(job_dir, job, nproc, settings, parts, kineto, recorder, nccl_logs, warnings)
    for path in glob.glob(os.path.join(job_dir, ".part.rank*.json")):
        os.remove(path)
    kernels = sum(s["nccl_kernels"] for s in kineto)
    entries = sum(s.get("entries", 0) for s in recorder)
    return (f"{len(nccl_logs)} NCCL logs, {nproc} Kineto traces ({kernels} NCCL kernels), "
            f"{nproc} Flight Recorder dumps ({entries} entries)"), warnings


def log_of_pid(nccl_logs, pid):
    """NCCL's log of a process: NCCL names it by the host name up to its first dot and the PID."""
    return next((name for name in nccl_logs if name.endswith(f".{pid}.log")), None)


def write_job_json(job_dir, job, nproc, settings, parts, kineto, recorder, nccl_logs, warnings):
    first = parts[0]
    record = {
        "job": job,
        "description": JOBS[job],
        "world_size": nproc,
        "versions": first["versions"],
        "gpu": first["gpu"],
        "steps": {"warmup": settings["warmup"], "profiled": settings["steps"]},
        "coverage": "NCCL logs and Flight Recorder: set-up, warm-up and profiled steps; Kineto: "
                    "the profiled steps; ops_per_step: one step as each rank issues it itself "
                    "(empty where DDP or FSDP issue the communication: see expect)",
        "eager_init": job in EAGER_INIT_JOBS,
        "environment": settings["environment"],
        "process_groups": merge_groups(parts),
        "ranks": [{"rank": p["rank"], "local_rank": p["local_rank"], "host": p["host"],
                   "pid": p["pid"], "nccl_log": log_of_pid(nccl_logs, p["pid"])}
                  for p in parts],
        "model": first.get("model", {}),
        "expect": first.get("expect", {}),
        "ops_per_step": {str(p["rank"]): p["ops_per_step"] for p in parts},
        "kineto": kineto,
        "flight_recorder": recorder,
        "nccl_logs": nccl_logs,
        "warnings": warnings,
    }
    with open(os.path.join(job_dir, "job.json"), "w") as handle:
        json.dump(record, handle, indent=1)
        handle.write("\n")


def write_manifest(out_dir, status_lines):
    files = []
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, out_dir)
            if relative != "MANIFEST.txt":
                files.append((relative, os.path.getsize(path)))
    with open(os.path.join(out_dir, "MANIFEST.txt"), "w") as manifest:
        manifest.write("# ci/record_traces.py output; logs/ holds the workers' output (not a "
                       f"fixture); Kineto traces over {KINETO_GZIP_BYTES >> 20} MiB are gzipped\n")
        for line in status_lines:
            manifest.write(f"# {line}\n")
        manifest.write("#    bytes  path\n")
        for relative, size in sorted(files):
            manifest.write(f"{size:10d}  {relative}\n")


def run_job(args, job, environment, command, nproc):
    """One job from launch to job.json; returns (ok, status line)."""
    out_dir = os.path.abspath(args.out)
    job_dir = os.path.join(out_dir, job)
    shutil.rmtree(job_dir, ignore_errors=True)
    os.makedirs(job_dir)
    log_path = os.path.join(out_dir, "logs", f"{job}.log")
    start = time.monotonic()
    status = launch(command, dict(os.environ, **environment), log_path, args.timeout, job_dir)
    elapsed = f"{time.monotonic() - start:.1f} s"
    for pid_file in glob.glob(os.path.join(job_dir, ".worker.rank*.pid")):
        os.remove(pid_file)
    if status is None:
        return False, f"{job}: FAILED: timed out after {elapsed} (log: {log_path})"
    if status != 0:
        return False, (f"{job}: FAILED: exit status {status} after {elapsed}: "
                       f"{first_error_line(log_path)} (log: {log_path})")
    settings = {"warmup": args.warmup, "steps": args.steps, "environment": environment}
    try:
        summary, warnings = finish_job(job_dir, job, nproc, settings)
    except (JobError, OSError, ValueError, KeyError) as error:
        return False, f"{job}: FAILED: {error} (log: {log_path})"
    warned = f"; warning: {'; '.join(warnings)}" if warnings else ""
    return True, f"{job}: ok in {elapsed}: {summary}{warned}"


def run_driver(args):
    nproc = args.nproc if args.nproc is not None else visible_gpu_count()
    if nproc is None:
        return 3
    if nproc < 2:
        print(f"record_traces: {nproc} GPU(s) visible; every job needs at least 2",
              file=sys.stderr)
        return 3
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    status_lines, failed = [], []
    for job, environment, command in plan(args, nproc):
        ok, line = run_job(args, job, environment, command, nproc)
        print(f"record_traces: {line}", flush=True)
        status_lines.append(line)
        if not ok:
            failed.append(job)
    write_manifest(os.path.abspath(args.out), status_lines)
    recorded = len(args.job_list) - len(failed)
    print(f"record_traces: {recorded} of {len(args.job_list)} jobs recorded on {nproc} GPUs into "
          f"{os.path.abspath(args.out)} (MANIFEST.txt)" + (f"; failed: {','.join(failed)}"
                                                         if failed else ""), flush=True)
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------
# The worker: one process of one job, under torchrun.

def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


class Comms:
    """The job's process groups, and the communication calls it makes itself; while `noting`,
    each call is also written down (op, group, dtype, element counts) for job.json."""

    def __init__(self, dist):
        self.dist = dist
        self.groups = {"world": dist.group.WORLD}
        self.noting = False
        self.ops = []

    def add_group(self, label, group):
        self.groups[label] = group

    def describe_groups(self):
        described = {}
        for label, group in self.groups.items():
            described[label] = {"name": getattr(group, "group_name", None),
                                "desc": getattr(group, "group_desc", None),
                                "ranks": self.dist.get_process_group_ranks(group)}
        return described

    def note(self, op, label, tensor, **fields):
        if self.noting:
            self.ops.append(dict({"op": op, "group": label, "dtype": dtype_name(tensor.dtype)},
                                 **fields))

    def all_reduce(self, tensor, label):
        self.note("all_reduce", label, tensor, in_count=tensor.numel(), out_count=tensor.numel())
        self.dist.all_reduce(tensor, group=self.groups[label])

    def broadcast(self, tensor, src, label):
        self.note("broadcast", label, tensor, in_count=tensor.numel(), out_count=tensor.numel(),
                  src=src)
        self.dist.broadcast(tensor, src=src, group=self.groups[label])

    def all_gather_into_tensor(self, output, tensor, label):
        self.note("all_gather_into_tensor", label, tensor, in_count=tensor.numel(),
                  out_count=output.numel())
        self.dist.all_gather_into_tensor(output, tensor, group=self.groups[label])

    def reduce_scatter_tensor(self, output, tensor, label):
        self.note("reduce_scatter_tensor", label, tensor, in_count=tensor.numel(),
                  out_count=output.numel())
        self.dist.reduce_scatter_tensor(output, tensor, group=self.groups[label])

    def all_to_all_single(self, output, tensor, label, out_splits=None, in_splits=None):
        self.note("all_to_all_single", label, tensor, in_count=tensor.numel(),
                  out_count=output.numel(), in_splits=in_splits, out_splits=out_splits)
        self.dist.all_to_all_single(output, tensor, output_split_sizes=out_splits,
                                    input_split_sizes=in_splits, group=self.groups[label])

    def send(self, tensor, peer):
        self.note("send", "world", tensor, count=tensor.numel(), peer=peer)
        self.dist.send(tensor, dst=peer)

    def recv(self, tensor, peer):
        self.note("recv", "world", tensor, count=tensor.numel(), peer=peer)
        self.dist.recv(tensor, src=peer)

    def isend(self, tensor, peer):
        self.note("isend", "world", tensor, count=tensor.numel(), peer=peer)
        return self.dist.isend(tensor, dst=peer)

    def irecv(self, tensor, peer):
        self.note("irecv", "world", tensor, count=tensor.numel(), peer=peer)
        return self.dist.irecv(tensor, src=peer)

    def batch_isend_irecv(self, sends, recvs):
        """One NCCL group of isends then irecvs ([(tensor, peer)]), waited for."""
        ops = []
        for kind, function, pairs in (("isend", self.dist.isend, sends),
                                      ("irecv", self.dist.irecv, recvs)):
            for tensor, peer in pairs:
                self.note(kind, "world", tensor, count=tensor.numel(), peer=peer, batched=True)
                ops.append(self.dist.P2POp(function, tensor, peer))
        for work in self.dist.batch_isend_irecv(ops):
            work.wait()


class Job:
    """What a job's builder gets: torch, the ranks, the communication calls."""

    def __init__(self, torch, dist, rank, world, local_rank):
        self.torch, self.dist = torch, dist
        self.rank, self.world, self.local_rank = rank, world, local_rank
        self.comms = Comms(dist)

    def randn(self, *shape, dtype=None, seed=None):
        generator = self.torch.Generator(device="cuda")
        generator.manual_seed(1000 + (self.rank if seed is None else seed))
        return self.torch.randn(*shape, device="cuda", dtype=dtype or self.torch.float32,
                                generator=generator)

    def mlp(self, widths):
        torch = self.torch
        torch.manual_seed(0)  # the same initial weights on every rank
        layers = []
        for k in range(len(widths) - 1):
            layers.append(torch.nn.Linear(widths[k], widths[k + 1]))
            if k + 2 < len(widths):
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers).cuda()


def build_ddp(job):
    torch = job.torch
    from torch.nn.parallel import DistributedDataParallel
    widths = (512, 768, 768, 512, 256)
    model = job.mlp(widths)
    parameters = sum(p.numel() for p in model.parameters())
    ddp = DistributedDataParallel(model, device_ids=[job.local_rank], bucket_cap_mb=1)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    inputs, target = job.randn(64, widths[0]), job.randn(64, widths[-1])

    def step():
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(ddp(inputs), target).backward()
        optimizer.step()

    info = {"model": {"widths": widths, "parameters": parameters, "bucket_cap_mb": 1},
            "expect": {"per_step": {"all_reduce": {
                "group": "world", "dtype": "float32", "at_least": 3,
                "elements_in_all": parameters, "note": "one per DDP bucket"}},
                "at_construction": "DDP checks parameter shapes and broadcasts module "
                                   "states from rank 0"}}
    return step, info


def build_fsdp(job):
    torch = job.torch
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    widths = (512, 1024, 1024, 512, 384)
    model = job.mlp(widths)
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    units = []
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            units.append(sum(p.numel() for p in layer.parameters()))
            fully_shard(layer, mp_policy=policy, reshard_after_forward=True)
    fully_shard(model, mp_policy=policy)  # the root holds no parameters of its own
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs, target = job.randn(32, widths[0]), job.randn(32, widths[-1])

    def step():
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(inputs).float(), target).backward()
        optimizer.step()

    info = {"model": {"widths": widths, "unit_parameters": units,
                      "mixed_precision": "param bfloat16, reduce float32"},
            "expect": {"per_step": {
                "all_gather_into_tensor": {"group": "world", "dtype": "bfloat16",
                                           "count": 2 * len(units),
                                           "note": "each unit before its forward and again "
                                                   "before its backward (resharded after "
                                                   "forward); output = its parameters, each "
                                                   "padded to a multiple of the world size"},
                "reduce_scatter_tensor": {"group": "world", "dtype": "float32",
                                          "count": len(units)}}}}
    return step, info


def build_tp_dp(job):
    torch = job.torch
    from torch.distributed.device_mesh import init_device_mesh
    comms = job.comms
    tp = 2 if job.world % 2 == 0 else 1  # 2 GPUs: (dp, tp) = (1, 2)
    dp = job.world // tp
    mesh = init_device_mesh("cuda", (dp, tp), mesh_dim_names=("dp", "tp"))
    comms.add_group("dp", mesh.get_group("dp"))
    comms.add_group("tp", mesh.get_group("tp"))

    class ReduceFromTP(torch.autograd.Function):  # row-parallel output: all_reduce forward
        @staticmethod
        def forward(ctx, x):
            y = x.clone()
            comms.all_reduce(y, "tp")
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad

    class CopyToTP(torch.autograd.Function):  # column-parallel input: all_reduce backward
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            grad = grad.clone()
            comms.all_reduce(grad, "tp")
            return grad

    blocks_shape = ((512, 1024, 448), (448, 768, 320))  # (in, ffn split over tp, out)
    blocks, seed = [], job.rank % tp  # a tp rank's shards; every dp replica the same
    for d_in, ffn, d_out in blocks_shape:
        shard = ffn // tp
        blocks.append([torch.nn.Parameter(0.02 * job.randn(d_in, shard, seed=seed)),
                       torch.nn.Parameter(torch.zeros(shard, device="cuda")),
                       torch.nn.Parameter(0.02 * job.randn(shard, d_out, seed=seed + 10))])
    params = [p for block in blocks for p in block]
    inputs = job.randn(128, blocks_shape[0][0], seed=100 + job.rank // tp)  # same across tp

    def step():
        for p in params:
            p.grad = None
        h = inputs
        for w1, b1, w2 in blocks:
            h = ReduceFromTP.apply(torch.relu(CopyToTP.apply(h) @ w1 + b1) @ w2)
        h.pow(2).mean().backward()
        for p in params:
            comms.all_reduce(p.grad, "dp")
        with torch.no_grad():
            for p in params:
                p -= 1e-3 * p.grad

    info = {"model": {"mesh": {"dp": dp, "tp": tp}, "blocks": blocks_shape, "tokens": 128,
                      "note": "2 GPUs give mesh (1, 2); an odd count (count, 1)"}}
    return step, info


def build_moe(job):
    torch, comms, world, rank = job.torch, job.comms, job.world, job.rank
    hidden = 256

    def rows(src, dst):  # tokens src sends to the expert on dst: uneven, 8 to 32
        return 8 * (1 + (3 * src + dst) % 4)

    in_splits = [rows(rank, peer) for peer in range(world)]
    out_splits = [rows(peer, rank) for peer in range(world)]
    torch.manual_seed(0)
    expert = torch.nn.Linear(hidden, hidden, device="cuda", dtype=torch.bfloat16)
    tokens = job.randn(sum(in_splits), hidden, dtype=torch.bfloat16)
    counts = torch.tensor(in_splits, dtype=torch.int64, device="cuda")
    even = job.randn(world * 48, 96)
    gate_grad = job.randn(hidden * world)

    def step():
        with torch.no_grad():
            comms.all_to_all_single(torch.empty_like(counts), counts, "world")
            dispatched = tokens.new_empty(sum(out_splits), hidden)
            comms.all_to_all_single(dispatched, tokens, "world", out_splits, in_splits)
            combined = torch.empty_like(tokens)
            comms.all_to_all_single(combined, expert(dispatched), "world", in_splits, out_splits)
            comms.all_to_all_single(torch.empty_like(even), even, "world")
            comms.all_reduce(gate_grad, "world")

    info = {"model": {"hidden": hidden, "experts": world,
                      "rows_from_src_to_dst": "8 * (1 + (3 * src + dst) % 4)"}}
    return step, info


def build_pipeline(job):
    torch, comms, world, rank = job.torch, job.comms, job.world, job.rank
    widths = [256 + 64 * k for k in range(world + 1)]  # stage k: widths[k] -> widths[k + 1]
    micro_batches, rows = 2, 32
    torch.manual_seed(rank)
    layer = torch.nn.Linear(widths[rank], widths[rank + 1]).cuda()
    optimizer = torch.optim.SGD(layer.parameters(), lr=1e-3)
    inputs = [job.randn(rows, widths[0], seed=50 + m) for m in range(micro_batches)]
    ring_send = job.randn(1536, dtype=torch.bfloat16)
    ring_recv = torch.empty_like(ring_send)
    loss_total = torch.zeros(1, device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        saved = []
        for m in range(micro_batches):  # forward, all micro-batches (GPipe)
            if rank == 0:
                x = inputs[m]
            else:
                x = torch.empty(rows, widths[rank], device="cuda")
                comms.recv(x, rank - 1)
                x.requires_grad_()
            y = layer(x)
            if rank + 1 < world:
                comms.send(y.detach(), rank + 1)
            saved.append((x, y))
        for x, y in reversed(saved):  # backward, last micro-batch first
            if rank + 1 == world:
                loss = y.pow(2).mean()
                loss.backward()
                loss_total.add_(loss.detach())
            else:
                grad = torch.empty_like(y)
                comms.irecv(grad, rank + 1).wait()
                y.backward(grad)
            if rank > 0:
                comms.isend(x.grad, rank - 1).wait()
        optimizer.step()
        comms.batch_isend_irecv([(ring_send, (rank + 1) % world)],
                                [(ring_recv, (rank - 1) % world)])
        comms.all_reduce(loss_total, "world")

    info = {"model": {"stage_widths": widths, "micro_batches": micro_batches, "rows": rows,
                      "note": "without a bound device, NCCL makes a communicator per pair of "
                              "ranks for send/recv"}}
    return step, info


def build_subgroups(job):
    torch, dist, comms, world, rank = job.torch, job.dist, job.comms, job.world, job.rank
    half = max(2, world // 2)
    members = {"lo": list(range(half))}
    if world >= 4:
        members["hi"] = list(range(world - half, world))
    for label, ranks in members.items():  # every rank creates every group, in the same order
        group = dist.new_group(ranks=ranks)
        if rank in ranks:
            comms.add_group(label, group)
    mine = [(label, ranks) for label, ranks in members.items() if rank in ranks]
    tensors = {}
    for label, ranks in mine:
        n, extra = len(ranks), 90 * (label == "hi")
        tensors[label] = {
            "b_bf16": job.randn(3000 + extra, dtype=torch.bfloat16),
            "b_f32": job.randn(1234 + extra),
            "ag_in": job.randn(520 + extra, dtype=torch.bfloat16),
            "ag_out": torch.empty(n * (520 + extra), device="cuda", dtype=torch.bfloat16),
            "rs_in": job.randn(n * (700 + extra)),
            "rs_out": torch.empty(700 + extra, device="cuda"),
        }
    world_b = job.randn(777)
    world_ag_in, world_ag_out = job.randn(300), torch.empty(300 * world, device="cuda")
    world_rs_in = job.randn(260 * world, dtype=torch.bfloat16)
    world_rs_out = torch.empty(260, device="cuda", dtype=torch.bfloat16)

    def step():
        for label, ranks in mine:
            t = tensors[label]
            comms.broadcast(t["b_bf16"], ranks[0], label)
            comms.broadcast(t["b_f32"], ranks[-1], label)
            comms.all_gather_into_tensor(t["ag_out"], t["ag_in"], label)
            comms.reduce_scatter_tensor(t["rs_out"], t["rs_in"], label)
        comms.broadcast(world_b, world - 1, "world")
        comms.all_gather_into_tensor(world_ag_out, world_ag_in, "world")
        comms.reduce_scatter_tensor(world_rs_out, world_rs_in, "world")

    info = {"model": {"subgroups": members}}
    return step, info


BUILDERS = {"ddp": build_ddp, "fsdp": build_fsdp, "tp_dp": build_tp_dp, "moe": build_moe,
            "pipeline": build_pipeline, "subgroups": build_subgroups}


def nccl_version_text(torch):
    version = torch.cuda.nccl.version()
    if isinstance(version, int):  # older torch: 2.28.9 as 22809
        return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return ".".join(str(part) for part in version if str(part))


def dump_flight_recorder(torch, job_dir, rank):
    """This process's Flight Recorder (every process group) as JSON, or pickle without it.
    Both return bytes: _dump_nccl_trace_json(includeCollectives, onlyActive) and
    _dump_nccl_trace(includeCollectives, includeStackTraces, onlyActive)."""
    c10d = torch._C._distributed_c10d
    if hasattr(c10d, "_dump_nccl_trace_json"):
        payload = c10d._dump_nccl_trace_json(includeCollectives=True, onlyActive=False)
        path = os.path.join(job_dir, f"fr.rank{rank}.json")
    else:
        payload = c10d._dump_nccl_trace(includeCollectives=True, includeStackTraces=False,
                                        onlyActive=False)
        path = os.path.join(job_dir, f"fr.rank{rank}.pkl")
    with open(path, "wb") as handle:
        handle.write(payload.encode() if isinstance(payload, str) else payload)


def write_part(job_dir, rank, part):
    path = os.path.join(job_dir, f".part.rank{rank}.json")
    with open(path + ".tmp", "w") as handle:
        json.dump(part, handle)
    os.replace(path + ".tmp", path)


def record(args, job_name, rank):
    """Runs one job on this rank and writes its Kineto trace, Flight Recorder dump and part of
    job.json (NCCL writes its log by itself)."""
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile
    job_dir = os.path.join(args.out, job_name)
    with open(os.path.join(job_dir, f".worker.rank{rank}.pid"), "w") as handle:
        handle.write(str(os.getpid()))
    local_rank, world = int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local_rank)
    bind = {"device_id": torch.device("cuda", local_rank)} if job_name in EAGER_INIT_JOBS else {}
    dist.init_process_group("nccl", **bind)
    job = Job(torch, dist, rank, world, local_rank)
    step, info = BUILDERS[job_name](job)
    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=True) as profiler:
        for k in range(args.steps):
            job.comms.noting = k == 0  # every step issues the same operations
            step()
            profiler.step()
        torch.cuda.synchronize()
    job.comms.noting = False
    profiler.export_chrome_trace(os.path.join(job_dir, f"kineto.rank{rank}.json"))
    time.sleep(1.0)  # the watchdog retires the last entries (state, duration_ms)
    dump_flight_recorder(torch, job_dir, rank)
    write_part(job_dir, rank, dict(info, **{
        "rank": rank, "local_rank": local_rank, "pid": os.getpid(), "host": socket.gethostname(),
        "gpu": torch.cuda.get_device_name(local_rank), "groups": job.comms.describe_groups(),
        "ops_per_step": job.comms.ops,
        "versions": {"torch": torch.__version__, "nccl": nccl_version_text(torch),
                     "cuda": torch.version.cuda}}))
    dist.destroy_process_group()


def run_worker(args):
    rank = int(os.environ.get("RANK", "0"))
    try:
        record(args, args.worker, rank)
    except Exception as error:  # one line for the driver, the traceback for the log
        message = str(error).strip().splitlines()
        print(f"record_traces worker: {args.worker} rank {rank}: {type(error).__name__}: "
              f"{message[0][:300] if message else ''}", file=sys.stderr, flush=True)
        traceback.print_exc()
        return 1
    return 0


def main(argv):
    args = parse_args(argv)
    if args.worker:
        return run_worker(args)
    if args.dry_run:
        return print_plan(args)
    return run_driver(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
