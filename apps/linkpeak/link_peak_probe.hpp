// The link-peak measurement: copies between GPUs by copy engine or by SM kernel, one pair in one
// direction, a pair in both directions at once, or every GPU sending to the next at once; every
// copy timed on its own GPU with CUDA events, every copied buffer checked afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "peer_access.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/start_gate.hpp"

namespace collbench::link_peak {

enum class CopyMethod { copy_engine, sm_copy };
enum class Direction { uni, bi, all };

const char* method_name(CopyMethod method);       // the CSV algo: copy_engine, sm_copy
const char* direction_name(Direction direction);  // the CSV config's direction: uni, bi, all

// One copy of the probe's buffer from GPU src to GPU dst.
struct Transfer {
  int src = 0;
  int dst = 0;
};

// The groups of transfers measured together for `direction` on GPUs 0..gpu_count-1: every
// ordered pair alone (uni); every unordered pair, both ways at once (bi); or one group with
// every GPU i sending to (i + 1) % gpu_count (all). Every GPU receives at most once per group.
std::vector<std::vector<Transfer>> transfer_groups(Direction direction, int gpu_count);
// The distinct GPUs a group involves (the CSV's ranks column).
int gpus_in_group(const std::vector<Transfer>& group);

struct TransferResult {
  Transfer transfer;
  std::vector<double> iteration_us;  // one per timed iteration, this copy alone
  std::uint64_t checked_words = 0;   // 4-byte words compared with the source after the run
  std::uint64_t wrong_words = 0;
  std::string skipped_reason;  // non-empty: not measured (e.g. no peer access for sm_copy)
};

class LinkPeakProbe {
 public:
  // Uses GPUs 0..gpu_count-1: allocates a send and a receive buffer of `bytes` on each, fills the
  // send buffers with a pattern from (seed, GPU, index) and enables peer access between every
  // pair that supports it.
  LinkPeakProbe(int gpu_count, std::size_t bytes, std::uint64_t seed = 0x5EED);
  // Lets any stream still held go before the buffers are freed (freeing waits for every kernel).
  ~LinkPeakProbe() { gate_.release_here(); }

  // Runs the group's transfers at once, `warmup` untimed rounds then `iters` timed ones. Copies
  // are pulled: each runs on its destination GPU's stream (the copy engine or the SM kernel of
  // the GPU that receives). Throws GpuError on a CUDA failure.
  std::vector<TransferResult> measure(CopyMethod method, const std::vector<Transfer>& group,
                                      int warmup, int iters);

  int gpu_count() const { return gpu_count_; }
  std::size_t bytes() const { return bytes_; }
  bool can_access_peer(int device, int peer) const;

 private:
  void enqueue_copy(CopyMethod method, const Transfer& transfer);
  std::uint64_t count_wrong_words(const Transfer& transfer);

  // First, so freed last: a wait still queued on a stream reads its words.
  StartGate gate_;
  int gpu_count_;
  std::size_t bytes_;
  std::uint64_t seed_;
  std::vector<DeviceBuffer> send_;
  std::vector<DeviceBuffer> receive_;
  std::vector<Stream> streams_;
  std::vector<Event> start_;
  std::vector<Event> done_;
  std::vector<int> copy_blocks_;  // blocks for the SM copy kernel, per GPU
  std::vector<std::vector<bool>> peer_ok_;
  std::vector<PeerAccess> peer_access_;
};

}  // namespace collbench::link_peak
