//===- Bootstrap.cpp - The bootstrap interface and one process's ----------===//
//
// The exchanges every bootstrap gets from its all-gather, the one-process
// bootstrap, and the local place of a rank from the host names
// (include/telar/runtime/Bootstrap.h).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Bootstrap.h"

#include "telar/runtime/Comm.h"

#include <climits>
#include <unistd.h>

using namespace telar::runtime::comm;

Bootstrap::~Bootstrap() = default;

std::vector<char> Bootstrap::broadcast(const std::vector<char> &bytes,
                                       int root) {
  if (root < 0 || root >= getSize())
    throw CommError("bootstrap broadcast: root " + std::to_string(root) +
                    " is not a rank of " + std::to_string(getSize()));
  // Only the root's bytes travel.
  std::vector<std::vector<char>> all =
      allGather(getRank() == root ? bytes : std::vector<char>());
  return all[root];
}

void Bootstrap::barrier() { allGather({}); }

namespace {

class LocalBootstrap final : public Bootstrap {
public:
  int getRank() const override { return 0; }
  int getSize() const override { return 1; }
  const char *getName() const override { return "local"; }
  std::vector<std::vector<char>>
  allGather(const std::vector<char> &bytes) override {
    return {bytes};
  }
};

} // namespace

std::shared_ptr<Bootstrap> telar::runtime::comm::createLocalBootstrap() {
  return std::make_shared<LocalBootstrap>();
}

LocalPlace telar::runtime::comm::findLocalPlace(Bootstrap &bootstrap,
                                                const std::string &host) {
  std::vector<std::vector<char>> hosts =
      bootstrap.allGather(std::vector<char>(host.begin(), host.end()));
  LocalPlace place{0, 0};
  for (int r = 0; r < int(hosts.size()); ++r) {
    if (std::string(hosts[r].begin(), hosts[r].end()) != host)
      continue;
    if (r < bootstrap.getRank())
      ++place.localRank;
    ++place.localSize;
  }
  return place;
}

std::string telar::runtime::comm::getHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return "";
  return name;
}
