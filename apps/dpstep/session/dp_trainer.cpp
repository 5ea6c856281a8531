// The trainer: per-rank resources, schedule execution (eager or captured), timing and the host
// views used by the correctness checks.
#include "session/dp_trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <nvtx3/nvtx3.hpp>
#include <stdexcept>

#include "core/errors.hpp"
#include "dp_settings.hpp"
#include "measure/runner.hpp"
#include "runtime/completion_wait.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/graph_memsets.hpp"
#include "runtime/host_collectives.hpp"
#include "runtime/stream_capture.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench::dp {

struct DataParallelTrainer::RankResources {
  int rank;
  int device;
  Stream compute;
  DeviceHandle<cudaStream_t, StreamTraits> comm;  // every collective, in one order on all ranks
  // Lanes 1, 2 ...: the collectives of buckets b with b % lanes == lane (comm is lane 0).
  std::vector<DeviceHandle<cudaStream_t, StreamTraits>> more_comm;
  DeviceHandle<cudaStream_t, StreamTraits> optimizer;  // per-bucket updates
  std::vector<SyncEvent> events;
};

namespace {

// Communication gets the highest priority: when a GEMM's blocks retire, its blocks are scheduled
// first, so it progresses during backward instead of queueing behind it. Updates do not: their
// many short blocks fill what the GEMMs leave (measured: a high-priority update overlapping
// backward took SMs from the GEMMs and made the 1-GPU step 10% slower).
DeviceHandle<cudaStream_t, StreamTraits> high_priority_stream(int device) {
  ScopedDevice on(device);
  int least = 0;
  int greatest = 0;
  CB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t stream = nullptr;
  CB_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
  return {stream, device};
}

DeviceHandle<cudaEvent_t, EventTraits> ordering_event(int device) {
  ScopedDevice on(device);
  cudaEvent_t event = nullptr;
  CB_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return {event, device};
}

// Graph kernels keep the priority of the stream they were captured from.
std::vector<GraphExec> instantiate_with_node_priority(const std::vector<Graph>& graphs) {
  std::vector<GraphExec> execs;
  for (const Graph& graph : graphs) {
    ScopedDevice on(graph.device());
    cudaGraphExec_t exec = nullptr;
    CB_CUDA_CHECK(
        cudaGraphInstantiateWithFlags(&exec, graph.get(), cudaGraphInstantiateFlagUseNodePriority));
    execs.emplace_back(exec, graph.device());
  }
  return execs;
}

// --graph-dot DIR writes each captured step graph as Graphviz, DIR/dp_step_<shape>_rank<r>.dot:
// what a replay runs, with the nodes a GPU trace does not show (stream memory operations, event
// waits, the joins between streams).
void write_graph_dot(const Graph& graph, const std::string& dir, const char* shape, int rank) {
  if (dir.empty()) return;
  const std::string path = fmt::format("{}/dp_step_{}_rank{}.dot", dir, shape, rank);
  CB_CUDA_CHECK(cudaGraphDebugDotPrint(graph.get(), path.c_str(),
                                       cudaGraphDebugDotFlagsKernelNodeParams |
                                           cudaGraphDebugDotFlagsMemsetNodeParams |
                                           cudaGraphDebugDotFlagsKernelNodeAttributes));
}

std::uint32_t range_color(const std::string& label) {
  if (label.rfind("forward", 0) == 0) return 0x2CA02C;
  if (label.rfind("backward", 0) == 0) return 0x1F77B4;
  if (label.rfind("optimizer", 0) == 0) return 0x9467BD;
  if (label.rfind("step", 0) == 0 || label.rfind("communication", 0) == 0) return 0x7F7F7F;
  return 0x76B900;  // collectives
}

nvtx3::event_attributes range_attributes(const std::string& label) {
  const std::uint32_t rgb = range_color(label);
  return nvtx3::event_attributes{
      label, nvtx3::rgb{static_cast<std::uint8_t>(rgb >> 16), static_cast<std::uint8_t>(rgb >> 8),
                        static_cast<std::uint8_t>(rgb)}};
}

}  // namespace

