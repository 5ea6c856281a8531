// The shared pieces of the hand-built all-reduce GPU tests.
#include "handbuilt_gpu_fixture.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "fill_check.hpp"
#include "measure/runner.hpp"

namespace collbench::testing {

CaseShape all_reduce_shape(DataType type, ReduceOp op, std::size_t count, int nranks,
                           bool in_place) {
  return {&find_collective("all_reduce"), {count, count, count}, type, op, -1, nranks, in_place};
}

kernels::PatternParams pattern_of(const CaseShape& shape, std::uint64_t seed) {
  return {seed,
          shape.nranks,
          0,
          shape.counts.param,
          static_cast<kernels::ElementType>(shape.type),
          static_cast<kernels::Reduction>(shape.op)};
}

GpuRanks::GpuRanks(int nranks, std::size_t max_bytes, int gpus) {
  if (gpus <= 0) gpus = nranks;
  std::vector<int> devices;
  for (int r = 0; r < nranks; ++r) devices.push_back(r % gpus);
  if (gpus >= nranks) communicators_ = create_single_process_communicators(devices);
  const std::size_t bytes = max_bytes + 64;  // room for a misaligning offset
  for (int r = 0; r < nranks; ++r) {
    const int device = devices[r];
    streams_.emplace_back(device);
    contexts_.push_back({r, device, streams_.back().get(),
                         communicators_.empty() ? nullptr : communicators_[r].get()});
    first_.emplace_back(device, bytes);
    second_.emplace_back(device, bytes);
    reference_.emplace_back(device, bytes);
    counter_.emplace_back(device, sizeof(unsigned long long));
  }
}

std::vector<RankBuffers> GpuRanks::buffers(bool in_place, std::size_t offset_bytes) const {
  std::vector<RankBuffers> result;
  for (int r = 0; r < size(); ++r) {
    char* recv = first_[r].as<char>() + offset_bytes;
    const char* send = in_place ? recv : second_[r].as<char>() + offset_bytes;
    result.push_back({send, recv});
  }
  return result;
}

void GpuRanks::fill_inputs(const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                           std::uint64_t seed) const {
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    kernels::launch_fill(const_cast<void*>(buffers[r].send), shape.counts.param,
                         pattern_of(shape, seed), r, contexts_[r].stream);
    CB_CHECK_LAUNCH();
  }
}

void GpuRanks::nccl_reference(const std::vector<RankBuffers>& buffers,
                              const CaseShape& shape) const {
  if (communicators_.empty()) {
    throw std::logic_error("NCCL's reference needs one rank per GPU; these ranks share GPUs");
  }
  CB_NCCL_CHECK(ncclGroupStart());
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    CB_NCCL_CHECK(ncclAllReduce(buffers[r].send, reference_[r].get(), shape.counts.param,
                                nccl_type_of(shape.type), nccl_op_of(shape.op), contexts_[r].comm,
                                contexts_[r].stream));
  }
  CB_NCCL_CHECK(ncclGroupEnd());
}

void GpuRanks::enqueue_check(const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                             std::uint64_t seed) const {
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    kernels::launch_count_mismatches(buffers[r].recv, shape.counts.param, pattern_of(shape, seed),
                                     shape.spec->expected, r, counter_[r].as<unsigned long long>(),
                                     contexts_[r].stream);
    CB_CHECK_LAUNCH();
  }
}

void GpuRanks::enqueue_poison(const std::vector<RankBuffers>& buffers,
                              const CaseShape& shape) const {
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    // All-ones bytes: NaN for floating point, -1 or the maximum for integers, never an expected
    // value.
    CB_CUDA_CHECK(cudaMemsetAsync(buffers[r].recv, 0xFF, shape.counts.param * size_of(shape.type),
                                  contexts_[r].stream));
  }
}

void GpuRanks::reset_counters() const {
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    CB_CUDA_CHECK(
        cudaMemsetAsync(counter_[r].get(), 0, sizeof(unsigned long long), contexts_[r].stream));
  }
}

void GpuRanks::synchronize() const {
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    CB_CUDA_CHECK(cudaStreamSynchronize(contexts_[r].stream));
  }
}

