// Tests of alltoallv traffic matrices: files, spreads and nccl-tests' byte counts.
#include "core/traffic_matrix.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace collbench {
namespace {

using Bytes = std::vector<std::uint64_t>;

std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The one-line message of the UsageError `call` throws, or "accepted".
template <typename Call>
std::string usage_error_of(Call call) {
  try {
    call();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

std::string parse_error_of(const std::string& text) {
  return usage_error_of([&] { parse_traffic_matrix("m.txt", text); });
}

std::string read_error_of(const std::string& path) {
  return usage_error_of([&] { read_traffic_matrix(path); });
}

TEST(TrafficMatrix, ReadsAFileWithCommentsCommasAndSuffixes) {
  const std::string path = write_temp_file("traffic_4x4.txt",
                                           "# alltoallv traffic, bytes from row to column\n"
                                           "\n"
                                           "0,   1K, 2K, 0   # rank 0\n"
                                           "  16 32 48 64\r\n"
                                           "1M, 0, 0, 4096\n"
                                           "\t# a comment line\n"
                                           "8 , 8 , 8 , 8");
  const TrafficMatrix matrix = read_traffic_matrix(path);
  EXPECT_EQ(matrix.ranks, 4);
  EXPECT_EQ(matrix.bytes,
            (Bytes{0, 1024, 2048, 0, 16, 32, 48, 64, 1 << 20, 0, 0, 4096, 8, 8, 8, 8}));
  EXPECT_EQ(matrix.at(2, 0), 1u << 20);
  EXPECT_EQ(matrix.sent_by(0), 3072u);
  EXPECT_EQ(matrix.sent_by(1), 160u);
  EXPECT_EQ(matrix.received_by(0), 16u + (1 << 20) + 8);
  EXPECT_EQ(matrix.received_by(3), 4168u);
  EXPECT_EQ(matrix.total(), 3072u + 160 + (1 << 20) + 4096 + 32);
}

TEST(TrafficMatrix, BadValuesNameTheLineAndValue) {
  EXPECT_EQ(parse_error_of("1 2\nx 4\n"),
            "traffic matrix m.txt line 2: 'x' is not a byte size (expected e.g. 8, 64K, 1M, 8G)");
  EXPECT_EQ(parse_error_of("1 2\n3 1.5\n"),
            "traffic matrix m.txt line 2: '1.5' has an unknown suffix (expected K, M, G or T)");
  EXPECT_EQ(parse_error_of("# header\n1 -2\n3 4\n"),
            "traffic matrix m.txt line 2: '-2' is negative");
  EXPECT_EQ(parse_error_of("99999999999999999999"),
            "traffic matrix m.txt line 1: '99999999999999999999' is too large");
  EXPECT_EQ(parse_error_of("2T 0\n0 0"),
            "traffic matrix m.txt line 1: '2T' is too large (at most 1 TiB an entry)");
  EXPECT_EQ(parse_error_of("1T 0\n0 1"),
            "traffic matrix m.txt line 2: '1' brings the total above 1 TiB");
  EXPECT_EQ(parse_error_of("1,,2\n"), "traffic matrix m.txt line 1: an empty value between commas");
  EXPECT_EQ(parse_error_of("1, 2,\n3, 4\n"),
            "traffic matrix m.txt line 1: an empty value between commas");
}

TEST(TrafficMatrix, BadShapesNameTheLine) {
  EXPECT_EQ(parse_error_of("1 2\n\n3\n"),
            "traffic matrix m.txt line 3: a row of 1 values where the first row has 2");
  EXPECT_EQ(parse_error_of("1 2\n3 4 5\n"),
            "traffic matrix m.txt line 2: a row of 3 values where the first row has 2");
  EXPECT_EQ(parse_error_of("1 2\n3 4\n5 6\n"),
            "traffic matrix m.txt line 3: row 3 of a matrix 2 values wide: not square");
  EXPECT_EQ(parse_error_of("1 2 3\n4 5 6\n# end\n"),
            "traffic matrix m.txt line 2: only 2 rows of 3 values: not square");
  EXPECT_EQ(parse_error_of("# nothing\n\n  \n"), "traffic matrix m.txt: empty (no values)");
  EXPECT_EQ(parse_error_of(""), "traffic matrix m.txt: empty (no values)");
}

TEST(TrafficMatrix, BadFilesNameThePath) {
  const std::string missing = testing::TempDir() + "no_such_traffic.txt";
  EXPECT_EQ(read_error_of(missing),
            "traffic matrix " + missing + ": cannot open: No such file or directory");
  const std::string directory = testing::TempDir() + "traffic_dir";
  ::mkdir(directory.c_str(), 0700);
  EXPECT_EQ(read_error_of(directory),
            "traffic matrix " + directory + ": a directory, not a regular file");
  const std::string huge =
      write_temp_file("traffic_huge.txt", std::string(kMaxTrafficFileBytes + 1, ' '));
  EXPECT_EQ(read_error_of(huge),
            "traffic matrix " + huge + ": too large: 16.0 MiB (the limit is 16.0 MiB)");
}

TEST(TrafficMatrix, SpreadZeroIsTheUniformAlltoall) {
  const TrafficMatrix matrix = spread_matrix(4, 4096, 0.0);
  EXPECT_EQ(matrix.ranks, 4);
  EXPECT_EQ(matrix.bytes, Bytes(16, 1024));
  // 100 / 4 = 25 bytes a peer, rounded down to 16 as nccl-tests does.
  EXPECT_EQ(spread_matrix(4, 100, 0.0).bytes, Bytes(16, 16));
}

// nccl-tests' formula: (1 - s) B / n + s d B / (n (n - 1) / 2), d = (j - i) mod n, rounded down
// to 16 bytes. At s = 1 on 4 ranks: 0, B/6, 2B/6, 3B/6 by forward distance.
TEST(TrafficMatrix, SpreadFollowsNcclTestsForwardDistance) {
  const TrafficMatrix full = spread_matrix(4, 6144, 1.0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(full.at(i, i), 0u);
    EXPECT_EQ(full.at(i, (i + 1) % 4), 1024u);
    EXPECT_EQ(full.at(i, (i + 2) % 4), 2048u);
    EXPECT_EQ(full.at(i, (i + 3) % 4), 3072u);
    EXPECT_EQ(full.sent_by(i), 6144u);
    EXPECT_EQ(full.received_by(i), 6144u);
  }
  // Half way: 768 uniform + 0, 512, 1024, 1536.
  const TrafficMatrix half = spread_matrix(4, 6144, 0.5);
  EXPECT_EQ((Bytes{half.at(2, 2), half.at(2, 3), half.at(2, 0), half.at(2, 1)}),
            (Bytes{768, 1280, 1792, 2304}));
  // Rounding: 1000 bytes, s = 1, 3 ranks: 0, 333.3 -> 320, 666.7 -> 656.
  const TrafficMatrix rounded = spread_matrix(3, 1000, 1.0);
  EXPECT_EQ((Bytes{rounded.at(0, 0), rounded.at(0, 1), rounded.at(0, 2)}), (Bytes{0, 320, 656}));
  EXPECT_EQ(spread_matrix(1, 1000, 1.0).bytes, Bytes{992});
}

TEST(TrafficMatrix, SpreadRefusesBadArguments) {
  auto error_of = [](int ranks, std::uint64_t bytes, double spread) {
    return usage_error_of([&] { spread_matrix(ranks, bytes, spread); });
  };
  EXPECT_EQ(error_of(4, 1024, 1.5), "--a2av-spread 1.5 is outside 0..1");
  EXPECT_EQ(error_of(4, 1024, -0.1), "--a2av-spread -0.1 is outside 0..1");
  EXPECT_EQ(error_of(0, 1024, 0.5), "alltoallv spread over 0 ranks (expected 1 to 4096)");
  EXPECT_EQ(error_of(4, (std::uint64_t{1} << 40) + 1, 0.5),
            "alltoallv spread of 1099511627777 bytes a rank is above 1 TiB");
}

// nccl-tests' alltoallv_perf: algbw counts the busiest rank's bytes sent or received.
TEST(TrafficMatrix, AlgbwBytesAreTheBusiestRanksAndBusFactorIsAlltoalls) {
  const TrafficMatrix matrix = parse_traffic_matrix("m", "0 100 200\n50 0 0\n10 20 30\n");
  // Sent 300, 50, 60; received 60, 120, 230: the busiest is rank 0 sending 300 (the mean is 136).
  EXPECT_EQ(alltoallv_algbw_bytes(matrix), 300u);
  const TrafficMatrix transposed = parse_traffic_matrix("m", "0 50 10\n100 0 20\n200 0 30\n");
  EXPECT_EQ(alltoallv_algbw_bytes(transposed), 300u);  // rank 0 receiving
  EXPECT_DOUBLE_EQ(alltoallv_bus_factor(3), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(alltoallv_bus_factor(8), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(alltoallv_bus_factor(1), 0.0);
  EXPECT_EQ(alltoallv_algbw_bytes(spread_matrix(4, 6144, 1.0)), 6144u);
}

TEST(TrafficMatrix, ElementCountsNeedWholeElements) {
  const TrafficMatrix matrix = parse_traffic_matrix("m", "0 16\n8 1K\n");
  EXPECT_EQ(alltoallv_element_counts(matrix, 1), (Bytes{0, 16, 8, 1024}));
  EXPECT_EQ(alltoallv_element_counts(matrix, 8), (Bytes{0, 2, 1, 128}));
  EXPECT_EQ(usage_error_of([&] { alltoallv_element_counts(matrix, 16); }),
            "alltoallv traffic from rank 1 to rank 0 (8 bytes) is not a whole number of 16-byte "
            "elements");
}

}  // namespace
}  // namespace collbench