DataParallelTrainer::DataParallelTrainer(const StepConfig& config, int device)
    : DataParallelTrainer(config, no_communicators_, device) {}

DataParallelTrainer::DataParallelTrainer(const StepConfig& config,
                                         std::vector<NcclCommunicator>& communicators, int device,
                                         double collective_timeout_s)
    : config_(config),
      layout_(config.model.layers, config.model.width, size_of(config.model.dtype),
              bucket_cap_bytes(config), config.ranks),
      collective_timeout_s_(collective_timeout_s),
      communicators_(&communicators) {
  validate(config.model);
  const int n = config.ranks;
  const int given = static_cast<int>(communicators.size());
  // Without communicators, or with one per rank, this process drives every rank on GPUs 0..n-1.
  if ((given == 0 || given == n) && n > visible_gpu_count()) {
    throw UnsupportedConfig(
        fmt::format("needs {} GPU{}, {} visible", n, n == 1 ? "" : "s", visible_gpu_count()));
  }
  if ((n > 1 && given == 0) || (n == 1 && given > 0) || given > n) {
    throw std::invalid_argument(
        "DataParallelTrainer: several ranks need one communicator per rank this process drives, "
        "one rank none");
  }
  auto range = named_range(fmt::format("setup {}", config_string(config)), 0x808080);
  const StepEvents events{layout_.layers(), static_cast<int>(layout_.buckets().size())};
  std::vector<int> rank_numbers;
  const bool pipelined = config.comm_schedule == CommSchedule::pipelined;
  // One more lane for the last bucket of another implementation (GradientSync::own_tail_lane).
  const int lanes_made =
      (pipelined ? std::max(config.comm_lanes, kPipelinedLanes) : config.comm_lanes) +
      (config.last_bucket_algo.empty() ? 0 : 1);
  for (int local = 0; local < std::max(given, 1); ++local) {
    const int rank = given ? communicators[local].rank() : 0;
    const int gpu = given ? communicators[local].device() : device;
    auto resources = std::make_unique<RankResources>(
        RankResources{rank, gpu, Stream(gpu), high_priority_stream(gpu), {}, Stream(gpu), {}});
    for (int lane = 1; lane < lanes_made; ++lane)
      resources->more_comm.push_back(high_priority_stream(gpu));
    for (int e = 0; e < events.count(); ++e) resources->events.push_back(ordering_event(gpu));
    resources_.push_back(std::move(resources));
    rank_numbers.push_back(rank);
  }
  create_replicas(rank_numbers);
  if (n > 1) {
    std::vector<const ModelReplica*> replicas;
    for (const auto& replica : replicas_) replicas.push_back(replica.get());
    std::vector<std::vector<RankContext>> lanes;
    for (int lane = 0; lane < lanes_made; ++lane) lanes.push_back(comm_contexts(lane));
    sync_ = std::make_unique<GradientSync>(layout_, config.scheme, config.algo, config.model.dtype,
                                           n, lanes, replicas, pipelined, config.last_bucket_algo);
  }
  if (sync_ && config.fuse_last_update && !sync_->own_tail_lane()) {
    throw UnsupportedConfig(
        "--fuse-last-update needs the last bucket on a lane of its own, beside an --algo whose "
        "instances run concurrently (copy_engine)");
  }
  if (sync_ && config.fuse_last_update) sync_->prepare_fused_update();
  if (n > 1 && config.lockstep > 0) {
    // The communicators carry the exchange of mappings between processes; the barriers run on the
    // compute streams.
    std::vector<RankContext> compute = comm_contexts();
    for (std::size_t local = 0; local < compute.size(); ++local)
      compute[local].stream = resources_[local]->compute.get();
    lockstep_ = std::make_unique<ComputeLockstep>(compute, n, collective_timeout_s);
  }
  ScheduleOptions options;
  options.comm_lanes = sync_ ? sync_->lanes() : 1;
  options.pipelined = sync_ && sync_->pipelined();
  options.own_tail_lane = sync_ && sync_->own_tail_lane();
  options.lockstep_every = lockstep_ ? config.lockstep : 0;
  options.fused_last_update = sync_ && config.fuse_last_update;
  for (const StepVariant variant :
       {StepVariant::full, StepVariant::compute_only, StepVariant::comm_only}) {
    schedules_[static_cast<int>(variant)] =
        build_step_schedule(layout_, config.scheme, variant, n > 1, options);
  }
}

