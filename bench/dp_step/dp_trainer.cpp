// The trainer: per-rank resources, schedule execution (eager or captured), timing and the host
// views used by the correctness checks.
#include "dp_trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <nvtx3/nvtx3.hpp>
#include <thread>

#include "errors.hpp"
#include "interrupt.hpp"
#include "nvtx.hpp"
#include "runner.hpp"
#include "stream_capture.hpp"

namespace collbench::dp {

struct DataParallelTrainer::RankResources {
  int rank;
  int device;
  Stream compute;
  DeviceHandle<cudaStream_t, StreamTraits> comm;  // every collective, in one order on all ranks
  DeviceHandle<cudaStream_t, StreamTraits> optimizer;  // per-bucket updates
  std::vector<SyncEvent> events;
};

namespace {

// Communication and updates get the highest priority: when a GEMM's blocks retire, theirs are
// scheduled first, so they progress during backward instead of queueing behind it.
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

int variant_index(StepVariant variant) {
  return static_cast<int>(variant);
}

}  // namespace

DataParallelTrainer::DataParallelTrainer(const StepConfig& config)
    : DataParallelTrainer(config, no_communicators_) {}

DataParallelTrainer::DataParallelTrainer(const StepConfig& config,
                                         std::vector<NcclCommunicator>& communicators)
    : config_(config),
      layout_(config.model.layers, config.model.width, size_of(config.model.dtype),
              bucket_cap_bytes(config), config.ranks),
      communicators_(&communicators) {
  validate(config.model);
  const int n = config.ranks;
  if (n > visible_gpu_count()) {
    throw UnsupportedConfig(
        fmt::format("needs {} GPU{}, {} visible", n, n == 1 ? "" : "s", visible_gpu_count()));
  }
  if (n > 1 && static_cast<int>(communicators.size()) != n) {
    throw std::invalid_argument("DataParallelTrainer: one communicator per rank is needed");
  }
  auto range = named_range(fmt::format("setup {}", config_string(config)), 0x808080);
  const StepEvents events{layout_.layers(), static_cast<int>(layout_.buckets().size())};
  std::vector<RankContext> comm_ranks;
  std::vector<const ModelReplica*> replicas;
  for (int rank = 0; rank < n; ++rank) {
    const std::uint64_t first_sample = static_cast<std::uint64_t>(rank) * config.model.batch;
    replicas_.push_back(std::make_unique<ModelReplica>(config, layout_, rank, rank, first_sample,
                                                       optimizer_state(config.scheme, rank, n)));
    auto resources = std::make_unique<RankResources>(RankResources{
        rank, rank, Stream(rank), high_priority_stream(rank), high_priority_stream(rank), {}});
    for (int e = 0; e < events.count(); ++e) resources->events.push_back(ordering_event(rank));
    if (n > 1) comm_ranks.push_back({rank, rank, resources->comm.get(), communicators[rank].get()});
    replicas.push_back(replicas_.back().get());
    resources_.push_back(std::move(resources));
  }
  if (n > 1)
    sync_ = std::make_unique<GradientSync>(layout_, config.scheme, config.algo, config.model.dtype,
                                           comm_ranks, replicas);
  for (StepVariant variant :
       {StepVariant::full, StepVariant::compute_only, StepVariant::comm_only}) {
    schedules_[variant_index(variant)] =
        build_step_schedule(layout_, config.scheme, variant, n > 1);
  }
}

DataParallelTrainer::~DataParallelTrainer() {
  // Unwinding from a failure: peers may wait on work that will never come; abort so the device
  // synchronisation below (and freeing the buffers) cannot hang.
  if (std::uncaught_exceptions() > 0) abort_communication();
  for (const auto& r : resources_) {
    ScopedDevice on(r->device);
    CB_CUDA_CHECK_NOTHROW(cudaDeviceSynchronize());
  }
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
  return schedules_[variant_index(variant)];
}

cudaStream_t DataParallelTrainer::stream_of(int rank, StreamRole role) const {
  const RankResources& r = *resources_[rank];
  switch (role) {
    case StreamRole::comm:
      return r.comm.get();
    case StreamRole::optimizer:
      return r.optimizer.get();
    default:
      return r.compute.get();
  }
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
        sync_->launch(static_cast<std::size_t>(op.bucket), op.phase);
        break;
      default:
        for (int rank = 0; rank < ranks(); ++rank) {
          ScopedDevice on(resources_[rank]->device, rank);
          execute_on_rank(op, rank);
        }
    }
  }
}

