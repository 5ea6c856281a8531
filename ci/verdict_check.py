#!/usr/bin/env python3
"""Judges collbench_diagnose's and `collreport ranks`' verdicts against the ground truth of faults
another program made (collbench_contend), as `ci/device-run.sh real_faults` leaves them:

  verdict_check.py DIR

DIR holds, in any number:
  clean_*.json   collbench_diagnose --json of a clean machine (no truth needed)
  real_*.json    collbench_diagnose --json with the generator's "truth" object added at top level
  ranks_*.txt    `collreport ranks` output, its truth beside it in ranks_*.truth.json
                 (ranks_clean_*.txt need none)

It prints a Markdown table, one row per file (truth, verdict, wall time, expected, PASS or FAIL
with the reason), then a totals line. The expected verdicts (docs/diagnose.md, "Testing the
verdicts with real faults"):
  diagnosis, clean            no suspect
  diagnosis, sm_load on g     the first suspect is slow_gpu naming rank g (only), no other suspect
  diagnosis, cpu_starve of r  the first suspect is starved_host naming rank r (only), no other
  diagnosis, link_load a->b   at least one suspect; every suspect link_endpoint or slow_link
    or a<->b                  naming a or b among its ranks (so no rank-level suspect)
  collreport ranks            sm_load on g, cpu_starve of r: late ranks are exactly [g] or [r];
                              clean and link faults: no late rank
A suspect names the ranks of its "ranks" list and its "rank". `collreport ranks`' verdict is its
first line starting "collreport ranks:": PASS names no late rank; any other verdict names the
ranks of the "rank N" words after its first colon.

Exit status: 0 every verdict passes; 1 some fail; 2 DIR is unreadable or holds none of the files.
"""

import argparse
import json
import os
import re
import sys

LINK_KINDS = ("link_endpoint", "slow_link")
RANK_RULES = {"sm_load": "slow_gpu", "cpu_starve": "starved_host"}  # fault -> the one suspect
VERDICT_PREFIX = "collreport ranks:"


def natural_key(name):
    """clean_single_2 before clean_single_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def fault_label(truth):
    """clean, sm_load, link_load, link_both or cpu_starve: the fault classes of the step."""
    if truth is None:
        return "clean"
    fault = truth.get("fault", "?")
    if fault == "link_load" and "<->" in (truth.get("direction") or ""):
        return "link_both"
    return fault


def describe_truth(truth):
    if truth is None:
        return "clean"
    fault, ranks, gpus = truth.get("fault"), truth.get("ranks") or ["?"], truth.get("gpus") or ["?"]
    if fault == "sm_load":
        return "sm_load on GPU %s (rank %s)" % (gpus[0], ranks[0])
    if fault == "link_load":
        return "link_load %s" % (truth.get("direction") or "?")
    if fault == "cpu_starve":
        return "cpu_starve of rank %s" % ranks[0]
    return str(fault)


def named_ranks(suspect):
    ranks = set(suspect.get("ranks") or [])
    if isinstance(suspect.get("rank"), int):
        ranks.add(suspect["rank"])
    return ranks


def describe_suspects(suspects):
    if not suspects:
        return "no suspect"
    return "; ".join("%s %s" % (s.get("kind", "?"), ",".join(str(r) for r in sorted(named_ranks(s))))
                     for s in suspects)


def judge_rank_fault(kind, rank, suspects):
    """(expected, reason or None): one suspect of `kind` naming `rank` alone."""
    expected = "%s %d, nothing else" % (kind, rank)
    if not suspects:
        return expected, "no suspect"
    first = suspects[0]
    if first.get("kind") != kind or named_ranks(first) != {rank}:
        return expected, "first suspect is %s" % describe_suspects([first])
    if len(suspects) > 1:
        return expected, "also %s" % describe_suspects(suspects[1:])
    return expected, None


def judge_link_fault(ranks, suspects):
    ends = set(ranks)
    expected = "only %s naming %s" % ("/".join(LINK_KINDS), " or ".join(str(r) for r in sorted(ends)))
    if not suspects:
        return expected, "no suspect"
    for suspect in suspects:
        if suspect.get("kind") not in LINK_KINDS:
            return expected, "%s is not a link suspect" % describe_suspects([suspect])
        if not named_ranks(suspect) & ends:
            return expected, "%s names neither end" % describe_suspects([suspect])
    return expected, None


def judge_diagnosis(truth, suspects):
    """(expected, reason or None) for a diagnosis' suspects under `truth` (None: clean)."""
    if truth is None:
        return "no suspect", (None if not suspects else "suspects on a clean machine")
    fault, ranks = truth.get("fault"), truth.get("ranks") or []
    if fault in RANK_RULES and len(ranks) == 1:
        return judge_rank_fault(RANK_RULES[fault], ranks[0], suspects)
    if fault == "link_load" and len(ranks) == 2:
        return judge_link_fault(ranks, suspects)
    return "?", "unknown truth %s" % json.dumps(truth)


def late_ranks(text):
    """The ranks `collreport ranks`' verdict line names late, in order, each with its cause
    ([] for PASS): only the clause after LATE:, not the sporadic ranks listed after it."""
    for line in text.splitlines():
        if not line.startswith(VERDICT_PREFIX):
            continue
        verdict = line[len(VERDICT_PREFIX):].strip()
        if verdict.startswith("PASS"):
            return []
        _, colon, names = verdict.partition(":")
        named = names.split(";")[0] if colon else ""
        ranks = []
        for number, cause in re.findall(r"\brank (\d+)(?: \((\w+)\))?", named):
            if int(number) not in [rank for rank, _ in ranks]:
                ranks.append((int(number), cause or None))
        if not ranks:
            raise ValueError("verdict names no rank: %s" % line)
        return ranks
    raise ValueError("no line starting '%s'" % VERDICT_PREFIX)


