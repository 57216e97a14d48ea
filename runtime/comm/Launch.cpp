//===- Launch.cpp - The job environment of a rank -------------------------===//
//
// Which launcher started this process, its place on its node, and how its
// communicators form (bootstrap and transport), from the environment alone
// (include/telar/runtime/Launch.h).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Launch.h"

#include "Auth.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

using namespace telar::runtime::comm;

namespace {

/// The variable's value; unset and empty are the same.
std::optional<std::string> getEnv(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return std::nullopt;
  return std::string(v);
}

bool hasEnv(const char *name) { return getEnv(name).has_value(); }

/// The whole value as an integer in [minimum, maximum], or nullopt.
std::optional<long long> parseInteger(const std::string &text,
                                      long long minimum, long long maximum) {
  long long n = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end || n < minimum ||
      n > maximum)
    return std::nullopt;
  return n;
}

/// A variable this runtime reads (a user sets it): wrong values are errors.
std::optional<int> readInteger(const char *name, long long minimum,
                               long long maximum, const char *what) {
  std::optional<std::string> v = getEnv(name);
  if (!v)
    return std::nullopt;
  std::optional<long long> n = parseInteger(*v, minimum, maximum);
  if (!n)
    throw std::runtime_error(std::string(name) + "='" + *v + "' is not " +
                             what);
  return int(*n);
}

/// A launcher's variable: trusted when it is a number, ignored otherwise.
std::optional<int> readLauncherInteger(const char *name) {
  std::optional<std::string> v = getEnv(name);
  if (!v)
    return std::nullopt;
  std::optional<long long> n = parseInteger(*v, 0, 1 << 30);
  return n ? std::optional<int>(int(*n)) : std::nullopt;
}

bool isSrunStep() {
  return hasEnv("SLURM_STEP_ID") &&
         (hasEnv("SLURM_PROCID") || hasEnv("SLURM_NTASKS"));
}

/// The launcher, rank and size an MPI launcher's variables say (size 0
/// when they do not: MPI decides); false when none is present.
bool readMpiLauncher(JobEnvironment &env) {
  if (!hasMpiLauncherEnvironment())
    return false;
  struct Source {
    bool present;
    const char *launcher, *rank, *size, *size2;
  };
  // OpenMPI's own variables first: mpirun inside a Slurm allocation sets
  // them, srun does not.
  const Source sources[] = {
      {hasEnv("OMPI_COMM_WORLD_SIZE"), "mpirun", "OMPI_COMM_WORLD_RANK",
       "OMPI_COMM_WORLD_SIZE", nullptr},
      {isSrunStep(), "srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS",
       "SLURM_NTASKS"},
      {hasEnv("PMIX_RANK"), "mpirun", "PMIX_RANK", nullptr, nullptr},
      {hasEnv("PMI_RANK") || hasEnv("PMI_SIZE"), "mpirun", "PMI_RANK",
       "PMI_SIZE", nullptr},
  };
  for (const Source &s : sources) {
    if (!s.present)
      continue;
    env.launcher = s.launcher;
    env.rank = 0;
    env.size = 0;
    int size = 0;
    if (s.size)
      size = readLauncherInteger(s.size).value_or(0);
    if (size == 0 && s.size2)
      size = readLauncherInteger(s.size2).value_or(0);
    if (std::optional<int> rank = readLauncherInteger(s.rank)) {
      env.rank = *rank;
      env.rankSource = s.rank;
      if (*rank < size)
        env.size = size;
    }
    return true;
  }
  return false;
}

/// TELAR_WORLD_SIZE, required with a rank from `rankVariable`.
int readWorldSize(const char *rankVariable) {
  std::optional<int> size =
      readInteger("TELAR_WORLD_SIZE", 1, 1 << 20, "a world size (an integer >= 1)");
  if (!size)
    throw std::runtime_error(std::string(rankVariable) +
                             " is set but TELAR_WORLD_SIZE is not: set it to "
                             "the number of ranks");
  return *size;
}

/// Rendezvous and rank checks of a job that meets through the TCP store
/// and moves data with Gloo.
void finishGloo(JobEnvironment &env) {
  env.bootstrap = BootstrapKind::Tcp;
  env.transport = TransportKind::Gloo;
  if (env.rank >= env.size)
    throw std::runtime_error(
        env.rankSource + "=" + std::to_string(env.rank) +
        " is not a rank of a world of " + std::to_string(env.size) +
        " (TELAR_WORLD_SIZE): ranks go from 0 to " +
        std::to_string(env.size - 1));
  std::optional<std::string> addr = getEnv("TELAR_MASTER_ADDR");
  if (!addr && env.size > 1)
    throw std::runtime_error(
        "TELAR_MASTER_ADDR is not set: the " + std::to_string(env.size) +
        " ranks meet at TELAR_MASTER_ADDR:TELAR_MASTER_PORT (rank 0's host "
        "name or address; port default " +
        std::to_string(kDefaultMasterPort) + ")");
  env.masterAddr = addr.value_or("");
  env.masterPort = readInteger("TELAR_MASTER_PORT", 1, 65535,
                               "a TCP port (an integer from 1 to 65535)")
                       .value_or(kDefaultMasterPort);
}

