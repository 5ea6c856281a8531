// Creation and buffer management of a set of ranks.
#include "measure/rank_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/errors.hpp"
#include "runtime/nccl_settings.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench {
namespace {

std::vector<int> first_devices(int count) {
  std::vector<int> devices(count);
  for (int d = 0; d < count; ++d) devices[d] = d;
  return devices;
}

// Grows `buffer` on `device` to at least `bytes` (freeing first, so peak memory stays one copy).
void ensure_capacity(DeviceBuffer& buffer, int device, std::size_t bytes) {
  if (buffer && buffer.bytes() >= bytes) return;
  buffer.reset();
  buffer = DeviceBuffer(device, bytes);
}

// The rank set's start gate: a slot every process of the host shares. Every process takes one,
// whether or not it holds ranks of the set, so slots stay in step across processes.
StartGate gate_of(ProcessGroup& group) {
  kernels::StartGateWords* slot = group.next_gate_slot();
  return slot ? StartGate(group.gate_memory(), slot) : StartGate::disabled();
}

}  // namespace

Runner::RankSet::RankSet(int ranks, const CommunicatorSettings& settings)
    : host_of_rank_(ranks, 0), ranks_on_host_(ranks) {
  auto range = named_range(fmt::format("communicator init {}r", ranks), 0x404040, ranks);
  const std::vector<int> devices = first_devices(ranks);
  nccl_environment_.emplace(nccl_environment(settings));
  const std::optional<ncclConfig_t> config = nccl_config(settings);
  communicators_ = create_single_process_communicators(devices, config ? &*config : nullptr);
  if (settings.split) split_for_case(settings);
  adopt(devices, first_devices(ranks));
}

// The GPU count's communicator keeps NCCL's defaults: the runner's agreements between processes go
// over it (host all-reduces, which an NCCL_ALGO such as PAT could not run), so the case's
// communicator is split from it under the settings.
Runner::RankSet::RankSet(ProcessGroup& group, int ranks, const CommunicatorSettings& settings)
    : gate_(gate_of(group)) {
  auto range = named_range(fmt::format("communicator init {}r", ranks), 0x404040, ranks);
  for (int rank = 0; rank < ranks; ++rank) host_of_rank_.push_back(group.host_of(rank));
  ranks_on_host_ = static_cast<int>(
      std::count(host_of_rank_.begin(), host_of_rank_.end(), group.host_of(group.rank())));
  if (std::optional<NcclCommunicator> communicator = group.split_first(ranks)) {
    communicators_.push_back(std::move(*communicator));
    if (!settings.is_default()) split_for_case(settings);
    adopt({group.device()}, {group.rank()});
  }
}

void Runner::RankSet::split_for_case(const CommunicatorSettings& settings) {
  if (!nccl_environment_) nccl_environment_.emplace(nccl_environment(settings));
  const std::optional<ncclConfig_t> config = nccl_config(settings);
  std::vector<int> colors;
  for (const NcclCommunicator& communicator : communicators_) {
    colors.push_back(settings.split ? settings.split->color(communicator.rank()) : 0);
  }
  group_communicators_ = split_communicators(communicators_, colors, config ? &*config : nullptr);
}

Runner::RankSet::~RankSet() {
  gate_.release_here();
}

void Runner::RankSet::adopt(const std::vector<int>& devices, const std::vector<int>& rank_numbers) {
  const int local_ranks = static_cast<int>(devices.size());
  for (int local = 0; local < local_ranks; ++local) {
    ScopedDevice on(devices[local], rank_numbers[local]);
    CB_CUDA_CHECK(kernels::preload_wait_for_gate());
    streams_.emplace_back(devices[local]);
    cudaStream_t stream = streams_[local].get();
    agreement_contexts_.push_back(
        {rank_numbers[local], devices[local], stream, communicators_[local].get()});
    RankContext context = agreement_contexts_.back();
    if (!group_communicators_.empty()) {
      context.comm = group_communicators_[local].get();
      CB_NCCL_CHECK(ncclCommUserRank(context.comm, &context.rank));
    }
    contexts_.push_back(context);
    single_contexts_.push_back({context});
    count_ranks_.push_back(rank_numbers[local]);
    counters_.emplace_back(devices[local], sizeof(unsigned long long));
  }
  primary_.resize(local_ranks);
  secondary_.resize(local_ranks);
  segment_tables_.resize(local_ranks);
  buffers_.resize(local_ranks);
  events_.resize(local_ranks);
  workers_ = std::make_unique<RankWorkers>(devices, rank_numbers);
}

void Runner::RankSet::check_async_errors() const {
  for (const NcclCommunicator& communicator : group_communicators_)
    communicator.check_async_error();
  for (const NcclCommunicator& communicator : communicators_) communicator.check_async_error();
}

CollectiveAlgorithm& Runner::RankSet::algorithm(const AlgorithmChoice& choice) {
  const std::string key = choice.key();
  auto found = algorithms_.find(key);
  if (found != algorithms_.end()) return *found->second;
  return *algorithms_.emplace(key, choice.make(contexts_)).first->second;
}

