// Where tests make a replay fail on purpose, as the sweep's MeasurementHooks do; the defaults do
// nothing, so the replay reads as the replay.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "test_values.cuh"

namespace collbench::replay {

class ReplayHooks {
 public:
  virtual ~ReplayHooks() = default;
  // Whether global rank `rank` leaves out its op `ordinal` (its peers then wait: a timeout).
  virtual bool skips_op(int /*rank*/, std::size_t /*ordinal*/) const { return false; }
  // In the checked iteration, once op `ordinal` of `rank` has written `elements` elements at
  // `output` on `stream`, before they are checked against `pattern`.
  virtual void after_checked_op(int /*rank*/, std::size_t /*ordinal*/, void* /*output*/,
                                std::uint64_t /*elements*/,
                                const kernels::PatternParams& /*pattern*/,
                                cudaStream_t /*stream*/) const {}
};

}  // namespace collbench::replay
