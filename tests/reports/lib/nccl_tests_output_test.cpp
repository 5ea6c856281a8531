// The reader of nccl-tests' standard output: the fixtures of tests/reports/fixtures/nccl_tests
// (written with the printf formats of nccl-tests 2.19's src/util.cu), and every refusal with its
// line; and the mapping of nccl-tests' names to collbench's.
#include "reports/nccl_tests_output.hpp"

#include <gtest/gtest.h>

#include "reports/csv_reader.hpp"
#include "reports/nccl_tests_names.hpp"
#include "support/csv_text.hpp"
#include "support/nccl_tests_fixtures.hpp"

namespace collbench::report {
namespace {

using fixtures::nccl_tests_fixture;
using fixtures::nccl_tests_fixture_text;

// The message of the ReportError that parsing `text` (named "out.txt") throws, or "" if none.
std::string error_of(const std::string& text) {
  try {
    parse_nccl_tests_output("out.txt", text);
  } catch (const ReportError& error) {
    return error.what();
  }
  return "";
}

// The all_reduce fixture with the first occurrence of `from` replaced by `to`.
std::string all_reduce_with(const std::string& from, const std::string& to) {
  std::string text = nccl_tests_fixture_text("all_reduce_8gpus_c1.txt");
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::invalid_argument("not in the fixture: " + from);
  return text.replace(at, from.size(), to);
}

TEST(NcclTestsOutput, ReadsTheHeaderRanksAndDataOfAnAllReduceRun) {
  const NcclTestsOutput output =
      read_nccl_tests_output(nccl_tests_fixture("all_reduce_8gpus_c1.txt"));
  ASSERT_EQ(output.runs.size(), 1u);
  const NcclTestsRun& run = output.runs[0];
  EXPECT_EQ(run.line, 2u);  // line 1 is the launcher's, ignored
  EXPECT_EQ(run.version, "2.19.6");
  EXPECT_EQ(run.nccl_headers, 22803);
  EXPECT_EQ(run.nccl_library, 22803);
  EXPECT_EQ(run.program, "all_reduce_perf");
  EXPECT_EQ(run.threads, 8);
  EXPECT_EQ(run.gpus_per_thread, 1);
  EXPECT_EQ(run.warmup_iters, 5);
  EXPECT_EQ(run.iters, 20);
  EXPECT_EQ(run.agg_iters, 1);
  EXPECT_EQ(run.validation, 1);
  EXPECT_EQ(run.graph, 0);
  EXPECT_FALSE(run.cpu_time);
  ASSERT_EQ(run.ranks.size(), 8u);
  const NcclTestsRankLine& rank3 = run.ranks[3];
  EXPECT_EQ(rank3.line, 10u);
  EXPECT_EQ(rank3.rank, 3);
  EXPECT_EQ(rank3.group, 0);
  EXPECT_EQ(rank3.pid, 51234);
  EXPECT_EQ(rank3.host, "gpu-node-07");
  EXPECT_EQ(rank3.device, 3);
  EXPECT_EQ(rank3.bus_id, "0000:5d:00");
  EXPECT_EQ(rank3.gpu_name, "NVIDIA H200");
  ASSERT_EQ(run.data.size(), 9u);
  const NcclTestsDataLine& first = run.data.front();
  EXPECT_EQ(first.line, 20u);  // after the NCCL INFO line and the three column header lines
  EXPECT_EQ(first.bytes, 8u);
  EXPECT_EQ(first.count, 2u);
  EXPECT_EQ(first.type, "float");
  EXPECT_EQ(first.redop, "sum");
  EXPECT_EQ(first.root, -1);
  EXPECT_DOUBLE_EQ(first.out_of_place.time_us, 17.85);
  EXPECT_DOUBLE_EQ(first.in_place.time_us, 17.62);
  EXPECT_EQ(first.out_of_place.wrong_elements, std::optional<std::uint64_t>(0));
  EXPECT_FALSE(first.out_of_place.iterations);
  const NcclTestsDataLine& last = run.data.back();
  EXPECT_EQ(last.bytes, 134217728u);
  EXPECT_DOUBLE_EQ(last.out_of_place.time_us, 773.5);
  EXPECT_DOUBLE_EQ(last.out_of_place.algbw_gbps, 173.52);
  EXPECT_DOUBLE_EQ(last.out_of_place.busbw_gbps, 303.66);
  EXPECT_DOUBLE_EQ(last.in_place.busbw_gbps, 304.29);
  EXPECT_DOUBLE_EQ(run.avg_busbw_gbps, 65.5401);
}

TEST(NcclTestsOutput, WrongElementsNotCheckedAreNone) {
  const NcclTestsOutput output =
      read_nccl_tests_output(nccl_tests_fixture("all_gather_2procs_c0.txt"));
  const NcclTestsRun& run = output.runs.at(0);
  EXPECT_EQ(run.validation, 0);
  ASSERT_EQ(run.ranks.size(), 2u);
  EXPECT_EQ(run.ranks[0].pid, 7001);
  EXPECT_EQ(run.ranks[1].pid, 7002);
  for (const NcclTestsDataLine& line : run.data) {
    EXPECT_FALSE(line.out_of_place.wrong_elements) << line.line;
    EXPECT_FALSE(line.in_place.wrong_elements) << line.line;
    EXPECT_EQ(line.redop, "none");
  }
  EXPECT_DOUBLE_EQ(run.data.back().out_of_place.time_us, 1501.3);
}

TEST(NcclTestsOutput, AlltoallvAndSplitGroups) {
  const NcclTestsRun alltoallv =
      read_nccl_tests_output(nccl_tests_fixture("alltoallv_4gpus.txt")).runs.at(0);
  EXPECT_EQ(alltoallv.program, "alltoallv_perf");
  ASSERT_EQ(alltoallv.data.size(), 3u);
  EXPECT_EQ(alltoallv.data[0].type, "bfloat16");
  EXPECT_EQ(alltoallv.data[0].redop, "none");
  EXPECT_EQ(alltoallv.data[0].root, -1);

  const NcclTestsRun split =
      read_nccl_tests_output(nccl_tests_fixture("all_reduce_split_mod2.txt")).runs.at(0);
  ASSERT_EQ(split.ranks.size(), 4u);
  for (const NcclTestsRankLine& rank : split.ranks) EXPECT_EQ(rank.group, rank.rank % 2);
}

// Two runs in one file; the second with per-iteration statistics (-I 1), timestamps (-S 1) and
// two cycles (-N 2).
TEST(NcclTestsOutput, SeveralRunsPerIterationColumnsAndTimestamps) {
  const NcclTestsOutput output =
      read_nccl_tests_output(nccl_tests_fixture("broadcast_then_sendrecv.txt"));
  ASSERT_EQ(output.runs.size(), 2u);
  EXPECT_EQ(output.runs[0].program, "broadcast_perf");
  EXPECT_EQ(output.runs[0].data.at(0).root, 1);
  const NcclTestsRun& sendrecv = output.runs[1];
  EXPECT_EQ(sendrecv.program, "sendrecv_perf");
  EXPECT_EQ(sendrecv.line, 19u);
  ASSERT_EQ(sendrecv.data.size(), 4u);
  const NcclTestsDataLine& line = sendrecv.data[0];
  EXPECT_EQ(line.redop, "sum");  // sendrecv prints its -o, though it does not reduce
  ASSERT_TRUE(line.out_of_place.iterations);
  ASSERT_TRUE(line.in_place.iterations);
  EXPECT_DOUBLE_EQ(line.out_of_place.time_us, 9.81);
  EXPECT_DOUBLE_EQ(line.out_of_place.iterations->min_us, 8.83);
  EXPECT_DOUBLE_EQ(line.out_of_place.iterations->max_us, 13.73);
  EXPECT_DOUBLE_EQ(line.out_of_place.iterations->p99_us, 12.75);
  EXPECT_DOUBLE_EQ(line.out_of_place.iterations->cv_pct, 4.2);
  EXPECT_DOUBLE_EQ(line.in_place.iterations->max_us, 14.71);
  EXPECT_EQ(sendrecv.data[2].bytes, 4096u);  // the second cycle
  EXPECT_DOUBLE_EQ(sendrecv.data[2].out_of_place.time_us, 9.91);
}

TEST(NcclTestsOutput, ToleratesCarriageReturnsNcclLogLinesAndCpuTime) {
  std::string crlf;
  for (const std::string& line :
       fixtures::split_lines(nccl_tests_fixture_text("all_reduce_8gpus_c1.txt"))) {
    crlf += line + "\r\n";
  }
  EXPECT_EQ(parse_nccl_tests_output("out.txt", crlf).runs.at(0).data.size(), 9u);

  const std::string warn = all_reduce_with(
      "        4096",
      "gpu-node-07:51234:51300 [3] NCCL WARN a warning in the middle\n        4096");
  EXPECT_EQ(parse_nccl_tests_output("out.txt", warn).runs.at(0).data.size(), 9u);

  // -C 1 prints cputime for time in both placements.
  std::string cpu = all_reduce_with(" root     time ", " root  cputime ");
  cpu = cpu.replace(cpu.find("#wrong     time "), 16, "#wrong  cputime ");
  EXPECT_TRUE(parse_nccl_tests_output("out.txt", cpu).runs.at(0).cpu_time);
}

TEST(NcclTestsOutput, LargeNumbersInTheShortestFormat) {
  // getFloatStr falls back to fewer decimals, then to an exponent, as a width fills up.
  const std::string text =
      all_reduce_with("   773.50  173.52  303.66       0", " 1.2e+05  173.52  303.66  1.2e+06");
  const NcclTestsDataLine& last = parse_nccl_tests_output("out.txt", text).runs.at(0).data.back();
  EXPECT_DOUBLE_EQ(last.out_of_place.time_us, 1.2e5);
  EXPECT_EQ(last.out_of_place.wrong_elements, std::optional<std::uint64_t>(1200000));
}

TEST(NcclTestsOutput, TruncatedAndGarbageFilesNameTheLine) {
  const std::string truncated = nccl_tests_fixture("truncated.txt");
  EXPECT_EQ(error_of(fixtures::read_file(truncated)),
            "out.txt:27: a data line of 7 fields where the column header has 13 (cut off?): '    "
            "16777216       4194304     float     sum      -1   148.90  112.67 '");
  try {
    read_nccl_tests_output(truncated);
    ADD_FAILURE() << "no error";
  } catch (const ReportError& error) {
    EXPECT_EQ(error.file(), truncated);
    EXPECT_EQ(error.line(), 27u);
  }
  EXPECT_EQ(error_of(nccl_tests_fixture_text("garbage_line.txt")),
            "out.txt:23: not a line nccl-tests prints: 'Segmentation fault (core dumped) -- "
            "stray output'");
}

TEST(NcclTestsOutput, RunsThatEndEarly) {
  const std::string text = nccl_tests_fixture_text("all_reduce_8gpus_c1.txt");
  const std::string no_trailer = text.substr(0, text.find("# Out of bounds"));
  EXPECT_EQ(error_of(no_trailer),
            "out.txt:28: the output ends here: the all_reduce_perf run of line 2 ends before its "
            "'# Avg bus bandwidth' line (cut off?): '   134217728      33554432     float     sum "
            "     -1   773.50  173.52  303.66       0   771.90  173.88  304.29       0'");
  // A second run starting where the first is cut off: the error is at the second's first line.
  EXPECT_EQ(error_of(no_trailer + text.substr(text.find("# nccl-tests version"))),
            "out.txt:29: the all_reduce_perf run of line 2 ends before its '# Avg bus bandwidth' "
            "line (cut off?): '# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803'");
  // The trailer without "# Collective test concluded" is a whole run.
  const std::string unconcluded = text.substr(0, text.find("#\n# Collective test concluded"));
  EXPECT_EQ(parse_nccl_tests_output("out.txt", unconcluded).runs.at(0).data.size(), 9u);
  // Only the header: no data.
  const std::string header_only = text.substr(0, text.find("           8  "));
  EXPECT_EQ(error_of(header_only + "# Avg bus bandwidth    : 0 \n"),
            "out.txt:20: the output ends here: the all_reduce_perf run of line 2 has no data "
            "lines: '# Avg bus bandwidth    : 0 '");
}

TEST(NcclTestsOutput, RefusesLinesNcclTestsDoesNotPrint) {
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"  303.66       0   771.90", "  abc          0   771.90",
       "out.txt:28: busbw 'abc' is not a number: '"},
      {"  303.66       0   771.90", "  -3.66        0   771.90",
       "out.txt:28: busbw '-3.66' is not a number: '"},
      {"  303.66       0   771.90", "     inf       0   771.90",
       "out.txt:28: busbw 'inf' is not a number: '"},
      {"  303.66       0   771.90", "  303.66     1.5   771.90",
       "out.txt:28: #wrong '1.5' is not a whole number: '"},
      {"   134217728      33554432", "   134217728      3355443x",
       "out.txt:28: count '3355443x' is not an integer: '"},
      {"   134217728      33554432", "  134217728x      33554432",
       "out.txt:28: not a line nccl-tests prints: '  134217728x"},
      {"#  Rank  3 Group  0 Pid  51234 on gpu-node-07 device  3 [0000:5d:00] NVIDIA H200\n", "",
       "out.txt:19: the Rank lines of the all_reduce_perf run of line 2 lack rank 3 (they name 7 "
       "ranks): '"},
      {"#  Rank  3 Group  0", "#  Rank  2 Group  0",
       "out.txt:10: rank 2 appears twice (first on line 9): '#  Rank  2 Group  0 Pid"},
      {"# nThread 8 nGpus 1", "# nThread 3 nGpus 1",
       "out.txt:20: the all_reduce_perf run of line 2 has 8 Rank lines, not a multiple of nThread "
       "3 x nGpus 1 (a process's lines cut off?): '"},
      {"graph: 0 unalign: 0", "graph: 0",
       "out.txt:4: a settings line that nccl-tests 2.19 does not print: '# nThread 8"},
      {"# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803",
       "# nccl-tests version 2.19.6 nccl-headers=22803",
       "out.txt:2: a version line that nccl-tests 2.19 does not print (expected '# nccl-tests "
       "version V nccl-headers=N nccl-library=N'): '"},
      {"busbw  #wrong     time", "busbw   wrong     time",
       "out.txt:18: a column header that nccl-tests 2.19 does not print (expected size count type "
       "redop root, then time algbw busbw #wrong [i_min i_max i_p99 i_cv%] twice [timestamp]): '"},
      {"#       size ", "#       sizes ",
       "out.txt:20: a data line before the column header: '           8"},
      {"# Collective test starting: all_reduce_perf\n", "",
       "out.txt:19: a data line before '# Collective test starting': '"},
      {"        4096",
       "gpu-node-07: Test NCCL failure common.cu:1036 'unhandled cuda error'\n"
       "        4096",
       "out.txt:23: the all_reduce_perf run of line 2 failed: 'gpu-node-07: Test NCCL failure "
       "common.cu:1036 'unhandled cuda error''"},
      {"gpu-node-07:51234:51234 [0] NCCL INFO", "\x1b[31mgpu-node-07 [0] NCCL INFO",
       "out.txt:15: not a line nccl-tests prints: '\\x1b[31mgpu-node-07 [0] NCCL INFO"},
      {"# Out of bounds values : 0 OK\n",
       "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "
       "1 \n           8             2     float     sum      -1    17.85    0.00    0.00       0  "
       "  17.62    0.00    0.00       0\n",
       "out.txt:31: a data line after the '# Avg bus bandwidth' line: '"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(all_reduce_with(c.from, c.to));
    EXPECT_EQ(message.rfind(c.message, 0), 0u) << message << "\nexpected to start with\n"
                                               << c.message;
  }
}

TEST(NcclTestsOutput, RefusesWhatIsNotNcclTestsOutput) {
  EXPECT_EQ(error_of(""),
            "out.txt:1: no '# nccl-tests version' line: not the output of an nccl-tests perf "
            "binary (version 2.19 prints one at the start of each run)");
  EXPECT_EQ(error_of("schema_version,timestamp\n2,x\n"),
            "out.txt:2: no '# nccl-tests version' line: not the output of an nccl-tests perf "
            "binary (version 2.19 prints one at the start of each run)");
  try {
    read_nccl_tests_output(::testing::TempDir());
    ADD_FAILURE() << "a directory was read";
  } catch (const ReportError& error) {
    EXPECT_NE(std::string(error.what()).find("a directory, not a regular file"), std::string::npos)
        << error.what();
  }
}

TEST(NcclTestsNames, CollectivesOfEveryPerfBinary) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"all_reduce_perf", "all_reduce"},
      {"all_gather_perf", "all_gather"},
      {"reduce_scatter_perf", "reduce_scatter"},
      {"broadcast_perf", "broadcast"},
      {"reduce_perf", "reduce"},
      {"alltoall_perf", "alltoall"},
      {"alltoallv_perf", "alltoallv"},
      {"gather_perf", "gather"},
      {"scatter_perf", "scatter"},
      {"sendrecv_perf", "sendrecv"},
      {"all_reduce_perf_mpi", "all_reduce"},
      {"AllReduce", "all_reduce"},
      {"AlltoAllv", "alltoallv"},
      {"SendRecv", "sendrecv"}};
  for (const auto& [name, op] : expected) {
    const NcclTestsCollective* collective = find_nccl_tests_collective(name);
    ASSERT_NE(collective, nullptr) << name;
    EXPECT_EQ(collective->op, op) << name;
  }
  for (const char* unknown : {"hypercube_perf", "HyperCube", "all_reduce", "all_reduce_perf_mpix",
                              "allreduce_perf", ""}) {
    EXPECT_EQ(find_nccl_tests_collective(unknown), nullptr) << unknown;
  }
  const auto flags = [](const char* name) {
    const NcclTestsCollective* c = find_nccl_tests_collective(name);
    return std::make_pair(c->reduces, c->has_root);
  };
  EXPECT_EQ(flags("all_reduce_perf"), std::make_pair(true, false));
  EXPECT_EQ(flags("reduce_perf"), std::make_pair(true, true));
  EXPECT_EQ(flags("broadcast_perf"), std::make_pair(false, true));
  EXPECT_EQ(flags("sendrecv_perf"), std::make_pair(false, false));
}

TEST(NcclTestsNames, TypesReductionsAndVersions) {
  for (const char* type : {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float",
                           "double", "bfloat16"}) {
    EXPECT_EQ(collbench_dtype_of(type), std::optional<std::string>(type));
  }
  EXPECT_EQ(collbench_dtype_of("f8e4m3"), std::nullopt);
  EXPECT_EQ(collbench_dtype_of("f8e5m2"), std::nullopt);
  EXPECT_EQ(collbench_dtype_of("char"), std::nullopt);
  for (const char* redop : {"sum", "prod", "max", "min", "avg"}) {
    EXPECT_EQ(collbench_redop_of(redop), std::optional<std::string>(redop));
  }
  EXPECT_EQ(collbench_redop_of("mulsum"), std::nullopt);
  EXPECT_EQ(collbench_redop_of("none"), std::nullopt);
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");
  EXPECT_EQ(nccl_version_text(21903), "2.19.3");
  EXPECT_EQ(nccl_version_text(20900), "2.9.0");
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");
}

}  // namespace
}  // namespace collbench::report