const std::vector<RankBuffers>& Runner::RankSet::buffers_for(const Case& c) {
  auto range = fixed_range<nvtx_names::allocate>(0x404040, c.bytes());
  const std::size_t element = size_of(c.type);
  // Buffers registered otherwise must not serve this case (NCCL finds registrations by address).
  // Registered buffers are made and registered anew for each operation and implementation: kept
  // from a sendrecv (or ring_sendrecv) case, a broadcast of 4 MiB on them hung with NCCL 2.28.3
  // and 2.28.9 on 2 and 4 H100s, its peers reusing the mappings NCCL had made for the send/recv
  // (NCCL_DEBUG_SUBSYS=REG: "IPC reuse buffer"); made anew, every case ran (docs/collbench.md,
  // "Buffer registration").
  const std::string user = std::string(c.spec->name) + "/" + c.algorithm.key();
  if (c.registration != buffer_mode_ ||
      (c.registration != BufferRegistration::none && user != buffer_user_)) {
    release_buffers();
  }
  buffer_mode_ = c.registration;
  buffer_user_ = user;
  for (int local = 0; local < size(); ++local) {
    const RankContext& rank = contexts_[local];
    if (c.in_place) {
      const std::size_t elements = std::max(c.counts.send, c.counts.recv);
      primary_[local].ensure_capacity(c.registration, rank.device, elements * element);
      const InPlaceOffsets offsets = in_place_offsets(*c.spec, c.counts, rank.rank);
      char* base = static_cast<char*>(primary_[local].get());
      buffers_[local] = {base + offsets.send * element, base + offsets.recv * element};
    } else {
      primary_[local].ensure_capacity(c.registration, rank.device, c.counts.recv * element);
      secondary_[local].ensure_capacity(c.registration, rank.device, c.counts.send * element);
      buffers_[local] = {secondary_[local].get(), primary_[local].get()};
    }
    // The check's segment table (upload_receive_segments): n + 1 receive and n send offsets.
    if (c.traffic) {
      ensure_capacity(segment_tables_[local], rank.device,
                      (2 * c.traffic->ranks() + 1) * sizeof(std::uint64_t));
    }
  }
  return buffers_;
}

void Runner::RankSet::register_buffers() {
  std::vector<BufferOfRank> buffers;
  for (int local = 0; local < size(); ++local) {
    const RankContext& rank = contexts_[local];
    buffers.push_back({&primary_[local], rank.comm, rank.rank});
    buffers.push_back({&secondary_[local], rank.comm, rank.rank});
  }
  collbench::register_buffers(buffers);
}

void Runner::RankSet::poison_outputs(const Case& c) {
  const std::size_t element = size_of(c.type);
  const auto poison = kernels::poison_byte(static_cast<kernels::ElementType>(c.type));
  for (int local = 0; local < size(); ++local) {
    ScopedDevice on(contexts_[local].device, contexts_[local].rank);
    // In place, the whole buffer is poisoned and the input then written over its own part.
    void* target = c.in_place ? primary_[local].get() : buffers_[local].recv;
    const std::size_t bytes =
        c.in_place ? std::max(c.counts.send, c.counts.recv) * element : c.counts.recv * element;
    CB_CUDA_CHECK(cudaMemsetAsync(target, poison, bytes, contexts_[local].stream));
  }
}

std::vector<const std::uint64_t*> Runner::RankSet::upload_receive_segments(const Case& c) {
  std::vector<const std::uint64_t*> tables(size(), nullptr);
  if (!c.traffic) return tables;
  for (int local = 0; local < size(); ++local) {
    const RankContext& rank = contexts_[local];
    const std::vector<std::uint64_t> table = c.traffic->receive_segments(rank.rank);
    const std::size_t bytes = table.size() * sizeof(std::uint64_t);
    if (segment_tables_[local].bytes() < bytes)
      throw std::logic_error("segment table not sized by buffers_for");
    ScopedDevice on(rank.device, rank.rank);
    // From pageable memory: the call returns once `table` is staged, so it may go out of scope.
    CB_CUDA_CHECK(cudaMemcpyAsync(segment_tables_[local].get(), table.data(), bytes,
                                  cudaMemcpyHostToDevice, rank.stream));
    tables[local] = segment_tables_[local].as<const std::uint64_t>();
  }
  return tables;
}

void Runner::RankSet::release_buffers() {
  for (auto& buffer : primary_) buffer.reset();
  for (auto& buffer : secondary_) buffer.reset();
  for (auto& buffer : segment_tables_) buffer.reset();
}

std::vector<Event>& Runner::RankSet::events(int local_rank, int count) {
  auto& events = events_[local_rank];
  while (static_cast<int>(events.size()) < count) events.emplace_back(contexts_[local_rank].device);
  return events;
}

unsigned long long* Runner::RankSet::mismatch_counter(int local_rank) {
  return counters_[local_rank].as<unsigned long long>();
}

void Runner::RankSet::wait_idle(
    const WaitDeadline& deadline,
    const std::function<std::string(const std::vector<bool>&)>& timeout_reason) {
  // Without their communicators: check_async_errors() watches those and the GPU count's too.
  std::vector<CompletionTarget> streams;
  for (const RankContext& rank : contexts_)
    streams.push_back({rank.device, rank.rank, rank.stream});
  try {
    wait_for_completion(streams, deadline, "the work of the case",
                        [this] { check_async_errors(); });
  } catch (const CompletionTimeout& timeout) {
    throw CaseTimeout(timeout_reason(timeout.done()));
  }
}

void Runner::RankSet::abort_all() noexcept {
  gate_.abort();
  // Hand-built kernels first: they may be spinning on flags that NCCL's abort cannot reach.
  for (auto& [name, algorithm] : algorithms_) algorithm->request_abort();
  for (auto& communicator : group_communicators_) communicator.abort();
  for (auto& communicator : communicators_) communicator.abort();
  // The abort freed every registration of the communicators: none may be deregistered later.
  for (auto& buffer : primary_) buffer.forget_registration();
  for (auto& buffer : secondary_) buffer.forget_registration();
}

}  // namespace collbench
