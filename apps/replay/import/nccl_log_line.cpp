// NCCL log lines by their words: a keyword is followed by its value ("count 1509632").
#include "import/nccl_log_line.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

constexpr std::string_view kInfoMark = " NCCL INFO ";

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t begin = text.find_first_not_of(' ', at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(text.find(' ', begin), text.size());
    words.push_back(text.substr(begin, end - begin));
    at = end;
  }
  return words;
}

// The word after `keyword`, if any.
std::optional<std::string_view> value_after(const std::vector<std::string_view>& words,
                                            std::string_view keyword) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == keyword) return words[i + 1];
  }
  return std::nullopt;
}

template <typename Number>
Number number_after(const std::vector<std::string_view>& words, std::string_view keyword,
                    const std::string& where) {
  const auto text = value_after(words, keyword);
  Number value{};
  if (!text) throw_bad_input(where, fmt::format("no '{}' in this line", keyword));
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) {
    throw_bad_input(where, fmt::format("'{}' is {}, not a number", keyword, show_value(*text)));
  }
  return value;
}

std::string text_after(const std::vector<std::string_view>& words, std::string_view keyword,
                       const std::string& where) {
  const auto text = value_after(words, keyword);
  if (!text) throw_bad_input(where, fmt::format("no '{}' in this line", keyword));
  return std::string(*text);
}

std::optional<std::string> optional_after(const std::vector<std::string_view>& words,
                                          std::string_view keyword) {
  const auto text = value_after(words, keyword);
  if (!text) return std::nullopt;
  std::string value(*text);
  if (!value.empty() && value.back() == '-') value.pop_back();  // "key 0- Init START"
  return value;
}

void parse_init(const std::vector<std::string_view>& words, const std::string& where,
                NcclInitLine& init) {
  init.comm = text_after(words, "comm", where);
  init.rank = number_after<int>(words, "rank", where);
  init.nranks = number_after<int>(words, "nranks", where);
  init.comm_id = optional_after(words, "commId");
  init.parent = optional_after(words, "parent");
  init.split_count = optional_after(words, "splitCount");
  init.color = optional_after(words, "color");
  if (!init.comm_id && !init.parent) {
    throw_bad_input(where, "an INIT line with neither a commId nor a parent communicator");
  }
}

void parse_op(const std::vector<std::string_view>& words, const std::string& where,
              NcclOpLine& op) {
  op.name = std::string(words[0].substr(0, words[0].size() - 1));
  op.count = number_after<std::uint64_t>(words, "count", where);
  op.datatype = number_after<int>(words, "datatype", where);
  op.redop = number_after<int>(words, "op", where);
  op.root = number_after<int>(words, "root", where);
  op.comm = text_after(words, "comm", where);
  op.stream = text_after(words, "stream", where);
  const auto ranks = value_after(words, op.comm);  // "[nranks=4]" follows the handle
  op.nranks = 0;
  if (ranks && ranks->size() > 9 && ranks->substr(0, 8) == "[nranks=") {
    const std::string_view digits = ranks->substr(8, ranks->size() - 9);
    std::from_chars(digits.data(), digits.data() + digits.size(), op.nranks);
  }
}

}  // namespace

std::optional<std::string> nccl_log_process(std::string_view text) {
  const std::size_t mark = text.find(kInfoMark);
  if (mark == std::string_view::npos) return std::nullopt;
  const std::string_view thread = text.substr(0, text.find(' '));
  const std::size_t last_colon = thread.rfind(':');
  if (last_colon == std::string_view::npos || thread.find(':') == last_colon) return std::nullopt;
  return std::string(thread.substr(0, last_colon));
}

NcclLogLine parse_nccl_log_line(std::string_view text, const std::string& where) {
  NcclLogLine line;
  const std::size_t mark = text.find(kInfoMark);
  if (mark == std::string_view::npos) return line;
  line.thread = text.substr(0, text.find(' '));
  const std::string_view message = text.substr(mark + kInfoMark.size());
  if (message.rfind("NCCL version ", 0) == 0) {
    line.kind = NcclLogLine::Kind::version;
    line.version = std::string(words_of(message).at(2));
    return line;
  }
  const std::vector<std::string_view> words = words_of(message);
  if (words.empty()) return line;
  if (words.size() > 4 && words[0].rfind("NCCL_", 0) == 0 && words[1] == "set" &&
      message.find(" set by environment to ") != std::string_view::npos) {
    line.kind = NcclLogLine::Kind::setting;
    line.setting_name = std::string(words[0]);
    std::string value(words.back());
    if (!value.empty() && value.back() == '.') value.pop_back();
    line.setting_value = value;
  } else if (words.size() > 2 && words[0].size() > 1 && words[0].back() == ':' &&
             words[1] == "opCount") {
    line.kind = NcclLogLine::Kind::op;
    parse_op(words, where, line.op);
  } else if (words[0].rfind("ncclComm", 0) == 0 && words.size() > 1 && words[1] == "comm" &&
             (message.find("Init START") != std::string_view::npos ||
              message.find("Init COMPLETE") != std::string_view::npos)) {
    line.kind = NcclLogLine::Kind::init;
    parse_init(words, where, line.init);
  }
  return line;
}

}  // namespace collbench::replay
