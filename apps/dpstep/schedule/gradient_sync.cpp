// Per-bucket collectives from the algorithm registry, and the ownership rules of each scheme.
#include "schedule/gradient_sync.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "algorithms/algorithm_registry.hpp"
#include "core/errors.hpp"
#include "core/fused_update.hpp"
#include "runtime/cuda_resources.hpp"
#include "schedule/step_schedule.hpp"
#include "training/twoshot_sgd.hpp"

namespace collbench::dp {
namespace {

char* at(void* base, std::uint64_t element, std::size_t element_bytes) {
  return static_cast<char*>(base) + element * element_bytes;
}

}  // namespace

OptimizerState optimizer_state(SyncScheme scheme, int rank, int nranks) {
  if (scheme == SyncScheme::ps) return rank == 0 ? OptimizerState::full : OptimizerState::none;
  if (scheme == SyncScheme::sharded && nranks > 1) return OptimizerState::shard;
  return OptimizerState::full;
}

UpdateRange update_range(const ParameterLayout& layout, SyncScheme scheme, std::size_t bucket,
                         int rank) {
  const Bucket& b = layout.buckets()[bucket];
  switch (scheme) {
    case SyncScheme::ps:
      if (rank != 0) return {};
      return {b.begin, b.elements, b.begin};
    case SyncScheme::sharded:
      return {layout.chunk_begin(b, rank), layout.chunk_elements(b), layout.shard_offset(b)};
    default:
      return {b.begin, b.elements, b.begin};
  }
}

GradientSync::GradientSync(const ParameterLayout& layout, SyncScheme scheme,
                           const std::string& algo, DataType type, int nranks,
                           const std::vector<std::vector<RankContext>>& lane_contexts,
                           const std::vector<const ModelReplica*>& replicas, bool pipelined,
                           const std::string& last_bucket_algo)
    : layout_(layout),
      scheme_(scheme),
      type_(type),
      nranks_(nranks),
      lane_contexts_(lane_contexts),
      implementation_(algo),
      last_bucket_implementation_(last_bucket_algo),
      replicas_(replicas) {
  if (lane_contexts_.empty()) throw std::invalid_argument("GradientSync: no communication lane");
  require_implementations();
  for (std::size_t bucket = 0; bucket < layout.buckets().size(); ++bucket) {
    gradient_calls_.push_back(make_call(gradient_collective_name(scheme), bucket, ReduceOp::avg));
    if (const char* weights = weight_collective_name(scheme)) {
      weight_calls_.push_back(make_call(weights, bucket, ReduceOp::none));
    }
  }
  choose_gradient_op();
  require_supported_shapes();
  for (const auto* calls : {&gradient_calls_, &weight_calls_}) {
    for (const Call& call : *calls) {
      const double bytes =
          algbw_bytes(*call.shape.spec, call.shape.counts, type_, call.shape.nranks);
      bus_bytes_ += bytes * call.shape.spec->bus_factor(call.shape.nranks);
      if (calls == &gradient_calls_) gradient_bytes_ += static_cast<std::uint64_t>(bytes);
    }
  }
  // The implementation of the other buckets decides the lanes; with every bucket the last one,
  // that is the last bucket's.
  const bool concurrent = gradient_calls_.front().entry->capabilities.concurrent_instances;
  // The last lane given is the last bucket's own, when it has one: the others run beside anything
  // (copy_engine), and there are others.
  const bool last_apart = has_last_bucket_algo() && layout.buckets().size() > 1;
  const int lanes_given = static_cast<int>(lane_contexts_.size());
  own_tail_lane_ = last_apart && lanes_given > 1 && concurrent;
  const int lanes_for_others = has_last_bucket_algo() ? std::max(1, lanes_given - 1) : lanes_given;
  lanes_ = concurrent ? lanes_for_others : 1;
  std::vector<Call*> prepared;
  try {
    for (Call* call : all_calls()) {
      call->algorithm->prepare(ranks(), call->buffers, call->shape);
      prepared.push_back(call);
    }
  } catch (...) {
    // What the prepared ones took from other processes goes back before the buffers do.
    for (Call* call : prepared) {
      try {
        call->algorithm->release();
      } catch (...) {
        // The prepare() failure on its way out is the error worth reporting.
      }
    }
    throw;
  }
  choose_pipelined(pipelined);
}

void GradientSync::choose_pipelined(bool requested) {
  if (requested && has_last_bucket_algo() && !own_tail_lane_) {
    throw UnsupportedConfig(
        "the pipelined schedule runs the last bucket of another implementation on a lane of its "
        "own, beside an --algo whose instances run beside anything (copy_engine)");
  }
  if (!requested || !weight_calls_.empty()) return;
  const CollectiveAlgorithm& first = *gradient_calls_.front().algorithm;
  // Algorithms without parts (nccl, the rings, oneshot) keep their lanes.
  if (!gradient_calls_.front().entry->capabilities.launch_in_parts) return;
  const std::size_t in_parts = gradient_calls_.size() - (has_last_bucket_algo() ? 1 : 0);
  for (std::size_t bucket = 0; bucket < in_parts; ++bucket) {
    if (!gradient_calls_[bucket].algorithm->launches_in_parts()) {
      throw UnsupportedConfig(fmt::format(
          "{}: bucket {} cannot be launched in parts for the pipelined schedule (several rounds: "
          "raise COLLBENCH_CE_ROUND_BYTES above the bucket size)",
          first.name(), bucket));
    }
  }
  const std::size_t needed = kPipelinedLanes + (own_tail_lane_ ? 1 : 0);
  if (lane_contexts_.size() < needed) {
    throw std::invalid_argument(
        fmt::format("GradientSync: the pipelined schedule needs {} lanes here", needed));
  }
  pipelined_ = true;
  lanes_ = kPipelinedLanes;
}

std::vector<GradientSync::Call*> GradientSync::all_calls() {
  std::vector<Call*> calls;
  for (auto* list : {&gradient_calls_, &weight_calls_}) {
    for (Call& call : *list) calls.push_back(&call);
  }
  return calls;
}

void GradientSync::release() {
  if (released_) return;
  released_ = true;
  // Every algorithm is released even when one fails; the first failure is reported.
  std::exception_ptr first_failure;
  for (Call* call : all_calls()) {
    try {
      call->algorithm->release();
    } catch (...) {
      if (!first_failure) first_failure = std::current_exception();
    }
  }
  if (first_failure) std::rethrow_exception(first_failure);
}

void GradientSync::require_implementations() const {
  // Every implementation is checked, even one that a single bucket leaves without work.
  std::vector<std::string> names = {implementation_};
  if (has_last_bucket_algo()) names.push_back(last_bucket_implementation_);
  for (const std::string& implementation : names) {
    entry_for(implementation, gradient_collective_name(scheme_));
    if (const char* weights = weight_collective_name(scheme_)) entry_for(implementation, weights);
  }
}

void GradientSync::require_supported_shapes() {
  for (Call* call : all_calls()) {
    const std::string reason = call->algorithm->unsupported_reason(call->shape);
    if (!reason.empty()) {
      throw UnsupportedConfig(
          fmt::format("{} for {}: {}", call->algorithm->name(), call->shape.spec->name, reason));
    }
  }
}

const AlgorithmEntry& GradientSync::entry_for(const std::string& implementation,
                                              const char* collective) const {
  const AlgorithmEntry* entry =
      find_algorithm(algorithm_name_of(implementation), find_collective(collective).kind);
  if (!entry) {
    throw UnsupportedConfig(fmt::format("{} needs {}, and algorithm '{}' does not implement it",
                                        name_of(scheme_), collective, implementation));
  }
  return *entry;
}

GradientSync::Call GradientSync::make_call(const char* collective, std::size_t bucket,
                                           ReduceOp op) {
  const CollectiveSpec& spec = find_collective(collective);
  const AlgorithmEntry& entry = entry_for(implementation_for(bucket), collective);
  const Bucket& b = layout_.buckets()[bucket];
  const int nranks = nranks_;
  const std::size_t element_bytes = size_of(type_);
  Call call;
  call.shape.spec = &spec;
  // The bucket is the collective's whole buffer: nccl-tests' count rules give back its elements
  // (buckets are padded so that every rank's block is a whole number of 16-byte lines).
  call.shape.counts = spec.counts(b.elements, element_bytes, nranks, nullptr);
  call.shape.type = type_;
  call.shape.op = op;
  call.shape.root = spec.rooted ? 0 : -1;
  call.shape.nranks = nranks;
  call.shape.in_place = true;
  for (std::size_t local = 0; local < ranks().size(); ++local) {
    void* base = spec.kind == OpKind::broadcast || spec.kind == OpKind::all_gather
                     ? replicas_[local]->weights()
                     : replicas_[local]->gradients();
    char* whole = at(base, b.begin, element_bytes);
    const InPlaceOffsets offsets = in_place_offsets(spec, call.shape.counts, ranks()[local].rank);
    call.buffers.push_back(
        {whole + offsets.send * element_bytes, whole + offsets.recv * element_bytes});
  }
  // The implementation's settings: its defaults, the environment (COLLBENCH_RING_CTAS ...) and
  // the --algo entry's own (ring:ctas=32).
  call.entry = &entry;
  call.algorithm = entry.make(ranks(), resolve_algorithm(implementation_for(bucket)).settings);
  return call;
}

void GradientSync::choose_gradient_op() {
  // An implementation that only sums will do: the update then divides by the rank count. Decided
  // on the first and the last bucket (which may run another implementation) and kept for all, so
  // every gradient gets the same scale.
  const auto every_call_runs = [this](ReduceOp op) {
    for (const Call* call : {&gradient_calls_.front(), &gradient_calls_.back()}) {
      CaseShape shape = call->shape;
      shape.op = op;
      if (!call->algorithm->unsupported_reason(shape).empty()) return false;
    }
    return true;
  };
  // Without a common op the buckets keep avg, and the support check says why they cannot run.
  const ReduceOp op = !every_call_runs(ReduceOp::avg) && every_call_runs(ReduceOp::sum)
                          ? ReduceOp::sum
                          : ReduceOp::avg;
  if (op == ReduceOp::sum) gradient_scale_ = 1.0f / static_cast<float>(nranks_);
  for (Call& call : gradient_calls_) call.shape.op = op;
}

const std::string& GradientSync::implementation_for(std::size_t bucket) const {
  const bool last = bucket + 1 == layout_.buckets().size();
  return last && has_last_bucket_algo() ? last_bucket_implementation_ : implementation_;
}

void GradientSync::check_health() const {
  for (const auto* calls : {&gradient_calls_, &weight_calls_}) {
    for (const Call& call : *calls) call.algorithm->check_health();
  }
}

void GradientSync::abort() noexcept {
  for (auto* calls : {&gradient_calls_, &weight_calls_}) {
    for (Call& call : *calls) call.algorithm->request_abort();
  }
}

void GradientSync::launch_part(std::size_t bucket, LaunchPart part, int lane) {
  Call& call = gradient_calls_.at(bucket);
  call.algorithm->launch_part(lane_contexts_.at(static_cast<std::size_t>(lane)), part);
}

void GradientSync::prepare_fused_update() {
  const std::size_t last = gradient_calls_.size() - 1;
  FusedUpdate* fused = gradient_calls_[last].algorithm->fused_update();
  if (fused == nullptr) {
    throw UnsupportedConfig(
        fmt::format("--fuse-last-update: the last bucket's all-reduce ({}) cannot fuse the update "
                    "(twoshot can)",
                    gradient_calls_[last].entry->name));
  }
  std::vector<void*> weights;
  for (std::size_t local = 0; local < ranks().size(); ++local) {
    const UpdateRange range = update_range(layout_, scheme_, last, ranks()[local].rank);
    weights.push_back(
        replicas_[local]->sgd_target(range.begin, range.state_offset, gradient_scale_).weights);
  }
  fused_weight_tables_ = fused->peer_table(ranks(), weights);
  fused_update_ = fused;
}

void GradientSync::launch(std::size_t bucket, int phase, int lane, bool with_update) {
  Call& call = phase == 0 ? gradient_calls_[bucket] : weight_calls_[bucket];
  const std::vector<RankContext>& ranks = lane_contexts_.at(static_cast<std::size_t>(lane));
  if (!with_update) {
    call.algorithm->launch(ranks, call.buffers, call.shape, 1);
    return;
  }
  if (phase != 0 || bucket + 1 != gradient_calls_.size() || fused_update_ == nullptr) {
    throw std::invalid_argument(
        "GradientSync: only the last bucket's gradient all-reduce fuses an update, after "
        "prepare_fused_update()");
  }
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    const RankContext& rank = ranks[local];
    const UpdateRange range = update_range(layout_, scheme_, bucket, rank.rank);
    kernels::training::TwoshotSgdTarget shared{
        replicas_[local]->sgd_target(range.begin, range.state_offset, gradient_scale_), {}};
    const std::vector<void*>& table = fused_weight_tables_.at(local);
    std::copy(table.begin(), table.end(), shared.weights);
    ScopedDevice on(rank.device, rank.rank);
    kernels::training::launch_twoshot_all_reduce_sgd(fused_update_->rank_arguments(rank.rank),
                                                     shared, rank.stream);
    CB_CHECK_LAUNCH();
  }
}

std::vector<GradientSync::OwnedRange> GradientSync::gradient_owners() const {
  std::vector<OwnedRange> owned;
  if (scheme_ == SyncScheme::sharded) {
    for (std::size_t bucket = 0; bucket < layout_.buckets().size(); ++bucket) {
      for (int rank = 0; rank < nranks_; ++rank) {
        const UpdateRange range = update_range(layout_, scheme_, bucket, rank);
        owned.push_back({range.begin, range.count, rank});
      }
    }
    return owned;
  }
  if (fused_update_ == nullptr) return owned;
  const std::size_t last = gradient_calls_.size() - 1;
  const kernels::RingGeometry& geometry =
      fused_update_->rank_arguments(ranks().front().rank).geometry;
  const std::uint64_t bucket_begin = layout_.buckets()[last].begin;
  for (int owner = 0; owner < geometry.nranks; ++owner) {
    const kernels::ElementRange chunk = kernels::ring_chunk(geometry, owner);
    if (chunk.end > chunk.begin)
      owned.push_back({bucket_begin + chunk.begin, chunk.end - chunk.begin, owner});
  }
  return owned;
}

}  // namespace collbench::dp
