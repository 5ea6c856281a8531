#!/usr/bin/env python3
"""Checks an Nsight Systems profile of a collbench (or dp_step) run against the run's own CSV.

ci/nsys-check.sh profiles a short sweep, exports `nsys stats` CSVs and the .sqlite next to the
.nsys-rep, then calls this script:

  nsys_expect.py collbench --nvtx-sum F --kern-sum F --csv F [--sqlite F] [--trace F]
  nsys_expect.py dp_step   --nvtx-sum F --kern-sum F [--sqlite F]

collbench checks: one case range per CSV row with status ok, named as the runner names it; every
such case has "warmup", "timed" and "check" ranges; setup ranges "communicator init <n>r" and
"allocate" exist; NCCL kernels exist (cuda_gpu_kern_sum); with --sqlite, every case range holds
a "timed" range and every "timed" range of an nccl case launched NCCL kernels (the kernel's
launch call lies inside the range in time, on any thread of the process: the ranges are opened
on the main thread, the launches come from one thread per rank); with --trace, the Chrome trace is valid
and holds ranks x iters events per ok case. dp_step checks: the step phases and bucket
collectives exist and (with --sqlite) the bucket collectives launched NCCL kernels.

Prints one PASS/FAIL/WARN line per check and a final verdict. Exit status: 0 pass, 1 fail,
2 unreadable input.
"""

import argparse
import bisect
import collections
import csv
import json
import os
import re
import sqlite3
import sys

# ---------------------------------------------------------------------------------------------
# What the profile must contain. Keep in sync with bench/telemetry/nvtx.hpp (range names),
# apps/collbench/sweep_plan.cpp display_name() (case names) and apps/dpstep/schedule/step_schedule.cpp.
# ---------------------------------------------------------------------------------------------
DOMAIN = "collbench"
CASE_CHILD_RANGES = ("warmup", "timed", "check")  # each at least once per ok case
SETUP_RANGES = ("allocate",)  # at least once per run
COMM_INIT_RANGE = "communicator init {ranks}r"  # at least once per rank count in the CSV
# display_name(): "{op} {algo} {dtype} {redop} {ranks}r {size}[ root {root}][ in-place]"
CASE_NAME = "{op} {algo} {dtype} {redop} {ranks}r {size}"
CASE_LIKE = re.compile(r"^\S+ \S+ \S+ \S+ \d+r \d+(\.\d+)? (B|KiB|MiB|GiB|TiB)( root \d+)?( in-place)?$")
SIZE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")
NCCL_KERNEL_PREFIXES = ("ncclDevKernel", "ncclKernel")
# dp_step (run with --eager, so ranges wrap real launches): (pattern, what must hold).
#   "some": at least one range; "per_step": as many as "step" ranges; "nccl": (with --sqlite)
#   every such range launched an NCCL kernel.
DP_STEP_RANGES = (
    (re.compile(r"^step$"), "some"),
    (re.compile(r"^forward$"), "per_step"),
    (re.compile(r"^backward layer \d+$"), "some"),
    (re.compile(r"^optimizer bucket \d+$"), "some"),
    (re.compile(r"^(allreduce|reduce|reducescatter) bucket \d+$"), "some+nccl"),
)
# The name column of nvtx_sum and cuda_gpu_kern_sum ("Range" and "Name" in nsys 2022-2025).
NVTX_NAME_COLUMNS = ("Range", "Name")
KERNEL_NAME_COLUMNS = ("Name", "Kernel Name")
# NVTX_EVENTS.eventType values in the Nsight Systems SQLite export.
NVTX_PUSH_POP, NVTX_START_END, NVTX_DOMAIN_CREATE = 59, 60, 75


class InputError(Exception):
    """A file this check needs is missing or is not what it should be (exit status 2)."""


class Verdict:
    """Collects one line per check; the run passes when no check failed."""

    def __init__(self):
        self.lines = []
        self.failed = False

    def check(self, ok, what):
        self.lines.append(("PASS" if ok else "FAIL") + "  " + what)
        self.failed = self.failed or not ok
        return ok

    def warn(self, what):
        self.lines.append("WARN  " + what)

    def print(self, title):
        for line in self.lines:
            print(f"{title}: {line}")
        print(f"{title}: {'FAIL' if self.failed else 'PASS'}")


