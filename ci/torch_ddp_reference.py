#!/usr/bin/env python3
"""The PyTorch DistributedDataParallel reference for collbench_dpstep, on the same machine.

Issue 4 compares collbench_dpstep with PyTorch DDP on its model (L layers of width H with bias
and ReLU, the last with bias only, per-GPU batch B, MSE loss against a synthetic target, SGD with
momentum, bfloat16 weights and momentum as torch.optim.SGD keeps them for a bfloat16 model). This
script runs that step with DDP (one process per GPU, NCCL, `--bucket-mb` buckets) for each GPU
count, times it the way collbench_dpstep does (warm-up steps, then CUDA events around each timed
step; the row's mean is the slowest rank's mean), and prints one line per GPU count plus, with
--csv, a small CSV (ranks, step_ms_mean, step_ms_p50, efficiency, torch and NCCL versions).

  torch_ddp_reference.py [--gpus 1,4] [--layers 8 --width 4096 --batch 2048] [--bucket-mb 25]
                         [--warmup 10 --iters 50] [--csv FILE] [--dry-run]

--dry-run imports nothing from torch: it prints the model's parameter count and gradient bytes,
which must equal collbench_dpstep's header for the comparison to be fair (CI checks this).
Exit status: 0, 2 for bad arguments, 3 when torch or the GPUs are missing.
"""

import argparse
import csv
import os
import statistics
import sys


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", default="1,4", help="GPU counts, comma separated")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=2048, help="samples per GPU")
    parser.add_argument("--bucket-mb", type=float, default=25.0, help="DDP bucket_cap_mb")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--csv", help="write the rows to this CSV file")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the model's size and exit without importing torch")
    args = parser.parse_args(argv)
    try:
        args.gpu_counts = [int(g) for g in args.gpus.split(",") if g]
    except ValueError:
        parser.error(f"--gpus {args.gpus}: not a list of integers")
    for name in ("layers", "width", "batch", "iters"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} {getattr(args, name)}: must be at least 1")
    if args.warmup < 0:
        parser.error(f"--warmup {args.warmup}: must not be negative")
    if not args.gpu_counts or min(args.gpu_counts) < 1:
        parser.error(f"--gpus {args.gpus}: every count must be at least 1")
    return args


def parameter_count(layers, width):
    """Weights and biases of `layers` square layers."""
    return layers * (width * width + width)


def slowest_rank_stats(per_rank_ms):
    """(mean, p50) of the rank whose mean step is the longest."""
    slowest = max(per_rank_ms, key=statistics.fmean)
    return statistics.fmean(slowest), statistics.median(slowest)


def worker(rank, world, args, results):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + world))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.manual_seed(1)  # the same initial weights on every rank, as DDP requires
    layers = []
    for layer in range(args.layers):
        layers.append(torch.nn.Linear(args.width, args.width))
        if layer + 1 < args.layers:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).cuda().to(torch.bfloat16)
    ddp = DistributedDataParallel(model, device_ids=[rank], bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=args.momentum)
    generator = torch.Generator(device="cuda").manual_seed(1000 + rank)  # each rank its own slice
    inputs = torch.randn(args.batch, args.width, device="cuda", generator=generator,
                         dtype=torch.bfloat16)
    target = torch.randn(args.batch, args.width, device="cuda", generator=generator,
                         dtype=torch.bfloat16)
    loss_fn = torch.nn.MSELoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(ddp(inputs), target)
        loss.backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(args.iters + 1)]
    dist.barrier()
    torch.cuda.synchronize()
    events[0].record()
    for i in range(args.iters):
        step()
        events[i + 1].record()
    torch.cuda.synchronize()
    times = [events[i].elapsed_time(events[i + 1]) for i in range(args.iters)]
    gathered = [None] * world
    dist.all_gather_object(gathered, times)
    if rank == 0:
        results.put((world, gathered, torch.__version__,
                     ".".join(str(v) for v in torch.cuda.nccl.version())))
    dist.destroy_process_group()


def run(args):
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError as error:
        print(f"torch_ddp_reference: torch is not importable ({error})", file=sys.stderr)
        return 3
    available = torch.cuda.device_count()
    if max(args.gpu_counts) > available:
        print(f"torch_ddp_reference: --gpus {args.gpus}: only {available} GPU(s) visible",
              file=sys.stderr)
        return 3
    context = mp.get_context("spawn")
    rows = []
    for world in args.gpu_counts:
        results = context.SimpleQueue()
        mp.spawn(worker, args=(world, args, results), nprocs=world, join=True)
        _, per_rank, torch_version, nccl_version = results.get()
        mean_ms, p50_ms = slowest_rank_stats(per_rank)
        rows.append({"ranks": world, "step_ms_mean": mean_ms, "step_ms_p50": p50_ms,
                     "torch": torch_version, "nccl": nccl_version})
    baseline = next((r["step_ms_mean"] for r in rows if r["ranks"] == 1), None)
    for row in rows:
        row["efficiency"] = baseline / row["step_ms_mean"] if baseline else ""
        efficiency = f"{100 * row['efficiency']:.1f}%" if baseline else "-"
        print(f"torch_ddp ranks={row['ranks']} step_ms_mean={row['step_ms_mean']:.3f} "
              f"step_ms_p50={row['step_ms_p50']:.3f} efficiency={efficiency} "
              f"torch={row['torch']} nccl={row['nccl']}", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=["ranks", "layers", "width", "batch",
                                                     "bucket_mb", "warmup", "iters",
                                                     "step_ms_mean", "step_ms_p50", "efficiency",
                                                     "torch", "nccl"])
            writer.writeheader()
            for row in rows:
                writer.writerow({**row, "layers": args.layers, "width": args.width,
                                 "batch": args.batch, "bucket_mb": args.bucket_mb,
                                 "warmup": args.warmup, "iters": args.iters})
    return 0


def main(argv):
    args = parse_args(argv)
    if args.dry_run:
        count = parameter_count(args.layers, args.width)
        print(f"parameters={count} gradient_mib={2 * count / (1 << 20):.1f} "
              f"gpus={','.join(str(g) for g in args.gpu_counts)}")
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
