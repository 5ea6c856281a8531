// Where a test-only fault (--inject-fault) enters the measurement of a case. Every hook's default
// does nothing, so the measuring code (case_measurement.cpp) reads as timing; the faults are
// hooks of their own (fault_injection.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/algorithm.hpp"
#include "fill_check.hpp"

namespace collbench {

class MeasurementHooks {
 public:
  virtual ~MeasurementHooks() = default;
  // Before the case's buffers are made: may throw GpuError (out of memory) instead.
  virtual void before_allocation() {}
  // Just before the first timed batch, once every kernel is loaded; what it returns lives until
  // the last timed batch has completed (the slow-rank fault's SM hogs).
  virtual std::shared_ptr<void> during_timing(const std::vector<RankContext>& /*ranks*/) {
    return {};
  }
  // On rank `local`'s own thread, before each timed sample.
  virtual void before_sample(int /*local*/) {}
  // Whether rank `local` leaves out launch `launch` of `launches` of sample `sample` of `samples`
  // in timed round `batch` (launches: iterations of a timed loop; 1 otherwise).
  virtual bool skips_launch(int /*local*/, std::size_t /*batch*/, std::size_t /*sample*/,
                            std::size_t /*samples*/, int /*launch*/, int /*launches*/) {
    return false;
  }
  // After checked iteration `check` was launched on every rank, before its outputs are checked:
  // `outputs[local]` is rank `local`'s receive buffer of `count` elements (the corrupt-output
  // fault changes one).
  virtual void after_checked_launch(int /*check*/, const std::vector<RankContext>& /*ranks*/,
                                    const std::vector<void*>& /*outputs*/, std::uint64_t /*count*/,
                                    const kernels::PatternParams& /*params*/, bool /*root_only*/,
                                    int /*root*/) {}
};

// What makes the hooks of a case whose ranks this process drives are `local_ranks` (by local
// index) of `ranks`: an app's test-only faults; no factory, hooks that do nothing.
using MeasurementHooksFactory = std::function<std::unique_ptr<MeasurementHooks>(
    const std::vector<int>& local_ranks, int ranks)>;

}  // namespace collbench