unsigned long long GpuRanks::mismatches() const {
  synchronize();
  unsigned long long total = 0;
  for (int r = 0; r < size(); ++r) {
    ScopedDevice on(contexts_[r].device, r);
    unsigned long long wrong = 0;
    CB_CUDA_CHECK(cudaMemcpy(&wrong, counter_[r].get(), sizeof(wrong), cudaMemcpyDeviceToHost));
    total += wrong;
  }
  return total;
}

namespace {
std::vector<std::vector<unsigned char>> read_back(const std::vector<RankContext>& ranks,
                                                  const std::vector<const void*>& sources,
                                                  std::size_t bytes) {
  std::vector<std::vector<unsigned char>> result;
  for (std::size_t r = 0; r < sources.size(); ++r) {
    ScopedDevice on(ranks[r].device, ranks[r].rank);
    result.emplace_back(bytes);
    CB_CUDA_CHECK(cudaMemcpy(result.back().data(), sources[r], bytes, cudaMemcpyDeviceToHost));
  }
  return result;
}
}  // namespace

std::vector<std::vector<unsigned char>> GpuRanks::read_outputs(
    const std::vector<RankBuffers>& buffers, const CaseShape& shape) const {
  synchronize();
  std::vector<const void*> sources;
  for (const RankBuffers& b : buffers) sources.push_back(b.recv);
  return read_back(contexts_, sources, shape.counts.param * size_of(shape.type));
}

std::vector<std::vector<unsigned char>> GpuRanks::read_references(const CaseShape& shape) const {
  synchronize();
  std::vector<const void*> sources;
  for (const DeviceBuffer& b : reference_) sources.push_back(b.get());
  return read_back(contexts_, sources, shape.counts.param * size_of(shape.type));
}

std::unique_ptr<HandbuiltAlgorithm> make_algorithm(const std::string& label,
                                                   const std::vector<RankContext>& ranks,
                                                   Tunings tunings) {
  constexpr std::string_view kDirect = "_direct";
  if (label.size() > kDirect.size() &&
      label.compare(label.size() - kDirect.size(), kDirect.size(), kDirect) == 0) {
    tunings.ring.launch = tunings.oneshot.launch = tunings.twoshot.launch =
        PeerKernelLaunch::direct;
    return make_algorithm(label.substr(0, label.size() - kDirect.size()), ranks, tunings);
  }
  tunings.ring.peer = tunings.oneshot.peer = tunings.twoshot.peer = tunings.copy_engine.peer =
      tunings.peer;
  if (label == "oneshot_pdl" || label == "oneshot_nopdl") {
    tunings.oneshot.programmatic =
        label == "oneshot_pdl" ? ProgrammaticLaunch::on : ProgrammaticLaunch::off;
    return make_oneshot(ranks, tunings.oneshot);
  }
  if (label == "twoshot_slices") {
    tunings.twoshot.ctas = 8;
    tunings.twoshot.slice_bytes = 4096;
    return make_twoshot(ranks, tunings.twoshot);
  }
  if (label == "ring_pull") {
    tunings.ring.protocol = kernels::RingProtocol::pull;
    return make_ring(ranks, tunings.ring);
  }
  if (label == "ring") return make_ring(ranks, tunings.ring);
  if (label == "oneshot") return make_oneshot(ranks, tunings.oneshot);
  if (label == "twoshot") return make_twoshot(ranks, tunings.twoshot);
  if (label == "copy_engine") {
    return make_copy_engine(ranks, tunings.copy_engine, CopyEngineExchange::direct);
  }
  if (label == "copy_engine_ring") {
    return make_copy_engine(ranks, tunings.copy_engine, CopyEngineExchange::ring);
  }
  return make_handbuilt_algorithm(label, ranks);  // ring_sendrecv: nothing to tune
}

