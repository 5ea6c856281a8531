#!/usr/bin/env python3
"""Tests of ci/record_traces.py without torch or a GPU: the plan --dry-run prints (every job's
environment and command), bad arguments, the launcher's time-out, and the driver's checks of
what a job wrote, on hand-made NCCL logs, Kineto traces and Flight Recorder dumps.

usage: record_traces_test.py PATH/TO/record_traces.py
"""

import contextlib
import gzip
import io
import json
import os
import sys
import tempfile
import time
import unittest

from script_under_test import load_script

record_traces = load_script("record_traces")

JOBS = ["ddp", "fsdp", "tp_dp", "moe", "pipeline", "subgroups"]


def dry_run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = record_traces.main(["--dry-run", *argv])
    return status, out.getvalue()


def plan_environments(text):
    """{job: {variable: value}} from --dry-run's output."""
    environments, job = {}, None
    for line in text.splitlines():
        if line.startswith("job "):
            job = line.split()[1].rstrip(":")
            environments[job] = {}
        elif line.startswith("  env "):
            name, _, value = line[len("  env "):].partition("=")
            environments[job][name] = value
    return environments


def write_json(path, value, pad_bytes=0):
    with open(path, "w") as handle:
        json.dump(value, handle)
        handle.write(" " * pad_bytes)


def kineto_trace(with_args=True):
    args = {"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024,
            "Out msg nelems": 1024, "Process Group Name": "0", "Process Group Ranks": "[0, 1]"}
    return {"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 1, "dur": 2,
         "args": args if with_args else {}},
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
         "ts": 3, "dur": 5, "args": dict(args, stream=7) if with_args else {"stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "nvjet_gemm", "ts": 9, "dur": 1, "args": {}},
    ]}


def flight_recorder_dump():
    return {"version": "2.10", "pg_config": {"0": {"name": "0", "desc": "default_pg",
                                                   "ranks": "[0, 1]"}},
            "entries": [{"record_id": 0, "collective_seq_id": 1, "p2p_seq_id": 0,
                         "profiling_name": "nccl:all_reduce", "duration_ms": 0.02,
                         "input_sizes": [[1024]], "input_dtypes": ["Float"]}]}


def make_job_dir(root, job, ranks=2, with_args=True, big_rank=None):
    """A job folder as two workers leave it, before the driver's check."""
    job_dir = os.path.join(root, job)
    os.makedirs(job_dir)
    for rank in range(ranks):
        pid = 4000 + rank
        write_json(os.path.join(job_dir, f".part.rank{rank}.json"), {
            "rank": rank, "local_rank": rank, "pid": pid, "host": "gpu-host.example",
            "gpu": "NVIDIA H100 80GB HBM3",
            "groups": {"world": {"name": "0", "desc": "default_pg", "ranks": [0, 1]},
                       "tp": {"name": "1", "desc": "mesh_tp", "ranks": [0, 1]}},
            "ops_per_step": [{"op": "all_reduce", "group": "tp", "dtype": "float32",
                              "in_count": 1024, "out_count": 1024}],
            "model": {"widths": [4, 4]}, "versions": {"torch": "2.11.0", "nccl": "2.28.9",
                                                      "cuda": "13.0"}})
        pad = (3 << 20) if rank == big_rank else 0
        write_json(os.path.join(job_dir, f"kineto.rank{rank}.json"), kineto_trace(with_args),
                   pad)
        write_json(os.path.join(job_dir, f"fr.rank{rank}.json"), flight_recorder_dump())
        # NCCL names its log by the host name up to the first dot.
        with open(os.path.join(job_dir, f"nccl.gpu-host.{pid}.log"), "w") as log:
            log.write(f"gpu-host:{pid}:{pid} [{rank}] NCCL INFO ncclCommInitRankConfig comm "
                      f"0x55 rank {rank} nranks 2 cudaDev {rank} - Init COMPLETE\n")
    return job_dir


SETTINGS = {"warmup": 2, "steps": 3, "environment": {"NCCL_DEBUG": "INFO"}}


