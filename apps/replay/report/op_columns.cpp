// The op columns.
#include "report/op_columns.hpp"

#include "core/data_type.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

// The median's interval ends; null without an interval (fewer than 6 iterations).
json interval_end(const TimeStats& time, double end) {
  return time.has_interval() ? json(end) : json(nullptr);
}

}  // namespace

const std::vector<OpColumn>& op_columns() {
  using R = ReplayedOp;
  static const std::vector<OpColumn> columns = {
      {"rank", [](const R& r) { return json(r.op.rank); }},
      {"communicator", [](const R& r) { return json(r.op.comm); }},
      {"seq", [](const R& r) { return json(r.op.seq); }},
      {"op", [](const R& r) { return json(std::string(name_of(r.op.op))); }},
      {"dtype", [](const R& r) { return json(std::string(name_of(r.op.dtype))); }},
      {"count", [](const R& r) { return json(r.op.count); }},
      {"bytes", [](const R& r) { return json(r.figures.bytes); }},
      {"stream", [](const R& r) { return json(r.op.stream); }},
      {"group", [](const R& r) { return r.op.group ? json(*r.op.group) : json(nullptr); }},
      {"recorded_us", [](const R& r) { return optional_number(r.figures.recorded_us); }},
      {"replayed_p50_us", [](const R& r) { return json(r.figures.time.p50_us); }},
      {"replayed_p50_lo_us",
       [](const R& r) { return interval_end(r.figures.time, r.figures.time.p50_lo_us); }},
      {"replayed_p50_hi_us",
       [](const R& r) { return interval_end(r.figures.time, r.figures.time.p50_hi_us); }},
      {"busbw_gbps", [](const R& r) { return json(r.figures.busbw_gbps); }},
      {"mismatches", [](const R& r) { return json(r.figures.mismatches); }},
      {"where", [](const R& r) { return json(r.op.where); }},
      {"config", [](const R& r) { return json(std::string(r.config)); }},
  };
  return columns;
}

json op_json(const ReplayedOp& replayed) {
  json object = json::object();
  for (const OpColumn& column : op_columns()) object[column.name] = column.value(replayed);
  return object;
}

}  // namespace collbench::replay
