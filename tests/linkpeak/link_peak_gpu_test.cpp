// GPU tests of the link-peak probe: both copy methods move the data exactly (including a tail
// shorter than 16 bytes), one direction and both at once, with a time for every iteration.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "link_peak_probe.hpp"
#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench::link_peak {
namespace {

// 1 MiB plus 12 bytes: the SM kernel's 16-byte body and its byte tail are both checked.
constexpr std::size_t kBytes = (std::size_t{1} << 20) + 12;

void expect_exact(const std::vector<TransferResult>& results, std::size_t transfers, int iters) {
  ASSERT_EQ(results.size(), transfers);
  for (const TransferResult& result : results) {
    if (!result.skipped_reason.empty()) continue;
    EXPECT_EQ(result.checked_words, kBytes / 4);
    EXPECT_EQ(result.wrong_words, 0u) << result.transfer.src << "->" << result.transfer.dst;
    ASSERT_EQ(result.iteration_us.size(), static_cast<std::size_t>(iters));
    for (double us : result.iteration_us) EXPECT_GT(us, 0.0);
  }
}

TEST(LinkPeakGpu, CopiesAreExactInEveryPattern) {
  const int count = visible_gpu_count();
  if (count < 2) GTEST_SKIP() << "needs 2 GPUs, " << count << " visible";
  LinkPeakProbe probe(2, kBytes);
  for (CopyMethod method : {CopyMethod::copy_engine, CopyMethod::sm_copy}) {
    SCOPED_TRACE(method_name(method));
    expect_exact(probe.measure(method, {{0, 1}}, 1, 3), 1, 3);
    expect_exact(probe.measure(method, {{1, 0}}, 0, 2), 1, 2);
    expect_exact(probe.measure(method, {{0, 1}, {1, 0}}, 1, 2), 2, 2);
  }
}

TEST(LinkPeakGpu, SmCopyNeedsPeerAccessAndSaysSo) {
  const int count = visible_gpu_count();
  if (count < 2) GTEST_SKIP() << "needs 2 GPUs, " << count << " visible";
  LinkPeakProbe probe(2, kBytes);
  const auto results = probe.measure(CopyMethod::sm_copy, {{0, 1}}, 0, 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].skipped_reason.empty(), probe.can_access_peer(1, 0))
      << results[0].skipped_reason;
}

TEST(LinkPeakGpu, RejectsGroupsAGpuReceivesTwiceIn) {
  const int count = visible_gpu_count();
  if (count < 3) GTEST_SKIP() << "needs 3 GPUs, " << count << " visible";
  LinkPeakProbe probe(3, 4096);
  EXPECT_THROW(probe.measure(CopyMethod::copy_engine, {{0, 2}, {1, 2}}, 0, 1),
               std::invalid_argument);
  EXPECT_THROW(probe.measure(CopyMethod::copy_engine, {{1, 1}}, 0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace collbench::link_peak
