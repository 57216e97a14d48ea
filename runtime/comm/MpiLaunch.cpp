//===- MpiLaunch.cpp - Starting a tool's ranks under mpirun ---------------===//
//
// `telar-run -n N` and `telar-calibrate -n N` outside a launcher run
// themselves again under `mpirun -np N`, with the environment OpenMPI needs
// on a container's root account and an oversubscribed machine, and a
// session directory of their own.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/MpiComm.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
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

/// The running mpirun, for the signal handler to pass signals on to.
volatile sig_atomic_t mpirunPid = 0;

void forwardSignal(int signal) {
  if (mpirunPid > 0)
    ::kill(pid_t(mpirunPid), signal);
}

/// The signals a user or a harness stops a job with: mpirun ends its ranks
/// on each.
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/// A fresh directory under $TMPDIR (or /tmp) for OpenMPI's session files,
/// or "" with `error` set.
std::string makeSessionDirectory(std::string &error) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/telar-mpirun-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back(0);
  if (!::mkdtemp(buffer.data())) {
    error = "cannot create a session directory " + pattern + " for mpirun: " +
            std::strerror(errno);
    return "";
  }
  return buffer.data();
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
  // Every mpirun keeps its session files in <tmp>/ompi.<host>.<uid>, which
  // the first creates and the last removes, without locking: two started
  // at once can fail with "mkdir ... File exists". Each job gets a directory
  // of its own, removed when mpirun is done (unless the caller chose one).
  std::string session;
  const char *chosen = std::getenv("OMPI_MCA_orte_tmpdir_base");
  if (!chosen || !*chosen) {
    std::string error;
    session = makeSessionDirectory(error);
    if (session.empty()) {
      std::fprintf(stderr, "%s: error: %s\n", tool, error.c_str());
      return 1;
    }
    setenv("OMPI_MCA_orte_tmpdir_base", session.c_str(), 1);
  }
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
  std::fflush(stderr);
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "%s: error: cannot start '%s': %s\n", tool,
                 mpirun.c_str(), std::strerror(errno));
    std::error_code ec;
    if (!session.empty())
      std::filesystem::remove_all(session, ec);
    return 1;
  }
  if (child == 0) {
    // mpirun ends its job when this process is killed outright (SIGKILL:
    // nothing here can pass that on).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent)
      ::_exit(1);
    ::execv(mpirun.c_str(), args.data());
    std::fprintf(stderr, "%s: error: cannot run '%s': %s\n", tool,
                 mpirun.c_str(), std::strerror(errno));
    std::fflush(stderr);
    ::_exit(1);
  }
  // mpirun ends its ranks on a stopping signal; one sent to this process
  // alone is passed on (one sent to the whole process group reaches mpirun
  // twice, which it takes as once).
  mpirunPid = child;
  struct sigaction forward = {};
  forward.sa_handler = forwardSignal;
  sigemptyset(&forward.sa_mask);
  for (int signal : kForwardedSignals)
    ::sigaction(signal, &forward, nullptr);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  mpirunPid = 0;
  if (!session.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(session, ec);
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  // mpirun died of a signal: so does this process (its parent sees the
  // same status as before, when mpirun replaced it).
  int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGABRT;
  std::fflush(stdout);
  std::fflush(stderr);
  std::signal(signal, SIG_DFL);
  ::raise(signal);
  return 128 + signal;
}