void DataParallelTrainer::create_replicas(const std::vector<int>& rank_numbers) {
  const int n = config_.ranks;
  std::string allocation_failure;
  try {
    for (std::size_t local = 0; local < rank_numbers.size(); ++local) {
      const int rank = rank_numbers[local];
      // Rank r trains on global samples [r * batch, (r + 1) * batch), wherever it runs.
      const std::uint64_t first_sample = static_cast<std::uint64_t>(rank) * config_.model.batch;
      replicas_.push_back(std::make_unique<ModelReplica>(config_, layout_, rank,
                                                         resources_[local]->device, first_sample,
                                                         optimizer_state(config_.scheme, rank, n)));
    }
  } catch (const GpuError& error) {
    if (!error.out_of_memory()) throw;
    allocation_failure = error.what();
  }
  // Every rank must learn of an allocation failure anywhere before any of them starts a
  // collective that the failed one would never join.
  if (n > 1 && !every_rank_agrees(allocation_failure.empty()) && allocation_failure.empty()) {
    allocation_failure = "out of memory on another rank";
  }
  if (!allocation_failure.empty()) throw GpuError(allocation_failure, true);
}

DataParallelTrainer::~DataParallelTrainer() {
  // Unwinding from a failure: peers may wait on work that will never come; abort so the device
  // synchronisation below (and freeing the buffers) cannot hang.
  if (std::uncaught_exceptions() > 0) abort_communication();
  for (const auto& r : resources_) {
    ScopedDevice on(r->device, r->rank);
    CB_CUDA_CHECK_NOTHROW(cudaDeviceSynchronize());
  }
  release_collectives();
}

void DataParallelTrainer::release_collectives() noexcept {
  if (!sync_) return;
  auto warn = [this](const char* what, const std::exception& error) {
    std::fprintf(stderr,
                 "collbench_dpstep: warning: %s of %s failed; freeing its buffers anyway: %s\n",
                 what, config_string(config_).c_str(), error.what());
  };
  try {
    sync_->release();
  } catch (const std::exception& error) {
    warn("releasing the collectives", error);
  }
  if (lockstep_) lockstep_->release();
  // The barrier: no process frees its buffers before every process has unmapped them. The peers
  // wait for it even when this process's release failed.
  if (communication_aborted_) return;
  try {
    every_rank_agrees(true);
  } catch (const std::exception& error) {
    warn("the barrier after the collectives", error);
  }
}

bool DataParallelTrainer::holds_rank(int rank) const {
  for (const auto& r : resources_) {
    if (r->rank == rank) return true;
  }
  return false;
}

int DataParallelTrainer::local_index(int rank) const {
  for (std::size_t local = 0; local < resources_.size(); ++local) {
    if (resources_[local]->rank == rank) return static_cast<int>(local);
  }
  throw std::logic_error(fmt::format("rank {} is not driven by this process", rank));
}

int DataParallelTrainer::device_of(int rank) const {
  return resources_[local_index(rank)]->device;
}

MemoryFootprint DataParallelTrainer::memory() const {
  MemoryFootprint largest;
  for (const auto& replica : replicas_) {
    const MemoryFootprint m = replica->memory();
    largest.weights_bytes = std::max(largest.weights_bytes, m.weights_bytes);
    largest.gradients_bytes = std::max(largest.gradients_bytes, m.gradients_bytes);
    largest.optimizer_bytes = std::max(largest.optimizer_bytes, m.optimizer_bytes);
  }
  return largest;
}

