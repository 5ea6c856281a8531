#!/usr/bin/env python3
"""Tests of ci/verdict_check.py with hand-made diagnoses, collreport ranks outputs and truths: each
rule passing and failing, files it cannot judge, the table, the totals and the exit status.

usage: verdict_check_test.py PATH/TO/verdict_check.py
"""

import contextlib
import importlib.util
import io
import json
import os
import shutil
import sys
import tempfile
import unittest


def load_checker():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "ci", "verdict_check.py")
    spec = importlib.util.spec_from_file_location("verdict_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


verdict_check = load_checker()


def suspect(kind, *ranks):
    return {"kind": kind, "rank": min(ranks), "ranks": list(ranks), "evidence": []}


def truth(fault, ranks, direction=None):
    return {"fault": fault, "ranks": ranks, "gpus": [] if fault == "cpu_starve" else ranks,
            "direction": direction, "detail": "test"}


SM_LOAD_2 = truth("sm_load", [2])
STARVE_3 = truth("cpu_starve", [3])
LINK_1_3 = truth("link_load", [1, 3], "1->3")
LINK_BOTH_1_3 = truth("link_load", [1, 3], "1<->3")


class DiagnosisRules(unittest.TestCase):
    def judge(self, fault_truth, suspects):
        return verdict_check.judge_diagnosis(fault_truth, suspects)[1]

    def test_clean(self):
        self.assertIsNone(self.judge(None, []))
        self.assertIsNotNone(self.judge(None, [suspect("slow_link", 0, 1)]))

    def test_sm_load(self):
        self.assertIsNone(self.judge(SM_LOAD_2, [suspect("slow_gpu", 2)]))
        self.assertEqual(self.judge(SM_LOAD_2, []), "no suspect")
        self.assertEqual(self.judge(SM_LOAD_2, [suspect("slow_gpu", 1)]), "first suspect is slow_gpu 1")
        self.assertEqual(self.judge(SM_LOAD_2, [suspect("straggler", 2)]),
                         "first suspect is straggler 2")
        self.assertEqual(self.judge(SM_LOAD_2, [suspect("slow_gpu", 2, 3)]),
                         "first suspect is slow_gpu 2,3")
        self.assertEqual(self.judge(SM_LOAD_2, [suspect("slow_gpu", 2), suspect("slow_link", 2, 3)]),
                         "also slow_link 2,3")

    def test_cpu_starve(self):
        self.assertIsNone(self.judge(STARVE_3, [suspect("starved_host", 3)]))
        self.assertEqual(self.judge(STARVE_3, [suspect("slow_gpu", 3)]), "first suspect is slow_gpu 3")
        self.assertEqual(self.judge(STARVE_3, [suspect("starved_host", 3), suspect("straggler", 3)]),
                         "also straggler 3")

    def test_link_load(self):
        for link in (LINK_1_3, LINK_BOTH_1_3):
            self.assertIsNone(self.judge(link, [suspect("link_endpoint", 3)]))
            self.assertIsNone(self.judge(link, [suspect("slow_link", 1, 3), suspect("link_endpoint", 1)]))
            self.assertEqual(self.judge(link, []), "no suspect")
            self.assertEqual(self.judge(link, [suspect("slow_link", 1, 3), suspect("slow_gpu", 3)]),
                             "slow_gpu 3 is not a link suspect")
            self.assertEqual(self.judge(link, [suspect("slow_link", 0, 2)]),
                             "slow_link 0,2 names neither end")
            self.assertEqual(self.judge(link, [suspect("slow_node", 0, 1, 2, 3)]),
                             "slow_node 0,1,2,3 is not a link suspect")

    def test_unknown_fault(self):
        self.assertIn("unknown truth", self.judge(truth("power_cap", [1]), []))

    def test_rank_without_ranks_list(self):
        self.assertIsNone(self.judge(SM_LOAD_2, [{"kind": "slow_gpu", "rank": 2}]))


class RanksVerdicts(unittest.TestCase):
    def test_verdict_lines(self):
        self.assertEqual(verdict_check.late_ranks("collreport ranks: PASS: no late rank; sporadic: rank 1 in 1 of 12\n"), [])
        self.assertEqual(verdict_check.late_ranks(
            "collreport ranks: LATE: rank 3 (host) in 11 of 12 cases, rank 1 (gpu) in 3 of 12 cases\n"),
            [(3, "host"), (1, "gpu")])
        # Sporadic ranks after the LATE clause are not named.
        self.assertEqual(verdict_check.late_ranks(
            "collreport: warning: cut\ncollreport ranks: LATE: rank 2 (gpu) in 30 of 35 cases; sporadic: rank 0 in 1"
            " of 35, rank 1 in 1 of 35; 35 case(s) judged\nrank 5 in the table\n"), [(2, "gpu")])
        with self.assertRaisesRegex(ValueError, "no line starting"):
            verdict_check.late_ranks("collreport: error: no case has two ranks\n")
        with self.assertRaisesRegex(ValueError, "names no rank"):
            verdict_check.late_ranks("collreport ranks: LATE: somebody\n")

    def test_rules(self):
        judge = verdict_check.judge_ranks
        self.assertIsNone(judge(None, [])[1])
        self.assertEqual(judge(None, [(1, "host")])[1], "late: 1 (host)")
        self.assertIsNone(judge(SM_LOAD_2, [(2, "gpu")])[1])
        self.assertEqual(judge(SM_LOAD_2, [(2, "host")])[1], "late: 2 (host)")
        self.assertEqual(judge(SM_LOAD_2, [(2, "gpu"), (0, "gpu")])[1], "late: 2 (gpu), 0 (gpu)")
        self.assertEqual(judge(STARVE_3, [])[1], "late: none")
        self.assertIsNone(judge(STARVE_3, [(3, "host")])[1])
        self.assertIsNone(judge(LINK_BOTH_1_3, [])[1])
        self.assertEqual(judge(LINK_1_3, [(3, "gpu")])[1], "late: 3 (gpu)")


class Directory(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.directory)

    def write(self, name, content):
        with open(os.path.join(self.directory, name), "w") as handle:
            handle.write(content if isinstance(content, str) else json.dumps(content))

    def diagnosis(self, name, suspects, fault_truth=None, wall_s=2.5):
        doc = {"format": "collbench-diagnosis", "suspects": suspects, "wall_s": wall_s}
        if fault_truth is not None:
            doc["truth"] = fault_truth
        self.write(name, doc)

    def run_checker(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = verdict_check.main([self.directory])
        return status, out.getvalue(), err.getvalue()

    def passing_set(self):
        self.diagnosis("clean_single_10.json", [])
        self.diagnosis("clean_single_2.json", [])
        self.diagnosis("real_sm_load_mpi_1.json", [suspect("slow_gpu", 2)], SM_LOAD_2)
        self.diagnosis("real_link_both_single_1.json", [suspect("slow_link", 1, 3)], LINK_BOTH_1_3)
        self.diagnosis("real_cpu_starve_mpi_1.json", [suspect("starved_host", 3)], STARVE_3)
        self.write("ranks_clean_mpi.txt", "collreport ranks: PASS: no straggler above 10%; none\n")
        self.write("ranks_sm_load_single.txt", "collreport ranks: LATE: rank 2 (gpu) in 9 of 9 cases\n")
        self.write("ranks_sm_load_single.truth.json", {"truth": SM_LOAD_2})
        self.write("ranks_sm_load_single.json", "{}\n")  # the samples: not read
        self.write("notes.md", "not read\n")

    def test_all_pass(self):
        self.passing_set()
        status, out, _ = self.run_checker()
        self.assertEqual(status, 0, out)
        lines = out.splitlines()
        self.assertEqual(lines[0], "| file | truth | verdict | wall_s | expected | result |")
        self.assertEqual(len([line for line in lines if line.startswith("| ") and "PASS" in line]), 7)
        self.assertLess(out.index("clean_single_2.json"), out.index("clean_single_10.json"))
        self.assertIn("| real_sm_load_mpi_1.json | sm_load on GPU 2 (rank 2) | slow_gpu 2 | 2.50 |", out)
        self.assertIn("verdict_check: 7 of 7 PASS, 0 FAIL", lines[-1])
        self.assertIn("diagnose link_both 1/1", lines[-1])
        self.assertIn("ranks sm_load 1/1", lines[-1])

    def test_failures_counted(self):
        self.passing_set()
        self.diagnosis("clean_mpi_1.json", [suspect("straggler", 0)])
        self.write("real_sm_load_single_1.json", {"suspects": [], "truth": None})
        self.write("real_link_load_single_1.json", {"truth": LINK_1_3, "diagnosis_missing": True})
        self.write("real_cpu_starve_single_1.json", "{not json")
        self.write("ranks_cpu_starve_mpi.txt", "collreport ranks: PASS: no straggler above 10%\n")
        self.write("ranks_link_load_mpi.txt", "collreport ranks: PASS\n")  # its truth is missing
        status, out, _ = self.run_checker()
        self.assertEqual(status, 1)
        self.assertIn("FAIL: suspects on a clean machine", out)
        self.assertIn("FAIL: no truth: the generator never became ready", out)
        self.assertIn("FAIL: no suspects list", out)
        self.assertIn("FAIL: unreadable JSON", out)
        self.assertIn("FAIL: no ranks_cpu_starve_mpi.truth.json", out)
        self.assertIn("FAIL: no ranks_link_load_mpi.truth.json", out)
        self.assertIn("verdict_check: 7 of 13 PASS, 6 FAIL", out.splitlines()[-1])

    def test_nothing_to_check(self):
        self.write("notes.md", "not read\n")
        status, _, err = self.run_checker()
        self.assertEqual(status, 2)
        self.assertIn("no clean_*.json", err)
        self.directory, present = os.path.join(self.directory, "absent"), self.directory
        status, _, err = self.run_checker()
        self.directory = present
        self.assertEqual(status, 2)
        self.assertIn("absent: No such file or directory", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
