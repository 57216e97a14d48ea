//===- MpiLaunch.cpp - Starting a tool's ranks under mpirun ---------------===//
//
// `telar-run -n N` and `telar-calibrate -n N` outside a launcher run
// themselves again under `mpirun -np N`, with the environment OpenMPI needs
// on a container's root account and an oversubscribed machine.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/MpiComm.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// The path of this executable, for mpirun to start.
std::string getSelfPath(const char *argv0) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : p.string();
}

/// `name` on PATH, or "".
std::string findOnPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t colon = std::min(dirs.find(':', start), dirs.size());
    std::string dir = dirs.substr(start, colon - start);
    start = colon + 1;
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

} // namespace

int telar::runtime::comm::relaunchUnderMpirun(const char *tool, int ranks,
                                              int argc, char **argv,
                                              const std::string &selfStart) {
  std::string mpirun;
  if (const char *env = std::getenv("TELAR_MPIRUN"); env && *env)
    mpirun = env;
  else
    mpirun = findOnPath("mpirun");
  if (mpirun.empty()) {
    std::fprintf(stderr,
                 "%s: error: -n %d needs mpirun (OpenMPI's launcher, Debian "
                 "package openmpi-bin) on PATH, or TELAR_MPIRUN; or start the "
                 "ranks yourself: %s\n",
                 tool, ranks, selfStart.c_str());
    return 1;
  }
  // OpenMPI refuses to run as root, and more ranks than cores, unless told.
  if (::geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", /*overwrite=*/0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  std::string self = getSelfPath(argv[0]);
  std::string count = std::to_string(ranks);
  std::vector<char *> args = {const_cast<char *>(mpirun.c_str()),
                              const_cast<char *>("-np"),
                              const_cast<char *>(count.c_str()),
                              const_cast<char *>(self.c_str())};
  // The ranks get the same arguments, -n included (each checks it against
  // the job's size).
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  std::fflush(stdout);
  ::execv(mpirun.c_str(), args.data());
  std::fprintf(stderr, "%s: error: cannot run '%s': %s\n", tool,
               mpirun.c_str(), std::strerror(errno));
  return 1;
}
