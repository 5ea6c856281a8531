// CUPTI through dlopen (kernel_trace.hpp): cupti.h gives the types, libcupti the functions.
#include "telemetry/kernel_trace.hpp"

#include <cupti.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace collbench {
namespace {

constexpr CUpti_ExternalCorrelationKind kTagKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
constexpr std::size_t kBufferBytes = 8u << 20;
// CUDA 13.0's CUPTI, the first whose records are the layouts read here (CUpti_ActivityKernel10,
// Memcpy6, Memset4); Nsight Systems 2025.3 brings one of this version into the processes it runs.
constexpr std::uint32_t kOldestCupti = 130000;

// The API records are what external correlation hangs on: without them CUPTI makes none.
constexpr CUpti_ActivityKind kRecordedKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                                 CUPTI_ACTIVITY_KIND_MEMCPY,
                                                 CUPTI_ACTIVITY_KIND_MEMSET,
                                                 CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                                 CUPTI_ACTIVITY_KIND_RUNTIME,
                                                 CUPTI_ACTIVITY_KIND_DRIVER};

// Set on the capturing thread while a TagScope lives: the resource callback (same thread) gives
// the nodes it sees made this tag.
thread_local std::uint64_t current_tag = 0;

// What a GPU record says before its tags are looked up (its API record may come later).
struct PendingActivity {
  std::uint32_t correlation = 0;
  std::uint64_t graph_node = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// Kernels, copies and memsets name these fields alike.
template <typename Record>
PendingActivity pending_of(const CUpti_Activity* record) {
  const auto* work = reinterpret_cast<const Record*>(record);
  return {work->correlationId, work->graphNodeId, work->start, work->end};
}

}  // namespace

struct KernelTrace::State {
  void* handle = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push_tag = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop_tag = nullptr;
  decltype(&cuptiGetVersion) version = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiGetGraphNodeId) graph_node_id = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;

  mutable std::mutex mutex;  // the callbacks run on CUPTI's and the capturing threads
  std::vector<PendingActivity> pending;
  std::unordered_map<std::uint32_t, std::uint64_t> tag_of_correlation;
  std::unordered_map<std::uint64_t, std::uint64_t> tag_of_node;  // captured and cloned nodes
  // What a take must not hide: records CUPTI dropped or could not finish, buffers it could not
  // read ("" when none).
  std::size_t lost_records = 0;
  std::string read_error;

  std::string describe(CUptiResult result) const {
    const char* text = nullptr;
    if (result_string && result_string(result, &text) == CUPTI_SUCCESS && text) return text;
    return fmt::format("CUPTI error {}", static_cast<int>(result));
  }
  void check(CUptiResult result, const char* call) const {
    if (result != CUPTI_SUCCESS)
      throw std::runtime_error(fmt::format("{} failed: {}", call, describe(result)));
  }
  void read_buffer(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                   std::size_t valid_bytes);
  void keep(const PendingActivity& activity);
  void node_made(CUpti_CallbackId id, const CUpti_GraphData& graph);
};

namespace {

// For CUPTI's buffer callbacks, which take no user data; set before they are registered.
std::atomic<KernelTrace::State*> the_state{nullptr};

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // none: CUPTI drops records, and counts them
  *records = 0;                        // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                               std::size_t, std::size_t valid_bytes) {
  if (KernelTrace::State* state = the_state.load()) {
    state->read_buffer(context, stream, buffer, valid_bytes);
  }
  std::free(buffer);
}

void CUPTIAPI resource_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* graph = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
  if (graph) static_cast<KernelTrace::State*>(user)->node_made(id, *graph);
}

}  // namespace

// A record CUPTI could not finish (flushed before its end was known) has no times: lost.
void KernelTrace::State::keep(const PendingActivity& activity) {
  if (activity.start_ns == 0 || activity.end_ns < activity.start_ns) {
    ++lost_records;
    return;
  }
  pending.push_back(activity);
}

