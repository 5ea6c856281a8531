// key=value;... texts: split at ';', a part's key before its first '='.
#include "reports/key_values.hpp"

#include <algorithm>

namespace collbench::report {
namespace {

// Calls visit(part) for every part of `text`, in order, until it returns true.
template <typename Visit>
void for_each_part(const std::string& text, Visit&& visit) {
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find(';', begin), text.size());
    if (visit(text.substr(begin, end - begin))) return;
    begin = end + 1;
  }
}

bool has_key(const std::string& part, const std::string& key) {
  return part.size() > key.size() && part[key.size()] == '=' &&
         part.compare(0, key.size(), key) == 0;
}

}  // namespace

std::optional<std::string> key_value(const std::string& text, const std::string& key) {
  std::optional<std::string> value;
  for_each_part(text, [&](const std::string& part) {
    if (has_key(part, key)) value = part.substr(key.size() + 1);
    return value.has_value();
  });
  return value;
}

std::string without_key(const std::string& text, const std::string& key) {
  std::string kept;
  for_each_part(text, [&](const std::string& part) {
    if (!part.empty() && !has_key(part, key)) kept += (kept.empty() ? "" : ";") + part;
    return false;
  });
  return kept;
}

}  // namespace collbench::report