class PlanTest(unittest.TestCase):
    def test_every_job_gets_its_own_nccl_log_and_the_flight_recorder(self):
        status, text = dry_run("--out", "/tmp/traces-out", "--nproc", "4")
        self.assertEqual(status, 0)
        environments = plan_environments(text)
        self.assertEqual(list(environments), JOBS)
        for job, environment in environments.items():
            self.assertEqual(environment["NCCL_DEBUG"], "INFO")
            self.assertEqual(environment["NCCL_DEBUG_SUBSYS"], "INIT,COLL")
            self.assertEqual(environment["NCCL_DEBUG_FILE"],
                             f"/tmp/traces-out/{job}/nccl.%h.%p.log")
            self.assertEqual(environment["NCCL_NVLS_ENABLE"], "0")
            self.assertEqual(environment["TORCH_SYMM_MEM_DISABLE_MULTICAST"], "1")
            self.assertEqual(environment["TORCH_FR_BUFFER_SIZE"], "2000")
            self.assertEqual(environment["TORCH_NCCL_TRACE_BUFFER_SIZE"], "2000")
            self.assertEqual(environment["TORCH_NCCL_ENABLE_TIMING"], "1")
        self.assertNotIn("torch", sys.modules)

    def test_commands_run_each_job_under_torchrun_on_every_gpu(self):
        _, text = dry_run("--out", "/tmp/traces-out", "--jobs", "moe,ddp", "--nproc", "4",
                          "--steps", "4")
        commands = [line.split(None, 1)[1] for line in text.splitlines()
                    if line.startswith("  cmd ")]
        self.assertEqual(len(commands), 2)
        for job, command in zip(["moe", "ddp"], commands):
            self.assertIn("-m torch.distributed.run --standalone --nproc-per-node 4 ", command)
            self.assertIn(f"record_traces.py --worker {job} --out /tmp/traces-out ", command)
            self.assertTrue(command.endswith("--warmup 2 --steps 4"))
        _, text = dry_run("--out", "/tmp/traces-out", "--jobs", "ddp")
        self.assertIn("--nproc-per-node ALL", text)  # counted with torch when it runs

    def test_bad_arguments_exit_2(self):
        for argv in (["--jobs", "ddp,nope"], ["--nproc", "1"], ["--steps", "0"], []):
            with self.subTest(argv=argv), contextlib.redirect_stderr(io.StringIO()):
                with self.assertRaises(SystemExit) as caught:
                    record_traces.parse_args(argv + (["--out", "x"] if argv else []))
                self.assertEqual(caught.exception.code, 2)


class LaunchTest(unittest.TestCase):
    def test_a_job_past_its_time_is_stopped(self):
        with tempfile.TemporaryDirectory() as root:
            log = os.path.join(root, "job.log")
            start = time.monotonic()
            status = record_traces.launch(["sleep", "30"], dict(os.environ), log, 0.5, root)
            self.assertIsNone(status)
            self.assertLess(time.monotonic() - start, 25)
            self.assertEqual(record_traces.launch(["true"], dict(os.environ), log, 10, root), 0)

    def test_the_workers_own_error_line_is_reported(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as log:
            log.write("W0101 torchrun warning\nrecord_traces worker: moe rank 1: RuntimeError: "
                      "bad split\nTraceback (most recent call last):\n  ...\n")
        self.assertEqual(record_traces.first_error_line(log.name),
                         "moe rank 1: RuntimeError: bad split")


class FinishJobTest(unittest.TestCase):
    def test_job_json_manifest_and_gzip_of_a_large_trace(self):
        with tempfile.TemporaryDirectory() as root:
            job_dir = make_job_dir(root, "tp_dp", big_rank=1)
            summary, warnings = record_traces.finish_job(job_dir, "tp_dp", 2, SETTINGS)
            self.assertEqual(warnings, [])
            self.assertIn("2 NCCL logs, 2 Kineto traces (2 NCCL kernels)", summary)
            self.assertTrue(os.path.exists(os.path.join(job_dir, "kineto.rank1.json.gz")))
            self.assertFalse(os.path.exists(os.path.join(job_dir, "kineto.rank1.json")))
            with gzip.open(os.path.join(job_dir, "kineto.rank1.json.gz"), "rt") as handle:
                self.assertEqual(len(json.load(handle)["traceEvents"]), 3)
            self.assertEqual([name for name in os.listdir(job_dir) if name.startswith(".")], [])
            with open(os.path.join(job_dir, "job.json")) as handle:
                job = json.load(handle)
            self.assertEqual(job["world_size"], 2)
            self.assertEqual(job["ranks"][1]["nccl_log"], "nccl.gpu-host.4001.log")
            self.assertEqual([g["label"] for g in job["process_groups"]], ["tp", "world"])
            self.assertEqual(job["ops_per_step"]["0"][0]["op"], "all_reduce")
            self.assertEqual(job["kineto"][1]["file"], "kineto.rank1.json.gz")
            self.assertEqual(job["kineto"][0]["nccl_kernels_with_collective_args"], 1)
            self.assertIn("Collective name", job["kineto"][0]["nccl_kernel_arg_keys"])
            self.assertEqual(job["flight_recorder"][0]["entries_with_duration_ms"], 1)
            record_traces.write_manifest(root, ["tp_dp: ok"])
            with open(os.path.join(root, "MANIFEST.txt")) as handle:
                manifest = handle.read()
            self.assertIn("# tp_dp: ok\n", manifest)
            self.assertRegex(manifest, r"\n +\d+  tp_dp/job\.json\n")

    def test_traces_without_collective_args_or_a_rank_fail_the_job(self):
        with tempfile.TemporaryDirectory() as root:
            job_dir = make_job_dir(root, "ddp", with_args=False)
            with self.assertRaisesRegex(record_traces.JobError, "record_param_comms"):
                record_traces.finish_job(job_dir, "ddp", 2, SETTINGS)
            job_dir = make_job_dir(root, "moe")
            with self.assertRaisesRegex(record_traces.JobError, "rank 2 did not finish"):
                record_traces.finish_job(job_dir, "moe", 3, SETTINGS)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
