#!/usr/bin/env python3
"""Tests of ci/dp_timeline.py with a hand-made cuda_gpu_trace CSV: two GPUs, full steps whose
last all-reduce outlasts backward, compute-only steps, and files it must refuse.

usage: dp_timeline_test.py PATH/TO/dp_timeline.py
"""

import contextlib
import csv
import io
import sys
import tempfile
import unittest

from script_under_test import load_script

dp_timeline = load_script("dp_timeline")

FIELDS = ["Start (ns)", "Duration (ns)", "Device", "Strm", "Name"]
LAYERS = 2


def step_rows(device, t0, with_comm):
    """One step of a 2-layer model starting at t0 (us): forward 2 x 10, loss 5, backward GEMMs
    3 x 10 ending at 55, an optimizer kernel, and (full steps) an all-reduce running to 75."""
    us = 1000
    rows = [(t0, 10, "nvjet_fwd_relubias"), (t0 + 10, 10, "nvjet_fwd_bias"),
            (t0 + 20, 5, "mse_loss_kernel<bf16>"), (t0 + 25, 10, "nvjet_NTN"),
            (t0 + 35, 10, "nvjet_NNN"), (t0 + 45, 10, "nvjet_NTN"),
            (t0 + 56, 4, "sgd_momentum_kernel<bf16>")]
    if with_comm:
        rows += [(t0 + 36, 9, "[CUDA memcpy Peer-to-Peer]"),
                 (t0 + 60, 15, "ring_push_kernel<bf16, SumOp>")]
    return [{"Start (ns)": start * us, "Duration (ns)": duration * us, "Device": device,
             "Strm": "7", "Name": name} for start, duration, name in rows]


def write_trace(rows):
    handle = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, newline="")
    with handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r["Start (ns)"]):
            writer.writerow(row)
    return handle.name


def run(path, *extra):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = dp_timeline.main([path, "--layers", str(LAYERS), *extra])
    return status, out.getvalue(), err.getvalue()


class DpTimelineTest(unittest.TestCase):
    def test_full_and_compute_only_steps_per_gpu(self):
        rows = []
        for device in ("NVIDIA H200 (0)", "NVIDIA H200 (1)"):
            # Full steps take 80 us, compute-only 60 us; a last forward closes each run of steps.
            t = 0
            for _ in range(3):
                rows += step_rows(device, t, True)
                t += 80
            for _ in range(3):
                rows += step_rows(device, t, False)
                t += 60
            rows += step_rows(device, t, False)[:3]
        status, out, _ = run(write_trace(rows))
        self.assertEqual(status, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 5)
        full = lines[1].split()
        self.assertEqual(full[:3], ["(0)", "full", "3"])
        # step, forward, backward end, GEMM sum, tail, communication after backward
        self.assertEqual([float(v) for v in full[3:]], [80.0, 25.0, 55.0, 50.0, 25.0, 20.0])
        compute = lines[2].split()
        self.assertEqual(compute[:3], ["(0)", "compute-only", "3"])
        self.assertEqual([float(v) for v in compute[3:]], [60.0, 25.0, 55.0, 50.0, 5.0, 0.0])
        self.assertTrue(lines[3].startswith("(1)"))

    def test_steps_keeps_a_range_of_each_kind(self):
        rows = []
        t = 0
        for length in (80, 80, 90, 100):  # full steps that grow longer, as at the power cap
            rows += step_rows("NVIDIA H200 (0)", t, True)
            t += length
        rows += step_rows("NVIDIA H200 (0)", t, False)[:3]
        status, out, _ = run(write_trace(rows), "--steps", "2:3")
        self.assertEqual(status, 0)
        full = out.splitlines()[1].split()
        self.assertEqual(full[:3], ["(0)", "full", "2"])
        self.assertEqual(float(full[3]), 95.0)  # the median of the last two steps
        self.assertEqual(run(write_trace(rows), "--steps", "0:0")[1].splitlines()[1].split()[3],
                         "80.0")
        for bad in ("3:2", "x", "-1:2"):
            status, _, err = run(write_trace(rows), f"--steps={bad}")
            self.assertEqual(status, 2)
            self.assertIn("--steps", err)

    def test_no_complete_step_and_unreadable_files_exit_2(self):
        one_step = step_rows("NVIDIA H200 (0)", 0, True)
        self.assertEqual(run(write_trace(one_step))[0], 2)
        self.assertEqual(run("/nonexistent/trace.csv")[0], 2)
        bad = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
        with bad:
            bad.write("Start,Name\n1,x\n")
        status, _, err = run(bad.name)
        self.assertEqual(status, 2)
        self.assertIn("cannot read", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
