// Texts of key=value parts joined by ';' ("nccl_algo=Ring;nccl_proto=LL"), as collbench writes
// its config and extra columns: one reading of them for every tool.
#pragma once

#include <optional>
#include <string>

namespace collbench::report {

// The value of the part whose key is `key` (whole keys only: "src" is not "xsrc"); none when no
// part has it.
std::optional<std::string> key_value(const std::string& text, const std::string& key);

// `text` without the part whose key is `key`, and without empty parts.
std::string without_key(const std::string& text, const std::string& key);

}  // namespace collbench::report
