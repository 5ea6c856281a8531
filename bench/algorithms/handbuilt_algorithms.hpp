// The hand-built all-reduce algorithms (kernels/README.md) as implementations of all_reduce:
// "ring" (NVLink peer stores or loads, device flags), "ring_sendrecv" (the same ring on NCCL
// send/recv), "oneshot" (small messages: every rank reduces every rank's input), "twoshot" (each
// rank reduces its chunk of every rank's input and stores it into every output) and the
// copy-engine ones. Each declares itself once, at the end of its own file, as a
// HandbuiltDescriptor: name, summary, settings (each bound to a HandbuiltTuning field) and maker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/algorithm.hpp"
#include "core/algorithm_settings.hpp"
#include "copy_engine/reduce_sources.hpp"
#include "ring/ring_all_reduce.hpp"
#include "ring/ring_schedule.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench {

// How ring and oneshot enqueue their kernel when the caller's stream is not being captured.
enum class PeerKernelLaunch {
  // Through a one-kernel graph instantiated at prepare(): cheaper to launch than the kernel
  // itself at small sizes (kernels/README.md, oneshot).
  graph,
  direct,  // a kernel launch every time
};

// Whether oneshot launches its kernel with programmatic dependent launch (kernels/
// programmatic_launch.cuh), directly rather than through a one-kernel graph: never, always, or
// (`by_size`) when the kernel is long enough to hide the next launch (oneshot_is_programmatic).
enum class ProgrammaticLaunch { off, on, by_size };

// by_size: programmatic from this many bytes sent to peers per rank ((nranks - 1) x buffer). A
// programmatic launch costs the host a fixed few microseconds, a one-kernel graph's time grows
// with the kernel: the crossover measured on 2-4 GPUs (kernels/README.md, oneshot).
constexpr std::size_t kOneshotProgrammaticMinPeerBytes = 96 << 10;
bool oneshot_is_programmatic(ProgrammaticLaunch mode, int nranks, std::size_t bytes);

// The values every hand-built algorithm is made with; each algorithm's descriptor declares which
// of them are its settings. The defaults are the measured best.
struct HandbuiltTuning {
  // How the ring moves data: push (remote stores into the next rank's staging slots and output)
  // or pull (remote loads from the previous rank's buffers).
  kernels::RingProtocol ring_protocol = kernels::RingProtocol::push;
  int ring_max_ctas = 64;  // CTAs (parts) per ring launch, at most
  // From ring_large_bytes of buffer up, at most ring_large_ctas instead: more bytes in flight
  // help large buffers, while the training step's buckets need SMs left for the GEMMs.
  int ring_large_ctas = 128;
  std::size_t ring_large_bytes = std::size_t{512} << 20;
  std::size_t ring_min_part_bytes = 32 << 10;  // fewer CTAs below this much of a chunk per CTA
  std::size_t ring_slice_bytes = 512 << 10;  // a CTA's piece per slice (pipelining unit), aimed at
  int ring_slots = 8;  // push: staging slots per CTA (a power of two, 2..64), each one piece
  // twoshot: CTAs per launch at most (fewer for small buffers, as the ring's ring_min_part_bytes
  // decides), and a CTA's piece of each chunk per slice, aimed at: staging is (ranks - 1) x CTAs
  // x 2 slices of it per rank.
  int twoshot_ctas = 64;
  std::size_t twoshot_slice_bytes = 64 << 10;
  double peer_timeout_s = 30;  // a kernel waiting longer on one peer gives up; 0: never
  PeerKernelLaunch peer_kernel_launch = PeerKernelLaunch::graph;
  // oneshot: launched directly with programmatic dependent launch, so back-to-back launches
  // overlap the next one's scheduling with the current one's work (then peer_kernel_launch does
  // not apply).
  ProgrammaticLaunch oneshot_programmatic = ProgrammaticLaunch::by_size;
  // Tests only: let several ranks share a GPU (PeerGroup), to run rank counts above the GPUs
  // there are. Every rank's grid must then fit on the GPU beside the others' (small ring_max_ctas
  // and ring_large_ctas).
  bool allow_shared_gpus = false;
  // copy_engine: the buffer moves in equal rounds of at most this many bytes, one after another,
  // so staging holds one round. 64 MiB keeps a training-step bucket (one 32 MiB layer and its
  // bias) in one round: each round is a serial chain of copies, waits and a reduction.
  std::size_t copy_engine_round_bytes = 64 << 20;
  // copy_engine: 512-thread blocks of each reduction at most (kernels/copy_engine/reduce_sources.hpp).
  int copy_engine_reduce_blocks = kernels::kReduceSourcesMaxBlocks;

