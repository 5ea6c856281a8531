#!/usr/bin/env python3
"""Each GPU's peer copies of one training step, on GPU 0's clock, from an nsys cuda_gpu_trace CSV.

  copy_alignment.py TRACE.csv.gz [STEP]

STEP (default 6) picks the step by its MSE-loss kernel on each GPU. Prints each GPU's loss-kernel
offset from GPU 0's, then each GPU's peer-to-peer copies of that step as START/DURATION in us from
GPU 0's loss kernel: copies that start at the same time on two GPUs and run long have met at a
target GPU.
"""
import csv
import gzip
import sys


def device_of(row):
    return row["Device"].split("(")[-1].rstrip(")")


def main():
    path = sys.argv[1]
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    with gzip.open(path, "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    losses = {}
    for row in rows:
        if "mse_loss" in row["Name"]:
            losses.setdefault(device_of(row), []).append(int(row["Start (ns)"]))
    for starts in losses.values():
        starts.sort()
    origin = losses["0"][step]
    print("loss kernel offset from GPU 0 (us):",
          {d: round((losses[d][step] - origin) / 1e3, 1) for d in sorted(losses)})
    for device in sorted(losses):
        begin, end = losses[device][step], losses[device][step + 1]
        copies = sorted((int(r["Start (ns)"]), int(r["Duration (ns)"])) for r in rows
                        if device_of(r) == device and "Peer" in r["Name"]
                        and begin <= int(r["Start (ns)"]) < end)
        print(device, " ".join(f"{(s - origin) / 1e3:.0f}/{d / 1e3:.0f}" for s, d in copies))


if __name__ == "__main__":
    main()
