// The interface every implementation of a collective follows: NCCL itself, and the hand-built
// all-reduce algorithms (bench/algorithms/). The runner owns GPUs, streams, communicators and
// buffers; an algorithm only prepares its own state and enqueues work.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/algorithm_settings.hpp"
#include "core/buffer_registration.hpp"
#include "core/collective_registry.hpp"
#include "core/data_type.hpp"

namespace collbench {

class FusedUpdate;  // core/fused_update.hpp

// One rank driven by this process.
struct RankContext {
  int rank;    // rank in the communicator
  int device;  // CUDA device of this rank
  cudaStream_t stream;
  ncclComm_t comm;
};

// One rank's buffers for the current case (in-place: both point into one allocation).
struct RankBuffers {
  const void* send;
  void* recv;
};

// What is being run, the same on every rank.
struct CaseShape {
  const CollectiveSpec* spec;
  ElementCounts counts;
  DataType type;
  ReduceOp op;  // ReduceOp::none for ops that do not reduce
  int root;     // -1 for ops without a root
  int nranks;   // ranks in the communicator (all processes)
  bool in_place;
  // How the buffers are registered with NCCL; an algorithm that passes NCCL buffers of its own
  // alongside (scratch) registers them alike, since NCCL wants both sides of a transfer registered.
  BufferRegistration registration = BufferRegistration::none;
  const PeerTraffic* traffic = nullptr;  // ops that take traffic (alltoallv): who sends whom what
};

// The parts of one launch, for a caller that puts them on streams of its own (the training
// step's pipelined schedule: one stream carries every bucket's transfers in the same order on
// every rank, another the reductions). On each rank, send and reduce may be enqueued at once
// (reduce waits for the peers' sends itself); gather must follow this rank's reduce, and finish
// must follow it too; the next launch of the same instance must follow this rank's gather and
// finish. The operation is complete on a rank once its finish is.
enum class LaunchPart { send, reduce, gather, finish };
std::string_view name_of(LaunchPart part);

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string_view name() const = 0;
  // Empty when this algorithm can run `shape`; otherwise why not (the case is reported skipped).
  virtual std::string unsupported_reason(const CaseShape& shape) const = 0;
  // Once per case, before warm-up, outside timing and graph capture: register buffers, exchange
  // handles, size scratch space. `ranks` and `buffers` are this process's ranks, index-aligned.
  virtual void prepare(const std::vector<RankContext>& ranks,
                       const std::vector<RankBuffers>& buffers, const CaseShape& shape) = 0;
  // Enqueues one iteration on every rank's stream: `aggregate` operations back to back (NCCL:
  // inside one group). Must be capturable into a CUDA graph: no host synchronisation.
  virtual void launch(const std::vector<RankContext>& ranks,
                      const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                      int aggregate) = 0;
  // Once per prepared case, after its last launch has completed on this process's ranks: gives
  // back what prepare() took from other processes (CUDA IPC mappings of their memory). Freeing
  // memory another process still maps is undefined, so before any process frees or reallocates
  // a buffer it passed to prepare(), every process must have released: the caller passes a
  // barrier across processes in between. A no-op within one process.
  virtual void release() {}
  // Makes every kernel of this algorithm that waits on a peer return soon, leaving its output
  // undefined; safe from any thread (the watchdog). NCCL's kernels end with ncclCommAbort instead.
  virtual void request_abort() noexcept {}
  // Throws GpuError when a kernel of this algorithm gave up waiting on a peer.
  virtual void check_health() const {}
  // At most how many operations one launch(shape, aggregate) enqueues on a rank's stream (kernels,
  // copies, event records; an NCCL group counts each collective of it, which its work queue must
  // hold): a start gate may hold only as much as the launch queue takes. After prepare().
  virtual int stream_operations(const CaseShape& /*shape*/, int aggregate) const {
    return 2 * aggregate;
  }
  // Whether the prepared case can be launched in parts (launch_part); launch() always works.
  virtual bool launches_in_parts() const { return false; }
  // Enqueues one part of one operation (aggregate 1) of the prepared case on every rank's stream
  // (rules at LaunchPart). Only when launches_in_parts().
  virtual void launch_part(const std::vector<RankContext>& ranks, LaunchPart part);
  // The training step's fused update when this algorithm offers it (as its entry's
  // AlgorithmCapabilities::fused_update says before one is made), else null; it lives as long as
  // the algorithm.
  virtual FusedUpdate* fused_update() { return nullptr; }
};

// What an implementation can do beyond launch(), declared once so that callers (the training step)
// ask for a capability instead of testing names.
struct AlgorithmCapabilities {
  // Separately prepared instances may run at once on different streams of one rank (the training
  // step then alternates buckets over lanes): an instance waits only on its own flags and holds no
  // SM while it waits, so neither can starve the other.
  bool concurrent_instances = false;
  // Launches in parts (LaunchPart, launch_part) when the prepared case allows it
  // (launches_in_parts): the training step's pipelined schedule. Those without keep their lanes.
  bool launch_in_parts = false;
  // Runs the training step's SGD update fused into its all-reduce (the last bucket): its instances
  // return a FusedUpdate (CollectiveAlgorithm::fused_update).
  bool fused_update = false;
  // Moves data only through NCCL calls, so it runs on NCCL-registered buffers (--register local,
  // symmetric) and gains from them; one that maps its peers' memory itself is skipped there.
  bool registered_buffers = false;
  // Runs on NCCL's own algorithms, so the communicator variants apply: --nccl-algo, --nccl-proto,
  // --nccl-max-ctas are swept for it, and it runs in the groups of --split. Hand-built algorithms
  // (their own kernels, one clique of every rank) run once on default communicators.
  bool nccl_communicator_variants = false;
};

// One implementation of one operation, declared once: registration, --algo, --help, the
// environment overrides and the CSV config column all read this. Made once per set of ranks
// (communicator), so an implementation may keep state such as peer mappings across cases.
struct AlgorithmEntry {
  std::string_view name;  // the CSV algo column and --algo's name ("nccl", or a descriptor's)
  OpKind op;
  std::string_view summary;  // one line for --help
  std::string_view source;   // where it is written: "kernels/ring/", or "NCCL"
  // The settings' common prefix, which --algo lets the user leave out ("ring" for ring_ctas).
  std::string_view setting_prefix;
  std::vector<SettingSpec> settings;
  AlgorithmCapabilities capabilities;
  std::function<std::unique_ptr<CollectiveAlgorithm>(const std::vector<RankContext>& ranks,
                                                     const SettingValues& settings)>
      make;
};

// One --algo entry resolved against the registry: which implementation, with which settings.
struct AlgorithmChoice {
  const AlgorithmEntry* entry = nullptr;
  SettingValues settings;
  std::string_view name() const { return entry->name; }
  // The CSV config column: the settings that differ from their defaults ("ring_ctas=32").
  std::string config() const { return settings.config(); }
  // Equal for choices that make the same implementation (name and every setting).
  std::string key() const;
  std::unique_ptr<CollectiveAlgorithm> make(const std::vector<RankContext>& ranks) const {
    return entry->make(ranks, settings);
  }
};

}  // namespace collbench
