// Chrome trace writing: events built with nlohmann-json, appended in front of a rewritten trailer.
#include "output/chrome_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>

namespace collbench {
namespace {

using nlohmann::json;

constexpr const char* kHeader =
    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"collbench\"},\"traceEvents\":[";
constexpr const char* kTrailer = "\n]}\n";

// Whole nanoseconds are all CUDA events resolve; rounding keeps the JSON numbers short.
double round_to_ns(double us) {
  return std::round(us * 1000.0) / 1000.0;
}

// An argument value as a JSON number when the whole text is one, so that tools can plot it.
json arg_value(const std::string& text) {
  static const std::regex integer(R"(-?[0-9]{1,18})");
  static const std::regex real(R"(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, integer)) return std::stoll(text);
  if (std::regex_match(text, real)) {
    const double value = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(value)) return value;
  }
  return text;
}

void check_times(const std::vector<double>& start_us, const std::vector<double>& duration_us,
                 const std::string& case_name, int rank) {
  if (start_us.size() != duration_us.size()) {
    throw std::invalid_argument(
        fmt::format("trace: case '{}' rank {}: {} start times but {} durations", case_name, rank,
                    start_us.size(), duration_us.size()));
  }
  for (std::size_t i = 0; i < start_us.size(); ++i) {
    if (!std::isfinite(start_us[i]) || !std::isfinite(duration_us[i]) || start_us[i] < 0 ||
        duration_us[i] < 0) {
      throw std::invalid_argument(fmt::format(
          "trace: case '{}' rank {} iteration {}: start {} us, duration {} us (must be finite "
          "and not negative)",
          case_name, rank, i, start_us[i], duration_us[i]));
    }
  }
}

std::string dump_line(const json& event) {
  // Case names are ASCII, but a stray byte must not stop a measurement: replace, don't throw.
  return event.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(const std::string& path)
    : path_(path), file_(std::fopen(path.c_str(), "wb")) {
  if (!file_) {
    throw std::runtime_error(
        fmt::format("cannot open trace file '{}': {}", path, std::strerror(errno)));
  }
  if (std::fputs(kHeader, file_.get()) < 0) {
    throw std::runtime_error(
        fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));
  }
  trailer_offset_ = std::ftell(file_.get());
  append("");
}

ChromeTraceWriter::~ChromeTraceWriter() {
  try {
    close();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "collbench: warning: %s\n", error.what());
  }
}

void ChromeTraceWriter::add_case(const std::string& case_name, int rank, int device,
                                 const std::vector<double>& iteration_start_us,
                                 const std::vector<double>& iteration_duration_us,
                                 const std::map<std::string, std::string>& args, int stream) {
  if (!file_) throw std::runtime_error(fmt::format("trace file '{}' is closed", path_));
  check_times(iteration_start_us, iteration_duration_us, case_name, rank);

  const bool next_case =
      !have_case_ || case_name != current_case_ || current_case_ranks_.count(rank) > 0;
  if (next_case) {
    if (have_case_) cursor_us_ = case_end_us_ + kCaseGapUs;
    case_end_us_ = cursor_us_;
    current_case_ = case_name;
    current_case_ranks_.clear();
    have_case_ = true;
  }
  current_case_ranks_.insert(rank);

  std::vector<json> events;
  if (named_ranks_.insert(rank).second) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", rank},
                      {"tid", 0},
                      {"args", {{"name", fmt::format("rank {} (GPU {})", rank, device)}}}});
    events.push_back({{"ph", "M"},
                      {"name", "process_sort_index"},
                      {"pid", rank},
                      {"tid", 0},
                      {"args", {{"sort_index", rank}}}});
  }
  if (named_streams_.insert({rank, stream}).second) {
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", rank},
                      {"tid", stream},
                      {"args", {{"name", fmt::format("stream {}", stream)}}}});
  }

  json shared_args = json::object();
  for (const auto& [key, value] : args) shared_args[key] = arg_value(value);
  shared_args["device"] = device;
  for (std::size_t i = 0; i < iteration_start_us.size(); ++i) {
    const double ts_us = round_to_ns(cursor_us_ + iteration_start_us[i]);
    const double dur_us = round_to_ns(iteration_duration_us[i]);
    json event_args = shared_args;
    event_args["iteration"] = i;
    events.push_back({{"ph", "X"},
                      {"cat", "timed"},
                      {"name", case_name},
                      {"pid", rank},
                      {"tid", stream},
                      {"ts", ts_us},
                      {"dur", dur_us},
                      {"args", event_args}});
    case_end_us_ = std::max(case_end_us_, ts_us + dur_us);
  }

  std::string text;
  for (const json& event : events) {
    text += (event_count_ == 0 && text.empty()) ? "\n" : ",\n";
    text += dump_line(event);
  }
  append(text);
  event_count_ += events.size();
}

void ChromeTraceWriter::append(const std::string& events_text) {
  std::FILE* file = file_.get();
  // New text always covers the old trailer (it is at least as long), so nothing stale remains.
  const bool ok =
      std::fseek(file, trailer_offset_, SEEK_SET) == 0 &&
      std::fwrite(events_text.data(), 1, events_text.size(), file) == events_text.size();
  const long offset = ok ? std::ftell(file) : -1;
  if (!ok || offset < 0 || std::fputs(kTrailer, file) < 0 || std::fflush(file) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write trace file '{}': {}", path_, std::strerror(errno)));
  }
  trailer_offset_ = offset;
}

void ChromeTraceWriter::flush() {
  if (file_ && std::fflush(file_.get()) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write trace file '{}': {}", path_, std::strerror(errno)));
  }
}

void ChromeTraceWriter::close() {
  if (!file_) return;
  std::FILE* file = file_.release();
  if (std::fclose(file) != 0) {
    throw std::runtime_error(
        fmt::format("cannot close trace file '{}': {}", path_, std::strerror(errno)));
  }
}

}  // namespace collbench
