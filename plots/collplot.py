#!/usr/bin/env python3
"""collplot: turns collbench CSV reports into PNG and SVG plots (see plots/README.md).

Plots, each written as NAME.png and NAME.svg into the output folder:
  busbw_<op>             bus bandwidth vs message size, one line per GPU count
  latency_<op>           p50 time vs message size (log-log), one line per GPU count
  all_reduce_algorithms  the all-reduce implementations side by side, per GPU count
  dp_step_efficiency     data-parallel step scaling efficiency per GPU count and mode
  compare_<op>           with --compare BASE NEW: the two reports overlaid, and NEW/BASE

Rows of schema version 2 and later carry the confidence interval of their median time: p50 plots
shade it as a band, and the NEW/BASE speed ratio of compare_<op> gets error bars from both
intervals. (Version 3 adds the mean's interval, which these plots do not draw.)
"""

import argparse
import csv
import math
import os
import sys
from collections import OrderedDict, defaultdict

# The columns read here; their names and meaning are defined once, in reports/lib/schema.cpp.
SCHEMA_VERSIONS = ("1", "2", "3")
NEEDED_COLUMNS = [
    "schema_version", "timestamp", "gpu_name", "nccl_version", "op", "algo", "ranks", "dtype",
    "redop", "root", "in_place", "bytes", "graph", "agg_iters", "config", "time_us_p50",
    "busbw_gbps", "status", "extra",
]
# Added by schema version 2 (and kept by 3); a version 1 row reads as repeat 0 without an interval.
VERSION_2_COLUMNS = ["repeat", "confidence_pct", "time_us_p50_lo", "time_us_p50_hi"]
ALL_REDUCE_ALGORITHMS = ["nccl", "ring", "ring_sendrecv", "oneshot"]
UNITS = ["B", "KiB", "MiB", "GiB", "TiB"]


class ReportError(Exception):
    """A report the plots cannot be drawn from; the message names the file and line."""


def human_bytes(value):
    """8 -> '8 B', 65536 -> '64 KiB', 1.5 MiB -> '1.5 MiB'."""
    unit = 0
    value = float(value)
    while value >= 1024 and unit < len(UNITS) - 1:
        value /= 1024
        unit += 1
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text} {UNITS[unit]}"


def key_values(text):
    """'a=1;b=x' -> {'a': '1', 'b': 'x'} (the config and extra columns)."""
    pairs = OrderedDict()
    for item in text.split(";"):
        if "=" in item:
            key, value = item.split("=", 1)
            pairs[key.strip()] = value.strip()
    return pairs


def parse_row(path, line, raw):
    try:
        row = dict(raw)
        for name in ("ranks", "root", "graph", "agg_iters", "bytes"):
            row[name] = int(raw[name])
        for name in ("time_us_p50", "busbw_gbps"):
            row[name] = float(raw[name])
        row["in_place"] = raw["in_place"] in ("1", "true")
        if raw["schema_version"] == "1":
            row.update(repeat=0, confidence_pct=0.0, time_us_p50_lo=0.0, time_us_p50_hi=0.0)
        else:
            row["repeat"] = int(raw["repeat"])
            for name in ("confidence_pct", "time_us_p50_lo", "time_us_p50_hi"):
                row[name] = float(raw[name])
    except (TypeError, ValueError) as error:
        raise ReportError(f"{path}:{line}: {error}") from None
    return row


