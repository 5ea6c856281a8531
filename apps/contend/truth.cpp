// The ground truth's JSON and the file it goes to.
#include "truth.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "contend_errors.hpp"

namespace collbench::contend {

Truth truth_for(const ContendOptions& options) {
  Truth truth;
  switch (options.fault) {
    case Fault::sm_load:
      truth.fault = "sm_load";
      truth.ranks = {options.sm.gpu};
      truth.gpus = {options.sm.gpu};
      break;
    case Fault::link_load: {
      const LinkLoadOptions& link = options.link;
      truth.fault = "link_load";
      truth.ranks = {link.src_gpu, link.dst_gpu};
      truth.gpus = {link.src_gpu, link.dst_gpu};
      truth.direction =
          fmt::format("{}{}{}", link.src_gpu, link.both_directions ? "<->" : "->", link.dst_gpu);
      break;
    }
    case Fault::cpu_starve:
      truth.fault = "cpu_starve";
      truth.ranks = {options.cpu.target_rank};
      break;
  }
  return truth;
}

nlohmann::json truth_json(const Truth& truth) {
  nlohmann::json body = {{"fault", truth.fault},
                         {"ranks", truth.ranks},
                         {"gpus", truth.gpus},
                         {"direction", nullptr},
                         {"detail", truth.detail}};
  if (truth.direction) body["direction"] = *truth.direction;
  return {{"truth", body}};
}

void write_truth(const Truth& truth, const std::string& path) {
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial);
    file << truth_json(truth).dump(2) << '\n';
    if (!file.flush()) throw LoadError(fmt::format("--truth {}: cannot write {}", path, partial));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    throw LoadError(
        fmt::format("--truth {}: rename from {}: {}", path, partial, std::strerror(errno)));
}

}  // namespace collbench::contend
