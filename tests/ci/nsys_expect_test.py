#!/usr/bin/env python3
"""Tests of ci/nsys_expect.py with hand-made Nsight Systems exports: stats CSVs (with and without
domain prefixes, with nsys's progress lines), a SQLite export with the tables and columns the
checker reads, a collbench CSV and a Chrome trace. Each failure the checker exists to catch is
planted once and must turn the verdict to FAIL.

usage: nsys_expect_test.py PATH/TO/nsys_expect.py
"""

import contextlib
import csv
import io
import json
import os
import sqlite3
import sys
import tempfile
import unittest

from script_under_test import load_script

nsys_expect = load_script("nsys_expect")

NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
RANKS, ITERS = 4, 5
# (CSV row fields, the case name the runner gives it)
CASES = [
    (dict(op="all_reduce", algo="nccl", dtype="float", redop="sum", bytes=1 << 20, root=-1, in_place=0),
     "all_reduce nccl float sum 4r 1 MiB"),
    (dict(op="all_gather", algo="nccl", dtype="float", redop="none", bytes=4 << 20, root=-1, in_place=0),
     "all_gather nccl float none 4r 4 MiB"),
    (dict(op="broadcast", algo="nccl", dtype="float", redop="none", bytes=1 << 20, root=0, in_place=1),
     "broadcast nccl float none 4r 1 MiB root 0 in-place"),
    (dict(op="all_reduce", algo="ring", dtype="float", redop="sum", bytes=1536, root=-1, in_place=0),
     "all_reduce ring float sum 4r 1.50 KiB"),
]
OOM_CASE = (dict(op="all_reduce", algo="nccl", dtype="float", redop="sum", bytes=8 << 30, root=-1, in_place=0),
            "all_reduce nccl float sum 4r 8 GiB")
STATS_HEADER = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                "StdDev (ns)"]


