// Between-pass spreads of a report measured with `collbench --repeat N`.
#include "summary/pass_spread.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/statistics.hpp"
#include "rows/repeats.hpp"
#include "text/format.hpp"
#include "text/key_columns.hpp"

namespace collbench::collreport {

std::vector<CaseSpread> pass_spreads(const report::Report& report) {
  std::vector<CaseSpread> spreads;
  for (const PooledCase& pooled : pool_repeats(report)) {
    if (pooled.pass_p50_us.size() < 2) continue;
    const auto [fastest, slowest] =
        std::minmax_element(pooled.pass_p50_us.begin(), pooled.pass_p50_us.end());
    spreads.push_back({pooled.key, pooled.pass_p50_us.size(), *fastest, *slowest, pooled.spread()});
  }
  // Stable: equal spreads keep their key order.
  std::stable_sort(spreads.begin(), spreads.end(),
                   [](const CaseSpread& a, const CaseSpread& b) { return a.spread > b.spread; });
  return spreads;
}

double median_spread(const std::vector<CaseSpread>& spreads) {
  std::vector<double> values;
  for (const CaseSpread& s : spreads) values.push_back(s.spread);
  return stats::median(values);
}

Table pass_spread_table(const std::vector<CaseSpread>& spreads, std::size_t max_rows) {
  Table table;
  add_key_columns(table.columns, KeyColumns::kCase);
  table.columns.insert(table.columns.end(), {{"passes", Align::kRight},
                                             {"fastest p50 (us)", Align::kRight},
                                             {"slowest p50 (us)", Align::kRight},
                                             {"spread", Align::kRight}});
  for (std::size_t i = 0; i < spreads.size() && i < max_rows; ++i) {
    const CaseSpread& s = spreads[i];
    std::vector<std::string> cells;
    add_key_cells(cells, s.key, KeyColumns::kCase);
    cells.insert(cells.end(),
                 {std::to_string(s.passes), format_us(s.fastest_p50_us),
                  format_us(s.slowest_p50_us), fmt::format("{:.1f}%", 100 * s.spread)});
    table.add_row(std::move(cells));
  }
  return table;
}

std::string pass_spread_heading(const std::vector<CaseSpread>& spreads, std::size_t listed) {
  std::size_t fewest = spreads.front().passes, most = fewest;
  for (const CaseSpread& s : spreads) {
    fewest = std::min(fewest, s.passes);
    most = std::max(most, s.passes);
  }
  const std::string passes =
      fewest == most ? fmt::format("{}", most) : fmt::format("{} to {}", fewest, most);
  return fmt::format(
      "Between passes (--repeat): {} cases measured in {} passes; spread = slowest pass's p50 / "
      "fastest's - 1; median {:.1f}%, {}:",
      spreads.size(), passes, 100 * median_spread(spreads),
      listed == spreads.size() ? std::string("all listed") : fmt::format("the {} widest", listed));
}

}  // namespace collbench::collreport
