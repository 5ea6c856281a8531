// Copy lanes: each a stream on the sending GPU with its own source and destination buffers, so
// that the copies of one lane never wait for another's and every copy engine the driver gives
// the lanes stays busy.
#include "link_load.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_owners.hpp"
#include "launch_pacer.hpp"

namespace collbench::contend {
namespace {

constexpr std::size_t kCopyBytes = std::size_t{256} << 20;  // about 0.7-2 ms over NVLink
constexpr int kLanesPerDirection = 2;
constexpr int kCopiesPerBatch = 2;

// Streams on the sending GPU: its copy engines push the data (writes over the link).
class CopyLane {
 public:
  CopyLane(int from_gpu, int to_gpu)
      : from_gpu_(from_gpu),
        to_gpu_(to_gpu),
        stream_(from_gpu),
        source_(from_gpu, kCopyBytes),
        destination_(to_gpu, kCopyBytes),
        pacer_(from_gpu, stream_.get(), kCopiesPerBatch) {
    DeviceGuard guard(from_gpu_);
    CONTEND_CUDA(cudaMemsetAsync(source_.get(), 0x5a, kCopyBytes, stream_.get()), from_gpu_);
  }

  void copy() {
    DeviceGuard guard(from_gpu_);
    CONTEND_CUDA(cudaMemcpyPeerAsync(destination_.get(), to_gpu_, source_.get(), from_gpu_,
                                     kCopyBytes, stream_.get()),
                 from_gpu_);
  }
  LaunchPacer& pacer() { return pacer_; }

 private:
  int from_gpu_;
  int to_gpu_;
  Stream stream_;
  DeviceBuffer source_;
  DeviceBuffer destination_;
  LaunchPacer pacer_;
};

std::vector<std::pair<int, int>> directions_of(const LinkLoadOptions& options) {
  std::vector<std::pair<int, int>> directions = {{options.src_gpu, options.dst_gpu}};
  if (options.both_directions) directions.emplace_back(options.dst_gpu, options.src_gpu);
  return directions;
}

std::string link_detail(const LinkLoadOptions& options) {
  return fmt::format("peer copies of {} MiB GPU {}{}{} on {} streams per direction (copy engines)",
                     kCopyBytes >> 20, options.src_gpu, options.both_directions ? "<->" : "->",
                     options.dst_gpu, kLanesPerDirection);
}

}  // namespace

void run_link_load(const LinkLoadOptions& options, LoadSession& session) {
  const std::string value = fmt::format("{}:{}", options.src_gpu, options.dst_gpu);
  require_gpu(options.src_gpu, "--link-load", value);
  require_gpu(options.dst_gpu, "--link-load", value);
  // Declared first, so that peer access outlives every copy that uses it.
  std::vector<std::unique_ptr<PeerAccess>> access;
  std::vector<std::unique_ptr<CopyLane>> lanes;
  for (const auto& [from, to] : directions_of(options)) {
    access.push_back(std::make_unique<PeerAccess>(from, to));
    for (int lane = 0; lane < kLanesPerDirection; ++lane)
      lanes.push_back(std::make_unique<CopyLane>(from, to));
  }
  for (auto& lane : lanes) lane->copy();
  for (auto& lane : lanes) lane->pacer().drain();  // the first copies are done
  session.announce(link_detail(options));
  long rounds = 0;
  while (!session.stopping()) {
    for (auto& lane : lanes) {
      lane->copy();
      lane->pacer().launched();
    }
    ++rounds;
  }
  for (auto& lane : lanes) lane->pacer().drain();
  const double seconds = session.loaded_s();
  const double bytes_per_direction = static_cast<double>(rounds) * kLanesPerDirection * kCopyBytes;
  session.report(fmt::format("{} rounds of copies in {:.1f} s ({:.0f} GB/s per direction)", rounds,
                             seconds, seconds > 0 ? bytes_per_direction / seconds / 1e9 : 0.0));
}

}  // namespace collbench::contend