std::uint64_t DataParallelTrainer::gradient_bytes() const {
  return sync_ ? sync_->gradient_bytes() : 0;
}
double DataParallelTrainer::bus_bytes() const {
  return sync_ ? sync_->bus_bytes() : 0;
}

const StepSchedule& DataParallelTrainer::schedule(StepVariant variant) const {
  return schedules_[static_cast<int>(variant)];
}

cudaStream_t DataParallelTrainer::comm_stream(const RankResources& r, int lane) {
  return lane == 0 ? r.comm.get() : r.more_comm.at(static_cast<std::size_t>(lane - 1)).get();
}

cudaStream_t DataParallelTrainer::stream_of(int local, StreamRole role) const {
  const RankResources& r = *resources_[local];
  if (const int lane = lane_of(role); lane >= 0) return comm_stream(r, lane);
  switch (role) {
    case StreamRole::optimizer:
      return r.optimizer.get();
    default:
      return r.compute.get();
  }
}

std::vector<RankContext> DataParallelTrainer::comm_contexts(int lane) const {
  std::vector<RankContext> contexts;
  for (std::size_t local = 0; local < resources_.size(); ++local) {
    const RankResources& r = *resources_[local];
    contexts.push_back({r.rank, r.device, comm_stream(r, lane),
                        communicators_->empty() ? nullptr : (*communicators_)[local].get()});
  }
  return contexts;
}

void DataParallelTrainer::enqueue(const StepSchedule& schedule) {
  const nvtxDomainHandle_t domain = nvtx3::domain::get<collbench_nvtx_domain>();
  for (const StepOp& op : schedule.ops) {
    switch (op.kind) {
      case StepOpKind::range_push: {
        const nvtx3::event_attributes attributes = range_attributes(op.label);
        nvtxDomainRangePushEx(domain, attributes.get());
        break;
      }
      case StepOpKind::range_pop:
        nvtxDomainRangePop(domain);
        break;
      case StepOpKind::collective:
        sync_->launch(static_cast<std::size_t>(op.bucket), op.phase, lane_of(op.stream),
                      op.with_update);
        break;
      case StepOpKind::collective_part:
        sync_->launch_part(static_cast<std::size_t>(op.bucket), op.part, lane_of(op.stream));
        break;
      default:
        for (int local = 0; local < local_ranks(); ++local) {
          ScopedDevice on(resources_[local]->device, resources_[local]->rank);
          execute_on_rank(op, local);
        }
    }
  }
}

void DataParallelTrainer::execute_on_rank(const StepOp& op, int local) {
  const ModelReplica& replica = *replicas_[local];
  RankResources& r = *resources_[local];
  const cudaStream_t stream = stream_of(local, op.stream);
  switch (op.kind) {
    case StepOpKind::forward:
      replica.forward(op.layer, stream);
      break;
    case StepOpKind::loss:
      replica.loss(stream);
      break;
    case StepOpKind::weight_gradient:
      replica.weight_gradient(op.layer, stream);
      break;
    case StepOpKind::input_gradient:
      replica.input_gradient(op.layer, stream);
      break;
    case StepOpKind::record:
      CB_CUDA_CHECK(cudaEventRecord(r.events[op.event].get(), stream));
      break;
    case StepOpKind::wait:
      CB_CUDA_CHECK(cudaStreamWaitEvent(stream, r.events[op.event].get(), 0));
      break;
    case StepOpKind::lockstep:
      lockstep_->enqueue(local, stream);
      break;
    case StepOpKind::update: {
      const UpdateRange range =
          update_range(layout_, config_.scheme, static_cast<std::size_t>(op.bucket), r.rank);
      replica.update(range.begin, range.count, range.state_offset,
                     sync_ ? sync_->gradient_scale() : 1.0f, stream);
      break;
    }
    default:
      break;
  }
}

void DataParallelTrainer::run_eager(int steps, StepVariant variant) {
  for (int step = 0; step < steps; ++step) enqueue(schedule(variant));
}

