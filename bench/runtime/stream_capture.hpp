// Captures work on several streams (one per rank) into one CUDA graph per stream. If anything
// throws during capture, the destructor ends every open capture and discards it, so no stream
// is left capturing and no graph leaks.
#pragma once

#include <vector>

#include "core/algorithm.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {

class StreamCapture {
 public:
  explicit StreamCapture(const std::vector<RankContext>& ranks);
  ~StreamCapture();
  StreamCapture(const StreamCapture&) = delete;
  StreamCapture& operator=(const StreamCapture&) = delete;

  // Ends the capture on every stream; graph i belongs to ranks[i].
  std::vector<Graph> finish();

 private:
  std::vector<RankContext> ranks_;
  std::size_t open_ = 0;  // streams [0, open_) are capturing
};

// Instantiates one executable graph per captured graph.
std::vector<GraphExec> instantiate(const std::vector<Graph>& graphs);

}  // namespace collbench