# The cause `collreport ranks` must give the late rank, per fault.
RANKS_CAUSES = {"sm_load": "gpu", "cpu_starve": "host"}


def judge_ranks(truth, late):
    fault, ranks = (truth or {}).get("fault"), (truth or {}).get("ranks") or []
    named = ", ".join("%d (%s)" % (rank, cause) for rank, cause in late)
    if truth is not None and fault in RANK_RULES:
        cause = RANKS_CAUSES.get(fault)
        expected = "late: rank %s (%s) only" % (ranks[0] if ranks else "?", cause)
        right = len(ranks) == 1 and late == [(ranks[0], cause)]
        return expected, None if right else "late: %s" % (named or "none")
    if truth is None or fault == "link_load":
        return "no late rank", None if not late else "late: %s" % named
    return "?", "unknown truth %s" % json.dumps(truth)


def read_json(path):
    with open(path) as handle:
        return json.load(handle)


def diagnosis_row(path, clean):
    """One row for a diagnosis file: (truth label, truth, verdict, wall_s, expected, reason)."""
    try:
        doc = read_json(path)
    except (OSError, ValueError) as error:
        return "?", "?", "unreadable", "-", "-", "unreadable JSON: %s" % error
    if not isinstance(doc, dict):
        return "?", "?", "unreadable", "-", "-", "not a JSON object"
    truth = None if clean else doc.get("truth")
    wall = doc.get("wall_s")
    wall_s = "%.2f" % wall if isinstance(wall, (int, float)) else "-"
    if not clean and not isinstance(truth, dict):
        return "?", "no truth", "-", wall_s, "-", "no truth: the generator never became ready"
    if not isinstance(doc.get("suspects"), list):
        return fault_label(truth), describe_truth(truth), "no diagnosis", wall_s, "-", \
            "no suspects list: the tool wrote no diagnosis"
    expected, reason = judge_diagnosis(truth, doc["suspects"])
    return fault_label(truth), describe_truth(truth), describe_suspects(doc["suspects"]), \
        wall_s, expected, reason


def ranks_row(path):
    base = path[:-len(".txt")]
    truth = None
    if os.path.exists(base + ".truth.json"):
        try:
            truth = read_json(base + ".truth.json").get("truth")
        except (OSError, ValueError, AttributeError) as error:
            return "?", "?", "-", "-", "-", "unreadable truth: %s" % error
        if not isinstance(truth, dict):
            return "?", "no truth", "-", "-", "-", "no truth object in the .truth.json"
    elif not os.path.basename(base).startswith("ranks_clean"):
        return "?", "no truth", "-", "-", "-", "no %s.truth.json" % os.path.basename(base)
    try:
        with open(path) as handle:
            late = late_ranks(handle.read())
    except (OSError, ValueError) as error:
        return fault_label(truth), describe_truth(truth), "-", "-", "-", str(error)
    expected, reason = judge_ranks(truth, late)
    verdict = "late: %s" % ", ".join("%d (%s)" % (r, c) for r, c in late) if late else "PASS (no late rank)"
    return fault_label(truth), describe_truth(truth), verdict, "-", expected, reason


def collect(directory):
    """(tool, file name, row) for every file the check reads: clean diagnoses, diagnoses under a
    fault, then collreport ranks outputs, each in natural order."""
    group = {"clean_": 0, "real_": 1, "ranks_": 2}
    names = sorted(os.listdir(directory),
                   key=lambda name: (group.get(name[:name.find("_") + 1], 3), natural_key(name)))
    rows = []
    for name in names:
        path = os.path.join(directory, name)
        if name.endswith(".truth.json"):
            continue
        if name.startswith("clean_") and name.endswith(".json"):
            rows.append(("diagnose", name, diagnosis_row(path, clean=True)))
        elif name.startswith("real_") and name.endswith(".json"):
            rows.append(("diagnose", name, diagnosis_row(path, clean=False)))
        elif name.startswith("ranks_") and name.endswith(".txt"):
            rows.append(("ranks", name, ranks_row(path)))
    return rows


def cell(text):
    return str(text).replace("|", "\\|")


def report(rows, out):
    out.write("| file | truth | verdict | wall_s | expected | result |\n")
    out.write("| --- | --- | --- | --- | --- | --- |\n")
    tally = {}
    for tool, name, (label, truth, verdict, wall_s, expected, reason) in rows:
        result = "PASS" if reason is None else "FAIL: %s" % reason
        out.write("| %s |\n" % " | ".join(cell(c) for c in (name, truth, verdict, wall_s, expected,
                                                               result)))
        passed, total = tally.get((tool, label), (0, 0))
        tally[(tool, label)] = (passed + (reason is None), total + 1)
    failures = sum(total - passed for passed, total in tally.values())
    classes = ", ".join("%s %s %d/%d" % (tool, label, passed, total)
                        for (tool, label), (passed, total) in sorted(tally.items()))
    out.write("\nverdict_check: %d of %d PASS, %d FAIL (%s)\n"
              % (len(rows) - failures, len(rows), failures, classes))
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", metavar="DIR")
    args = parser.parse_args(argv)
    try:
        rows = collect(args.directory)
    except OSError as error:
        print("verdict_check.py: %s: %s" % (args.directory, error.strerror), file=sys.stderr)
        return 2
    if not rows:
        print("verdict_check.py: %s: no clean_*.json, real_*.json or ranks_*.txt" % args.directory,
              file=sys.stderr)
        return 2
    return 1 if report(rows, sys.stdout) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