const char* DataParallelTrainer::variant_name(StepVariant variant) {
  switch (variant) {
    case StepVariant::full:
      return "full";
    case StepVariant::compute_only:
      return "compute_only";
    case StepVariant::comm_only:
      return "comm_only";
  }
  return "?";
}

std::vector<GraphExec>& DataParallelTrainer::graphs(StepVariant variant) {
  std::optional<std::vector<GraphExec>>& slot = graphs_[static_cast<int>(variant)];
  if (!slot) {
    auto range = fixed_range<nvtx_names::graph_capture>();
    std::vector<RankContext> capturing;
    for (const auto& r : resources_) {
      capturing.push_back({r->rank, r->device, r->compute.get(), nullptr});
    }
    StreamCapture capture(capturing);
    enqueue(schedule(variant));
    std::vector<Graph> captured = capture.finish();
    for (std::size_t local = 0; local < captured.size(); ++local) {
      if (config_.graph_memsets == GraphMemsets::kernel) {
        const std::size_t replaced = memsets_to_kernels(captured[local]);
        if (variant == StepVariant::full && local == 0) full_step_memset_kernels_ = replaced;
      }
      write_graph_dot(captured[local], config_.graph_dot_dir, variant_name(variant),
                      resources_[local]->rank);
    }
    slot = instantiate_with_node_priority(captured);
  }
  return *slot;
}

// Peers may wait forever on a rank that failed: stop every collective, so the device can be
// synchronised and the buffers freed.
void DataParallelTrainer::abort_communication() noexcept {
  communication_aborted_ = true;
  if (sync_) sync_->abort();
  if (lockstep_) lockstep_->abort();
  for (NcclCommunicator& comm : *communicators_) comm.abort();
}

void DataParallelTrainer::wait_for_events(const std::vector<const Event*>& events,
                                          double timeout_s) {
  try {
    wait_or_throw(events, timeout_s);
  } catch (...) {
    abort_communication();
    throw;
  }
}

void DataParallelTrainer::wait_or_throw(const std::vector<const Event*>& events, double timeout_s) {
  std::vector<CompletionTarget> targets;
  for (std::size_t local = 0; local < events.size(); ++local) {
    const ncclComm_t comm =
        communicators_->size() > local ? (*communicators_)[local].get() : nullptr;
    targets.push_back(
        {events[local]->device(), resources_[local]->rank, events[local]->get(), comm});
  }
  wait_for_completion(targets, WaitDeadline::after(timeout_s),
                      fmt::format("{} on {} ranks", config_string(config_), config_.ranks));
  if (sync_) sync_->check_health();
  if (lockstep_) lockstep_->check_health();
}

void DataParallelTrainer::wait_for_collectives() {
  try {
    wait_for_completion(
        stream_targets(comm_contexts()), WaitDeadline::after(collective_timeout_s_),
        fmt::format("a collective of {} on {} ranks", config_string(config_), config_.ranks));
  } catch (...) {
    abort_communication();
    throw;
  }
}

template <typename Value>
std::vector<Value> DataParallelTrainer::reduce_over_ranks(
    const std::vector<std::vector<Value>>& per_local_rank, ncclRedOp_t op) {
  if (config_.ranks == 1) return per_local_rank.front();  // the one rank is the whole run
  return all_reduce_host_values(comm_contexts(), per_local_rank, op,
                                [this] { wait_for_collectives(); });
}

bool DataParallelTrainer::every_rank_agrees(bool holds) {
  const std::vector<std::vector<std::int32_t>> flags(resources_.size(), {holds ? 1 : 0});
  return reduce_over_ranks(flags, ncclMin).front() == 1;
}

void DataParallelTrainer::synchronize(double timeout_s) {
  std::vector<Event> done;
  std::vector<const Event*> waits;
  for (int local = 0; local < local_ranks(); ++local) {
    done.emplace_back(resources_[local]->device);
  }
  for (int local = 0; local < local_ranks(); ++local) {
    ScopedDevice on(resources_[local]->device, resources_[local]->rank);
    // The compute stream joins the other two at the end of every step.
    CB_CUDA_CHECK(cudaEventRecord(done[local].get(), resources_[local]->compute.get()));
    waits.push_back(&done[local]);
  }
  wait_for_events(waits, timeout_s);
}