class Fixture:
    """A directory of exports for one profiled collbench run, each part replaceable by a test."""

    def __init__(self, directory):
        self.dir = directory
        self.prefix = "collbench:"
        self.ranges = {name: 1 for _, name in CASES}
        self.ranges.update({OOM_CASE[1]: 1, "warmup": 4, "timed": 4, "check": 4, "allocate": 5,
                            "communicator init 4r": 1})
        self.kernels = {NCCL_KERNEL: 40, "ring_all_reduce_kernel": 5, "fill_kernel": 12}
        self.launch_outside_timed = None  # a case name whose kernels go outside "timed"
        self.trace_events_for = {name: RANKS * ITERS for _, name in CASES}
        self.trace_overlap = False

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self):
        self._write_csv()
        self._write_stats("nvtx_sum.csv", "Style", "Range",
                          [("PushPop", f"{self.prefix}{n}", c) for n, c in self.ranges.items()]
                          + [("PushPop", "NCCL:ncclAllReduce", 30)])
        self._write_stats("kern_sum.csv", None, "Name", [(None, n, c) for n, c in self.kernels.items()])
        self._write_sqlite()
        self._write_trace()

    def _write_csv(self):
        with open(self.path("collbench.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["schema_version", "op", "algo", "ranks", "dtype", "redop", "root", "in_place", "bytes",
                             "iters", "graph", "status", "reason"])
            for fields, _ in CASES:
                writer.writerow([1, fields["op"], fields["algo"], RANKS, fields["dtype"], fields["redop"],
                                 fields["root"], fields["in_place"], fields["bytes"], ITERS, 0, "ok", ""])
            f = OOM_CASE[0]
            writer.writerow([1, f["op"], f["algo"], RANKS, f["dtype"], f["redop"], f["root"], f["in_place"],
                             f["bytes"], ITERS, 0, "oom", "out of memory"])

    def _write_stats(self, name, style_column, name_column, rows):
        with open(self.path(name), "w", newline="") as f:
            # What nsys prints before a table when it writes to the console.
            f.write("Processing [report.sqlite] with [/opt/nsys/reports/x.py]... \n\n")
            writer = csv.writer(f, quoting=csv.QUOTE_ALL)
            writer.writerow(STATS_HEADER + ([style_column] if style_column else []) + [name_column])
            for style, range_name, count in rows:
                writer.writerow([1.0, 1000, count, 10, 10, 1, 20, 1] + ([style] if style_column else [])
                                + [range_name])

    def _write_sqlite(self):
        path = self.path("report.sqlite")
        if os.path.exists(path):
            os.remove(path)
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
                rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
                endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER);
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
                deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
                globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
                eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
        """)
        strings = {"timed": 1, "warmup": 2, "check": 3, NCCL_KERNEL: 10, "ring_all_reduce_kernel": 11,
                   "cuLaunchKernelEx": 20}
        db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in strings.items()])
        pid = 4242
        tid = (pid << 24) | 4243
        nvtx = [(0, None, 75, "collbench", None, tid, 1), (0, None, 75, "NCCL", None, tid, 2)]
        runtime, kernels = [], []
        correlation = 100
        for index, (fields, name) in enumerate(CASES):
            t0 = 1_000_000 * (index + 1)
            nvtx.append((t0, t0 + 900, 59, name, None, tid, 1))
            nvtx.append((t0 + 10, t0 + 100, 59, None, strings["warmup"], tid, 1))
            nvtx.append((t0 + 200, t0 + 600, 59, None, strings["timed"], tid, 1))
            nvtx.append((t0 + 700, t0 + 800, 59, None, strings["check"], tid, 1))
            nvtx.append((t0 + 250, t0 + 260, 59, "ncclAllReduce", None, tid, 2))
            kernel = NCCL_KERNEL if fields["algo"] == "nccl" else "ring_all_reduce_kernel"
            launch_at = t0 + 650 if name == self.launch_outside_timed else t0 + 255
            for rank in range(RANKS):
                correlation += 1
                # One host thread per rank launches; the ranges are the main thread's.
                worker_tid = (pid << 24) | (5000 + rank)
                runtime.append((launch_at, launch_at + 5, 1, worker_tid, correlation, strings["cuLaunchKernelEx"]))
                kernels.append((launch_at + 50, launch_at + 90, rank, 7, correlation, pid << 24,
                                strings[kernel], strings[kernel]))
        # A launch in another process at the same time belongs to no collbench range.
        other_process_tid = (pid + 1) << 24 | 1
        correlation += 1
        runtime.append((1_000_255, 1_000_260, 1, other_process_tid, correlation, strings["cuLaunchKernelEx"]))
        kernels.append((1_000_300, 1_000_340, 0, 7, correlation, (pid + 1) << 24, strings[NCCL_KERNEL],
                        strings[NCCL_KERNEL]))
        db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid, domainId) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", nvtx)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?)", runtime)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?, ?, ?)", kernels)
        db.commit()
        db.close()

    def _write_trace(self):
        events = []
        for rank in range(RANKS):
            events.append({"ph": "M", "name": "process_name", "pid": rank, "tid": 0,
                           "args": {"name": f"rank {rank} (GPU {rank})"}})
        cursor = 0.0
        for _, name in CASES:
            for rank in range(RANKS):
                for i in range(self.trace_events_for[name] // RANKS):
                    start = cursor + i * 10.0 - (5.0 if self.trace_overlap and i == 1 else 0.0)
                    events.append({"ph": "X", "name": name, "pid": rank, "tid": 0, "ts": start, "dur": 10.0,
                                   "args": {"iteration": i}})
            cursor += 1000.0
        with open(self.path("trace.json"), "w") as f:
            json.dump({"displayTimeUnit": "ns", "traceEvents": events}, f)

    def run(self, *extra, sqlite=True, trace=True):
        self.write()
        argv = ["collbench", "--nvtx-sum", self.path("nvtx_sum.csv"), "--kern-sum", self.path("kern_sum.csv"),
                "--csv", self.path("collbench.csv")]
        if sqlite:
            argv += ["--sqlite", self.path("report.sqlite")]
        if trace:
            argv += ["--trace", self.path("trace.json")]
        output = io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            status = nsys_expect.main(argv + list(extra))
        return status, output.getvalue()


class CollbenchChecks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fixture = Fixture(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_verdict(self, expected_status, expected_text=None):
        status, output = self.fixture.run()
        self.assertEqual(status, expected_status, output)
        if expected_text:
            self.assertIn(expected_text, output)
        return output

    def test_complete_profile_passes(self):
        output = self.assert_verdict(0)
        self.assertTrue(output.rstrip().endswith("nsys collbench: PASS"), output)
        self.assertNotIn("FAIL", output)

    def test_ranges_without_domain_prefix_pass_with_a_warning(self):
        self.fixture.prefix = ""
        output = self.assert_verdict(0, "WARN")

    def test_missing_case_range_fails(self):
        del self.fixture.ranges["all_gather nccl float none 4r 4 MiB"]
        self.assert_verdict(1, "FAIL  4 case ranges")

    def test_case_range_without_csv_row_fails(self):
        self.fixture.ranges["reduce nccl float sum 4r 2 MiB root 1"] = 1
        self.assert_verdict(1, "FAIL  no case range without a CSV row")

    def test_too_few_timed_ranges_fail(self):
        self.fixture.ranges["timed"] = 3
        self.assert_verdict(1, "FAIL  'timed' ranges: 3")

    def test_missing_setup_range_fails(self):
        del self.fixture.ranges["communicator init 4r"]
        self.assert_verdict(1, "FAIL  setup range 'communicator init 4r'")

    def test_no_nccl_kernels_fail(self):
        del self.fixture.kernels[NCCL_KERNEL]
        self.assert_verdict(1, "FAIL  NCCL kernels in cuda_gpu_kern_sum")

    def test_kernels_launched_outside_timed_fail(self):
        self.fixture.launch_outside_timed = "all_reduce nccl float sum 4r 1 MiB"
        self.assert_verdict(1, "none in all_reduce nccl float sum 4r 1 MiB")

    def test_wrong_trace_event_count_fails(self):
        self.fixture.trace_events_for["all_gather nccl float none 4r 4 MiB"] = RANKS * (ITERS - 1)
        self.assert_verdict(1, "'all_gather nccl float none 4r 4 MiB': 16 events, expected 20")

    def test_overlapping_trace_events_fail(self):
        self.fixture.trace_overlap = True
        self.assert_verdict(1, "overlaps")

    def test_sqlite_without_domain_names_warns_and_still_checks(self):
        self.fixture.write()
        db = sqlite3.connect(self.fixture.path("report.sqlite"))
        db.execute("DELETE FROM NVTX_EVENTS WHERE eventType = 75")
        db.commit()
        db.close()
        original, self.fixture._write_sqlite = self.fixture._write_sqlite, lambda: None
        status, output = self.fixture.run()
        self.assertEqual(status, 0, output)
        self.assertIn("WARN  SQLite: no range in a domain named 'collbench'", output)
        self.fixture.launch_outside_timed = "all_gather nccl float none 4r 4 MiB"
        self.fixture._write_sqlite = original
        self.fixture.write()
        db = sqlite3.connect(self.fixture.path("report.sqlite"))
        db.execute("DELETE FROM NVTX_EVENTS WHERE eventType = 75")
        db.commit()
        db.close()
        self.fixture._write_sqlite = lambda: None
        status, output = self.fixture.run()
        self.assertEqual(status, 1, output)

    def test_without_sqlite_warns_about_nesting(self):
        status, output = self.fixture.run(sqlite=False)
        self.assertEqual(status, 0, output)
        self.assertIn("WARN  no --sqlite", output)

    def test_missing_input_is_status_2(self):
        self.fixture.write()
        os.remove(self.fixture.path("kern_sum.csv"))
        argv = ["collbench", "--nvtx-sum", self.fixture.path("nvtx_sum.csv"), "--kern-sum",
                self.fixture.path("kern_sum.csv"), "--csv", self.fixture.path("collbench.csv")]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(nsys_expect.main(argv), 2)
        self.assertIn("kern_sum.csv", err.getvalue())

    def test_csv_that_is_no_collbench_report_is_status_2(self):
        self.fixture.write()
        with open(self.fixture.path("collbench.csv"), "w") as f:
            f.write("a,b\n1,2\n")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = nsys_expect.main(["collbench", "--nvtx-sum", self.fixture.path("nvtx_sum.csv"), "--kern-sum",
                                       self.fixture.path("kern_sum.csv"), "--csv", self.fixture.path("collbench.csv")])
        self.assertEqual(status, 2)


class Names(unittest.TestCase):
    def test_sizes_match_format_byte_size(self):
        self.assertEqual(nsys_expect.format_size(8), "8 B")
        self.assertEqual(nsys_expect.format_size(1023), "1023 B")
        self.assertEqual(nsys_expect.format_size(1536), "1.50 KiB")
        self.assertEqual(nsys_expect.format_size(1 << 20), "1 MiB")
        self.assertEqual(nsys_expect.format_size(3 << 29), "1.50 GiB")

    def test_case_names(self):
        for fields, name in CASES:
            row = {k: str(v) for k, v in fields.items()}
            row["ranks"] = str(RANKS)
            self.assertEqual(nsys_expect.case_name(row), name)
            self.assertTrue(nsys_expect.CASE_LIKE.match(name), name)

    def test_domain_prefixes(self):
        self.assertEqual(nsys_expect.split_domain("collbench:timed"), ("collbench", "timed"))
        self.assertEqual(nsys_expect.split_domain(":timed"), (None, "timed"))
        self.assertEqual(nsys_expect.split_domain("timed"), (None, "timed"))


class DpStepChecks(unittest.TestCase):
    def run_check(self, ranges, bucket_kernel=NCCL_KERNEL):
        with tempfile.TemporaryDirectory() as tmp:
            fixture = Fixture(tmp)
            fixture._write_stats("nvtx_sum.csv", "Style", "Range", [("PushPop", n, c) for n, c in ranges.items()])
            fixture._write_stats("kern_sum.csv", None, "Name", [(None, NCCL_KERNEL, 9)])
            db = sqlite3.connect(fixture.path("dp.sqlite"))
            db.executescript("""
                CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,
                    textId INTEGER, globalTid INTEGER, domainId INTEGER);
                CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (correlationId INTEGER, globalPid INTEGER, shortName INTEGER);
                CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,
                    correlationId INTEGER);
            """)
            tid = (7 << 24) | 8
            db.execute("INSERT INTO StringIds VALUES (1, ?)", (bucket_kernel,))
            for step in range(3):
                t0 = 1000 * step
                db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, 'allreduce bucket 0', NULL, ?, 0)",
                           (t0, t0 + 100, tid))
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?)", (t0 + 10, t0 + 20, tid, step))
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 1)", (step, 7 << 24))
            db.commit()
            db.close()
            output = io.StringIO()
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                status = nsys_expect.main(["dp_step", "--nvtx-sum", fixture.path("nvtx_sum.csv"), "--kern-sum",
                                           fixture.path("kern_sum.csv"), "--sqlite", fixture.path("dp.sqlite")])
            return status, output.getvalue()

    RANGES = {"step": 3, "forward": 3, "backward layer 0": 3, "backward layer 1": 3, "optimizer bucket 0": 3,
              "allreduce bucket 0": 3}

    def test_complete_step_passes(self):
        status, output = self.run_check(self.RANGES)
        self.assertEqual(status, 0, output)

    def test_forward_missing_in_a_step_fails(self):
        status, output = self.run_check(dict(self.RANGES, forward=2))
        self.assertEqual(status, 1, output)

    def test_bucket_without_nccl_kernel_fails(self):
        status, output = self.run_check(self.RANGES, bucket_kernel="some_gemm_kernel")
        self.assertEqual(status, 1, output)
        self.assertIn("3 did not", output)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=1)