void KernelTrace::State::read_buffer(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                                     std::size_t valid_bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  CUpti_Activity* record = nullptr;
  CUptiResult result = CUPTI_SUCCESS;
  while ((result = next_record(buffer, valid_bytes, &record)) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        keep(pending_of<CUpti_ActivityKernel10>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        keep(pending_of<CUpti_ActivityMemcpy6>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        keep(pending_of<CUpti_ActivityMemset4>(record));
        break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* link = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (link->externalKind == kTagKind)
          tag_of_correlation[link->correlationId] = link->externalId;
        break;
      }
      default:
        break;
    }
  }
  if (result != CUPTI_ERROR_MAX_LIMIT_REACHED && read_error.empty())
    read_error = fmt::format("cuptiActivityGetNextRecord: {}", describe(result));
  std::size_t dropped = 0;
  if (dropped_records(context, stream, &dropped) == CUPTI_SUCCESS) lost_records += dropped;
}

// Captured nodes take the thread's tag; an instantiated graph's clones their original's.
void KernelTrace::State::node_made(CUpti_CallbackId id, const CUpti_GraphData& graph) {
  std::uint64_t node = 0;
  if (!graph.node || graph_node_id(graph.node, &node) != CUPTI_SUCCESS) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && current_tag != 0) {
    tag_of_node[node] = current_tag;
  } else if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && graph.originalNode) {
    std::uint64_t original = 0;
    if (graph_node_id(graph.originalNode, &original) != CUPTI_SUCCESS) return;
    const auto found = tag_of_node.find(original);
    if (found != tag_of_node.end()) tag_of_node[node] = found->second;
  }
}

KernelTrace::KernelTrace() : state_(new State()) {}

// Never destroyed (shared() keeps it to the process's end, past CUDA's own teardown).
KernelTrace::~KernelTrace() = default;

