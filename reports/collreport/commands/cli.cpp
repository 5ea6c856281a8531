// Command-line parsing and dispatch for collreport; every bad input ends as one line and exit 2.
#include "commands/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "commands/subcommands.hpp"
#include "reports/printable.hpp"

namespace collbench::collreport {
namespace {

constexpr std::size_t kMaxOptionMessageChars = 300;
constexpr std::size_t kMaxMessageChars = 2000;

// `text` on one line: line breaks become "; ", other control characters \xNN; cut at max_chars.
std::string one_line(const std::string& text, std::size_t max_chars) {
  std::string line;
  for (const char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      if (!line.empty()) line += "; ";
    } else if (byte < 0x20 || byte == 0x7f) {
      line += fmt::format("\\x{:02x}", byte);
    } else {
      line += c;
    }
    if (line.size() > max_chars) return line.substr(0, max_chars) + "...";
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line;
}

// A parsed subcommand and what runs it.
struct Declared {
  CLI::App* app;
  RunParsed run;
};

// The tool and a subcommand per row of the table.
std::vector<Declared> declare_subcommands(CLI::App& app) {
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("collreport ") + kCollbenchVersion);
  app.footer(
      "Exit status: 0 pass; 1 a regression, wrong elements or a failed row (compare), a late rank\n"
      "(ranks), a row outside its tolerance (beside); 2 bad input (one line naming the file, line\n"
      "and value), or a compare, ranks or beside that judged nothing.");
  std::vector<Declared> declared;
  for (const Subcommand& row : subcommands()) {
    CLI::App* command = app.add_subcommand(row.name, row.help);
    RunParsed run = row.declare(*command);
    if (*row.footer != '\0') command->footer(row.footer);
    declared.push_back({command, std::move(run)});
  }
  return declared;
}

int run_parsed(const std::vector<Declared>& declared, std::ostream& out, std::ostream& err) {
  for (const Declared& command : declared) {
    if (command.app->parsed()) return command.run(out, err);
  }
  throw std::logic_error("no subcommand parsed");  // require_subcommand(1) rules it out
}

}  // namespace

int run_collreport(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "collreport: summarize, compare and merge collbench CSV reports; per-rank times of "
      "collbench --json sample files; nccl-tests output beside collbench's",
      "collreport"};
  const std::vector<Declared> declared = declare_subcommands(app);
  try {
    app.parse(argc, argv);
    return run_parsed(declared, out, err);
  } catch (const CLI::CallForHelp&) {
    out << report::wrap_help(app.help());  // the selected subcommand's, when one was
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << report::wrap_help(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    // CLI11 quotes the arguments it rejects, whatever they hold: escape and shorten them.
    err << "collreport: error: " << one_line(error.what(), kMaxOptionMessageChars)
        << " (collreport --help lists the options)\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    // Report errors quote values escaped already; the guard keeps any other message on one line.
    err << "collreport: error: " << one_line(error.what(), kMaxMessageChars) << "\n";
    return kExitBadInput;
  }
}

}  // namespace collbench::collreport