/// The rank of a Gloo job from the TELAR_* variables or a Kubernetes
/// Indexed Job; false when neither says it.
bool readGlooRank(JobEnvironment &env) {
  if (std::optional<int> rank = readInteger(
          "TELAR_RANK", 0, 1 << 20, "a rank (an integer >= 0)")) {
    env.rank = *rank;
    env.size = readWorldSize("TELAR_RANK");
    env.rankSource = "TELAR_RANK";
    env.launcher = "TELAR_* variables";
    return true;
  }
  if (std::optional<int> index =
          readInteger("JOB_COMPLETION_INDEX", 0, 1 << 20,
                      "a completion index (an integer >= 0)")) {
    env.rank = *index;
    env.size = readWorldSize("JOB_COMPLETION_INDEX");
    env.rankSource = "JOB_COMPLETION_INDEX";
    env.launcher = "Kubernetes Indexed Job";
    return true;
  }
  return false;
}

} // namespace

const char *telar::runtime::comm::getBootstrapName(BootstrapKind bootstrap) {
  switch (bootstrap) {
  case BootstrapKind::Local:
    return "local";
  case BootstrapKind::Mpi:
    return "mpi";
  case BootstrapKind::Tcp:
    return "tcp";
  }
  return "?";
}

const char *telar::runtime::comm::getTransportName(TransportKind transport) {
  switch (transport) {
  case TransportKind::Local:
    return "local";
  case TransportKind::Mpi:
    return "mpi";
  case TransportKind::Gloo:
    return "gloo";
  }
  return "?";
}

bool telar::runtime::comm::hasMpiLauncherEnvironment() {
  return hasEnv("OMPI_COMM_WORLD_SIZE") || hasEnv("PMIX_RANK") ||
         hasEnv("PMI_SIZE") || hasEnv("PMI_RANK") || isSrunStep();
}

