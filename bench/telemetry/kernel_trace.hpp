// Each kernel's, copy's and memset's own start and end on the GPU, from CUPTI's activity records
// (libcupti opened at run time, as NVML is: a machine without it runs everything else). These are
// the times Nsight Systems and PyTorch's profiler show; CUDA events around an op time instead
// everything between them, a direct launch's host time included, and cost a captured graph an
// external node each. Work is told apart by tags: what a thread launches while a TagScope is
// alive carries its tag (CUPTI's external correlation), and so do the graph nodes a stream
// capture makes on that thread, at every launch of the graph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/traced_activity.hpp"

namespace collbench {

class KernelTrace {
 public:
  // The process's one trace (CUPTI takes one subscriber per process), made on first use and kept
  // until exit. Null where CUPTI cannot trace: no libcupti, no GPU, or another profiler (Nsight
  // Systems, say) holds it; `why_not` (when given) then says why, in a few words.
  static KernelTrace* shared(std::string* why_not = nullptr);
  ~KernelTrace();
  KernelTrace(const KernelTrace&) = delete;
  KernelTrace& operator=(const KernelTrace&) = delete;

  // While alive, every GPU's activity is recorded, with the API calls that attribution needs:
  // each launch costs more host time, so a measurement that times the host runs without it.
  class Recording {
   public:
    explicit Recording(const KernelTrace& trace);
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

   private:
    const KernelTrace& trace_;
  };

  // What this thread launches, or captures into a graph, while alive carries `tag` (not 0).
  class TagScope {
   public:
    TagScope(const KernelTrace& trace, std::uint64_t tag);
    ~TagScope();
    TagScope(const TagScope&) = delete;
    TagScope& operator=(const TagScope&) = delete;

   private:
    const KernelTrace& trace_;
    std::uint64_t outer_;
  };

  // Every kernel, copy and memset recorded since the last take, in no particular order; call once
  // the GPUs have finished the work (CUPTI's buffers are flushed here).
  std::vector<TracedActivity> take() const;

  struct State;  // kernel_trace.cpp; CUPTI's callbacks reach it

 private:
  KernelTrace();
  static std::unique_ptr<KernelTrace> open(std::string& why_not);
  std::unique_ptr<State> state_;
};

}  // namespace collbench
