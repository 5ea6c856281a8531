#!/usr/bin/env python3
"""Where a collbench_dpstep step loses time against compute-only, from an Nsight Systems GPU trace.

ci/device-run.sh dp_timeline profiles collbench_dpstep with graph nodes traced one by one and
exports `nsys stats --report cuda_gpu_trace --format csv`; this script reads that CSV:

  dp_timeline.py TRACE.csv[.gz] [--layers 8] [--steps FIRST:LAST]

Per GPU, it cuts the timeline into steps: every step runs one MSE-loss kernel, and the `layers`
GEMMs before it are the forward pass, so a step starts at the first of them and ends where the
next one starts. Steps with communication (copies between GPUs, NCCL or hand-built all-reduce
kernels) are the full step; steps without are compute-only. For each kind it prints the medians
over its steps (microseconds): step, forward, end of backward's last GEMM, GEMM time summed, and
the tail (step end minus end of backward: what waits for the last gradients' all-reduce and
update), plus, for full steps, how much communication runs after backward ended. --steps keeps
the steps of each kind numbered FIRST to LAST (from 0, in time order): a long trace's first steps
against its last, before and after the GPUs reach their power cap.

Exit status: 0, or 2 when the file is unreadable or holds no complete step.
"""

import argparse
import collections
import csv
import gzip
import statistics
import sys

COMM_MARKERS = ("nccl", "ring_push", "ring_pull", "oneshot", "twoshot", "reduce_sources",
                "ring_sendrecv", "Peer-to-Peer", "Device-to-Device")


def kind_of(name):
    if "mse_loss" in name:
        return "loss"
    if name.startswith("nvjet") or "gemm" in name.lower():
        return "gemm"
    if any(marker in name for marker in COMM_MARKERS):
        return "comm"
    return "other"


def read_trace(path):
    """{device: [(start_ns, end_ns, kind)]} sorted by start."""
    per_device = collections.defaultdict(list)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        for row in csv.DictReader(f):
            start = int(row["Start (ns)"])
            per_device[row["Device"]].append(
                (start, start + int(row["Duration (ns)"]), kind_of(row["Name"])))
    for ops in per_device.values():
        ops.sort()
    return per_device


def steps_of(ops, layers):
    """One dict of timings (us, relative to the step's start) per complete step."""
    starts = []
    for i, (_, _, kind) in enumerate(ops):
        if kind != "loss":
            continue
        gemms = [j for j in range(i) if ops[j][2] == "gemm"][-layers:]
        if len(gemms) == layers:
            starts.append(gemms[0])
    steps = []
    for first, following in zip(starts, starts[1:]):
        t0, t1 = ops[first][0], ops[following][0]
        inside = ops[first:following]
        gemms = [op for op in inside if op[2] == "gemm"]
        loss_end = max(op[1] for op in inside if op[2] == "loss")
        backward_end = max(op[1] for op in gemms)
        comm = [op for op in inside if op[2] == "comm"]
        steps.append({
            "comm": bool(comm),
            "step": (t1 - t0) / 1e3,
            "forward": (loss_end - t0) / 1e3,
            "backward_end": (backward_end - t0) / 1e3,
            "gemm_sum": sum(op[1] - op[0] for op in gemms) / 1e3,
            "tail": (t1 - backward_end) / 1e3,
            "comm_after_backward": max([op[1] for op in comm], default=backward_end) / 1e3
                                   - backward_end / 1e3,
        })
    return steps


def summary_lines(per_device, layers, step_range=None):
    lines = []
    keys = ["step", "forward", "backward_end", "gemm_sum", "tail", "comm_after_backward"]
    lines.append("gpu  kind          steps " + " ".join(f"{k:>19}" for k in keys))
    found = False
    for device, ops in sorted(per_device.items()):
        steps = steps_of(ops, layers)
        for label, with_comm in (("full", True), ("compute-only", False)):
            chosen = [s for s in steps if s["comm"] == with_comm]
            if step_range is not None:
                chosen = chosen[step_range[0]:step_range[1] + 1]
            if not chosen:
                continue
            found = True
            medians = [statistics.median(s[k] for s in chosen) for k in keys]
            lines.append(f"{device[-3:]:4} {label:13} {len(chosen):5} " +
                         " ".join(f"{m:19.1f}" for m in medians))
    return lines if found else []


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--steps", help="FIRST:LAST, the steps of each kind to summarise (from 0)")
    args = parser.parse_args(argv)
    step_range = None
    if args.steps is not None:
        try:
            first, last = (int(v) for v in args.steps.split(":"))
        except ValueError:
            first, last = -1, -1
        if first < 0 or last < first:
            print(f"dp_timeline.py: --steps {args.steps}: expected FIRST:LAST, 0 <= FIRST <= LAST",
                  file=sys.stderr)
            return 2
        step_range = (first, last)
    try:
        lines = summary_lines(read_trace(args.trace), args.layers, step_range)
    except (OSError, KeyError, ValueError) as error:
        print(f"dp_timeline.py: cannot read {args.trace}: {error}", file=sys.stderr)
        return 2
    if not lines:
        print(f"dp_timeline.py: no complete step in {args.trace}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
