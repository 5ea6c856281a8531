// One line of NCCL's log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL[,ENV]) as far as an
// import needs it: "host:pid:tid [dev] NCCL INFO " and then the NCCL version, an NCCL_* setting,
// a communicator's INIT line (ncclCommInitRank*: its commId; ncclCommSplit: its parent, split
// count and color) or an op line ("AllReduce: opCount 0 sendbuff ... count 1509632 datatype 7 op 0
// root 0 comm 0x32c5cd00 [nranks=4] stream 0x39dde410").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collbench::replay {

struct NcclInitLine {
  std::string comm;  // this process's handle ("0x32c5cd00")
  int rank = 0;      // in the communicator
  int nranks = 0;
  std::optional<std::string> comm_id;  // ncclCommInitRank*
  std::optional<std::string> parent;   // ncclCommSplit (and other communicators made from one)
  std::optional<std::string> split_count;
  std::optional<std::string> color;
};

struct NcclOpLine {
  std::string name;  // NCCL's: AllReduce, Send, ...
  std::uint64_t count = 0;
  int datatype = 0;  // ncclDataType_t
  int redop = 0;     // ncclRedOp_t
  int root = 0;      // the root; Send/Recv: the peer
  std::string comm;
  int nranks = 0;
  std::string stream;  // "0x39dde410", "(nil)"
};

struct NcclLogLine {
  enum class Kind { other, version, setting, init, op };
  Kind kind = Kind::other;
  std::string_view thread;                  // "host:pid:tid"
  std::string version;                      // Kind::version
  std::string setting_name, setting_value;  // Kind::setting
  NcclInitLine init;
  NcclOpLine op;
};

// Parses `text`; lines of other kinds are Kind::other. An INIT or op line whose fields cannot be
// read throws UsageError at `where`.
NcclLogLine parse_nccl_log_line(std::string_view text, const std::string& where);

// "host:pid" of a log line's prefix, or nothing for a line without NCCL's prefix.
std::optional<std::string> nccl_log_process(std::string_view text);

}  // namespace collbench::replay