# ----------------------------------------- inputs -----------------------------------------


def read_stats_csv(path, name_columns):
    """Rows of an `nsys stats --format csv` table as dicts, each with its name under "_name".
    nsys may print progress lines before the table (when written to stdout); the header is the
    first line holding "Instances" and one of `name_columns` (the first found names the row). A
    report with no data (nsys prints "SKIPPED: ...") gives no rows."""
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}")
    for index, line in enumerate(lines):
        fields = next(csv.reader([line]), [])
        name_column = next((c for c in name_columns if c in fields), None)
        if name_column and "Instances" in fields:
            header = fields
            rows = []
            for values in csv.reader(lines[index + 1:]):
                if len(values) != len(header):
                    continue  # blank lines, trailing notes
                row = dict(zip(header, values))
                row["_name"] = row[name_column]
                rows.append(row)
            return rows
    if any("SKIPPED" in line or "does not contain" in line for line in lines):
        return []
    raise InputError(f"{path}: no header with {' or '.join(repr(c) for c in name_columns)} and 'Instances' "
                     "(expected `nsys stats --format csv` output)")


def split_domain(range_name):
    """nvtx_sum writes ranges of a named domain as "domain:name"; ":name" or plain "name" for
    the default domain, depending on the nsys version. Returns (domain or None, name)."""
    colon = range_name.find(":")
    if colon < 0:
        return None, range_name
    return range_name[:colon] or None, range_name[colon + 1:]


def nvtx_counts(rows, domain, verdict):
    """Instances per range name of `domain`. When no range carries a domain prefix at all (an
    nsys that drops them), falls back to the names without a prefix, with a warning."""
    by_domain = collections.defaultdict(collections.Counter)
    for row in rows:
        name_domain, name = split_domain(row["_name"])
        by_domain[name_domain][name] += int(float(row.get("Instances", "0") or 0))
    if domain in by_domain:
        return by_domain[domain]
    if by_domain.get(None):
        verdict.warn(f"no range carries the '{domain}:' prefix; reading un-prefixed names as {domain}'s")
        return by_domain[None]
    return collections.Counter()


def kernel_counts(rows):
    counts = collections.Counter()
    for row in rows:
        counts[row["_name"]] += int(float(row.get("Instances", "0") or 0))
    return counts


def is_nccl_kernel(name):
    return name.startswith(NCCL_KERNEL_PREFIXES)


def read_collbench_csv(path):
    needed = ("op", "algo", "dtype", "redop", "ranks", "bytes", "root", "in_place", "status", "iters", "graph")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in needed if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"{path}: not a collbench CSV (missing columns {', '.join(missing)})")
            return list(reader)
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}")


def format_size(size_bytes):
    """bench/core/byte_size.cpp format_byte_size(): "8 B", "64 KiB", "1.50 MiB"."""
    value, unit = float(size_bytes), 0
    while value >= 1024.0 and unit < len(SIZE_UNITS) - 1:
        value /= 1024.0
        unit += 1
    if unit == 0:
        return f"{size_bytes} B"
    if value == int(value):
        return f"{value:.0f} {SIZE_UNITS[unit]}"
    return f"{value:.2f} {SIZE_UNITS[unit]}"


def case_name(row):
    name = CASE_NAME.format(op=row["op"], algo=row["algo"], dtype=row["dtype"], redop=row["redop"],
                            ranks=row["ranks"], size=format_size(int(row["bytes"])))
    if int(row["root"]) >= 0:
        name += f" root {row['root']}"
    if row["in_place"] in ("1", "true"):
        name += " in-place"
    return name


# ---------------------------------------- SQLite -----------------------------------------


