// collbench_contend: another program's load on this machine (GPU compute, NVLink traffic, a
// starved core), one fault per run, with the ground truth written for the verdicts it tests.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "contend_errors.hpp"
#include "contend_options.hpp"
#include "cpu_starve.hpp"
#include "link_load.hpp"
#include "load_session.hpp"
#include "sm_load.hpp"
#include "truth.hpp"

namespace collbench::contend {
namespace {

// The most of a message printed: the options quote bad values short already, but CLI11's own
// messages (an unknown option) quote whatever was given.
constexpr std::size_t kMaxMessageChars = 300;

// Control characters of a bad value (a line break) as escapes, so the message stays one line.
std::string one_line(const std::string& text) {
  std::string line;
  for (const char c : text) {
    std::string piece(1, c);
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
      piece = escaped;
    }
    // Cut before a piece that would pass the limit, so that no escape is cut in half.
    if (line.size() + piece.size() > kMaxMessageChars) return line + "...";
    line += piece;
  }
  return line;
}

int fail(int status, const char* kind, const std::exception& error) {
  std::fprintf(stderr, "collbench_contend: %s%s\n", kind, one_line(error.what()).c_str());
  return status;
}

void run(const ContendOptions& options) {
  install_stop_handlers();
  LoadSession session(truth_for(options), options.truth_path, options.duration_s);
  switch (options.fault) {
    case Fault::sm_load:
      run_sm_load(options.sm, session);
      break;
    case Fault::link_load:
      run_link_load(options.link, session);
      break;
    case Fault::cpu_starve:
      run_cpu_starve(options.cpu, session);
      break;
  }
}

}  // namespace
}  // namespace collbench::contend

int main(int argc, char** argv) {
  using namespace collbench::contend;
  try {
    const auto options = parse_contend_options(argc, argv, std::cout);
    if (options) run(*options);
    return kExitOk;
  } catch (const UsageError& error) {
    return fail(kExitUsage, "error: ", error);
  } catch (const NoGpuError& error) {
    return fail(kExitNoGpu, "", error);
  } catch (const std::exception& error) {
    return fail(kExitFailed, "error: ", error);
  }
}
