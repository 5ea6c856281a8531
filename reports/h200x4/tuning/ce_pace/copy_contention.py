#!/usr/bin/env python3
"""How often copy_engine's peer copies share a target GPU, from an nsys cuda_gpu_trace CSV(.gz).

  copy_contention.py TRACE.csv.gz

Per GPU, the streams with 400+ peer copies over 1 MB are copy_engine's copy streams. Each part
(send or gather) copies to r+1, r+2, r+3 in that order, so the i-th copy of such a stream goes to
GPU (r + 1 + i % 3) % 4 (4 GPUs). For each copy it prints, per stream: the median duration, the mean
share of its time that another GPU's copy into the same target overlapped, and the medians of
the copies overlapped under 5% ("clean") and over 50% ("shared"); then, per step (copies split at
gaps over 300 us), copies, span from first start to last end, and time busy (us).
"""
import collections
import csv
import gzip
import statistics
import sys

GPUS = 4
copies_by_stream = collections.defaultdict(list)
with gzip.open(sys.argv[1], "rt") as f:
    for row in csv.DictReader(f):
        if "Peer-to-Peer" not in row["Name"] or float(row["Bytes (MB)"] or 0) <= 1:
            continue
        start = int(row["Start (ns)"])
        gpu = int(row["Device"].split("(")[1].rstrip(")"))
        copies_by_stream[(gpu, int(row["Strm"]))].append((start, start + int(row["Duration (ns)"])))

copies = []  # (start, end, gpu, target, stream)
for (gpu, stream), spans in copies_by_stream.items():
    if len(spans) < 400:
        continue
    for i, (start, end) in enumerate(sorted(spans)):
        copies.append((start, end, gpu, (gpu + 1 + i % 3) % GPUS, stream))
copies.sort()

shares = collections.defaultdict(list)
for start, end, gpu, target, stream in copies:
    overlapped = sum(min(end, e) - max(start, s) for s, e, g, t, _ in copies
                     if g != gpu and t == target and s < end and e > start)
    shares[(gpu, stream)].append(((end - start) / 1e3, overlapped / (end - start)))
for key, values in sorted(shares.items()):
    clean = [d for d, s in values if s < 0.05]
    shared = [d for d, s in values if s > 0.5]
    print(f"gpu {key[0]} stream {key[1]}: {len(values)} copies, median {statistics.median(d for d, _ in values):.1f} us, "
          f"overlapped {statistics.mean(s for _, s in values):.2f}, clean {len(clean)} median "
          f"{statistics.median(clean) if clean else 0:.1f} us, shared {len(shared)} median "
          f"{statistics.median(shared) if shared else 0:.1f} us")
for key, spans in sorted(copies_by_stream.items()):
    if len(spans) < 400:
        continue
    spans.sort()
    steps = [[spans[0]]]
    for span in spans[1:]:
        (steps.append([span]) if span[0] - steps[-1][-1][1] > 300e3 else steps[-1].append(span))
    print(f"gpu {key[0]} stream {key[1]} (copies, span, busy):",
          [(len(s), round((s[-1][1] - s[0][0]) / 1e3), round(sum(e - b for b, e in s) / 1e3)) for s in steps])
