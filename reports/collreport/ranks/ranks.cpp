// Judges every case of a sample file with the arrival rule and counts, per rank, its late cases.
#include "ranks/ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/csv_reader.hpp"
#include "reports/statistics.hpp"

namespace collbench::collreport {
namespace {

// A one-case blip must not name a rank, however few the cases (RanksOptions::min_share).
constexpr std::size_t kMinLateCases = 2;

// Whether the case's ranks ran in concurrent groups (collbench --split: `split=` in its config),
// each its own collective, which the groups end apart.
bool runs_in_groups(const report::ReportRow& row) {
  const std::string& config = row.config;
  return config.rfind("split=", 0) == 0 || config.find(";split=") != std::string::npos;
}

// Why the arrival rule cannot judge the case; empty when it can.
std::string why_not_judged(const report::ReportRow& row) {
  if (!stats::finishes_together(row.op)) {
    return fmt::format("not judged: {} ends at different times on different ranks by design",
                       row.op);
  }
  if (runs_in_groups(row)) {
    return "not judged: its ranks ran in --split groups, which end at different times";
  }
  return "";
}

CaseRanks judge_case(const report::SampleCase& c, const RanksOptions& options) {
  CaseRanks result;
  result.row = c.row;
  result.line = c.line;
  result.op_time_us = stats::median(c.samples_us);
  result.why_not_judged = why_not_judged(c.row);
  result.judged = result.why_not_judged.empty();
  if (!result.judged) return result;
  // The launch offsets the file holds are each launch after the earliest rank's of the sample:
  // shifted per sample by the same amount for every rank, which host lateness does not see.
  result.arrivals = stats::summarize_arrivals(c.rank_samples_us, c.rank_lateness_us, c.rank_hosts);
  result.judgement = stats::judge_arrivals(result.arrivals, result.op_time_us, options.rule);
  return result;
}

void count_case(const CaseRanks& c, std::vector<RankSummary>& summaries,
                std::vector<double>& lateness_sum_us) {
  for (std::size_t rank = 0; rank < c.arrivals.size(); ++rank) {
    if (rank >= summaries.size()) {
      summaries.push_back({static_cast<int>(rank)});
      lateness_sum_us.push_back(0);
    }
    RankSummary& summary = summaries[rank];
    const stats::RankArrivalJudgement& verdict = c.judgement.ranks[rank];
    ++summary.judged;
    lateness_sum_us[rank] += c.arrivals[rank].gpu_lateness_us;
    summary.waiting += verdict.waiting ? 1 : 0;
    if (!verdict.late) continue;
    ++summary.late;
    summary.late_host += verdict.cause == stats::LateCause::host ? 1 : 0;
    summary.late_gpu += verdict.cause == stats::LateCause::gpu ? 1 : 0;
    summary.late_unknown += verdict.cause == stats::LateCause::unknown ? 1 : 0;
  }
}

// max(2, min_share x judged), but never more than the judged cases.
std::size_t min_late_cases(std::size_t judged, double min_share) {
  const auto share = static_cast<std::size_t>(
      std::ceil(min_share * static_cast<double>(judged) - 1e-9));  // 25% of 12 is 3, not 4
  return std::min(judged, std::max(kMinLateCases, share));
}

std::vector<RankSummary> summarize_ranks(const std::vector<CaseRanks>& cases,
                                         std::size_t min_late) {
  std::vector<RankSummary> summaries;
  std::vector<double> lateness_sum_us;
  for (const CaseRanks& c : cases) {
    if (c.judged) count_case(c, summaries, lateness_sum_us);
  }
  for (std::size_t rank = 0; rank < summaries.size(); ++rank) {
    RankSummary& summary = summaries[rank];
    summary.mean_gpu_lateness_us = lateness_sum_us[rank] / static_cast<double>(summary.judged);
    summary.named = summary.late > 0 && summary.late >= min_late;
  }
  return summaries;
}

}  // namespace

stats::LateCause RankSummary::dominant_cause() const {
  if (late == 0) return stats::LateCause::none;
  // On a tie the more specific cause: host, then gpu, then unknown.
  if (late_host >= late_gpu && late_host >= late_unknown) return stats::LateCause::host;
  return late_gpu >= late_unknown ? stats::LateCause::gpu : stats::LateCause::unknown;
}

std::size_t RanksAnalysis::judged_cases() const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [](const CaseRanks& c) { return c.judged; }));
}

std::size_t RanksAnalysis::named_count() const {
  return static_cast<std::size_t>(
      std::count_if(ranks.begin(), ranks.end(), [](const RankSummary& r) { return r.named; }));
}

RanksAnalysis analyze_ranks(const report::SampleFile& file, const RanksOptions& options) {
  RanksAnalysis analysis;
  for (const report::SampleCase& c : file.cases) {
    if (c.samples_us.empty()) {
      ++analysis.unmeasured_cases;
    } else if (c.row.ranks == 1) {
      ++analysis.single_rank_cases;  // nothing to compare it with
    } else {
      analysis.cases.push_back(judge_case(c, options));
    }
  }
  if (analysis.judged_cases() == 0) {
    throw report::ReportError(
        file.path, 0,
        fmt::format("nothing to judge: no case of an op whose ranks end together has two or more "
                    "ranks with samples ({})",
                    counted_cases(analysis)));
  }
  analysis.min_late_cases = min_late_cases(analysis.judged_cases(), options.min_share);
  analysis.ranks = summarize_ranks(analysis.cases, analysis.min_late_cases);
  return analysis;
}

std::string counted_cases(const RanksAnalysis& analysis) {
  return fmt::format(
      "{} case(s) judged, {} not judged (their ranks end at different times); skipped: {} with "
      "one rank, {} not measured",
      analysis.judged_cases(), analysis.cases.size() - analysis.judged_cases(),
      analysis.single_rank_cases, analysis.unmeasured_cases);
}

}  // namespace collbench::collreport
