// The synthetic reports: a latency + bandwidth model of each algorithm gives realistic curves.
#include "support/fixture_reports.hpp"

#include <fmt/format.h>

#include <cmath>

#include "reports/csv_writer.hpp"
#include "reports/schema.hpp"

namespace collbench::fixtures {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
// 18 NVLink links of 26.5625 GB/s: the H200's per-GPU link peak (peak_fraction's denominator).
constexpr double kLinkPeakGbps = 478.125;

// The report keeps three decimals; rounding here makes rows equal to what reading them back gives.
double round3(double value) {
  return std::round(value * 1000.0) / 1000.0;
}

double busbw_factor(const std::string& op, int ranks) {
  const double n = ranks;
  return op == "all_reduce" ? 2.0 * (n - 1) / n : (n - 1) / n;
}

ReportRow machine_row() {
  ReportRow row;
  row.timestamp = "2026-11-22T10:00:00Z";
  row.origin.host = "fixture-host";
  row.origin.gpu_name = "NVIDIA H200";
  row.origin.driver = "580.159.04";
  row.origin.cuda_runtime = "13.0";
  row.origin.nccl_version = "2.28.3";
  row.origin.collbench_version = "0.1.0-fixture";
  row.origin.launch_mode = "single_process";
  row.warmup = 5;
  row.iters = 20;
  row.time.samples = 20;
  row.stop = report::kStopFixed;
  row.time.confidence_pct = 95;
  return row;
}

// Plausible spread for 20 samples: cv 3% at latency-bound sizes (below 1 MiB), 1% above, the
// median's 95% interval +-cv/2 (for normal samples it is +-1.96 * 1.2533 / sqrt(20) = 0.55 sd) and
// the mean's +-t(0.975, 19) sd / sqrt(20) = 0.47 sd.
void set_times(ReportRow& row, double p50_us) {
  const double cv = row.bytes < kMiB ? 0.03 : 0.01;
  row.time.p50_us = round3(p50_us);
  row.time.mean_us = round3(p50_us * 1.01);
  row.time.min_us = round3(p50_us * 0.98);
  row.time.p99_us = round3(p50_us * 1.05);
  row.time.max_us = round3(p50_us * 1.10);
  row.time.stdev_us = round3(row.time.mean_us * cv);
  row.time.cv_pct = p50_us > 0 ? round3(100 * cv) : 0;
  row.time.p50_lo_us = round3(p50_us * (1 - cv / 2));
  row.time.p50_hi_us = round3(p50_us * (1 + cv / 2));
  const double mean_half_width_us = 2.093 * row.time.stdev_us / std::sqrt(20.0);
  row.time.mean_lo_us = round3(row.time.mean_us - mean_half_width_us);
  row.time.mean_hi_us = round3(row.time.mean_us + mean_half_width_us);
}

// After set_times: busbw comes from the mean time, its interval from the ends of the median's.
void set_bandwidths(ReportRow& row, double busbw_gbps) {
  row.busbw_gbps = round3(busbw_gbps);
  row.algbw_gbps = round3(busbw_gbps / busbw_factor(row.op, row.ranks));
  row.peak_fraction = round3(busbw_gbps / kLinkPeakGbps);
  const bool timed = row.time.p50_lo_us > 0;
  row.busbw_gbps_lo = timed ? round3(busbw_gbps * row.time.mean_us / row.time.p50_hi_us) : 0;
  row.busbw_gbps_hi = timed ? round3(busbw_gbps * row.time.mean_us / row.time.p50_lo_us) : 0;
}

struct AlgorithmModel {
  const char* algo;
  double latency_us;
  double peak_gbps;
};

// time = latency + bytes * factor / peak: the usual two-parameter model of a collective.
ReportRow modeled_row(const std::string& op, const AlgorithmModel& model, int ranks,
                      std::uint64_t bytes, int graph) {
  const double moved_bytes = static_cast<double>(bytes) * busbw_factor(op, ranks);
  const double time_us = model.latency_us + moved_bytes / (model.peak_gbps * 1e3);
  ReportRow row =
      measured_row(op, model.algo, ranks, bytes, moved_bytes / (time_us * 1e3), time_us);
  row.graph = graph;
  return row;
}

ReportRow not_measured_row(ReportRow row, const char* status, const char* reason) {
  row.status = status;
  row.reason = reason;
  row.time.samples = 0;
  row.time.confidence_pct = 0;
  set_times(row, 0);
  set_bandwidths(row, 0);
  return row;
}

ReportRow dp_step_row(int ranks, const std::string& sync, double efficiency) {
  ReportRow row = machine_row();
  row.op = "dp_step";
  row.algo = "nccl";
  row.ranks = ranks;
  row.dtype = "bfloat16";
  row.redop = "sum";
  row.root = -1;
  row.bytes = 8 * 4096 * 4096 * 2;  // gradients of 8 layers of 4096 x 4096 in bfloat16
  row.count = row.bytes / 2;
  row.config = fmt::format(
      "layers=8;width=4096;batch=2048;dtype=bfloat16;sync={};bucket_mib=25;algo=nccl", sync);
  const double compute_us = 41000.0 / ranks;
  const double step_us = compute_us / efficiency;
  set_times(row, step_us);
  row.extra =
      fmt::format("samples_per_s={:.1f};efficiency={:.3f};compute_us={:.1f};exposed_comm_us={:.1f}",
                  2048.0 * 1e6 / step_us, efficiency, compute_us, step_us - compute_us);
  return row;
}

bool is_regression_target(const ReportRow& row, std::uint64_t min_bytes) {
  return row.op == "all_reduce" && row.algo == "nccl" && row.ranks == 4 && row.graph == 0 &&
         row.bytes >= min_bytes && row.status == report::kStatusOk;
}

void scale_speed(ReportRow& row, double time_factor) {
  set_times(row, row.time.p50_us * time_factor);
  set_bandwidths(row, row.busbw_gbps / time_factor);
}

}  // namespace

