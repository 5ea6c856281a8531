// What one data-parallel training-step configuration is: the model, the gradient synchronisation
// scheme, the bucket size, the all-reduce algorithm and the rank count (dp_settings.hpp names it:
// the CSV config string and the benchmark name).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/data_type.hpp"

namespace collbench::dp {

// How gradients reach every replica (docs/dp_step.md):
//   sync    - one all-reduce of all gradients after backward, then the optimizer;
//   overlap - bucketed all-reduces started during backward, as DDP does;
//   ps      - bucketed reduce to rank 0, optimizer on rank 0 alone, broadcast of the new weights;
//   sharded - bucketed reduce-scatter, each rank updates its shard (ZeRO-2), all-gather of weights.
enum class SyncScheme { sync, overlap, ps, sharded };

std::string_view name_of(SyncScheme scheme);
// Throws UsageError naming the bad value and the known ones.
SyncScheme parse_sync_scheme(std::string_view name);
// Whether the scheme splits gradients into buckets (all but sync).
bool uses_buckets(SyncScheme scheme);

// Bias and ReLU either fused into cuBLASLt epilogues, or separate kernels; auto picks fused when
// cuBLASLt offers an algorithm for every GEMM of the model.
enum class EpilogueMode { automatic, fused, unfused };
std::string_view name_of(EpilogueMode mode);
EpilogueMode parse_epilogue_mode(std::string_view name);

// How copy_engine's bucket all-reduces are spread over communication streams: `lanes` (bucket b
// whole on lane b % comm_lanes) or `pipelined` (each all-reduce in parts, LaunchPart: one stream
// carries every bucket's copies in one order on every rank, bucket k's send before bucket k-1's
// gather, while a second stream reduces and a third waits for the peers). Algorithms that cannot
// launch in parts keep their lanes.
enum class CommSchedule { lanes, pipelined };
std::string_view name_of(CommSchedule schedule);
CommSchedule parse_comm_schedule(std::string_view name);

// What becomes of the memset nodes a step's graph captures (cuBLASLt zeroes a few bytes before
// each weight-gradient GEMM): `kernel` nodes writing the same bytes (harness graph_memsets.hpp;
// the GEMM then starts as after any kernel) or `memset` nodes as captured. --eager has no graph.
enum class GraphMemsets { kernel, memset };
std::string_view name_of(GraphMemsets memsets);
GraphMemsets parse_graph_memsets(std::string_view name);

struct ModelConfig {
  int layers = 8;
  int width = 4096;
  int batch = 2048;  // samples per GPU
  DataType dtype = DataType::bfloat16;
  float learning_rate = 0.01f;
  float momentum = 0.9f;
  std::uint64_t seed = 1;
  // bfloat16 only: the optimizer keeps float32 master weights and float32 momentum (mixed
  // precision as in Megatron and DeepSpeed). Without them (the default, what PyTorch's SGD does
  // for a bfloat16 model) weights and momentum are bfloat16 and the update, computed in float32,
  // rounds into them.
  bool master_weights = false;
  EpilogueMode epilogue = EpilogueMode::automatic;
};

struct StepConfig {
  ModelConfig model;
  SyncScheme scheme = SyncScheme::overlap;
  double bucket_mib = 25;  // ignored (0) for sync
  std::string algo = "nccl";
  int ranks = 1;
  int nccl_max_ctas = 0;   // 0: NCCL's choice
  int gemm_sm_margin = 0;  // SMs cuBLASLt leaves to communication during backward (0: none)
  // Communication streams buckets alternate over when the algorithm's instances may run
  // concurrently (copy_engine): 2, or 1 to keep every collective on one stream.
  int comm_lanes = 2;
  CommSchedule comm_schedule = CommSchedule::lanes;
  // The implementation of the last bucket's collective (layer 0's gradients: nothing computes
  // beside it, so SM-based implementations cost backward nothing there); empty: `algo`'s, like
  // every other bucket.
  std::string last_bucket_algo;
  // Every this many backward layers (from the first), the full step holds the ranks in step: a
  // barrier on the compute streams (kernels/training/lockstep_barrier.hpp), so that the copies the
  // GEMMs release leave every rank at the same time. 0: never.
  int lockstep = 0;
  // The last bucket's SGD update runs inside its all-reduce instead of after it; needs
  // last_bucket_algo "twoshot" (kernels/training/twoshot_sgd.hpp): each rank updates its own chunk
  // and stores the new weights into every rank's copy, so each rank updates 1/n of the bucket.
  bool fuse_last_update = false;
  // memset by default: kernel nodes made copy_engine's step faster (36 us at 33 MiB, the ring's
  // 50 us at 25 MiB) but NCCL's slower (110 us at 25 MiB).
  GraphMemsets graph_memsets = GraphMemsets::memset;
  // Profiling only (no part of the config string): a folder where each captured step graph is
  // written as Graphviz; empty: none.
  std::string graph_dot_dir;
  // The all-reduce's own changed knobs from the environment (AlgorithmChoice::config:
  // "ring_ctas=32"), read once when the plan is made; ends the config string.
  std::string algorithm_knobs;
};

// The SM count backward GEMMs are sized for (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET): the GPU's
// SMs less gemm_sm_margin, at least 1; 0 (all of them) without a margin or with one rank, where
// no communication runs beside backward to leave SMs for.
int backward_gemm_sm_target(const StepConfig& config, int sm_count);

// Bytes of the bucket cap; 0 means one bucket holding every gradient (sync).
std::uint64_t bucket_cap_bytes(const StepConfig& config);

// "25", "0.5": shortest form of a bucket size.
std::string format_mib(double mib);

}  // namespace collbench::dp