  // Throws UsageError naming the setting when values cannot run together or a value set directly
  // (tests) is out of range: ring_slots not a power of two in 2..64, CTA counts below 1.
  void validate() const;
};

// The ring's split of `shape` on GPUs of `sm_count` SMs: enough CTAs (parts) that each moves at
// least ring_min_part_bytes of a chunk, at most one per SM (every CTA must be resident: it may
// wait for its peer CTAs) and at most ring_max_ctas (ring_large_ctas from ring_large_bytes of
// buffer up); enough slices that each CTA's piece is about ring_slice_bytes.
kernels::RingGeometry ring_geometry(const CaseShape& shape, const HandbuiltTuning& tuning,
                                    int sm_count);
// What both use: enough parts that each moves at least `min_part_bytes` of a chunk, at most
// `max_ctas` and `sm_count`; enough slices (at most `max_slices`) that each part's piece of a
// chunk is about `slice_bytes`.
kernels::RingGeometry split_into_pieces(const CaseShape& shape, int max_ctas,
                                        std::size_t min_part_bytes, std::size_t slice_bytes,
                                        int max_slices, int sm_count);
// twoshot's split: at most twoshot_ctas parts and slices of about twoshot_slice_bytes.
kernels::RingGeometry twoshot_geometry(const CaseShape& shape, const HandbuiltTuning& tuning,
                                       int sm_count);

// The kernel arguments the twoshot algorithm `algorithm` prepared for local rank `rank`, for a
// caller that launches the kernel itself with the training step's update sharded into it. Valid
// until the next prepare() or release(). Throws std::invalid_argument when `algorithm` is not
// twoshot, std::out_of_range for a rank it does not drive.
const kernels::TwoshotRankArgs& twoshot_rank_arguments(const CollectiveAlgorithm& algorithm,
                                                       int rank);
// Where every rank's entry of `pointers` (one per rank of `ranks`, this process's ranks, as
// prepare() was given them) appears to each of `ranks`, through twoshot's peer mappings:
// table[local][rank]. Collective across processes like prepare(), after it; valid until release().
// Throws std::invalid_argument when `algorithm` is not twoshot.
std::vector<std::vector<void*>> twoshot_peer_table(CollectiveAlgorithm& algorithm,
                                                   const std::vector<RankContext>& ranks,
                                                   const std::vector<void*>& pointers);

// copy_engine's rounds of a `count`-element buffer: the fewest rounds of at most `largest`
// elements, each `elements` long (a whole number of `unit`s) except the last, which is shorter but
// never empty. Equal rounds: a buffer just over one round must not pay a round's latency for its
// last few lines.
struct RoundSplit {
  std::uint64_t elements;
  int rounds;
};
RoundSplit equal_rounds(std::uint64_t count, std::uint64_t largest, std::uint64_t unit);

// The hand-built algorithms: each overrides CollectiveAlgorithm::request_abort (kernels waiting
// on a peer return within microseconds; the next prepare() resets the flags so the algorithm can
// run again) and check_health (throws when a kernel gave up: abort requested, or a peer silent
// past peer_timeout_s).
class HandbuiltAlgorithm : public CollectiveAlgorithm {};

