// One row of collreport's table of subcommands: its name, its help, its arguments declared once
// against fields of its own arguments struct, and the function that runs it. The command line and
// every --help are built from these rows (cli.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

namespace collbench::collreport {

// Runs a parsed subcommand: results to `out`, warnings to `err`; returns the exit status.
using RunParsed = std::function<int(std::ostream& out, std::ostream& err)>;

struct Subcommand {
  const char* name;
  const char* help;    // one line in `collreport --help`
  const char* footer;  // the rules and exit statuses under `collreport NAME --help`
  // Adds the arguments to `app`, bound to arguments of their own, and returns what runs them.
  std::function<RunParsed(CLI::App& app)> declare;
};

// One positional argument or option of a subcommand whose arguments are an `Arguments`.
template <typename Arguments>
struct Argument {
  std::function<void(CLI::App& app, Arguments& values)> add;
};

// Whether `--help` shows the value an option has when not given.
enum class ShowDefault { kNo, kYes };

// A required positional argument, named for what it is to this subcommand.
template <typename Arguments, typename Value>
Argument<Arguments> positional(Value Arguments::*field, const char* name, const char* help) {
  return {[=](CLI::App& app, Arguments& values) {
    app.add_option(name, values.*field, help)->required();
  }};
}

template <typename Arguments, typename Value>
Argument<Arguments> option(Value Arguments::*field, const char* names, const char* help,
                           ShowDefault show = ShowDefault::kNo,
                           std::optional<CLI::Validator> validator = std::nullopt) {
  return {[=](CLI::App& app, Arguments& values) {
    CLI::Option* added = app.add_option(names, values.*field, help);
    if (show == ShowDefault::kYes) added->capture_default_str();
    if (validator) added->check(*validator);
  }};
}

template <typename Arguments>
Argument<Arguments> flag(bool Arguments::*field, const char* names, const char* help) {
  return {[=](CLI::App& app, Arguments& values) { app.add_flag(names, values.*field, help); }};
}

// A row of the table: `run` gets the parsed arguments.
template <typename Arguments>
Subcommand subcommand(const char* name, const char* help,
                      std::vector<Argument<Arguments>> arguments, const char* footer,
                      int (*run)(const Arguments& values, std::ostream& out, std::ostream& err)) {
  return {name, help, footer, [arguments = std::move(arguments), run](CLI::App& app) {
            auto values = std::make_shared<Arguments>();
            for (const Argument<Arguments>& argument : arguments) argument.add(app, *values);
            return RunParsed([values, run](std::ostream& out, std::ostream& err) {
              return run(*values, out, err);
            });
          }};
}

}  // namespace collbench::collreport