std::unique_ptr<KernelTrace> KernelTrace::open(std::string& why_not) {
  std::unique_ptr<KernelTrace> trace(new KernelTrace());
  State& state = *trace->state_;
  // Only the CUPTI its records' layouts were read from (cupti.h of CUDA 13): the loader's path,
  // then where CUDA's toolkit puts it (often not on the loader's path).
  std::string load_error;
  for (const char* name : {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"}) {
    if ((state.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (load_error.empty()) load_error = dlerror();
  }
  if (!state.handle) {
    why_not = load_error;
    return nullptr;
  }
  // Before subscribing, a refusal closes the library again.
  const auto refuse = [&](std::string why) {
    why_not = std::move(why);
    dlclose(state.handle);
    return nullptr;
  };
  auto load = [&state](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(state.handle, symbol));
    return fn != nullptr;
  };
  if (!(load(state.register_callbacks, "cuptiActivityRegisterCallbacks") &&
        load(state.enable, "cuptiActivityEnable") && load(state.disable, "cuptiActivityDisable") &&
        load(state.flush_all, "cuptiActivityFlushAll") &&
        load(state.next_record, "cuptiActivityGetNextRecord") &&
        load(state.push_tag, "cuptiActivityPushExternalCorrelationId") &&
        load(state.pop_tag, "cuptiActivityPopExternalCorrelationId") &&
        load(state.version, "cuptiGetVersion") &&
        load(state.dropped_records, "cuptiActivityGetNumDroppedRecords") &&
        load(state.subscribe, "cuptiSubscribe") && load(state.unsubscribe, "cuptiUnsubscribe") &&
        load(state.enable_callback, "cuptiEnableCallback") &&
        load(state.graph_node_id, "cuptiGetGraphNodeId") &&
        load(state.result_string, "cuptiGetResultString"))) {
    return refuse("libcupti.so.13 lacks a function the trace needs");
  }
  std::uint32_t version = 0;
  if (state.version(&version) != CUPTI_SUCCESS || version < kOldestCupti)
    return refuse(fmt::format("libcupti's API version {} is older than {}", version, kOldestCupti));
  // Another profiler (Nsight Systems, PyTorch's) is refused here: one subscriber per process.
  if (const CUptiResult result = state.subscribe(&state.subscriber, resource_callback, &state);
      result != CUPTI_SUCCESS)
    return refuse(fmt::format("cuptiSubscribe: {}", state.describe(result)));
  // From here CUPTI holds `state`: a failure unsubscribes and leaves it (and the library) be,
  // since a callback may still be under way.
  const auto fail = [&](const char* call, CUptiResult result) {
    why_not = fmt::format("{}: {}", call, state.describe(result));
    the_state = nullptr;
    state.unsubscribe(state.subscriber);
    trace.release();
    return nullptr;
  };
  for (const CUpti_CallbackId id :
       {CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED}) {
    if (const CUptiResult result =
            state.enable_callback(1, state.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id);
        result != CUPTI_SUCCESS)
      return fail("cuptiEnableCallback", result);
  }
  the_state = &state;
  if (const CUptiResult result = state.register_callbacks(buffer_requested, buffer_completed);
      result != CUPTI_SUCCESS)
    return fail("cuptiActivityRegisterCallbacks", result);
  // Tried once here, so that a machine where kernels cannot be traced says so before any run.
  if (const CUptiResult result = state.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      result != CUPTI_SUCCESS)
    return fail("cuptiActivityEnable", result);
  if (const CUptiResult result = state.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      result != CUPTI_SUCCESS)
    return fail("cuptiActivityDisable", result);
  return trace;
}

KernelTrace* KernelTrace::shared(std::string* why_not) {
  static std::string reason;
  // Leaked on purpose: CUPTI must not be torn down after the CUDA runtime at exit.
  static KernelTrace* const trace = open(reason).release();
  if (!trace && why_not) *why_not = reason;
  return trace;
}

KernelTrace::Recording::Recording(const KernelTrace& trace) : trace_(trace) {
  const State& state = *trace_.state_;
  for (const CUpti_ActivityKind kind : kRecordedKinds) {
    if (const CUptiResult result = state.enable(kind); result != CUPTI_SUCCESS) {
      for (const CUpti_ActivityKind enabled : kRecordedKinds) state.disable(enabled);
      state.check(result, "cuptiActivityEnable");
    }
  }
}

KernelTrace::Recording::~Recording() {
  const State& state = *trace_.state_;
  for (const CUpti_ActivityKind kind : kRecordedKinds) {
    if (const CUptiResult result = state.disable(kind); result != CUPTI_SUCCESS)
      std::fprintf(stderr, "collbench: cuptiActivityDisable(%d): %s\n", static_cast<int>(kind),
                   state.describe(result).c_str());
  }
}

KernelTrace::TagScope::TagScope(const KernelTrace& trace, std::uint64_t tag)
    : trace_(trace), outer_(current_tag) {
  trace_.state_->check(trace_.state_->push_tag(kTagKind, tag),
                       "cuptiActivityPushExternalCorrelationId");
  current_tag = tag;
}

KernelTrace::TagScope::~TagScope() {
  std::uint64_t popped = 0;
  if (const CUptiResult result = trace_.state_->pop_tag(kTagKind, &popped); result != CUPTI_SUCCESS)
    std::fprintf(stderr, "collbench: cuptiActivityPopExternalCorrelationId: %s\n",
                 trace_.state_->describe(result).c_str());
  current_tag = outer_;
}

std::vector<TracedActivity> KernelTrace::take() const {
  State& state = *state_;
  state.check(state.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> lock(state.mutex);
  // Times with pieces missing would be wrong times: an op whose kernels went unrecorded would
  // read as an op with nothing on the GPU.
  if (!state.read_error.empty() || state.lost_records > 0) {
    const std::string what =
        state.read_error.empty()
            ? fmt::format("CUPTI lost {} kernel, copy or memset records", state.lost_records)
            : state.read_error;
    state.read_error.clear();
    state.lost_records = 0;
    state.pending.clear();
    state.tag_of_correlation.clear();
    throw std::runtime_error("the kernel trace is incomplete: " + what);
  }
  std::vector<TracedActivity> taken;
  taken.reserve(state.pending.size());
  for (const PendingActivity& activity : state.pending) {
    TracedActivity traced{0, 0, activity.start_ns, activity.end_ns};
    if (const auto found = state.tag_of_correlation.find(activity.correlation);
        found != state.tag_of_correlation.end())
      traced.launch_tag = found->second;
    if (activity.graph_node != 0) {
      if (const auto found = state.tag_of_node.find(activity.graph_node);
          found != state.tag_of_node.end())
        traced.node_tag = found->second;
    }
    taken.push_back(traced);
  }
  state.pending.clear();
  state.tag_of_correlation.clear();
  return taken;
}

}  // namespace collbench
