// Multi-stream graph capture.
#include "runtime/stream_capture.hpp"

namespace collbench {

StreamCapture::StreamCapture(const std::vector<RankContext>& ranks) : ranks_(ranks) {
  for (const RankContext& rank : ranks_) {
    ScopedDevice on(rank.device, rank.rank);
    // Relaxed: each rank's thread captures its own stream while the others capture theirs, and
    // NCCL may make calls during capture that the stricter modes forbid across threads.
    CB_CUDA_CHECK(cudaStreamBeginCapture(rank.stream, cudaStreamCaptureModeRelaxed));
    ++open_;
  }
}

StreamCapture::~StreamCapture() {
  for (std::size_t i = 0; i < open_; ++i) {
    ScopedDevice on(ranks_[i].device, ranks_[i].rank);
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(ranks_[i].stream, &partial);  // invalidated capture: error expected
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();
  }
}

std::vector<Graph> StreamCapture::finish() {
  std::vector<Graph> graphs;
  for (const RankContext& rank : ranks_) {
    ScopedDevice on(rank.device, rank.rank);
    cudaGraph_t graph = nullptr;
    const cudaError_t status = cudaStreamEndCapture(rank.stream, &graph);
    if (graph) graphs.emplace_back(graph, rank.device);
    CB_CUDA_CHECK(status);
  }
  open_ = 0;
  return graphs;
}

std::vector<GraphExec> instantiate(const std::vector<Graph>& graphs) {
  std::vector<GraphExec> execs;
  for (const Graph& graph : graphs) {
    ScopedDevice on(graph.device());
    cudaGraphExec_t exec = nullptr;
    CB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
    execs.emplace_back(exec, graph.device());
  }
  return execs;
}

}  // namespace collbench
