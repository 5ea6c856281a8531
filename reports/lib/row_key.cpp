// Row keys: building them from rows and naming them in tables and error messages.
#include "reports/row_key.hpp"

#include <fmt/format.h>

#include "reports/printable.hpp"

namespace collbench::report {

RowKey row_key(const ReportRow& row) {
  return RowKey{row.op,       row.algo,  row.ranks, row.dtype,     row.redop,  row.root,
                row.in_place, row.bytes, row.graph, row.agg_iters, row.config, row.repeat};
}

RowKey case_key(const ReportRow& row) {
  RowKey key = row_key(row);
  key.repeat = 0;
  return key;
}

RowKey series_key(const ReportRow& row) {
  RowKey key = row_key(row);
  key.bytes = 0;
  return key;
}

std::string variant_label(const RowKey& key) {
  std::string label;
  auto add = [&label](const std::string& part) {
    if (!label.empty()) label += ' ';
    label += part;
  };
  // sum is what a reduction usually measures and "none" is written for ops that do not reduce.
  if (key.redop != "sum" && key.redop != "none" && !key.redop.empty()) add(key.redop);
  if (key.root > 0) add(fmt::format("root={}", key.root));
  if (key.in_place) add("in_place");
  if (key.graph > 0) add(fmt::format("graph={}", key.graph));
  if (key.agg_iters > 1) add(fmt::format("agg={}", key.agg_iters));
  if (!key.config.empty()) add(key.config);
  if (key.repeat > 0) add(fmt::format("repeat={}", key.repeat));
  return label;
}

std::string describe_key(const RowKey& key) {
  return fmt::format(
      "op={} algo={} ranks={} dtype={} redop={} root={} in_place={} bytes={} graph={} "
      "agg_iters={} config='{}'{}",
      key.op, key.algo, key.ranks, key.dtype, key.redop, key.root, key.in_place ? 1 : 0, key.bytes,
      key.graph, key.agg_iters, printable(key.config),
      key.repeat > 0 ? fmt::format(" repeat={}", key.repeat) : std::string());
}

}  // namespace collbench::report
