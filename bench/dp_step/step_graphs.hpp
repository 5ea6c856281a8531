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
  // Executable copies per graph, launched in turn. Pointing a copy's record nodes at other
  // events waits for that copy's last launch to finish (measured: with one copy the GPUs idled
  // between replays); with two, the other copy keeps the GPU busy meanwhile.
  static constexpr int kCopies = 2;

  int steps_ = 0;
  std::vector<std::vector<Event>> own_ends_;  // [local][step]; outlive the graphs recording them
  std::vector<Graph> graphs_;
  std::vector<std::vector<cudaGraphNode_t>> record_nodes_;  // [local][step]
  struct Copy {
    GraphExec exec;
    std::vector<cudaEvent_t> recording;  // [step]: what each record node records
  };
  std::vector<std::vector<Copy>> copies_;  // [local][copy]
  std::vector<int> launches_;              // [local]
};

}  // namespace collbench::dp
