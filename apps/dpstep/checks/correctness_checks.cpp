// Correctness checks of the data-parallel step (see correctness_checks.hpp).
#include "checks/correctness_checks.hpp"

#include <fmt/format.h>

#include "session/dp_trainer.hpp"

namespace collbench::dp {

std::string SmallModelReport::summary() const {
  return fmt::format(
      "gradient vs 1 GPU: max rel err {:.2e} ({}) {}; weights after 1 step: {:.2e} {}; loss {:.5f} "
      "-> "
      "{:.5f} over {} steps {}; {} weights differ between ranks",
      gradient.worst_relative_error, gradient.worst_parameter, gradient.ok ? "ok" : "FAILED",
      weights.worst_relative_error, weights.ok ? "ok" : "FAILED",
      losses.empty() ? 0.0 : losses.front(), losses.empty() ? 0.0 : losses.back(), losses.size(),
      loss_decreased(losses) ? "ok" : "FAILED", differing_weights);
}

SmallModelReport run_small_model_check(const StepConfig& small,
                                       std::vector<NcclCommunicator>& communicators, int steps,
                                       double timeout_s, int device) {
  SmallModelReport report;
  const double tolerance = gradient_tolerance(small.model.dtype);
  DataParallelTrainer trainer(small, communicators, device, timeout_s);
  trainer.run_eager(1);
  trainer.synchronize(timeout_s);
  const std::vector<double> dp_gradient = trainer.applied_gradient();
  report.losses.push_back(trainer.loss());
  if (trainer.holds_rank(0)) {
    // One GPU, the concatenated global batch: global samples [0, ranks * batch).
    StepConfig single = small;
    single.ranks = 1;
    single.scheme = SyncScheme::sync;
    single.model.batch = small.model.batch * small.ranks;
    DataParallelTrainer reference(single, trainer.device_of(0));
    reference.run_eager(1);
    reference.synchronize(timeout_s);
    report.gradient = compare_per_parameter(trainer.layout(), dp_gradient,
                                            reference.applied_gradient(), tolerance);
    report.weights = compare_per_parameter(trainer.layout(), trainer.parameters(0),
                                           reference.parameters(0), tolerance);
  }
  // Rank 0 compared; the processes without it take its verdicts.
  report.gradient.ok = trainer.every_rank_agrees(report.gradient.ok);
  report.weights.ok = trainer.every_rank_agrees(report.weights.ok);
  for (int step = 1; step < steps; ++step) {
    trainer.run_eager(1);
    trainer.synchronize(timeout_s);
    report.losses.push_back(trainer.loss());
  }
  report.differing_weights = trainer.differing_weight_elements();
  return report;
}

}  // namespace collbench::dp
