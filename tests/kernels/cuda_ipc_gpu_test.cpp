// The pieces of the hand-built algorithms' multi-process path that one process can check: a
// pointer exported as its allocation's IPC handle plus the right offset, and the NCCL all-gather
// of host records. The whole path (every type, reduction and GPU count across processes) runs
// under mpirun on the GPU machine: ci/device-run.sh mpi_algos.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu_test_support.hpp"
#include "runtime/cuda_ipc.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "runtime/process_all_gather.hpp"

namespace collbench::testing {
namespace {

TEST(CudaIpc, ExportsTheAllocationAndTheOffsetOfAnInteriorPointer) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  DeviceBuffer buffer(0, 1 << 20);
  const ExportedPointer base = export_pointer(buffer.get());
  EXPECT_EQ(base.present, 1u);
  EXPECT_EQ(base.offset, 0u);
  const ExportedPointer interior = export_pointer(buffer.as<unsigned char>() + 4096 + 16);
  EXPECT_EQ(interior.present, 1u);
  EXPECT_EQ(interior.offset, 4096u + 16u);
}

TEST(CudaIpc, ANullPointerTravelsAsAbsent) {
  SKIP_WITHOUT_GPUS(1);
  const ExportedPointer none = export_pointer(nullptr);
  EXPECT_EQ(none.present, 0u);
  const IpcMapping mapping(none, 0, 0);
  EXPECT_EQ(mapping.pointer(), nullptr);
}

TEST(ProcessAllGather, ReturnsEveryRanksRecordInRankOrder) {
  SKIP_WITHOUT_GPUS(1);
  std::vector<NcclCommunicator> comms = create_single_process_communicators({0});
  Stream stream(0);
  const RankContext rank{0, 0, stream.get(), comms.front().get()};
  struct Record {
    std::uint64_t value;
    std::int32_t rank;
    std::int32_t padding;
  };
  const std::vector<Record> all = all_gather_records(rank, Record{0xC0FFEE, 0, 0}, 1, 10);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.front().value, 0xC0FFEEu);
  EXPECT_EQ(all.front().rank, 0);
}

}  // namespace
}  // namespace collbench::testing
