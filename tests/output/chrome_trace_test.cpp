// Tests of the Chrome trace writer: the file parses back as a valid trace (structure, metadata,
// positive durations, no overlap per process), cases follow one another on the timeline, and a
// file read in the middle of a run is already valid JSON.
#include "output/chrome_trace.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace collbench {
namespace {

using nlohmann::json;

std::string temp_path(const std::string& name) {
  return (std::string(::testing::TempDir()) + "collbench_" + std::to_string(::getpid()) + "_" +
          name);
}

json read_json(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());  // throws on invalid JSON: the test fails with the reason
}

// Every structural problem of `trace` (empty: valid), as a trace viewer would meet them.
std::vector<std::string> trace_problems(const json& trace) {
  std::vector<std::string> problems;
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
    return {"not an object with a traceEvents array"};
  }
  if (!trace.contains("displayTimeUnit")) problems.push_back("no displayTimeUnit");
  std::set<int> named;
  std::map<int, std::vector<std::pair<double, double>>> spans_by_pid;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("ph", "") == "M" && event.value("name", "") == "process_name")
      named.insert(event["pid"].get<int>());
    if (event.value("ph", "") != "X") continue;
    for (const char* key : {"ph", "ts", "dur", "pid", "tid", "name"}) {
      if (!event.contains(key))
        problems.push_back(std::string("event without ") + key + ": " + event.dump());
    }
    if (!event.contains("dur") || !event.contains("ts") || !event.contains("pid")) continue;
    if (!(event["dur"].get<double>() > 0))
      problems.push_back("non-positive duration: " + event.dump());
    spans_by_pid[event["pid"].get<int>()].push_back(
        {event["ts"].get<double>(), event["dur"].get<double>()});
  }
  for (auto& [pid, spans] : spans_by_pid) {
    if (named.count(pid) == 0)
      problems.push_back("pid " + std::to_string(pid) + " has no process_name");
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      if (spans[i - 1].first + spans[i - 1].second > spans[i].first + 1e-3) {
        problems.push_back("pid " + std::to_string(pid) + ": events overlap at " +
                           std::to_string(spans[i].first));
      }
    }
  }
  return problems;
}

std::vector<json> complete_events(const json& trace, const std::string& name = "") {
  std::vector<json> events;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("ph", "") == "X" && (name.empty() || event["name"] == name))
      events.push_back(event);
  }
  return events;
}

// Back-to-back iterations of `duration_us` each, starting at 0: what one rank's events give.
std::vector<double> starts(const std::vector<double>& duration_us) {
  std::vector<double> start_us;
  double at = 0;
  for (double d : duration_us) {
    start_us.push_back(at);
    at += d;
  }
  return start_us;
}

TEST(ChromeTrace, WritesAValidTraceWithMetadataAndArgs) {
  const std::string path = temp_path("valid.json");
  const std::vector<double> rank0 = {10.0, 11.5, 10.25}, rank1 = {9.0, 12.0, 10.0};
  {
    ChromeTraceWriter writer(path);
    const std::map<std::string, std::string> args = {
        {"bytes", "1048576"}, {"busbw_gbps", "312.5"}, {"algo", "nccl"}};
    writer.add_case("all_reduce nccl float sum 2r 1 MiB", 0, 0, starts(rank0), rank0, args);
    writer.add_case("all_reduce nccl float sum 2r 1 MiB", 1, 1, starts(rank1), rank1, args);
    writer.close();
  }
  const json trace = read_json(path);
  EXPECT_EQ(trace_problems(trace), std::vector<std::string>{});
  EXPECT_EQ(trace["displayTimeUnit"], "ns");

  const std::vector<json> events = complete_events(trace);
  ASSERT_EQ(events.size(), 6u);
  for (int rank : {0, 1}) {
    const std::vector<double>& durations = rank == 0 ? rank0 : rank1;
    int iteration = 0;
    for (const json& event : events) {
      if (event["pid"] != rank) continue;
      EXPECT_EQ(event["name"], "all_reduce nccl float sum 2r 1 MiB");
      EXPECT_EQ(event["tid"], 0);
      EXPECT_DOUBLE_EQ(event["dur"].get<double>(), durations[iteration]);
      EXPECT_DOUBLE_EQ(event["ts"].get<double>(), starts(durations)[iteration]);
      EXPECT_EQ(event["args"]["iteration"], iteration);
      EXPECT_EQ(event["args"]["device"], rank);
      EXPECT_TRUE(event["args"]["bytes"].is_number_integer());  // numbers stay numbers
      EXPECT_EQ(event["args"]["bytes"], 1048576);
      EXPECT_DOUBLE_EQ(event["args"]["busbw_gbps"].get<double>(), 312.5);
      EXPECT_EQ(event["args"]["algo"], "nccl");
      ++iteration;
    }
    EXPECT_EQ(iteration, 3);
  }
  int process_names = 0;
  for (const json& event : trace["traceEvents"]) {
    if (event.value("name", "") == "process_name") {
      ++process_names;
      EXPECT_EQ(event["args"]["name"], "rank " + std::to_string(event["pid"].get<int>()) +
                                           " (GPU " + std::to_string(event["pid"].get<int>()) +
                                           ")");
    }
  }
  EXPECT_EQ(process_names, 2);
  std::remove(path.c_str());
}

