// Checked reading of one field of a workload line: each problem is one line naming the place,
// the field and the value ("w.jsonl:7: 'count' is -3, not a count (an integer >= 0)").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "workload/line_context.hpp"

namespace collbench::replay {

std::int64_t integer_field(const nlohmann::json& value, std::string_view field, std::int64_t min,
                           std::int64_t max, const LineContext& context);
std::uint64_t count_field(const nlohmann::json& value, std::string_view field,
                          const LineContext& context);
double number_field(const nlohmann::json& value, std::string_view field,
                    const LineContext& context);
const std::string& text_field(const nlohmann::json& value, std::string_view field,
                              const LineContext& context);
std::vector<std::string> texts_field(const nlohmann::json& value, std::string_view field,
                                     const LineContext& context);
// An array of integers in [min, max].
std::vector<std::int64_t> integers_field(const nlohmann::json& value, std::string_view field,
                                         std::int64_t min, std::int64_t max,
                                         const LineContext& context);
std::vector<std::uint64_t> counts_field(const nlohmann::json& value, std::string_view field,
                                        const LineContext& context);

// "'FIELD' is VALUE, not WHAT" at the line's place.
[[noreturn]] void wrong_value(const nlohmann::json& value, std::string_view field,
                              std::string_view what, const LineContext& context);

}  // namespace collbench::replay