ReportRow measured_row(const std::string& op, const std::string& algo, int ranks,
                       std::uint64_t bytes, double busbw_gbps, double p50_us) {
  ReportRow row = machine_row();
  row.op = op;
  row.algo = algo;
  row.ranks = ranks;
  row.dtype = "float";
  row.redop = op == "all_reduce" ? "sum" : "none";
  row.root = -1;
  row.bytes = bytes;
  // all_gather's size column is the receive buffer; each rank passes its share.
  row.count = op == "all_gather" ? bytes / 4 / static_cast<std::uint64_t>(ranks) : bytes / 4;
  set_times(row, p50_us);
  set_bandwidths(row, busbw_gbps);
  return row;
}

std::vector<ReportRow> baseline_rows() {
  const AlgorithmModel all_reduce_models[] = {{"nccl", 24.0, 360.0},
                                              {"ring", 30.0, 330.0},
                                              {"ring_sendrecv", 35.0, 300.0},
                                              {"oneshot", 10.0, 150.0}};
  std::vector<ReportRow> rows;
  for (int ranks : {2, 4}) {
    for (std::uint64_t bytes = 8; bytes <= kGiB; bytes *= 8) {
      for (const AlgorithmModel& model : all_reduce_models) {
        if (model.algo == std::string("oneshot") && bytes > 128 * kMiB) {
          // The one-shot kernel's buffers are registered up front: large sizes are skipped.
          rows.push_back(not_measured_row(modeled_row("all_reduce", model, ranks, bytes, 0),
                                          report::kStatusSkipped,
                                          "oneshot supports up to 128 MiB"));
          continue;
        }
        rows.push_back(modeled_row("all_reduce", model, ranks, bytes, 0));
      }
      rows.push_back(modeled_row("all_gather", {"nccl", 20.0, 370.0}, ranks, bytes, 0));
    }
  }
  for (std::uint64_t bytes = 8; bytes <= kGiB; bytes *= 8) {
    rows.push_back(modeled_row("all_reduce", {"nccl", 9.0, 360.0}, 4, bytes, 10));
  }
  rows.push_back(not_measured_row(modeled_row("all_gather", {"nccl", 20.0, 370.0}, 4, 8 * kGiB, 0),
                                  report::kStatusOom, "cudaMalloc of 8 GiB failed"));
  for (int ranks : {2, 4}) {
    rows.push_back(dp_step_row(ranks, "blocking", ranks == 2 ? 0.88 : 0.79));
    rows.push_back(dp_step_row(ranks, "overlap", ranks == 2 ? 0.97 : 0.93));
  }
  return rows;
}

std::vector<ReportRow> with_noise(std::vector<ReportRow> rows, double small_amplitude,
                                  double large_amplitude) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].status != report::kStatusOk) continue;
    // A fixed pattern in [-1, 1] that visits both extremes.
    const double shape = (static_cast<double>((i * 7) % 9) - 4.0) / 4.0;
    const double amplitude = rows[i].bytes >= kMiB ? large_amplitude : small_amplitude;
    scale_speed(rows[i], 1.0 + amplitude * shape);
  }
  return rows;
}