TEST(ChromeTrace, CasesFollowOneAnotherWithoutOverlap) {
  const std::string path = temp_path("timeline.json");
  const std::vector<double> fast = {5.0, 5.0}, slow = {40.0, 50.0};
  {
    ChromeTraceWriter writer(path);
    // Rank 1 is slower in the first case: the second case must start after rank 1's end.
    writer.add_case("case A", 0, 0, starts(fast), fast, {});
    writer.add_case("case A", 1, 1, starts(slow), slow, {});
    writer.add_case("case B", 0, 0, starts(fast), fast, {});
    writer.add_case("case B", 1, 1, starts(fast), fast, {});
    // The same name again for a rank the case already has: a new case (e.g. in-place twin).
    writer.add_case("case B", 0, 0, starts(fast), fast, {});
  }
  const json trace = read_json(path);
  EXPECT_EQ(trace_problems(trace), std::vector<std::string>{});
  const double a_end = 90.0;  // rank 1's 40 + 50
  const double b_start = a_end + ChromeTraceWriter::kCaseGapUs;
  std::vector<double> b_ts;
  for (const json& event : complete_events(trace, "case B"))
    b_ts.push_back(event["ts"].get<double>());
  ASSERT_EQ(b_ts.size(), 6u);
  EXPECT_DOUBLE_EQ(b_ts[0], b_start);
  EXPECT_DOUBLE_EQ(b_ts[1], b_start + 5.0);
  EXPECT_DOUBLE_EQ(b_ts[2], b_start);  // rank 1, same case
  const double third_start = b_start + 10.0 + ChromeTraceWriter::kCaseGapUs;
  EXPECT_DOUBLE_EQ(b_ts[4], third_start);
  EXPECT_DOUBLE_EQ(complete_events(trace, "case A").front()["ts"].get<double>(), 0.0);
  std::remove(path.c_str());
}

TEST(ChromeTrace, FileIsValidJsonAfterEveryCase) {
  const std::string path = temp_path("partial.json");
  const std::vector<double> durations = {3.0, 4.0};
  ChromeTraceWriter writer(path);
  EXPECT_EQ(complete_events(read_json(path)).size(), 0u);  // empty but valid before any case
  writer.add_case("first", 0, 0, starts(durations), durations, {});
  json mid_run = read_json(path);  // the writer is still open: a run stopped here
  EXPECT_EQ(trace_problems(mid_run), std::vector<std::string>{});
  EXPECT_EQ(complete_events(mid_run, "first").size(), 2u);
  writer.add_case("second", 0, 0, starts(durations), durations, {});
  writer.flush();
  mid_run = read_json(path);
  EXPECT_EQ(trace_problems(mid_run), std::vector<std::string>{});
  EXPECT_EQ(complete_events(mid_run).size(), 4u);
  EXPECT_EQ(writer.event_count(), 4u + 3u);  // 4 iterations + process_name, sort index, thread_name
  writer.close();
  EXPECT_EQ(complete_events(read_json(path)).size(), 4u);
  std::remove(path.c_str());
}

TEST(ChromeTrace, StreamBecomesTheThreadAndIsNamed) {
  const std::string path = temp_path("streams.json");
  const std::vector<double> durations = {2.0};
  {
    ChromeTraceWriter writer(path);
    writer.add_case("c", 3, 5, starts(durations), durations, {}, 7);
  }
  const json trace = read_json(path);
  ASSERT_EQ(complete_events(trace).size(), 1u);
  EXPECT_EQ(complete_events(trace)[0]["tid"], 7);
  EXPECT_EQ(complete_events(trace)[0]["pid"], 3);
  bool thread_named = false;
  for (const json& event : trace["traceEvents"]) {
    thread_named = thread_named || (event.value("name", "") == "thread_name" && event["tid"] == 7);
  }
  EXPECT_TRUE(thread_named);
  std::remove(path.c_str());
}

TEST(ChromeTrace, RejectsBadTimesAndClosedOrUnwritableFiles) {
  const std::string path = temp_path("bad.json");
  ChromeTraceWriter writer(path);
  EXPECT_THROW(writer.add_case("c", 0, 0, {0.0, 1.0}, {1.0}, {}), std::invalid_argument);
  EXPECT_THROW(writer.add_case("c", 0, 0, {0.0}, {-1.0}, {}), std::invalid_argument);
  EXPECT_THROW(writer.add_case("c", 0, 0, {0.0}, {std::numeric_limits<double>::infinity()}, {}),
               std::invalid_argument);
  // A rejected case leaves the file as it was: valid and empty.
  EXPECT_EQ(trace_problems(read_json(path)), std::vector<std::string>{});
  EXPECT_EQ(complete_events(read_json(path)).size(), 0u);
  writer.close();
  EXPECT_THROW(writer.add_case("c", 0, 0, {0.0}, {1.0}, {}), std::runtime_error);
  std::remove(path.c_str());
  try {
    ChromeTraceWriter unwritable("/nonexistent-dir/trace.json");
    FAIL() << "no error for an unwritable path";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-dir/trace.json"), std::string::npos)
        << error.what();
  }
}

TEST(ChromeTrace, ValidatorCatchesWhatItChecks) {
  // The checks above rely on trace_problems; it must see overlap, bad durations and missing
  // metadata.
  const json overlapping = json::parse(R"({"displayTimeUnit":"ns","traceEvents":[
    {"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"rank 0"}},
    {"ph":"X","name":"a","pid":0,"tid":0,"ts":0,"dur":10},
    {"ph":"X","name":"b","pid":0,"tid":0,"ts":5,"dur":10}]})");
  EXPECT_EQ(trace_problems(overlapping).size(), 1u);
  const json unnamed_zero = json::parse(R"({"displayTimeUnit":"ns","traceEvents":[
    {"ph":"X","name":"a","pid":1,"tid":0,"ts":0,"dur":0}]})");
  EXPECT_EQ(trace_problems(unnamed_zero).size(), 2u);
  const json no_ts =
      json::parse(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":0,"dur":1}]})");
  EXPECT_GE(trace_problems(no_ts).size(), 2u);  // no displayTimeUnit, no ts
}

}  // namespace
}  // namespace collbench
