// Several training steps in one CUDA graph per rank, each step's end marked by an event-record
// node. A graph replay waits for the whole previous replay to finish before its first node
// starts: in the 4-GPU step that boundary took 15-18 us (3 us compute-only). Inside one graph the
// next step waits only on what it depends on, and the step-end nodes keep per-step times.
#pragma once

#include <vector>

#include "cuda_resources.hpp"

namespace collbench::dp {

class StepGraphs {
 public:
  // `graphs[local]` was captured with `steps` steps, each followed by an external record
  // (cudaEventRecordExternal) of `step_ends[local][s]`; both are kept, because the executable
  // graph's record nodes are addressed through the graph's.
  StepGraphs(std::vector<Graph> graphs, std::vector<std::vector<Event>> step_ends);

  int steps() const { return steps_; }
  // Launches local rank `local`'s graph on `stream`, its step ends recorded into `step_ends`
  // (steps() timing events on the rank's device) or, with nullptr, into the capture's own events.
  void launch(int local, cudaStream_t stream, const Event* const* step_ends);

 private:
  int steps_ = 0;
  std::vector<std::vector<Event>> own_ends_;  // [local][step]; outlive the graphs recording them
  std::vector<Graph> graphs_;
  std::vector<GraphExec> execs_;
  std::vector<std::vector<cudaGraphNode_t>> record_nodes_;  // [local][step]
  std::vector<std::vector<cudaEvent_t>> recording_;         // [local][step]: what each node records
};

}  // namespace collbench::dp
