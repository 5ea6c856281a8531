// The columns that name a curve or a case in every collreport table (op, algo, ranks, dtype,
// variant, and for a case its size), so that summary, compare and the pass spreads read alike.
#pragma once

#include <string>
#include <vector>

#include "reports/row_key.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

enum class KeyColumns { kCurve, kCase };  // a case adds the size

// `columns` with the key columns appended.
void add_key_columns(std::vector<Table::Column>& columns, KeyColumns which);
// `cells` with the key's cells appended, matching add_key_columns.
void add_key_cells(std::vector<std::string>& cells, const report::RowKey& key, KeyColumns which);

}  // namespace collbench::collreport