std::string run_and_compare(GpuRanks& gpus, CollectiveAlgorithm& algorithm, const CaseShape& shape,
                            std::size_t offset_bytes) {
  if (std::string why = algorithm.unsupported_reason(shape); !why.empty()) {
    return "unsupported: " + why;
  }
  const std::vector<RankBuffers> buffers = gpus.buffers(shape.in_place, offset_bytes);
  gpus.fill_inputs(buffers, shape, kSeed);
  // Reads the input before an in-place run overwrites it.
  if (gpus.has_nccl_reference()) gpus.nccl_reference(buffers, shape);
  algorithm.prepare(gpus.contexts(), buffers, shape);
  gpus.reset_counters();
  algorithm.launch(gpus.contexts(), buffers, shape, 1);
  gpus.enqueue_check(buffers, shape, kSeed);
  std::string problems;
  if (const unsigned long long wrong = gpus.mismatches(); wrong != 0) {
    problems = std::to_string(wrong) + " elements differ from the exact expected value; ";
  }
  algorithm.check_health();
  const std::vector<std::vector<unsigned char>> outputs = gpus.read_outputs(buffers, shape);
  // Without NCCL, rank 0's output is the reference: what is left to compare is identity.
  return problems + compare_with_reference(shape, outputs,
                                           gpus.has_nccl_reference()
                                               ? gpus.read_references(shape)
                                               : std::vector<std::vector<unsigned char>>(
                                                     outputs.size(), outputs.front()));
}

unsigned long long launch_with_reused_buffers(GpuRanks& gpus, CollectiveAlgorithm& algorithm,
                                              const CaseShape& shape, int launches) {
  const std::vector<RankBuffers> buffers = gpus.buffers(shape.in_place);
  algorithm.prepare(gpus.contexts(), buffers, shape);
  gpus.reset_counters();
  for (int i = 0; i < launches; ++i) {
    gpus.fill_inputs(buffers, shape, kSeed + i);
    algorithm.launch(gpus.contexts(), buffers, shape, 1);
    gpus.enqueue_check(buffers, shape, kSeed + i);
    gpus.enqueue_poison(buffers, shape);
  }
  return gpus.mismatches();
}

namespace {

double element_as_double(DataType type, const unsigned char* bytes) {
  auto read = [bytes](auto value) {
    std::memcpy(&value, bytes, sizeof(value));
    return value;
  };
  switch (type) {
    case DataType::half:
      return __half2float(read(__half{}));
    case DataType::bfloat16:
      return __bfloat162float(read(__nv_bfloat16{}));
    case DataType::float32:
      return read(float{});
    case DataType::float64:
      return read(double{});
    default:
      return 0;  // integers are compared bitwise
  }
}

}  // namespace

std::string compare_with_reference(const CaseShape& shape,
                                   const std::vector<std::vector<unsigned char>>& outputs,
                                   const std::vector<std::vector<unsigned char>>& references) {
  const std::size_t element = size_of(shape.type);
  std::ostringstream problems;
  for (std::size_t r = 1; r < outputs.size(); ++r) {
    if (outputs[r] != outputs[0]) {
      problems << "rank " << r << "'s output differs bitwise from rank 0's; ";
    }
  }
  for (std::size_t r = 0; r < outputs.size(); ++r) {
    std::size_t wrong = 0, first_wrong = 0;
    for (std::size_t i = 0; i < shape.counts.param; ++i) {
      const unsigned char* got = outputs[r].data() + i * element;
      const unsigned char* want = references[r].data() + i * element;
      bool same = std::memcmp(got, want, element) == 0;
      if (!same && is_floating(shape.type)) {
        const double a = element_as_double(shape.type, got);
        const double b = element_as_double(shape.type, want);
        // Both sides round (NCCL scales each input by 1/n before summing an avg), and their
        // errors scale with the inputs' magnitude, not the result's: when an average cancels to
        // near zero, a bound relative to the result would be far too tight. Each side is within
        // the harness's own bound of the exact value, so they differ by at most twice it.
        const double tolerance = 2.0 * kernels::average_tolerance(pattern_of(shape, 0), b);
        same = std::fabs(a - b) <= tolerance;
      }
      if (!same && wrong++ == 0) first_wrong = i;
    }
    if (wrong > 0) {
      problems << "rank " << r << ": " << wrong << " elements differ from NCCL's, first at "
               << first_wrong << "; ";
    }
  }
  return problems.str();
}

}  // namespace collbench::testing
