//===- Ranks.cpp - telar-run's ranks: the job and its failure path --------===//
//
// Ranks.h.
//
//===----------------------------------------------------------------------===//

#include "Ranks.h"

#include "telar/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <sched.h>

namespace telar::tools::run {

int defaultThreads(const Job &job) {
  int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  int local = job.localSize > 0 ? job.localSize : job.size;
  return std::max(1, hardware / std::max(1, local));
}

std::vector<int> pinnedThreadCpus() {
  std::vector<int> cpus(std::max(0, telarrt_bound_thread_cpus(nullptr, 0)));
  telarrt_bound_thread_cpus(cpus.data(), int(cpus.size()));
  return cpus;
}

int setUpThreads(const Options &o, const Job &job) {
  int threads = o.threads ? o.threads : defaultThreads(job);
  // The process's CPUs, read before libomp starts (OMP_PROC_BIND would pin
  // this thread when it does).
  cpu_set_t mine;
  CPU_ZERO(&mine);
  bool known = sched_getaffinity(0, sizeof(mine), &mine) == 0;
  telarrt_set_num_threads(threads);
  int pinned = 0;
  std::string why = !o.bindThreads ? " (--bind-threads none)" : "";
  if (o.bindThreads && known) {
    // A launcher that bound the rank gave it CPUs of its own (fewer than the
    // machine's); ranks that share them all take disjoint slots.
    int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    int cpus = CPU_COUNT(&mine);
    bool shared = job.localSize > 1 && job.env.localRank >= 0 &&
                  cpus >= hardware;
    int jobThreads = threads * (shared ? job.localSize : 1);
    // Only when the job's threads fill the CPUs it can see, one each. Beside
    // other work (a pod among others on a node, one process of many) pinned
    // threads could pile onto CPUs others use, where the OS would have moved
    // them; with more threads than CPUs (2 ranks x 2 threads on 2 CPUs) a
    // rank waiting in a collective would hold a CPU another rank's pinned
    // thread needs (measured: 7.0 ms a run pinned, 2.9 left to the OS).
    if (jobThreads == cpus) {
      pinned = telarrt_bind_threads(shared ? job.env.localRank * threads : -1);
      if (pinned == 0 && threads > 1)
        why = " (an OpenMP affinity variable places them)";
    } else if (threads > 1) {
      why = " (the job's " + std::to_string(jobThreads) + " threads on " +
            std::to_string(cpus) + " CPUs: left to the OS)";
    }
  }
  if (o.verbose) {
    std::string where;
    for (int c : pinnedThreadCpus())
      where += (where.empty() ? "" : ",") + std::to_string(c);
    std::fprintf(stderr, "telar-run: %s%d thread%s, %s\n",
                 job.prefix().c_str(), threads, threads == 1 ? "" : "s",
                 (pinned > 0   ? "pinned to CPUs " + where
                  : pinned < 0 ? std::string("not pinned (the OS refused)")
                               : "not pinned" + why)
                     .c_str());
  }
  return threads;
}

void checkRanks(const Options &o, const Job &job) {
  if (o.ranks && o.ranks != job.size)
    throw runtime::Error("-n " + std::to_string(o.ranks) +
                         " but this job has " + std::to_string(job.size) +
                         " rank" + (job.size == 1 ? "" : "s"));
}

bool agree(const Job &job, const std::string &problem) {
  comm::Watchdog::setPhase("agreeing that every rank passed its checks");
  std::vector<int32_t> failed =
      allGather<int32_t>(job, {problem.empty() ? 0 : 1}, comm::DataType::I32);
  std::string failedRanks;
  for (int r = 0; r < job.size; ++r)
    if (failed[r])
      failedRanks += (failedRanks.empty() ? "" : ", ") + std::to_string(r);
  // The first failed rank's problem, for the others to name (a corrupt
  // weight file of one rank: every rank says which).
  std::string firstProblem;
  int firstFailed = -1;
  for (int r = 0; r < job.size && firstFailed < 0; ++r)
    if (failed[r])
      firstFailed = r;
  if (job.world && firstFailed >= 0) {
    constexpr size_t kProblemBytes = 1024;
    std::vector<char> text(kProblemBytes, 0);
    if (job.rank == firstFailed)
      std::memcpy(text.data(), problem.data(),
                  std::min(problem.size(), kProblemBytes - 1));
    comm::WaitScope wait("broadcast", "the world");
    job.world->broadcast(text.data(), int64_t(kProblemBytes),
                         comm::DataType::I8, firstFailed);
    firstProblem = text.data();
  }
  if (!failedRanks.empty()) {
    std::fflush(stdout);
    if (!problem.empty())
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   problem.c_str());
    else
      std::fprintf(stderr,
                   "telar-run: error: %snot running: rank%s %s failed "
                   "%s checks (rank %d: %s)\n",
                   job.prefix().c_str(),
                   failedRanks.find(',') == std::string::npos ? "" : "s",
                   failedRanks.c_str(),
                   failedRanks.find(',') == std::string::npos ? "its"
                                                              : "their",
                   firstFailed, firstProblem.c_str());
    // mpirun ends the job when a rank exits non-zero: none exits before
    // every rank has said what went wrong.
    std::fflush(stderr);
    if (job.world) {
      comm::WaitScope wait("barrier", "the world");
      job.world->barrier();
    }
    comm::Watchdog::endCollectives();
    return false;
  }
  return true;
}

