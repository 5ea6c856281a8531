// The communicator axes' declarations.
#include "frame/settings/communicator_axes.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/errors.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench {

std::vector<Setting<CommunicatorAxes>> communicator_axis_settings(const std::string& scope) {
  using A = CommunicatorAxes;
  using T = ValueKind;
  std::vector<Setting<A>> s;
  s.push_back(
      Setting<A>("--nccl-algo", T::text, "default",
                 "NCCL algorithms (NCCL_ALGO, set while each combination's communicators live), "
                 "comma separated: Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT, "
                 "default (NCCL's choice, or NCCL_ALGO as already set, which rows then name). With "
                 "--nccl-proto, --nccl-max-ctas and --register a cartesian product, " +
                     scope)
          // core's parser takes the whole list ("default" entries, NCCL's spellings).
          .to([](A& a, const std::string& v) { a.nccl_algos = parse_nccl_algo_list(v); }));
  s.push_back(
      Setting<A>("--nccl-proto", T::text, "default",
                 "NCCL protocols (NCCL_PROTO): LL, LL128, Simple, default (or NCCL_PROTO "
                 "as set)")
          .to([](A& a, const std::string& v) { a.nccl_protos = parse_nccl_proto_list(v); }));
  s.push_back(
      Setting<A>("--nccl-max-ctas", T::text, "default",
                 "NCCL's CTA (channel) limit per collective (ncclConfig_t maxCTAs), 1 to "
                 "64 or default (or NCCL_MAX_CTAS as set)")
          .to([](A& a, const std::string& v) { a.nccl_max_ctas = parse_nccl_max_ctas_list(v); }));
  s.push_back(Setting<A>("--register", T::text, "none",
                         "NCCL buffer registration, swept: none, local (ncclCommRegister), "
                         "symmetric (ncclMemAlloc and symmetric windows, NCCL >= 2.27), or all")
                  .as_list()
                  .to_all([](A& a, const std::vector<std::string>& v) {
                    a.registrations =
                        parse_named_list(v, all_buffer_registrations(), parse_buffer_registration);
                  }));
  return s;
}

void refuse_max_ctas_beside_environment(const CommunicatorAxes& axes) {
  const char* environment = std::getenv("NCCL_MAX_CTAS");
  if (environment != nullptr && axes.nccl_max_ctas != std::vector<int>{0}) {
    throw UsageError(fmt::format(
        "--nccl-max-ctas with NCCL_MAX_CTAS={} in the environment: NCCL would apply the "
        "variable instead; unset it",
        shown_value(environment)));
  }
}

}  // namespace collbench