std::vector<ReportRow> with_busbw_regression(std::vector<ReportRow> rows, double fraction,
                                             std::uint64_t min_bytes) {
  for (ReportRow& row : rows) {
    if (is_regression_target(row, min_bytes)) scale_speed(row, 1.0 / (1.0 - fraction));
  }
  return rows;
}

std::vector<ReportRow> with_wrong_elements(std::vector<ReportRow> rows, std::uint64_t count) {
  for (ReportRow& row : rows) {
    if (row.op == "all_reduce" && row.algo == "ring" && row.ranks == 4 && row.bytes == 2 * kMiB) {
      row.wrong_elements = count;
    }
  }
  return rows;
}

std::vector<ReportRow> summary_known_rows() {
  std::vector<ReportRow> rows;
  // all_reduce/nccl/4: peak 360 at 256 MiB; 16 MiB reaches exactly 50% of it; 64 MiB is the first
  // at >= 90%; the smallest measured size (1 KiB, 20.5 us) is not the fastest one (4 KiB).
  const struct {
    std::uint64_t bytes;
    double busbw_gbps;
    double p50_us;
  } curve[] = {{1024, 0.06, 20.5},          {4096, 0.3, 20.1},         {16384, 1.1, 21.4},
               {65536, 4.2, 23.2},          {262144, 14.5, 27.1},      {kMiB, 45.0, 34.9},
               {4 * kMiB, 150.0, 41.9},     {16 * kMiB, 180.0, 139.8}, {64 * kMiB, 330.0, 305.0},
               {256 * kMiB, 360.0, 1118.5}, {kGiB, 352.0, 4576.2}};
  // Written largest first: the summary must not depend on row order.
  rows.push_back(not_measured_row(measured_row("all_reduce", "nccl", 4, 2 * kGiB, 0, 0),
                                  report::kStatusOom, "cudaMalloc of 2 GiB failed"));
  for (auto point = std::rbegin(curve); point != std::rend(curve); ++point) {
    rows.push_back(
        measured_row("all_reduce", "nccl", 4, point->bytes, point->busbw_gbps, point->p50_us));
  }
  rows.push_back(not_measured_row(measured_row("all_reduce", "nccl", 4, 512, 0, 0),
                                  report::kStatusSkipped, "below the minimum size"));
  // all_reduce/ring/4: one measurement with wrong elements, one failure.
  ReportRow wrong = measured_row("all_reduce", "ring", 4, kMiB, 40.0, 39.3);
  wrong.wrong_elements = 7;
  rows.push_back(wrong);
  rows.push_back(not_measured_row(measured_row("all_reduce", "ring", 4, 4 * kMiB, 0, 0),
                                  report::kStatusError, "cudaErrorLaunchFailure"));
  // all_gather/nccl/2: the peak is reached twice; the smaller size counts.
  rows.push_back(measured_row("all_gather", "nccl", 2, kMiB, 100.0, 5.2));
  rows.push_back(measured_row("all_gather", "nccl", 2, 4 * kMiB, 200.0, 10.5));
  rows.push_back(measured_row("all_gather", "nccl", 2, 16 * kMiB, 200.0, 41.9));
  return rows;
}

std::string to_csv(const std::vector<ReportRow>& rows, int version) {
  if (version == report::kSchemaVersion) {
    std::string text = report::header_line() + "\n";
    for (const ReportRow& row : rows) text += report::format_row(row) + "\n";
    return text;
  }
  // An older version: its columns only, in schema order, and its number in schema_version.
  std::vector<std::string> lines(rows.size() + 1);
  for (const report::Column& column : report::kColumns) {
    if (!report::in_version(column, version)) continue;
    const bool first = lines[0].empty();
    lines[0] += fmt::format("{}{}", first ? "" : ",", column.name);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string value = column.name == std::string("schema_version")
                                    ? std::to_string(version)
                                    : column.format(rows[i]);
      lines[i + 1] += fmt::format("{}{}", first ? "" : ",", report::csv_escape(value));
    }
  }
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::vector<FixtureFile> fixture_files() {
  const std::vector<ReportRow> base = baseline_rows();
  return {{"base.csv", to_csv(base)},
          {"base_v1.csv", to_csv(base, 1)},
          {"base_v2.csv", to_csv(base, 2)},
          {"new_noise.csv", to_csv(with_noise(base, 0.08, 0.02))},
          {"new_regressed.csv", to_csv(with_busbw_regression(base, 0.10, 64 * kMiB))},
          {"new_wrong.csv", to_csv(with_wrong_elements(base, 3))},
          {"summary_known.csv", to_csv(summary_known_rows())}};
}

}  // namespace collbench::fixtures
