// Values every binary's command line parses alike (GPU counts, seeds, counts, comma lists); each
// rejection is a UsageError with one line naming the option and the text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// `text` as a whole decimal number from 0 to `max`, or nothing.
std::optional<long> whole_number(const std::string& text, long max);
// A rank number or count; throws UsageError naming `what` and the text when it is not one.
int parse_non_negative_int(const std::string& text, std::string_view what);
int parse_positive_int(const std::string& text, std::string_view what);
// "a,b,c": the entries; throws UsageError naming `what` for an empty list or entry.
std::vector<std::string> split_list(const std::string& text, std::string_view what);
// --seed: decimal or 0x hex, at most 64 bits; throws UsageError naming the text otherwise.
std::uint64_t parse_seed(const std::string& text);
// "2,4", "1-4", "1,2-4" or "all" (= every visible GPU only); throws UsageError when malformed.
// `visible` may be 0 when only listing; "all" then needs a GPU.
std::vector<int> parse_gpu_counts(const std::string& text, int visible);

// Keeps the first of each value, in order.
template <typename T>
void dedupe(std::vector<T>& values) {
  std::vector<T> unique;
  for (const T& v : values) {
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  }
  values = std::move(unique);
}

// Each of `names` parsed by `parse`; "all" stands for `all`. Repeats dropped.
template <typename Value, typename Parse>
std::vector<Value> parse_named_list(const std::vector<std::string>& names,
                                    const std::vector<Value>& all, Parse&& parse) {
  std::vector<Value> parsed;
  for (const std::string& name : names) {
    if (name == "all") {
      parsed.insert(parsed.end(), all.begin(), all.end());
    } else {
      parsed.push_back(parse(name));
    }
  }
  dedupe(parsed);
  return parsed;
}

}  // namespace collbench