void failRank(const Job &job, const std::string &message, bool peerFailed,
              int code) {
  if (job.multi() && peerFailed)
    comm::Watchdog::awaitVerdict(4.0);
  std::fflush(stdout);
  std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
               message.c_str());
  if (job.multi()) {
    comm::Watchdog::reportFailure(message);
    job.abort(code);
  }
}

std::optional<int> formJob(const Options &o, int &argc, char **&argv,
                           Job &job) {
  comm::JobEnvironment &env = job.env;
  try {
    env = comm::detectJobEnvironment();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "telar-run: error: %s\n", e.what());
    return 2;
  }
  if (o.ranks > 1 && env.transport == comm::TransportKind::Local)
    return comm::relaunchUnderMpirun(
        "telar-run", o.ranks, argc, argv,
        "mpirun -np " + std::to_string(o.ranks) +
            " telar-run ..., srun -n " + std::to_string(o.ranks) +
            " telar-run ..., or " + std::to_string(o.ranks) +
            " processes with TELAR_RANK, TELAR_WORLD_SIZE, "
            "TELAR_MASTER_ADDR and TELAR_MASTER_PORT");

  // The job: MPI's world under an MPI launcher, Gloo's through the TCP
  // rendezvous otherwise (with the --timeout).
  job.transport = env.transport;
  try {
    auto timeout = std::chrono::milliseconds(std::max<int64_t>(
        1, int64_t(std::llround(o.timeoutSeconds * 1000))));
    job.connection = comm::connectWorld(env, &argc, &argv, timeout);
    if (o.verbose)
      std::fprintf(stderr, "telar-run: %s\n",
                   comm::describeJobEnvironment(env).c_str());
    job.world = job.connection.communicator;
    job.localSize = env.localSize;
    if (job.world) {
      job.rank = job.world->getRank();
      job.size = job.world->getSize();
    }
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "telar-run: error: %s%s\n",
                 env.size > 1 ? ("rank " + std::to_string(env.rank) + ": ").c_str()
                              : "",
                 e.what());
    return 1;
  }
  if (job.multi()) {
    // From here no rank waits for another longer than --timeout, and a
    // rank that dies or stops ends the others (Watchdog.h).
    try {
      comm::WatchdogOptions watch;
      watch.rank = job.rank;
      watch.size = job.size;
      watch.timeoutSeconds = o.timeoutSeconds;
      watch.rank0Host = env.masterAddr;
      watch.launcherEndsJob = env.transport == comm::TransportKind::Mpi;
      // Where the network allows only known ports, and for hosts so loaded
      // that 10 s of silence is no sign of a stopped rank.
      if (const char *v = std::getenv("TELAR_LIVENESS_PORT"); v && *v)
        watch.port = std::atoi(v);
      if (const char *v = std::getenv("TELAR_LIVENESS_SECONDS"); v && *v)
        if (double seconds = std::atof(v); seconds > 0)
          watch.livenessSeconds = seconds;
      comm::Watchdog::start(watch);
      comm::Watchdog::connect(*job.world);
      comm::Watchdog::setPhase("checking the artifact and the inputs");
    } catch (const std::exception &e) {
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      job.abort(1);
    }
  }
  return std::nullopt;
}

int leaveJob(Job &job, int status) {
  // Over Gloo, no rank closes its connections while rank 0 may still be
  // reading what it sent (MPI_Finalize does this under MPI).
  if (job.env.transport == comm::TransportKind::Gloo && job.world) {
    try {
      comm::WaitScope wait("barrier", "the world");
      job.world->barrier();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "telar-run: error: %s%s\n", job.prefix().c_str(),
                   e.what());
      status = status ? status : 1;
    }
  }
  comm::Watchdog::finish();
  job.world.reset();
  comm::disconnectWorld(job.connection);
  return status;
}

} // namespace telar::tools::run