void DataParallelTrainer::launch_step(StepVariant variant, bool use_graphs) {
  if (!use_graphs) {
    enqueue(schedule(variant));
    return;
  }
  // The labels outlive the attributes, which point at their text.
  static const std::string step_label = "step";
  static const std::string comm_label = "communication only";
  const nvtx3::event_attributes replay =
      range_attributes(variant == StepVariant::comm_only ? comm_label : step_label);
  const nvtxDomainHandle_t domain = nvtx3::domain::get<collbench_nvtx_domain>();
  std::vector<GraphExec>& execs = graphs(variant);
  nvtxDomainRangePushEx(domain, replay.get());
  for (int local = 0; local < local_ranks(); ++local) {
    ScopedDevice on(resources_[local]->device, resources_[local]->rank);
    CB_CUDA_CHECK(cudaGraphLaunch(execs[local].get(), resources_[local]->compute.get()));
  }
  nvtxDomainRangePop(domain);
}

void DataParallelTrainer::warm_up(StepVariant variant, int warmup, bool use_graphs,
                                  double timeout_s, const PassSettings& settings) {
  auto range = fixed_range<nvtx_names::warmup>();
  const auto started = std::chrono::steady_clock::now();
  for (int step = 0; step < warmup; ++step) launch_step(variant, use_graphs);
  // Time-based warm-up: more steps, in groups, until the first has been running long enough.
  constexpr int kWarmupGroup = 10;
  while (settings.warmup_ms > 0) {
    synchronize(timeout_s);
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - started;
    if (elapsed.count() >= settings.warmup_ms) break;
    for (int step = 0; step < kWarmupGroup; ++step) launch_step(variant, use_graphs);
  }
  if (settings.sample_power) {
    synchronize(timeout_s);
    // The drain left every GPU idle, and this thread launches rank after rank (about 0.15 ms
    // each): without a step ahead, the first timed step would wait at its first collective for
    // the last rank's launch.
    launch_step(variant, use_graphs);
  }
}

void DataParallelTrainer::ensure_timing_events(int iters) {
  const int locals = local_ranks();
  if (timing_events_.size() == static_cast<std::size_t>(locals) &&
      timing_events_.front().size() >= static_cast<std::size_t>(iters) + 1) {
    return;
  }
  timing_events_.clear();
  timing_events_.resize(static_cast<std::size_t>(locals));
  for (int local = 0; local < locals; ++local) {
    for (int i = 0; i <= iters; ++i) timing_events_[local].emplace_back(resources_[local]->device);
  }
}

void DataParallelTrainer::record_timing_event(int index) {
  for (int local = 0; local < local_ranks(); ++local) {
    ScopedDevice on(resources_[local]->device, resources_[local]->rank);
    CB_CUDA_CHECK(
        cudaEventRecord(timing_events_[local][index].get(), resources_[local]->compute.get()));
  }
}

// What the pass takes the largest of over every rank, in one all-reduce: each step's time (a step
// takes as long as its slowest rank, in this process or another), the run's mean and, sampled, the
// mean power and the mean instantaneous power (0: none).
MeasuredSteps DataParallelTrainer::combine_steps(
    int iters, const std::vector<std::optional<PowerSummary>>& power, bool sampled_power) {
  std::vector<std::vector<double>> per_rank_max(static_cast<std::size_t>(local_ranks()));
  for (int local = 0; local < local_ranks(); ++local) {
    ScopedDevice on(resources_[local]->device, resources_[local]->rank);
    std::vector<double>& values = per_rank_max[local];
    for (int i = 0; i < iters; ++i) {
      values.push_back(1e3 * elapsed_ms(timing_events_[local][i], timing_events_[local][i + 1]));
    }
    values.push_back(1e3 * elapsed_ms(timing_events_[local][0], timing_events_[local][iters]) /
                     iters);
    if (sampled_power) {
      values.push_back(power[local] ? power[local]->power_w : 0.0);
      values.push_back(power[local] ? power[local]->instant_power_w.value_or(0.0) : 0.0);
    }
  }
  const std::vector<double> maxima = reduce_over_ranks(per_rank_max, ncclMax);
  MeasuredSteps measured;
  measured.slowest_rank_us.assign(maxima.begin(), maxima.begin() + iters);
  measured.mean_us = maxima[iters];
  if (sampled_power)
    measured.power = slowest_power_state(power, maxima[iters + 1], maxima[iters + 2]);
  return measured;
}

