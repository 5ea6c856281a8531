// Key columns of collreport's tables.
#include "text/key_columns.hpp"

#include "text/format.hpp"

namespace collbench::collreport {

void add_key_columns(std::vector<Table::Column>& columns, KeyColumns which) {
  columns.insert(columns.end(),
                 {{"op"}, {"algo"}, {"ranks", Align::kRight}, {"dtype"}, {"variant"}});
  if (which == KeyColumns::kCase) columns.push_back({"size", Align::kRight});
}

void add_key_cells(std::vector<std::string>& cells, const report::RowKey& key, KeyColumns which) {
  cells.insert(cells.end(), {key.op, key.algo, std::to_string(key.ranks), key.dtype,
                             report::variant_label(key)});
  if (which == KeyColumns::kCase) cells.push_back(format_bytes(key.bytes));
}

}  // namespace collbench::collreport