// Each algorithm with explicit tuning (defined in handbuilt_ring.cpp, handbuilt_ring_sendrecv.cpp,
// handbuilt_oneshot.cpp, handbuilt_twoshot.cpp, handbuilt_copy_engine.cpp).
std::unique_ptr<HandbuiltAlgorithm> make_ring(const std::vector<RankContext>& ranks,
                                              const HandbuiltTuning& tuning);
std::unique_ptr<HandbuiltAlgorithm> make_ring_sendrecv(const std::vector<RankContext>& ranks,
                                                       const HandbuiltTuning& tuning);
std::unique_ptr<HandbuiltAlgorithm> make_oneshot(const std::vector<RankContext>& ranks,
                                                 const HandbuiltTuning& tuning);
std::unique_ptr<HandbuiltAlgorithm> make_twoshot(const std::vector<RankContext>& ranks,
                                                 const HandbuiltTuning& tuning);
// Which ranks copy_engine's copies go to: every other rank's (copy_engine), or only the next
// rank's, round a ring (copy_engine_ring).
enum class CopyEngineExchange { direct, ring };
std::unique_ptr<HandbuiltAlgorithm> make_copy_engine(const std::vector<RankContext>& ranks,
                                                     const HandbuiltTuning& tuning,
                                                     CopyEngineExchange exchange);

// One setting of a hand-built algorithm: its declaration and the HandbuiltTuning field it sets.
struct TuningSetting {
  SettingSpec spec;
  std::function<void(HandbuiltTuning&, const SettingValues&)> apply;
};
TuningSetting integer_setting(std::string name, int HandbuiltTuning::*field, int min_value,
                              int max_value, std::string help);
TuningSetting bytes_setting(std::string name, std::size_t HandbuiltTuning::*field,
                            std::size_t min_value, std::size_t max_value, std::string help);
// The settings every peer-kernel algorithm (ring, oneshot, twoshot, copy_engine) shares.
TuningSetting peer_launch_setting();
TuningSetting peer_timeout_setting();

// A hand-built algorithm, declared once at the end of its own file.
struct HandbuiltDescriptor {
  std::string_view name;
  std::string_view summary;         // one line for --help
  std::string_view kernels;         // the folder of its CUDA: "kernels/ring/"
  std::string_view setting_prefix;  // "ring" for ring_ctas: --algo ring:ctas=64
  std::vector<TuningSetting> settings;
  AlgorithmCapabilities capabilities;
  std::function<std::unique_ptr<HandbuiltAlgorithm>(const std::vector<RankContext>& ranks,
                                                    const HandbuiltTuning& tuning)>
      make;
};
const HandbuiltDescriptor& ring_descriptor();
const HandbuiltDescriptor& ring_sendrecv_descriptor();
const HandbuiltDescriptor& oneshot_descriptor();
const HandbuiltDescriptor& twoshot_descriptor();
const HandbuiltDescriptor& copy_engine_descriptor();
const HandbuiltDescriptor& copy_engine_ring_descriptor();
// Every hand-built algorithm, in --help order: the registry's entries after NCCL's.
const std::vector<const HandbuiltDescriptor*>& handbuilt_descriptors();
// The descriptor called `name`; throws UsageError naming the known ones otherwise.
const HandbuiltDescriptor& find_handbuilt(std::string_view name);
// The registry's entry for `descriptor`: its settings' specs, and a maker that applies resolved
// values to a default HandbuiltTuning and validates it.
AlgorithmEntry registry_entry(const HandbuiltDescriptor& descriptor);
// HandbuiltTuning{} with `settings` (resolved for `descriptor`) applied, validated.
HandbuiltTuning tuning_from(const HandbuiltDescriptor& descriptor, const SettingValues& settings);

// The algorithm called `name` with explicit tuning (tests); throws UsageError for an unknown name.
std::unique_ptr<HandbuiltAlgorithm> make_handbuilt_algorithm(std::string_view name,
                                                             const std::vector<RankContext>& ranks,
                                                             const HandbuiltTuning& tuning);

}  // namespace collbench