MeasuredSteps DataParallelTrainer::measure(StepVariant variant, int warmup, int iters,
                                           bool use_graphs, double timeout_s,
                                           const PassSettings& settings) {
  if (use_graphs) graphs(variant);  // captured before the first replay
  warm_up(variant, warmup, use_graphs, timeout_s, settings);
  ensure_timing_events(iters);
  std::vector<int> devices;
  for (const auto& r : resources_) devices.push_back(r->device);
  std::optional<PowerSampler> sampler;
  if (settings.sample_power) sampler.emplace(devices, std::chrono::milliseconds(10));
  {
    auto range = fixed_range<nvtx_names::timed>();
    record_timing_event(0);
    for (int i = 0; i < iters; ++i) {
      launch_step(variant, use_graphs);
      record_timing_event(i + 1);
    }
  }
  std::vector<const Event*> last;
  for (int local = 0; local < local_ranks(); ++local) last.push_back(&timing_events_[local][iters]);
  wait_for_events(last, timeout_s);
  const std::vector<std::optional<PowerSummary>> power =
      sampler ? sampler->finish() : std::vector<std::optional<PowerSummary>>{};
  return combine_steps(iters, power, settings.sample_power);
}

std::optional<PowerSummary> DataParallelTrainer::slowest_power_state(
    const std::vector<std::optional<PowerSummary>>& per_local_rank, double highest_power_w,
    double highest_instant_power_w) {
  // Every process reduces, with or without samples, so the collectives match; a rank without
  // samples contributes neutral values and a zero count.
  std::vector<std::vector<double>> minima;  // mean SM clock, sample count
  // One 0/1 value per clock-event reason bit: their largest over the ranks is the or.
  std::vector<std::vector<std::uint64_t>> reason_bits;
  for (const std::optional<PowerSummary>& summary : per_local_rank) {
    minima.push_back(
        {summary ? summary->sm_mhz : 1e12, summary ? static_cast<double>(summary->samples) : 0.0});
    const std::uint64_t reasons = summary ? summary->clock_events : 0;
    std::vector<std::uint64_t>& bits = reason_bits.emplace_back(64);
    for (int bit = 0; bit < 64; ++bit) bits[bit] = (reasons >> bit) & 1u;
  }
  const std::vector<double> lowest = reduce_over_ranks(minima, ncclMin);
  const std::vector<std::uint64_t> any_rank = reduce_over_ranks(reason_bits, ncclMax);
  PowerSummary worst;
  worst.sm_mhz = lowest[0];
  worst.samples = static_cast<int>(lowest[1]);
  worst.power_w = highest_power_w;
  for (int bit = 0; bit < 64; ++bit) worst.clock_events |= any_rank[bit] << bit;
  if (highest_instant_power_w > 0) worst.instant_power_w = highest_instant_power_w;
  if (worst.samples == 0) return std::nullopt;
  return worst;
}

// The views (dp_trainer_views.cpp) reduce these types too.
template std::vector<double> DataParallelTrainer::reduce_over_ranks(
    const std::vector<std::vector<double>>&, ncclRedOp_t);
template std::vector<std::uint64_t> DataParallelTrainer::reduce_over_ranks(
    const std::vector<std::vector<std::uint64_t>>&, ncclRedOp_t);

}  // namespace collbench::dp
