#!/usr/bin/env python3
"""One training step of one GPU from an nsys cuda_gpu_trace CSV, operation by operation.

  step_listing.py TRACE.csv.gz [GPU] [STEP]

GPU is the device index (default 0); STEP picks the STEP-th step with peer copies (default 5).
A step starts at the first of the 8 forward GEMMs before an MSE-loss kernel, as in
ci/dp_timeline.py. Each line: start and end (us from the step's start), duration, stream, kernel or
copy name, bytes (MB). Flag resets (tiny device-to-device copies) and host uploads are left out.
"""
import csv
import gzip
import sys

LAYERS = 8


def kind(name):
    if "mse_loss" in name:
        return "loss"
    if name.startswith("nvjet") or "gemm" in name.lower():
        return "gemm"
    return name[:40]


def main():
    path = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) > 2 else "0"
    which = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with gzip.open(path, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["Device"].endswith(f"({device})")]
    ops = sorted((int(r["Start (ns)"]), int(r["Start (ns)"]) + int(r["Duration (ns)"]),
                  kind(r["Name"]), r["Strm"], r["Bytes (MB)"]) for r in rows)
    starts = []
    for i, op in enumerate(ops):
        if op[2] != "loss":
            continue
        gemms = [j for j in range(i) if ops[j][2] == "gemm"][-LAYERS:]
        if len(gemms) == LAYERS:
            starts.append(gemms[0])
    full = [(a, b) for a, b in zip(starts, starts[1:])
            if any("Peer" in op[2] for op in ops[a:b])]
    first, following = full[which]
    t0 = ops[first][0]
    for start, end, name, stream, megabytes in ops[first:following]:
        tiny_copy = "Device-to-Device" in name and float(megabytes or 0) < 0.001
        if tiny_copy or "Host-to-Device" in name:
            continue
        print(f"{(start - t0) / 1e3:8.1f} {(end - t0) / 1e3:8.1f} {(end - start) / 1e3:6.1f}  "
              f"s{stream:<4} {name:<40} {megabytes}")
    print("next step", (ops[following][0] - t0) / 1e3)


if __name__ == "__main__":
    main()