class Profile:
    """NVTX ranges and kernel launches read from the .sqlite that `nsys stats` exports."""

    def __init__(self, path):
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        self.path = path
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            self._load(connection)
        except sqlite3.Error as error:
            raise InputError(f"{path}: unexpected SQLite schema ({error}); tables: {self._tables(connection)}")
        finally:
            connection.close()

    @staticmethod
    def _tables(connection):
        return sorted(r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'"))

    def _load(self, connection):
        tables = set(self._tables(connection))
        for needed in ("NVTX_EVENTS", "StringIds"):
            if needed not in tables:
                raise InputError(f"{self.path}: no {needed} table (was the run traced with -t nvtx?)")
        strings = dict(connection.execute("SELECT id, value FROM StringIds"))
        # Registered strings (nvtx3 registered_string_in) come as textId, others as text.
        self.domains = {}  # domainId -> name
        self.ranges = []  # (domain name or None, name, start, end, globalTid)
        for event_type, start, end, text, text_id, tid, domain_id in connection.execute(
                "SELECT eventType, start, end, text, textId, globalTid, domainId FROM NVTX_EVENTS "
                f"WHERE eventType IN ({NVTX_PUSH_POP}, {NVTX_START_END}, {NVTX_DOMAIN_CREATE}) ORDER BY start"):
            name = text if text is not None else strings.get(text_id, "")
            if event_type == NVTX_DOMAIN_CREATE:
                self.domains[domain_id] = name
            elif end is not None:
                self.ranges.append((domain_id, name, start, end, tid))
        self.ranges = [(self.domains.get(d), n, s, e, t) for d, n, s, e, t in self.ranges]

        # Kernel launches: the API call's start, joined to the kernel by correlation id within the
        # process (globalTid / globalPid carry the pid in bits 24..47). Kept per process, not per
        # thread: collbench opens its ranges on the main thread while one host thread per rank
        # launches, and the main thread waits inside the range until they are done.
        self.launches = collections.defaultdict(list)  # pid -> sorted [(start, kernel name)]
        if "CUPTI_ACTIVITY_KIND_KERNEL" not in tables or "CUPTI_ACTIVITY_KIND_RUNTIME" not in tables:
            return
        kernels = {}
        for correlation, global_pid, short_name in connection.execute(
                "SELECT correlationId, globalPid, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
            kernels.setdefault((process_of(global_pid), correlation), []).append(strings.get(short_name, ""))
        for start, tid, correlation in connection.execute(
                "SELECT start, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
            for name in kernels.get((process_of(tid), correlation), ()):
                self.launches[process_of(tid)].append((start, name))
        for launches in self.launches.values():
            launches.sort()

    def ranges_named(self, predicate, domain=None):
        return [r for r in self.ranges if predicate(r[1]) and (domain is None or r[0] == domain)]

    def kernels_inside(self, range_):
        """Kernel names whose launch call started inside `range_`, on any thread of its process."""
        _, _, start, end, tid = range_
        launches = self.launches.get(process_of(tid), [])
        first = bisect.bisect_left(launches, (start, ""))
        return [name for when, name in launches[first:] if when <= end] if launches else []


def process_of(global_tid):
    """The pid inside an nsys globalTid or globalPid."""
    return (global_tid >> 24) & 0xFFFFFF


def inside(outer, inner):
    """`inner` lies within `outer` in time, in the same process."""
    return process_of(outer[4]) == process_of(inner[4]) and outer[2] <= inner[2] and inner[3] <= outer[3]


# ------------------------------------- Chrome trace ---------------------------------------


def trace_problems(trace):
    """Structure problems of a Chrome trace as collbench writes it (empty list: valid)."""
    problems = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["not an object with a traceEvents array"]
    if "displayTimeUnit" not in trace:
        problems.append("no displayTimeUnit")
    named, by_pid = set(), collections.defaultdict(list)
    for event in trace["traceEvents"]:
        if event.get("ph") == "M" and event.get("name") == "process_name":
            named.add(event.get("pid"))
        if event.get("ph") != "X":
            continue
        missing = [k for k in ("ph", "ts", "dur", "pid", "tid", "name") if k not in event]
        if missing:
            problems.append(f"event without {', '.join(missing)}: {event}")
            continue
        if not event["dur"] > 0:
            problems.append(f"non-positive duration: {event}")
        by_pid[event["pid"]].append((event["ts"], event["dur"], event["name"]))
    for pid, events in by_pid.items():
        if pid not in named:
            problems.append(f"pid {pid} has no process_name metadata")
        events.sort()
        for (ts, dur, name), (next_ts, _, next_name) in zip(events, events[1:]):
            if ts + dur > next_ts + 1e-3:  # 1 ns: the writer rounds to whole nanoseconds
                problems.append(f"pid {pid}: '{name}' at {ts} us overlaps '{next_name}' at {next_ts} us")
                break
    return problems


# ----------------------------------------- checks -----------------------------------------


def check_collbench(args, verdict):
    rows = read_collbench_csv(args.csv)
    ok_rows = [r for r in rows if r["status"] == "ok"]
    verdict.check(bool(ok_rows), f"{len(ok_rows)} of {len(rows)} CSV rows have status ok")
    expected = collections.Counter(case_name(r) for r in ok_rows)
    allowed = {case_name(r) for r in rows}  # oom/error cases may or may not have opened a range

    ranges = nvtx_counts(read_stats_csv(args.nvtx_sum, NVTX_NAME_COLUMNS), DOMAIN, verdict)
    per_case = args.ranges_per_case
    wrong = [f"'{n}': {ranges.get(n, 0)} ranges, expected {c * per_case}"
             for n, c in expected.items() if ranges.get(n, 0) != c * per_case]
    verdict.check(not wrong, f"{len(expected)} case ranges, {per_case} per ok CSV row"
                  + ("" if not wrong else ": " + "; ".join(wrong[:5])))
    stray = sorted(n for n in ranges if CASE_LIKE.match(n) and n not in allowed)
    verdict.check(not stray, "no case range without a CSV row" + ("" if not stray else ": " + "; ".join(stray[:5])))
    case_ranges = sum(expected.values()) * per_case
    for child in CASE_CHILD_RANGES:
        count = ranges.get(child, 0)
        verdict.check(count >= case_ranges, f"'{child}' ranges: {count} (at least one per case: {case_ranges})")
    for setup in SETUP_RANGES:
        verdict.check(ranges.get(setup, 0) >= 1, f"setup range '{setup}': {ranges.get(setup, 0)}")
    for ranks in sorted({int(r["ranks"]) for r in rows}):
        name = COMM_INIT_RANGE.format(ranks=ranks)
        verdict.check(ranges.get(name, 0) >= 1, f"setup range '{name}': {ranges.get(name, 0)}")

    kernels = kernel_counts(read_stats_csv(args.kern_sum, KERNEL_NAME_COLUMNS))
    nccl = sum(c for n, c in kernels.items() if is_nccl_kernel(n))
    nccl_cases = sum(1 for r in ok_rows if r["algo"] == "nccl")
    verdict.check(nccl >= nccl_cases and (nccl > 0 or nccl_cases == 0),
                  f"NCCL kernels in cuda_gpu_kern_sum: {nccl} launches "
                  f"({', '.join(sorted(n for n in kernels if is_nccl_kernel(n))[:3]) or 'none'})")

    if args.sqlite:
        check_collbench_nesting(Profile(args.sqlite), expected, per_case, verdict)
    else:
        verdict.warn("no --sqlite: NCCL kernels were not checked to lie inside the timed ranges")
    if args.trace:
        check_trace(args.trace, ok_rows, verdict)


def check_collbench_nesting(profile, expected, per_case, verdict):
    collbench_ranges = profile.ranges_named(lambda n: True, DOMAIN)
    if not collbench_ranges:
        # An export that does not name domains: collbench's names are distinct from NCCL's anyway.
        verdict.warn(f"SQLite: no range in a domain named '{DOMAIN}' (domains: "
                     f"{sorted(d for d in profile.domains.values() if d) or 'none'}); matching names in any domain")
        collbench_ranges = profile.ranges_named(lambda n: True)
    cases = [r for r in collbench_ranges if r[1] in expected]
    verdict.check(len(cases) == sum(expected.values()) * per_case,
                  f"SQLite: {len(cases)} case ranges (expected {sum(expected.values()) * per_case})")
    timed = [r for r in collbench_ranges if r[1] == "timed"]
    without_timed, without_kernels = [], []
    for case in cases:
        inner = [t for t in timed if inside(case, t)]
        if not inner:
            without_timed.append(case[1])
            continue
        algo = case[1].split(" ")[1]
        launched = [k for t in inner for k in profile.kernels_inside(t)]
        # NCCL's cases must launch NCCL's kernels; hand-built algorithms launch their own.
        if not (any(is_nccl_kernel(k) for k in launched) if algo == "nccl" else launched):
            without_kernels.append(case[1])
    verdict.check(not without_timed, f"SQLite: every case range holds a 'timed' range ({len(cases)} cases)"
                  + ("" if not without_timed else ": not in " + "; ".join(without_timed[:5])))
    verdict.check(not without_kernels and bool(profile.launches),
                  "SQLite: every case's 'timed' range launched its kernels (NCCL's for algo nccl)"
                  + ("" if profile.launches else ": no kernel launches in the export")
                  + ("" if not without_kernels else ": none in " + "; ".join(without_kernels[:5])))


def check_trace(path, ok_rows, verdict):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as error:
        verdict.check(False, f"trace {path}: not readable JSON ({error})")
        return
    problems = trace_problems(trace)
    verdict.check(not problems, f"trace {os.path.basename(path)}: valid Chrome trace"
                  + ("" if not problems else ": " + "; ".join(problems[:3])))
    events = collections.Counter(e.get("name") for e in trace.get("traceEvents", []) if e.get("ph") == "X")
    wrong = []
    for row in ok_rows:
        name = case_name(row)
        want = int(row["ranks"]) * int(row["iters"])
        # CUDA-graph cases may time each replay; require at least one event per rank there.
        good = events[name] == want if int(row["graph"]) == 0 else events[name] >= int(row["ranks"])
        if not good:
            wrong.append(f"'{name}': {events[name]} events, expected {want}")
    verdict.check(not wrong, f"trace holds ranks x iters events for each of {len(ok_rows)} ok cases"
                  + ("" if not wrong else ": " + "; ".join(wrong[:5])))


def check_dp_step(args, verdict):
    rows = read_stats_csv(args.nvtx_sum, NVTX_NAME_COLUMNS)
    ranges = collections.Counter()
    for row in rows:
        domain, name = split_domain(row["_name"])
        if domain != "NCCL":  # dp_step's own ranges, whichever domain it uses
            ranges[name] += int(float(row.get("Instances", "0") or 0))
    steps = ranges.get("step", 0)
    for pattern, rule in DP_STEP_RANGES:
        count = sum(c for n, c in ranges.items() if pattern.match(n))
        if rule == "per_step":
            verdict.check(count == steps and steps > 0, f"dp_step '{pattern.pattern}': {count} (one per step: {steps})")
        else:
            verdict.check(count > 0, f"dp_step '{pattern.pattern}': {count} ranges")
    kernels = kernel_counts(read_stats_csv(args.kern_sum, KERNEL_NAME_COLUMNS))
    verdict.check(any(is_nccl_kernel(n) for n in kernels), "dp_step: NCCL kernels in cuda_gpu_kern_sum")
    if not args.sqlite:
        verdict.warn("no --sqlite: bucket collectives were not checked to launch NCCL kernels")
        return
    profile = Profile(args.sqlite)
    for pattern, rule in DP_STEP_RANGES:
        if "nccl" not in rule:
            continue
        buckets = profile.ranges_named(pattern.match)
        silent = [r[1] for r in buckets if not any(is_nccl_kernel(k) for k in profile.kernels_inside(r))]
        verdict.check(bool(buckets) and not silent,
                      f"SQLite: each of {len(buckets)} '{pattern.pattern}' ranges launched NCCL kernels"
                      + ("" if not silent else f": {len(silent)} did not, e.g. '{silent[0]}'"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("program", choices=("collbench", "dp_step"))
    parser.add_argument("--nvtx-sum", required=True, help="nsys stats --report nvtx_sum --format csv output")
    parser.add_argument("--kern-sum", required=True, help="nsys stats --report cuda_gpu_kern_sum --format csv output")
    parser.add_argument("--csv", help="the run's collbench CSV (collbench only)")
    parser.add_argument("--sqlite", help="the .sqlite nsys stats exported (enables the nesting checks)")
    parser.add_argument("--trace", help="the run's --trace JSON (collbench only)")
    parser.add_argument("--ranges-per-case", type=int, default=1,
                        help="case ranges per CSV row (1: the runner drives all ranks from one thread)")
    args = parser.parse_args(argv)
    verdict = Verdict()
    try:
        if args.program == "collbench":
            if not args.csv:
                parser.error("collbench needs --csv")
            check_collbench(args, verdict)
        else:
            check_dp_step(args, verdict)
    except InputError as error:
        print(f"nsys_expect: {error}", file=sys.stderr)
        return 2
    verdict.print(f"nsys {args.program}")
    return 1 if verdict.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