void DataParallelTrainer::execute_on_rank(const StepOp& op, int rank) {
  const ModelReplica& replica = *replicas_[rank];
  RankResources& r = *resources_[rank];
  const cudaStream_t stream = stream_of(rank, op.stream);
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
    case StepOpKind::update: {
      const UpdateRange range =
          update_range(layout_, config_.scheme, static_cast<std::size_t>(op.bucket), rank);
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

std::vector<GraphExec>& DataParallelTrainer::graphs(StepVariant variant) {
  std::optional<std::vector<GraphExec>>& slot = graphs_[variant_index(variant)];
  if (!slot) {
    auto range = fixed_range<nvtx_names::graph_capture>();
    std::vector<RankContext> capturing;
    for (int rank = 0; rank < ranks(); ++rank) {
      capturing.push_back(
          {rank, resources_[rank]->device, resources_[rank]->compute.get(), nullptr});
    }
    StreamCapture capture(capturing);
    enqueue(schedule(variant));
    slot = instantiate_with_node_priority(capture.finish());
  }
  return *slot;
}

// Peers may wait forever on a rank that failed: stop every collective, so the device can be
// synchronised and the buffers freed.
void DataParallelTrainer::abort_communication() noexcept {
  if (sync_) sync_->abort();
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
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (std::size_t rank = 0; rank < events.size(); ++rank) {
    ScopedDevice on(events[rank]->device(), static_cast<int>(rank));
    while (true) {
      const cudaError_t status = cudaEventQuery(events[rank]->get());
      if (status == cudaSuccess) break;
      if (status != cudaErrorNotReady) CB_CUDA_CHECK(status);
      if (interrupt_signal() != 0) throw Interrupted(interrupt_signal());
      if (communicators_->size() > rank) (*communicators_)[rank].check_async_error();
      if (std::chrono::steady_clock::now() > deadline) {
        throw CaseTimeout(fmt::format("{} on {} ranks did not finish within {:g} s",
                                      config_string(config_), ranks(), timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  if (sync_) sync_->check_health();
}

void DataParallelTrainer::synchronize(double timeout_s) {
  std::vector<Event> done;
  std::vector<const Event*> waits;
  for (int rank = 0; rank < ranks(); ++rank) {
    done.emplace_back(resources_[rank]->device);
  }
  for (int rank = 0; rank < ranks(); ++rank) {
    ScopedDevice on(resources_[rank]->device, rank);
    // The compute stream joins the other two at the end of every step.
    CB_CUDA_CHECK(cudaEventRecord(done[rank].get(), resources_[rank]->compute.get()));
    waits.push_back(&done[rank]);
  }
  wait_for_events(waits, timeout_s);
}

std::vector<double> DataParallelTrainer::measure(StepVariant variant, int warmup, int iters,
                                                 bool use_graphs, double timeout_s) {
  std::vector<GraphExec>* execs = use_graphs ? &graphs(variant) : nullptr;
  const nvtxDomainHandle_t domain = nvtx3::domain::get<collbench_nvtx_domain>();
  // The labels outlive the attributes, which point at their text.
  static const std::string step_label = "step";
  static const std::string comm_label = "communication only";
  const nvtx3::event_attributes replay =
      range_attributes(variant == StepVariant::comm_only ? comm_label : step_label);
  auto launch_step = [&] {
    if (!execs) {
      enqueue(schedule(variant));
      return;
    }
    nvtxDomainRangePushEx(domain, replay.get());
    for (int rank = 0; rank < ranks(); ++rank) {
      ScopedDevice on(resources_[rank]->device, rank);
      CB_CUDA_CHECK(cudaGraphLaunch((*execs)[rank].get(), resources_[rank]->compute.get()));
    }
    nvtxDomainRangePop(domain);
  };
  {
    auto range = fixed_range<nvtx_names::warmup>();
    for (int step = 0; step < warmup; ++step) launch_step();
  }
  if (timing_events_.size() != static_cast<std::size_t>(ranks()) ||
      timing_events_.front().size() < static_cast<std::size_t>(iters) + 1) {
    timing_events_.clear();
    timing_events_.resize(static_cast<std::size_t>(ranks()));
    for (int rank = 0; rank < ranks(); ++rank) {
      for (int i = 0; i <= iters; ++i) timing_events_[rank].emplace_back(resources_[rank]->device);
    }
  }
  auto record = [&](int index) {
    for (int rank = 0; rank < ranks(); ++rank) {
      ScopedDevice on(resources_[rank]->device, rank);
      CB_CUDA_CHECK(
          cudaEventRecord(timing_events_[rank][index].get(), resources_[rank]->compute.get()));
    }
  };
  {
    auto range = fixed_range<nvtx_names::timed>();
    record(0);
    for (int i = 0; i < iters; ++i) {
      launch_step();
      record(i + 1);
    }
  }
  std::vector<const Event*> last;
  for (int rank = 0; rank < ranks(); ++rank) last.push_back(&timing_events_[rank][iters]);
  wait_for_events(last, timeout_s);
  std::vector<double> iteration_us(static_cast<std::size_t>(iters), 0.0);
  for (int rank = 0; rank < ranks(); ++rank) {
    ScopedDevice on(resources_[rank]->device, rank);
    for (int i = 0; i < iters; ++i) {
      const double us = 1e3 * elapsed_ms(timing_events_[rank][i], timing_events_[rank][i + 1]);
      iteration_us[i] = std::max(iteration_us[i], us);
    }
  }
  return iteration_us;
}

}  // namespace collbench::dp
