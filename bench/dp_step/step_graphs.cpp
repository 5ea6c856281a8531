// Multi-step graphs and their step-end record nodes (step_graphs.hpp).
#include "step_graphs.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "errors.hpp"
#include "graph_nodes.hpp"
#include "stream_capture.hpp"

namespace collbench::dp {
namespace {

// The record node of each of `events`, in their order.
std::vector<cudaGraphNode_t> record_nodes(const Graph& graph, const std::vector<Event>& events) {
  std::vector<cudaGraphNode_t> found(events.size(), nullptr);
  for (cudaGraphNode_t node : nodes_of(graph.get())) {
    if (node_type(node, graph.device()) != CU_GRAPH_NODE_TYPE_EVENT_RECORD) continue;
    cudaEvent_t recorded = nullptr;
    CB_CUDA_CHECK(cudaGraphEventRecordNodeGetEvent(node, &recorded));
    for (std::size_t s = 0; s < events.size(); ++s) {
      if (events[s].get() == recorded) found[s] = node;
    }
  }
  for (std::size_t s = 0; s < found.size(); ++s) {
    if (!found[s]) {
      throw std::logic_error(fmt::format(
          "StepGraphs: the graph on GPU {} has no record node for step {}'s end", graph.device(),
          s));
    }
  }
  return found;
}

}  // namespace

StepGraphs::StepGraphs(std::vector<Graph> graphs, std::vector<std::vector<Event>> step_ends)
    : steps_(step_ends.empty() ? 0 : static_cast<int>(step_ends.front().size())),
      own_ends_(std::move(step_ends)),
      graphs_(std::move(graphs)) {
  if (graphs_.size() != own_ends_.size() || steps_ < 1) {
    throw std::invalid_argument("StepGraphs: one graph and 1+ step-end events per local rank");
  }
  for (std::size_t local = 0; local < graphs_.size(); ++local) {
    ScopedDevice on(graphs_[local].device());
    record_nodes_.push_back(record_nodes(graphs_[local], own_ends_[local]));
    std::vector<cudaEvent_t> recording;
    for (const Event& event : own_ends_[local]) recording.push_back(event.get());
    copies_.emplace_back();
    for (int copy = 0; copy < kCopies; ++copy) {
      // Graph kernels keep the priority of the stream they were captured from.
      copies_[local].push_back(
          {instantiate(graphs_[local], cudaGraphInstantiateFlagUseNodePriority), recording});
    }
  }
  launches_.assign(graphs_.size(), 0);
}

void StepGraphs::launch(int local, cudaStream_t stream, const Event* const* step_ends) {
  Copy& copy = copies_.at(static_cast<std::size_t>(local))[launches_[local]++ % kCopies];
  ScopedDevice on(copy.exec.device());
  for (int s = 0; s < steps_; ++s) {
    const cudaEvent_t wanted = step_ends ? step_ends[s]->get() : own_ends_[local][s].get();
    if (wanted == copy.recording[s]) continue;
    // Takes effect from this launch on; the copy's launches already enqueued keep their events.
    CB_CUDA_CHECK(
        cudaGraphExecEventRecordNodeSetEvent(copy.exec.get(), record_nodes_[local][s], wanted));
    copy.recording[s] = wanted;
  }
  CB_CUDA_CHECK(cudaGraphLaunch(copy.exec.get(), stream));
}

}  // namespace collbench::dp
