// Parsing --inject-fault and resolving it per rank.
#include "collbench/fault_injection.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <thread>
#include <vector>

#include "collbench/options.hpp"
#include "core/errors.hpp"
#include "frame/settings/value_parsers.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/sm_hog.hpp"

namespace collbench {
namespace {

constexpr const char* kGrammar =
    "corrupt_output, fail_allocation, skip_rank[:R], slow_rank:R[:FRACTION] or late_rank:R[:MS]";

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> fields;
  std::stringstream stream(text);
  std::string field;
  while (std::getline(stream, field, ':')) fields.push_back(field);
  if (!text.empty() && text.back() == ':') fields.emplace_back();
  return fields;
}

// A finite decimal number making up all of `text`, or NaN.
double parse_number(const std::string& text) {
  std::size_t used = 0;
  double value = NAN;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return NAN;
  }
  return used == text.size() && std::isfinite(value) ? value : NAN;
}

}  // namespace

InjectedFault parse_injected_fault(const std::string& text) {
  InjectedFault fault;
  if (text.empty()) return fault;
  const std::vector<std::string> fields = split_fields(text);
  const std::string& kind = fields.front();
  const auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("--inject-fault '{}' {}", text, why));
  };
  std::size_t most_fields = 1;
  if (kind == "corrupt_output") {
    fault.kind = FaultKind::corrupt_output;
  } else if (kind == "fail_allocation") {
    fault.kind = FaultKind::fail_allocation;
  } else if (kind == "skip_rank") {
    fault.kind = FaultKind::skip_rank;
    most_fields = 2;
  } else if (kind == "slow_rank" || kind == "late_rank") {
    fault.kind = kind == "slow_rank" ? FaultKind::slow_rank : FaultKind::late_rank;
    fault.amount = kind == "slow_rank" ? kDefaultSlowShare : kDefaultLateMs;
    most_fields = 3;
    if (fields.size() < 2)
      refuse(
          fmt::format("names no rank ({}:R[:{}])", kind, kind == "slow_rank" ? "FRACTION" : "MS"));
  } else {
    refuse(fmt::format("is not {}", kGrammar));
  }
  if (fields.size() > most_fields) {
    refuse(most_fields == 1 ? fmt::format("takes nothing after {}", kind)
                            : fmt::format("has too many fields ({})", kGrammar));
  }
  if (fields.size() >= 2) {
    fault.rank = parse_non_negative_int(fields[1], fmt::format("--inject-fault '{}': rank", text));
  }
  if (fields.size() == 3) {
    const double amount = parse_number(fields[2]);
    if (fault.kind == FaultKind::slow_rank && !(amount > 0 && amount <= 1)) {
      refuse(fmt::format("has fraction '{}', not a share of the SMs in (0, 1]", fields[2]));
    }
    if (fault.kind == FaultKind::late_rank && !(amount >= 0 && amount <= kMaxLateMs)) {
      refuse(
          fmt::format("has delay '{}', not a number of ms from 0 to {:g}", fields[2], kMaxLateMs));
    }
    fault.amount = amount;
  }
  return fault;
}

RankFault rank_fault(const InjectedFault& fault, int rank, int ranks) {
  RankFault asked;
  const int struck = fault.kind == FaultKind::skip_rank && fault.rank < 0 ? ranks - 1 : fault.rank;
  if (rank != struck) return asked;
  switch (fault.kind) {
    case FaultKind::skip_rank:
      asked.skips_one = ranks > 1;
      break;
    case FaultKind::slow_rank:
      asked.sm_share = fault.amount;
      break;
    case FaultKind::late_rank:
      asked.delay = std::chrono::duration<double, std::milli>(fault.amount);
      break;
    default:
      break;
  }
  return asked;
}

namespace {

// The injected fault as hooks: each rank asks rank_fault() once, when the case starts.
class InjectedFaultHooks final : public MeasurementHooks {
 public:
  InjectedFaultHooks(FaultKind kind, std::vector<RankFault> faults)
      : kind_(kind), faults_(std::move(faults)) {}

  void before_allocation() override {
    if (kind_ == FaultKind::fail_allocation) {
      throw GpuError("cudaMalloc failed (cudaErrorMemoryAllocation): injected out-of-memory fault",
                     true);
    }
  }

  // Injected slow_rank: SMs held through the timed batches only. The warm-up (and a graph's
  // upload) has loaded every kernel by now: a module's lazy loading waits for an idle device,
  // which a running hog never leaves.
  std::shared_ptr<void> during_timing(const std::vector<RankContext>& ranks) override {
    auto hogs = std::make_shared<std::vector<std::unique_ptr<SmHog>>>();
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      if (faults_[local].sm_share > 0)
        hogs->push_back(std::make_unique<SmHog>(ranks[local].device, faults_[local].sm_share));
    }
    return hogs;
  }

  void before_sample(int local) override {
    if (faults_[local].delay.count() > 0) std::this_thread::sleep_for(faults_[local].delay);
  }

  // Injected skip_rank: the rank leaves out one collective of the first timed batch, in its
  // middle, so the others wait forever.
  bool skips_launch(int local, std::size_t batch, std::size_t sample, std::size_t samples,
                    int launch, int launches) override {
    if (!faults_[local].skips_one || batch != 0) return false;
    return launches > 1 ? sample == 0 && launch == launches / 2 : sample == samples / 2;
  }

  // Injected corrupt_output: element 0 of the first checked rank's output changes after the first
  // checked collective.
  void after_checked_launch(int check, const std::vector<RankContext>& ranks,
                            const std::vector<void*>& outputs, std::uint64_t count,
                            const kernels::PatternParams& params, bool root_only,
                            int root) override {
    if (kind_ != FaultKind::corrupt_output || check != 0 || count == 0) return;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      if (root_only && ranks[local].rank != root) continue;
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      kernels::launch_corrupt_element(outputs[local], 0, params, ranks[local].stream);
      CB_CHECK_LAUNCH();
      return;
    }
  }

 private:
  FaultKind kind_;
  std::vector<RankFault> faults_;  // per local rank
};

}  // namespace

std::unique_ptr<MeasurementHooks> fault_hooks(const InjectedFault& fault,
                                              const std::vector<int>& local_ranks, int ranks) {
  if (fault.kind == FaultKind::none) return std::make_unique<MeasurementHooks>();
  std::vector<RankFault> faults;
  for (int rank : local_ranks) faults.push_back(rank_fault(fault, rank, ranks));
  return std::make_unique<InjectedFaultHooks>(fault.kind, std::move(faults));
}

}  // namespace collbench
