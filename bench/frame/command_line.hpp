// How every binary's options reach CLI11: the arguments Google Benchmark left, parsed by `app`,
// each rejection one UsageError line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace collbench {

// Parses `args` (args[0] is the program) with `app`. CLI::CallForHelp passes through for a
// program that builds its help from the parser; every other CLI11 error becomes a UsageError.
inline void parse_arguments(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
}

}  // namespace collbench