namespace {

/// The launch without the local rank (rules 1-4 of detectJobEnvironment).
JobEnvironment detectRanks() {
  JobEnvironment env;
  std::optional<std::string> forced = getEnv("TELAR_BACKEND");
  if (forced && *forced != "mpi" && *forced != "gloo")
    throw std::runtime_error("TELAR_BACKEND='" + *forced +
                             "' is not a backend (expected 'mpi' or 'gloo')");

  if (forced && *forced == "gloo") {
    // The TELAR_* variables, else a launcher's (e.g. srun starting Gloo
    // ranks that meet at TELAR_MASTER_ADDR).
    if (!readGlooRank(env)) {
      if (!readMpiLauncher(env) || env.size <= 0)
        throw std::runtime_error(
            "TELAR_BACKEND=gloo but nothing says this process's rank and the "
            "world size: set TELAR_RANK and TELAR_WORLD_SIZE");
    }
    finishGloo(env);
    return env;
  }
  if ((forced && *forced == "mpi") || hasMpiLauncherEnvironment()) {
    env.bootstrap = BootstrapKind::Mpi;
    env.transport = TransportKind::Mpi;
    if (!readMpiLauncher(env)) {
      // Forced without a launcher: an MPI singleton.
      env.rank = 0;
      env.size = 0;
    }
    return env;
  }
  if (readGlooRank(env)) {
    finishGloo(env);
    return env;
  }
  if (hasEnv("TELAR_WORLD_SIZE"))
    throw std::runtime_error(
        "TELAR_WORLD_SIZE is set but neither TELAR_RANK nor "
        "JOB_COMPLETION_INDEX says this process's rank");
  return env;
}

/// Slurm's tasks per node, "4(x2),3,2": the entry of node `node` (0 when
/// the list does not parse or is too short).
int slurmTasksOnNode(const std::string &list, int node) {
  int index = 0;
  for (size_t start = 0; start < list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    std::string entry = list.substr(start, comma - start);
    start = comma + 1;
    int repeat = 1;
    size_t paren = entry.find("(x");
    if (paren != std::string::npos) {
      if (entry.back() != ')')
        return 0;
      std::optional<long long> r = parseInteger(
          entry.substr(paren + 2, entry.size() - paren - 3), 1, 1 << 20);
      if (!r)
        return 0;
      repeat = int(*r);
      entry = entry.substr(0, paren);
    }
    std::optional<long long> tasks = parseInteger(entry, 1, 1 << 20);
    if (!tasks)
      return 0;
    if (node < index + repeat)
      return int(*tasks);
    index += repeat;
  }
  return 0;
}

/// Sets the local rank and size from a pair of launcher variables; false
/// when the rank is not there (a size not there or out of range: -1).
bool readLauncherLocal(JobEnvironment &env, const char *rankName,
                       const char *sizeName) {
  std::optional<int> rank = readLauncherInteger(rankName);
  if (!rank)
    return false;
  std::optional<int> size =
      sizeName ? readLauncherInteger(sizeName) : std::nullopt;
  env.localRank = *rank;
  env.localSize = size && *size > *rank ? *size : -1;
  env.localRankSource = rankName;
  return true;
}

/// The local rank and the ranks per node, in the order Launch.h gives.
void detectLocal(JobEnvironment &env) {
  if (std::optional<int> rank = readInteger("TELAR_LOCAL_RANK", 0, 1 << 20,
                                            "a local rank (an integer >= 0)")) {
    std::optional<int> size =
        readInteger("TELAR_LOCAL_SIZE", 1, 1 << 20,
                    "a number of ranks per node (an integer >= 1)");
    if (size && *rank >= *size)
      throw std::runtime_error(
          "TELAR_LOCAL_RANK=" + std::to_string(*rank) +
          " is not a local rank of " + std::to_string(*size) +
          " ranks per node (TELAR_LOCAL_SIZE): local ranks go from 0 to " +
          std::to_string(*size - 1));
    env.localRank = *rank;
    env.localSize = size.value_or(-1);
    env.localRankSource = "TELAR_LOCAL_RANK";
    return;
  }
  if (readLauncherLocal(env, "OMPI_COMM_WORLD_LOCAL_RANK",
                        "OMPI_COMM_WORLD_LOCAL_SIZE") ||
      readLauncherLocal(env, "MPI_LOCALRANKID", "MPI_LOCALNRANKS"))
    return;
  if (readLauncherLocal(env, "SLURM_LOCALID", nullptr)) {
    int node = readLauncherInteger("SLURM_NODEID").value_or(0);
    int tasks = 0;
    for (const char *name :
         {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"})
      if (std::optional<std::string> list = getEnv(name); list && !tasks)
        tasks = slurmTasksOnNode(*list, node);
    if (!tasks)
      tasks = readLauncherInteger("SLURM_NTASKS_PER_NODE").value_or(0);
    env.localSize = tasks > env.localRank ? tasks : -1;
    return;
  }
  if (readLauncherLocal(env, "LOCAL_RANK", "LOCAL_WORLD_SIZE"))
    return;
  if (env.rankSource == "JOB_COMPLETION_INDEX") {
    // A pod runs TELAR_TASKS_PER_NODE ranks (one, as launch/k8s.yaml
    // does, unless set), numbered consecutively.
    int perPod = readInteger("TELAR_TASKS_PER_NODE", 1, 1 << 20,
                             "a number of ranks per pod (an integer >= 1)")
                     .value_or(1);
    env.localRank = env.rank % perPod;
    env.localSize = perPod;
    env.localRankSource = "JOB_COMPLETION_INDEX";
    return;
  }
  if (env.bootstrap == BootstrapKind::Local) {
    env.localRank = 0;
    env.localSize = 1;
  }
}

} // namespace

JobEnvironment telar::runtime::comm::detectJobEnvironment() {
  JobEnvironment env = detectRanks();
  detectLocal(env);
  return env;
}

std::string
telar::runtime::comm::describeJobEnvironment(const JobEnvironment &env) {
  if (env.transport == TransportKind::Local)
    return "one process (no launcher), backend local";
  std::string s = "rank " + std::to_string(env.rank) + " of " +
                  (env.size > 0 ? std::to_string(env.size) : "?") + " (rank from " +
                  (env.rankSource.empty() ? std::string("MPI") : env.rankSource);
  if (!env.launcher.empty())
    s += ", " + env.launcher;
  s += "), backend ";
  s += getTransportName(env.transport);
  if (env.bootstrap == BootstrapKind::Tcp && env.size == 1)
    s += ", no rendezvous (one rank)";
  else if (env.bootstrap == BootstrapKind::Tcp)
    s += ", rendezvous " + env.masterAddr + ":" +
         std::to_string(env.masterPort) +
         (auth::getJobToken().empty()
              ? " (loopback only: no TELAR_JOB_TOKEN)"
              : " (authenticated: TELAR_JOB_TOKEN)");
  else if (env.bootstrap == BootstrapKind::Mpi)
    s += ", rendezvous through MPI";
  if (env.localRank >= 0)
    s += ", local rank " + std::to_string(env.localRank) + " of " +
         (env.localSize > 0 ? std::to_string(env.localSize) : "?") +
         " (from " + env.localRankSource + ")";
  return s;
}
