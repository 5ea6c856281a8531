#!/usr/bin/env python3
"""collbench_contend --cpu-starve end to end, no GPU needed: stand-in processes named like
collbench (one per rank, found by the launcher's rank in their environment, or one holding
threads named cb-rank-R), pinned to the crowded core within moments, decoys left alone.

usage: cpu_starve_test.py PATH/TO/collbench_contend
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

CONTEND = sys.argv[1] if len(sys.argv) > 1 else "collbench_contend"
CORE = max(os.sched_getaffinity(0))  # the generator's default core
# Ranks no other test's process has, so that tests running beside this one are left alone.
RANK, OTHER_RANK, ABSENT_RANK = 7342, 7341, 7349

# A stand-in for a collbench process: takes the name argv[1] (comm, as an executable of that name
# would have), starts one thread per rank of argv[2] that names itself cb-rank-R a moment later
# (rank threads come after the process starts), says "started" and sleeps.
STAND_IN = r"""
import ctypes, sys, threading, time
libc = ctypes.CDLL(None)
def name(text):
    libc.prctl(15, ctypes.c_char_p(text.encode()), 0, 0, 0)  # PR_SET_NAME: this thread's comm
name(sys.argv[1])
def rank_thread(rank):
    name("cb-rank-%d" % rank)
    time.sleep(60)
time.sleep(0.2)
for rank in [int(r) for r in sys.argv[2].split(",") if r]:
    threading.Thread(target=rank_thread, args=(rank,), daemon=True).start()
time.sleep(0.2)
print("started", flush=True)
time.sleep(60)
"""


def stand_in(name, ranks="", **environment):
    env = dict(os.environ, **environment)
    for variable in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK"):
        if variable not in environment:
            env.pop(variable, None)
    process = subprocess.Popen([sys.executable, "-c", STAND_IN, name, ranks], env=env,
                               stdout=subprocess.PIPE, text=True)
    return process


def threads_by_name(pid):
    threads = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as comm:
            threads.setdefault(comm.read().strip(), []).append(int(tid))
    return threads


def pinned(tid):
    return os.sched_getaffinity(tid) == {CORE}


def wait_until(condition, timeout_s=10):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


class CpuStarveTest(unittest.TestCase):
    def setUp(self):
        self.processes = []
        self.truth = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name

    def tearDown(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.communicate()
        os.unlink(self.truth)

    def start(self, process):
        self.processes.append(process)
        return process

    def contend(self, *arguments):
        return self.start(subprocess.Popen(
            [CONTEND, "--cpu-starve", "--cpu-threads", "1", "--truth", self.truth, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))

    def stop(self, generator):
        generator.send_signal(signal.SIGTERM)
        out, err = generator.communicate(timeout=20)
        self.assertEqual(generator.returncode, 0, err)
        return out

    def started(self, *stand_ins):
        for process in stand_ins:
            self.assertEqual(process.stdout.readline().strip(), "started")

    def test_process_of_a_rank_every_thread(self):
        generator = self.contend("--target-rank", str(RANK))
        target = self.start(stand_in("collbench_fake", "", OMPI_COMM_WORLD_RANK=str(RANK)))
        other_rank = self.start(stand_in("collbench_fake", "", OMPI_COMM_WORLD_RANK=str(OTHER_RANK),
                                         RANK=str(RANK)))
        not_collbench = self.start(stand_in("python_fake", "", RANK=str(RANK)))
        self.started(target, other_rank, not_collbench)
        self.assertTrue(wait_until(lambda: all(
            pinned(tid) for tids in threads_by_name(target.pid).values() for tid in tids)))
        for decoy in (other_rank, not_collbench):
            self.assertFalse(any(pinned(tid) for tids in threads_by_name(decoy.pid).values()
                                 for tid in tids))
        out = self.stop(generator)
        self.assertEqual(out.count("collbench_contend: ready: "), 1, out)
        self.assertIn("pid %d" % target.pid, out)
        with open(self.truth) as truth_file:
            truth = json.load(truth_file)["truth"]
        self.assertEqual((truth["fault"], truth["ranks"], truth["gpus"]), ("cpu_starve", [RANK], []))

    def test_rank_thread_of_one_process(self):
        generator = self.contend("--target-process", "collbench_diagnose", "--target-rank", str(RANK))
        target = self.start(stand_in("collbench_diagnose", "%d,%d" % (OTHER_RANK, RANK)))
        self.started(target)
        mine = "cb-rank-%d" % RANK
        self.assertTrue(wait_until(lambda: pinned(threads_by_name(target.pid)[mine][0])))
        threads = threads_by_name(target.pid)
        for name in ("collbench_diagn", "cb-rank-%d" % OTHER_RANK):
            self.assertFalse(pinned(threads[name][0]), name)
        self.assertIn("%s of collbench_diagnose" % mine, self.stop(generator))

    def test_target_that_never_comes(self):
        generator = self.contend("--target-rank", str(ABSENT_RANK), "--wait-s", "0.2")
        out, err = generator.communicate(timeout=20)
        self.assertEqual(generator.returncode, 1)
        self.assertEqual(out, "")
        self.assertIn("nothing to pin within 0.2 s", err)
        self.assertFalse(os.path.getsize(self.truth))

    def test_sigterm_while_waiting(self):
        generator = self.contend("--target-rank", str(ABSENT_RANK))
        self.assertIn("waiting", generator.stderr.readline())
        out = self.stop(generator)
        self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