def read_report(path):
    """All rows of a report, checked against the columns and schema version used here."""
    try:
        with open(path, newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            columns = reader.fieldnames or []
            missing = [c for c in NEEDED_COLUMNS if c not in columns]
            if missing:
                raise ReportError(f"{path}:1: missing columns {', '.join(missing)}")
            rows = []
            for raw in reader:
                version = raw["schema_version"]
                if version not in SCHEMA_VERSIONS:
                    raise ReportError(f"{path}:{reader.line_num}: unknown schema version "
                                      f"'{version}' (collplot reads versions "
                                      f"{', '.join(SCHEMA_VERSIONS[:-1])} and "
                                      f"{SCHEMA_VERSIONS[-1]})")
                missing = [c for c in VERSION_2_COLUMNS if c not in columns]
                if version != "1" and missing:
                    raise ReportError(f"{path}:1: missing columns {', '.join(missing)} "
                                      f"(schema version {version})")
                rows.append(parse_row(path, reader.line_num, raw))
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    if not rows:
        raise ReportError(f"{path}: no data rows")
    return rows


def has_interval(row):
    """Whether the row carries a confidence interval of its median time (schema version 2+)."""
    return row["confidence_pct"] > 0 and row["time_us_p50_hi"] > 0


def p50_band(axes, points, color, name):
    """Shades the confidence interval of the median time of the curve's rows that have one."""
    inside = [(size, row) for size, row in points if has_interval(row)]
    if not inside:
        return
    band = axes.fill_between([size for size, _ in inside],
                             [row["time_us_p50_lo"] for _, row in inside],
                             [row["time_us_p50_hi"] for _, row in inside],
                             color=color, alpha=0.2, linewidth=0)
    band.set_gid(name)  # names the band in SVG output


def interval_caption(rows):
    """' (band: 95% interval of the median)' when rows have intervals, else ''."""
    levels = sorted({row["confidence_pct"] for row in rows if has_interval(row)})
    if not levels:
        return ""
    return f" (band: {'/'.join(f'{level:g}%' for level in levels)} interval of the median)"


def origin(rows):
    """'NVIDIA H200, 2-4 GPUs, NCCL 2.28.3, 2026-11-22' for plot titles."""
    def joined(values):
        values = sorted(v for v in set(values) if v)
        return "/".join(values) if values else "unknown"
    ranks = sorted({r["ranks"] for r in rows if r["ranks"] > 0})
    gpus = "? GPUs" if not ranks else (f"{ranks[0]} GPUs" if ranks[0] == ranks[-1]
                                       else f"{ranks[0]}-{ranks[-1]} GPUs")
    dates = sorted({r["timestamp"][:10] for r in rows if len(r["timestamp"]) >= 10})
    date = "unknown date" if not dates else (dates[0] if len(dates) == 1
                                             else f"{dates[0]} to {dates[-1]}")
    return (f"{joined(r['gpu_name'] for r in rows)}, {gpus}, "
            f"NCCL {joined(r['nccl_version'] for r in rows)}, {date}")


def variant(row, varying):
    """The settings beyond the GPU count that tell a row's curve apart, as in collreport."""
    parts = []
    if "algo" in varying:
        parts.append(row["algo"])
    if "dtype" in varying:
        parts.append(row["dtype"])
    if row["redop"] not in ("sum", "none", ""):
        parts.append(row["redop"])
    if row["root"] > 0:
        parts.append(f"root={row['root']}")
    if row["in_place"]:
        parts.append("in place")
    if row["graph"] > 0:
        parts.append(f"graph={row['graph']}")
    if row["agg_iters"] > 1:
        parts.append(f"agg={row['agg_iters']}")
    if row["config"]:
        parts.append(row["config"])  # a hand-built algorithm's changed knobs, timing=loop
    if row["repeat"] > 0:
        parts.append(f"pass {row['repeat']}")  # --repeat: each later pass is a curve of its own
    return ", ".join(parts)


def curves(rows, label_of):
    """{label: [(bytes, row), ...] sorted by size} for the measured rows."""
    grouped = defaultdict(list)
    for row in rows:
        if row["status"] == "ok":
            grouped[label_of(row)].append((row["bytes"], row))
    return OrderedDict((label, sorted(points, key=lambda p: p[0]))
                       for label, points in sorted(grouped.items(), key=lambda item: curve_order(item[1])))


def curve_order(points):
    row = points[0][1]
    return (row["ranks"], row["graph"], row["in_place"], row["dtype"], row["algo"])


def gpu_curves(rows):
    """Curves of one op: NCCL's rows where present, one curve per GPU count and variant."""
    chosen = [r for r in rows if r["algo"] == "nccl"] or rows
    varying = {name for name in ("algo", "dtype") if len({r[name] for r in chosen}) > 1}
    return curves(chosen, lambda r: " ".join(filter(None, [f"{r['ranks']} GPUs",
                                                           variant(r, varying)])))


def size_axis(axes, sizes):
    """A log2 size axis with human-readable ticks, about ten of them."""
    axes.set_xscale("log", base=2)
    low, high = int(math.log2(max(min(sizes), 1))), int(math.ceil(math.log2(max(max(sizes), 1))))
    step = max(1, math.ceil((high - low + 1) / 10))
    ticks = [2 ** e for e in range(low, high + 1, step)]
    axes.set_xticks(ticks)
    axes.set_xticklabels([human_bytes(t) for t in ticks], rotation=45, ha="right")
    axes.minorticks_off()
    axes.set_xlabel("message size (larger of send and receive buffer)")
    axes.grid(True, which="major", alpha=0.3)


def plot_busbw(plt, op, rows, out_dir, formats):
    lines = gpu_curves(rows)
    if not lines:
        return []
    figure, axes = plt.subplots(figsize=(9, 5.5))
    for label, points in lines.items():
        axes.plot([p[0] for p in points], [p[1]["busbw_gbps"] for p in points], marker="o",
                  markersize=3, label=label)
    size_axis(axes, [p[0] for points in lines.values() for p in points])
    axes.set_ylabel("bus bandwidth (GB/s)")
    axes.set_ylim(bottom=0)
    axes.set_title(f"{op}: bus bandwidth vs message size\n{origin(rows)}")
    axes.legend()
    return save(plt, figure, out_dir, f"busbw_{op}", formats)


def plot_latency(plt, op, rows, out_dir, formats):
    lines = gpu_curves(rows)
    if not lines:
        return []
    figure, axes = plt.subplots(figsize=(9, 5.5))
    for index, (label, points) in enumerate(lines.items()):
        line, = axes.plot([p[0] for p in points], [p[1]["time_us_p50"] for p in points],
                          marker="o", markersize=3, label=label)
        p50_band(axes, points, line.get_color(), f"p50-interval-{index}")
    size_axis(axes, [p[0] for points in lines.values() for p in points])
    axes.set_yscale("log")
    axes.set_ylabel("p50 time per operation (µs)" + interval_caption(rows))
    axes.set_title(f"{op}: p50 latency vs message size\n{origin(rows)}")
    axes.legend()
    return save(plt, figure, out_dir, f"latency_{op}", formats)


def algorithm_label(row):
    """'ring', or 'ring (ring_ctas=32)' for a run with changed knobs or loop timing."""
    return row["algo"] if not row["config"] else f"{row['algo']} ({row['config']})"


def plot_all_reduce_algorithms(plt, rows, out_dir, formats):
    """busbw (top) and p50 (bottom) per GPU count, one line per algorithm; plain runs only."""
    plain = [r for r in rows if r["op"] == "all_reduce" and r["graph"] == 0 and not r["in_place"]
             and r["agg_iters"] == 1 and r["status"] == "ok"]
    if len({algorithm_label(r) for r in plain}) < 2:
        return []
    dtypes = sorted({r["dtype"] for r in plain}, key=lambda d: (d != "float", d))
    plain = [r for r in plain if r["dtype"] == dtypes[0]]
    ranks = sorted({r["ranks"] for r in plain})
    figure, grid = plt.subplots(2, len(ranks), figsize=(5 * len(ranks), 8), squeeze=False,
                                sharey="row")
    order = {name: i for i, name in enumerate(ALL_REDUCE_ALGORITHMS)}
    for column, count in enumerate(ranks):
        lines = curves([r for r in plain if r["ranks"] == count], algorithm_label)
        for index, algo in enumerate(sorted(lines, key=lambda a: (order.get(a, len(order)), a))):
            points = lines[algo]
            sizes = [p[0] for p in points]
            grid[0][column].plot(sizes, [p[1]["busbw_gbps"] for p in points], marker="o",
                                 markersize=3, label=algo)
            line, = grid[1][column].plot(sizes, [p[1]["time_us_p50"] for p in points],
                                         marker="o", markersize=3, label=algo)
            p50_band(grid[1][column], points, line.get_color(), f"p50-interval-{count}-{index}")
        all_sizes = [r["bytes"] for r in plain if r["ranks"] == count]
        for row_index in (0, 1):
            size_axis(grid[row_index][column], all_sizes)
        grid[0][column].set_title(f"{count} GPUs")
        grid[1][column].set_yscale("log")
        grid[0][column].legend(title="algorithm")
    # The busbw row shares its y axis: fixing its limits before every column is drawn would cut
    # the later (larger) GPU counts' curves at the first one's top.
    grid[0][0].set_ylim(bottom=0)
    grid[0][0].set_ylabel("bus bandwidth (GB/s)")
    grid[1][0].set_ylabel("p50 time per operation (µs)" + interval_caption(plain))
    figure.suptitle(f"all_reduce algorithms ({dtypes[0]}, out of place)\n{origin(plain)}")
    return save(plt, figure, out_dir, "all_reduce_algorithms", formats)


def plot_dp_step(plt, rows, out_dir, formats):
    """Efficiency bars: groups per GPU count, one bar per mode; a panel per model."""
    steps = [r for r in rows if r["op"] == "dp_step" and r["status"] == "ok"]
    for row in steps:
        row["config_map"] = key_values(row["config"])
        efficiency = key_values(row["extra"]).get("efficiency")
        if efficiency is None:
            raise ReportError(f"dp_step row ({row['config']}, {row['ranks']} GPUs) has no "
                              f"efficiency in its extra column")
        row["efficiency"] = float(efficiency)
    if not steps:
        return []
    mode_keys = ["sync", "algo", "bucket_mib"]
    varying = [k for k in mode_keys if len({r["config_map"].get(k) for r in steps}) > 1] or ["sync"]
    models = OrderedDict()
    for row in sorted(steps, key=lambda r: r["config"]):
        model = ", ".join(f"{k}={v}" for k, v in row["config_map"].items() if k not in mode_keys)
        models.setdefault(model, []).append(row)
    figure, panels = plt.subplots(1, len(models), figsize=(10 * len(models), 5), squeeze=False)
    for axes, (model, model_rows) in zip(panels[0], models.items()):
        ranks = sorted({r["ranks"] for r in model_rows})
        modes = sorted({tuple(r["config_map"].get(k, "?") for k in varying) for r in model_rows})
        width = 0.8 / len(modes)
        for index, mode in enumerate(modes):
            heights = []
            for count in ranks:
                match = [r["efficiency"] for r in model_rows if r["ranks"] == count and
                         tuple(r["config_map"].get(k, "?") for k in varying) == mode]
                heights.append(match[0] if match else 0.0)
            positions = [i + (index - (len(modes) - 1) / 2) * width for i in range(len(ranks))]
            bars = axes.bar(positions, heights, width,
                            label=", ".join(f"{k}={v}" for k, v in zip(varying, mode)))
            axes.bar_label(bars, labels=[f"{h:.2f}" if h else "" for h in heights], fontsize=8)
        axes.set_xticks(range(len(ranks)))
        axes.set_xticklabels([f"{count} GPUs" for count in ranks])
        axes.set_xlabel("GPU count")
        axes.set_ylabel("scaling efficiency (fraction of linear)")
        axes.set_ylim(0, 1.1)
        axes.axhline(1.0, color="gray", linewidth=0.8, linestyle=":")
        axes.set_title(model, fontsize=9)
        # Beside the bars, not over them: a sweep of modes easily has eight or more entries.
        axes.legend(title="mode", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.suptitle(f"data-parallel step scaling\n{origin(steps)}")
    return save(plt, figure, out_dir, "dp_step_efficiency", formats)


def plot_compare(plt, op, base_rows, new_rows, out_dir, formats):
    """busbw of BASE (solid) and NEW (dashed) per curve; below, NEW's speed relative to BASE
    from p50 times, which unlike busbw keeps its precision at the smallest sizes."""
    base_lines, new_lines = gpu_curves(base_rows), gpu_curves(new_rows)
    labels = [label for label in base_lines if label in new_lines]
    if not labels:
        return []
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True,
                                         gridspec_kw={"height_ratios": [2, 1]})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sizes = []
    for index, label in enumerate(labels):
        color = colors[index % len(colors)]
        base = {size: row for size, row in base_lines[label]}
        new = {size: row for size, row in new_lines[label]}
        top.plot(list(base), [r["busbw_gbps"] for r in base.values()], color=color, marker="o",
                 markersize=3, label=f"{label} BASE")
        top.plot(list(new), [r["busbw_gbps"] for r in new.values()], color=color, marker="x",
                 markersize=4, linestyle="--", label=f"{label} NEW")
        common = [s for s in base if s in new and new[s]["time_us_p50"] > 0]
        bottom.plot(common, [base[s]["time_us_p50"] / new[s]["time_us_p50"] for s in common],
                    color=color, marker="o", markersize=3, label=label)
        speed_ratio_error_bars(bottom, base, new, common, color, f"ratio-interval-{index}")
        sizes += list(base) + list(new)
    top.grid(True, alpha=0.3)
    # Shared x axis: the scale and ticks are set once, on the lower panel, after all plotting.
    size_axis(bottom, sizes)
    top.set_ylabel("bus bandwidth (GB/s)")
    top.set_ylim(bottom=0)
    top.legend(fontsize=8, ncol=2)
    top.set_title(f"{op}: BASE vs NEW bus bandwidth\nBASE: {origin(base_rows)}\n"
                  f"NEW: {origin(new_rows)}", fontsize=10)
    bottom.axhline(1.0, color="gray", linewidth=0.8)
    bottom.set_ylabel("NEW speed / BASE (p50 BASE ÷ NEW)")
    if interval_caption(base_rows + new_rows):
        bottom.set_title("bars: every ratio the medians' intervals of BASE and NEW allow",
                         fontsize=9)
    return save(plt, figure, out_dir, f"compare_{op}", formats)


def speed_ratio_error_bars(axes, base, new, sizes, color, name):
    """Error bars on BASE/NEW p50 where both rows have intervals: every ratio the two allow,
    [base_lo / new_hi, base_hi / new_lo] (collreport compare's range, as a speed ratio)."""
    both = [s for s in sizes if has_interval(base[s]) and has_interval(new[s])]
    if not both:
        return
    ratios = [base[s]["time_us_p50"] / new[s]["time_us_p50"] for s in both]
    lows = [base[s]["time_us_p50_lo"] / new[s]["time_us_p50_hi"] for s in both]
    highs = [base[s]["time_us_p50_hi"] / new[s]["time_us_p50_lo"] for s in both]
    bars = axes.errorbar(both, ratios, yerr=[[r - lo for r, lo in zip(ratios, lows)],
                                             [hi - r for r, hi in zip(ratios, highs)]],
                         fmt="none", ecolor=color, elinewidth=1, capsize=2)
    for collection in bars.lines[2]:  # the vertical bars, named in SVG output
        collection.set_gid(name)


def save(plt, figure, out_dir, name, formats):
    figure.tight_layout()
    paths = []
    for extension in formats:
        path = os.path.join(out_dir, f"{name}.{extension}")
        # No dates or tool versions inside the files: regenerated plots differ only when data does.
        metadata = {"Date": None} if extension == "svg" else {"Software": None}
        figure.savefig(path, dpi=150, metadata=metadata)
        paths.append(path)
    plt.close(figure)
    return paths


def by_op(rows):
    ops = OrderedDict()
    for row in sorted(rows, key=lambda r: r["op"]):
        if row["op"] != "dp_step":
            ops.setdefault(row["op"], []).append(row)
    return ops


def main(argv):
    parser = argparse.ArgumentParser(description="Plot collbench CSV reports as PNG and SVG.")
    parser.add_argument("reports", nargs="*", help="CSV reports; their rows are plotted together")
    parser.add_argument("-o", "--out", required=True, help="output folder (created if missing)")
    parser.add_argument("--compare", nargs=2, metavar=("BASE", "NEW"),
                        help="also overlay two reports, per op")
    parser.add_argument("--formats", default="png,svg", help="comma-separated (default png,svg)")
    args = parser.parse_args(argv)
    if not args.reports and not args.compare:
        parser.error("give reports to plot, --compare BASE NEW, or both")
    formats = [f for f in args.formats.split(",") if f]
    if not formats or any(f not in ("png", "svg", "pdf") for f in formats):
        parser.error(f"--formats '{args.formats}': use png, svg or pdf")

    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "collbench"  # stable ids inside SVG files
    import matplotlib.pyplot as plt

    try:
        os.makedirs(args.out, exist_ok=True)
        written = []
        rows = [row for path in args.reports for row in read_report(path)]
        for op, op_rows in by_op(rows).items():
            written += plot_busbw(plt, op, op_rows, args.out, formats)
            written += plot_latency(plt, op, op_rows, args.out, formats)
        written += plot_all_reduce_algorithms(plt, rows, args.out, formats)
        written += plot_dp_step(plt, rows, args.out, formats)
        if args.compare:
            base, new = read_report(args.compare[0]), read_report(args.compare[1])
            new_ops = by_op(new)
            for op, base_op_rows in by_op(base).items():
                if op in new_ops:
                    written += plot_compare(plt, op, base_op_rows, new_ops[op], args.out, formats)
    except ReportError as error:
        print(f"collplot: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
