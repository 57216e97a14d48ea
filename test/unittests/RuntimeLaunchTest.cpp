//===- RuntimeLaunchTest.cpp - The job environment rules ------------------===//
//
// detectJobEnvironment (telar/runtime/Launch.h) on environments as each
// launcher sets them: the order of the rules, the bootstrap and transport
// each gives, the rank's source, the launcher's name, the rendezvous
// defaults, the local rank and ranks per node, and the errors on
// inconsistent values (each naming the variable).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Launch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

using namespace telar::runtime::comm;

namespace {

/// Every variable the rules read, unset for the test's scope and restored
/// after it; `set` adds the test's own.
class Environment {
public:
  Environment() {
    for (const char *name : kNames) {
      if (const char *v = std::getenv(name))
        saved[name] = v;
      ::unsetenv(name);
    }
  }
  ~Environment() {
    for (const char *name : kNames) {
      ::unsetenv(name);
      auto it = saved.find(name);
      if (it != saved.end())
        ::setenv(name, it->second.c_str(), 1);
    }
  }
  Environment &set(const char *name, const char *value) {
    ::setenv(name, value, 1);
    return *this;
  }

private:
  static constexpr const char *kNames[] = {
      "TELAR_BACKEND",        "TELAR_RANK",           "TELAR_WORLD_SIZE",
      "TELAR_MASTER_ADDR",    "TELAR_MASTER_PORT",    "JOB_COMPLETION_INDEX",
      "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
      "PMI_RANK",             "PMI_SIZE",             "SLURM_STEP_ID",
      "SLURM_PROCID",         "SLURM_NTASKS",         "SLURM_STEP_NUM_TASKS",
      "TELAR_LOCAL_RANK",     "TELAR_LOCAL_SIZE",     "TELAR_TASKS_PER_NODE",
      "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
      "MPI_LOCALRANKID",      "MPI_LOCALNRANKS",      "SLURM_LOCALID",
      "SLURM_NODEID",         "SLURM_STEP_TASKS_PER_NODE",
      "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE", "LOCAL_RANK",
      "LOCAL_WORLD_SIZE",     "TELAR_JOB_TOKEN"};
  std::map<std::string, std::string> saved;
};

/// The error detectJobEnvironment throws ("" when none).
std::string errorOf() {
  try {
    detectJobEnvironment();
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

TEST(JobEnvironment, NothingSetIsLocal) {
  Environment env;
  JobEnvironment job = detectJobEnvironment();
  EXPECT_EQ(job.transport, TransportKind::Local);
  EXPECT_EQ(job.bootstrap, BootstrapKind::Local);
  EXPECT_EQ(job.localRank, 0);
  EXPECT_EQ(job.localSize, 1);
  EXPECT_EQ(job.rank, 0);
  EXPECT_EQ(job.size, 1);
  EXPECT_EQ(job.launcher, "");
  EXPECT_EQ(describeJobEnvironment(job),
            "one process (no launcher), backend local");
}

TEST(JobEnvironment, TelarVariablesAreGloo) {
  Environment env;
  env.set("TELAR_RANK", "2")
      .set("TELAR_WORLD_SIZE", "4")
      .set("TELAR_MASTER_ADDR", "10.0.0.5");
  JobEnvironment job = detectJobEnvironment();
  EXPECT_EQ(job.transport, TransportKind::Gloo);
  EXPECT_EQ(job.bootstrap, BootstrapKind::Tcp);
  EXPECT_EQ(job.rank, 2);
  EXPECT_EQ(job.size, 4);
  EXPECT_EQ(job.rankSource, "TELAR_RANK");
  EXPECT_EQ(job.launcher, "TELAR_* variables");
  EXPECT_EQ(job.masterAddr, "10.0.0.5");
  EXPECT_EQ(job.masterPort, 29500);
  EXPECT_EQ(describeJobEnvironment(job),
            "rank 2 of 4 (rank from TELAR_RANK, TELAR_* variables), backend "
            "gloo, rendezvous 10.0.0.5:29500 (loopback only: no "
            "TELAR_JOB_TOKEN)");
  env.set("TELAR_MASTER_PORT", "1234");
  EXPECT_EQ(detectJobEnvironment().masterPort, 1234);
}

TEST(JobEnvironment, KubernetesIndexedJob) {
  Environment env;
  env.set("JOB_COMPLETION_INDEX", "3")
      .set("TELAR_WORLD_SIZE", "4")
      .set("TELAR_MASTER_ADDR", "telar-0.telar")
      .set("TELAR_MASTER_PORT", "29501")
      .set("TELAR_JOB_TOKEN", "secret");
  JobEnvironment job = detectJobEnvironment();
  EXPECT_EQ(job.transport, TransportKind::Gloo);
  EXPECT_EQ(job.bootstrap, BootstrapKind::Tcp);
  EXPECT_EQ(job.rank, 3);
  EXPECT_EQ(job.rankSource, "JOB_COMPLETION_INDEX");
  EXPECT_EQ(describeJobEnvironment(job),
            "rank 3 of 4 (rank from JOB_COMPLETION_INDEX, Kubernetes Indexed "
            "Job), backend gloo, rendezvous telar-0.telar:29501 "
            "(authenticated: TELAR_JOB_TOKEN), local rank 0 of 1 (from "
            "JOB_COMPLETION_INDEX)");
  // TELAR_RANK, when both are set, says it.
  env.set("TELAR_RANK", "1");
  EXPECT_EQ(detectJobEnvironment().rank, 1);
  EXPECT_EQ(detectJobEnvironment().rankSource, "TELAR_RANK");
}

TEST(JobEnvironment, OneRankNeedsNoRendezvousAddress) {
  Environment env;
  env.set("TELAR_RANK", "0").set("TELAR_WORLD_SIZE", "1");
  JobEnvironment job = detectJobEnvironment();
  EXPECT_EQ(job.transport, TransportKind::Gloo);
  EXPECT_EQ(job.bootstrap, BootstrapKind::Tcp);
  EXPECT_EQ(job.size, 1);
  EXPECT_EQ(job.masterAddr, "");
  EXPECT_EQ(describeJobEnvironment(job),
            "rank 0 of 1 (rank from TELAR_RANK, TELAR_* variables), backend "
            "gloo, no rendezvous (one rank)");
}

TEST(JobEnvironment, MpiLaunchers) {
  {
    Environment env;
    env.set("OMPI_COMM_WORLD_SIZE", "4").set("OMPI_COMM_WORLD_RANK", "1");
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.transport, TransportKind::Mpi);
    EXPECT_EQ(job.bootstrap, BootstrapKind::Mpi);
    EXPECT_EQ(job.rank, 1);
    EXPECT_EQ(job.size, 4);
    EXPECT_EQ(job.rankSource, "OMPI_COMM_WORLD_RANK");
    EXPECT_EQ(job.launcher, "mpirun");
    EXPECT_EQ(describeJobEnvironment(job),
              "rank 1 of 4 (rank from OMPI_COMM_WORLD_RANK, mpirun), backend "
              "mpi, rendezvous through MPI");
  }
  {
    Environment env;
    env.set("SLURM_STEP_ID", "0")
        .set("SLURM_PROCID", "3")
        .set("SLURM_NTASKS", "8")
        .set("SLURM_STEP_NUM_TASKS", "4")
        .set("PMIX_RANK", "3");
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.transport, TransportKind::Mpi);
    EXPECT_EQ(job.bootstrap, BootstrapKind::Mpi);
    EXPECT_EQ(job.launcher, "srun");
    EXPECT_EQ(job.rankSource, "SLURM_PROCID");
    EXPECT_EQ(job.rank, 3);
    EXPECT_EQ(job.size, 4); // the step's tasks, not the allocation's
  }
  {
    // PMIx says the rank, not the size: MPI decides it.
    Environment env;
    env.set("PMIX_RANK", "2");
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.transport, TransportKind::Mpi);
    EXPECT_EQ(job.bootstrap, BootstrapKind::Mpi);
    EXPECT_EQ(job.rank, 2);
    EXPECT_EQ(job.size, 0);
    EXPECT_EQ(job.rankSource, "PMIX_RANK");
  }
  {
    // A Slurm batch script's environment is not an srun step.
    Environment env;
    env.set("SLURM_PROCID", "0").set("SLURM_NTASKS", "4");
    EXPECT_EQ(detectJobEnvironment().transport, TransportKind::Local);
    EXPECT_FALSE(hasMpiLauncherEnvironment());
  }
}

TEST(JobEnvironment, MpiLauncherBeforeTelarVariables) {
  Environment env;
  env.set("OMPI_COMM_WORLD_SIZE", "2")
      .set("OMPI_COMM_WORLD_RANK", "0")
      .set("TELAR_RANK", "1")
      .set("TELAR_WORLD_SIZE", "2");
  EXPECT_EQ(detectJobEnvironment().transport, TransportKind::Mpi);
}

TEST(JobEnvironment, ForcedBackend) {
  {
    Environment env;
    env.set("TELAR_BACKEND", "mpi");
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.transport, TransportKind::Mpi);
    EXPECT_EQ(job.bootstrap, BootstrapKind::Mpi); // an MPI singleton
  }
  {
    // Gloo ranks started by srun: the rank and size from Slurm.
    Environment env;
    env.set("TELAR_BACKEND", "gloo")
        .set("SLURM_STEP_ID", "0")
        .set("SLURM_PROCID", "1")
        .set("SLURM_NTASKS", "2")
        .set("TELAR_MASTER_ADDR", "node0");
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.transport, TransportKind::Gloo);
  EXPECT_EQ(job.bootstrap, BootstrapKind::Tcp);
    EXPECT_EQ(job.rank, 1);
    EXPECT_EQ(job.size, 2);
    EXPECT_EQ(job.launcher, "srun");
    EXPECT_EQ(job.masterAddr, "node0");
  }
  {
    Environment env;
    env.set("TELAR_BACKEND", "gloo");
    EXPECT_NE(errorOf().find("TELAR_BACKEND=gloo but nothing says this "
                             "process's rank"),
              std::string::npos)
        << errorOf();
  }
  {
    Environment env;
    env.set("TELAR_BACKEND", "nccl");
    EXPECT_EQ(errorOf(),
              "TELAR_BACKEND='nccl' is not a backend (expected 'mpi' or "
              "'gloo')");
  }
}

TEST(JobEnvironment, Errors) {
  struct Case {
    std::map<std::string, std::string> vars;
    std::string error;
  };
  const Case cases[] = {
      {{{"TELAR_RANK", "x"}, {"TELAR_WORLD_SIZE", "2"}},
       "TELAR_RANK='x' is not a rank (an integer >= 0)"},
      {{{"TELAR_RANK", "-1"}, {"TELAR_WORLD_SIZE", "2"}},
       "TELAR_RANK='-1' is not a rank"},
      {{{"TELAR_RANK", "1 "}, {"TELAR_WORLD_SIZE", "2"}},
       "TELAR_RANK='1 ' is not a rank"},
      {{{"TELAR_RANK", "0"}, {"TELAR_WORLD_SIZE", "0"}},
       "TELAR_WORLD_SIZE='0' is not a world size (an integer >= 1)"},
      {{{"TELAR_RANK", "0"}}, "TELAR_RANK is set but TELAR_WORLD_SIZE is not"},
      {{{"JOB_COMPLETION_INDEX", "0"}},
       "JOB_COMPLETION_INDEX is set but TELAR_WORLD_SIZE is not"},
      {{{"JOB_COMPLETION_INDEX", "abc"}, {"TELAR_WORLD_SIZE", "2"}},
       "JOB_COMPLETION_INDEX='abc' is not a completion index"},
      {{{"TELAR_RANK", "4"}, {"TELAR_WORLD_SIZE", "4"},
        {"TELAR_MASTER_ADDR", "h"}},
       "TELAR_RANK=4 is not a rank of a world of 4 (TELAR_WORLD_SIZE): ranks "
       "go from 0 to 3"},
      {{{"TELAR_RANK", "1"}, {"TELAR_WORLD_SIZE", "4"}},
       "TELAR_MASTER_ADDR is not set: the 4 ranks meet at "
       "TELAR_MASTER_ADDR:TELAR_MASTER_PORT"},
      {{{"TELAR_RANK", "1"}, {"TELAR_WORLD_SIZE", "4"},
        {"TELAR_MASTER_ADDR", "h"}, {"TELAR_MASTER_PORT", "70000"}},
       "TELAR_MASTER_PORT='70000' is not a TCP port (an integer from 1 to "
       "65535)"},
      {{{"TELAR_RANK", "1"}, {"TELAR_WORLD_SIZE", "4"},
        {"TELAR_MASTER_ADDR", "h"}, {"TELAR_MASTER_PORT", "http"}},
       "TELAR_MASTER_PORT='http' is not a TCP port"},
      {{{"TELAR_WORLD_SIZE", "4"}},
       "TELAR_WORLD_SIZE is set but neither TELAR_RANK nor "
       "JOB_COMPLETION_INDEX says this process's rank"},
  };
  for (const Case &c : cases) {
    Environment env;
    for (const auto &[name, value] : c.vars)
      env.set(name.c_str(), value.c_str());
    std::string error = errorOf();
    EXPECT_EQ(error.rfind(c.error, 0), 0u)
        << "error was '" << error << "', expected it to start with '"
        << c.error << "'";
  }
}

TEST(JobEnvironment, LocalRankFromLaunchers) {
  struct Case {
    std::map<std::string, std::string> vars;
    int localRank, localSize;
    std::string source;
  };
  const Case cases[] = {
      // OpenMPI's mpirun.
      {{{"OMPI_COMM_WORLD_SIZE", "8"},
        {"OMPI_COMM_WORLD_RANK", "5"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}},
       1, 4, "OMPI_COMM_WORLD_LOCAL_RANK"},
      // MPICH's Hydra.
      {{{"PMI_RANK", "3"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "1"},
        {"MPI_LOCALNRANKS", "2"}},
       1, 2, "MPI_LOCALRANKID"},
      // srun: this node's tasks from the step's list, by SLURM_NODEID.
      {{{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "9"},
        {"SLURM_NTASKS", "10"},
        {"SLURM_LOCALID", "1"},
        {"SLURM_NODEID", "2"},
        {"SLURM_STEP_TASKS_PER_NODE", "4(x2),2"},
        {"SLURM_TASKS_PER_NODE", "4(x3)"}},
       1, 2, "SLURM_LOCALID"},
      // ... the job's list when the step's is not there.
      {{{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "5"},
        {"SLURM_NTASKS", "8"},
        {"SLURM_LOCALID", "1"},
        {"SLURM_NODEID", "1"},
        {"SLURM_TASKS_PER_NODE", "4(x2)"}},
       1, 4, "SLURM_LOCALID"},
      // ... or --ntasks-per-node's.
      {{{"SLURM_STEP_ID", "0"},
        {"SLURM_PROCID", "5"},
        {"SLURM_NTASKS", "8"},
        {"SLURM_LOCALID", "3"},
        {"SLURM_NTASKS_PER_NODE", "4"}},
       3, 4, "SLURM_LOCALID"},
      // torchrun's and Ray Train's variables.
      {{{"TELAR_RANK", "5"},
        {"TELAR_WORLD_SIZE", "8"},
        {"TELAR_MASTER_ADDR", "h"},
        {"LOCAL_RANK", "1"},
        {"LOCAL_WORLD_SIZE", "4"}},
       1, 4, "LOCAL_RANK"},
      // A Kubernetes pod is a node of its own, unless it runs several.
      {{{"JOB_COMPLETION_INDEX", "5"},
        {"TELAR_WORLD_SIZE", "8"},
        {"TELAR_MASTER_ADDR", "h"}},
       0, 1, "JOB_COMPLETION_INDEX"},
      {{{"JOB_COMPLETION_INDEX", "5"},
        {"TELAR_WORLD_SIZE", "8"},
        {"TELAR_MASTER_ADDR", "h"},
        {"TELAR_TASKS_PER_NODE", "2"}},
       1, 2, "JOB_COMPLETION_INDEX"},
      // TELAR_LOCAL_RANK says it over every launcher's.
      {{{"OMPI_COMM_WORLD_SIZE", "8"},
        {"OMPI_COMM_WORLD_RANK", "5"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
        {"TELAR_LOCAL_RANK", "2"},
        {"TELAR_LOCAL_SIZE", "3"}},
       2, 3, "TELAR_LOCAL_RANK"},
      // Plain processes: nothing says it (the ranks' host names will).
      {{{"TELAR_RANK", "1"}, {"TELAR_WORLD_SIZE", "2"},
        {"TELAR_MASTER_ADDR", "h"}},
       -1, -1, ""},
      // A launcher's size that does not hold its rank is not believed.
      {{{"OMPI_COMM_WORLD_SIZE", "8"},
        {"OMPI_COMM_WORLD_RANK", "5"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "4"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}},
       4, -1, "OMPI_COMM_WORLD_LOCAL_RANK"},
  };
  for (const Case &c : cases) {
    Environment env;
    std::string vars;
    for (const auto &[name, value] : c.vars) {
      env.set(name.c_str(), value.c_str());
      vars += name + "=" + value + " ";
    }
    JobEnvironment job = detectJobEnvironment();
    EXPECT_EQ(job.localRank, c.localRank) << vars;
    EXPECT_EQ(job.localSize, c.localSize) << vars;
    EXPECT_EQ(job.localRankSource, c.source) << vars;
  }
}

TEST(JobEnvironment, LocalRankInTheDescription) {
  Environment env;
  env.set("OMPI_COMM_WORLD_SIZE", "8")
      .set("OMPI_COMM_WORLD_RANK", "5")
      .set("OMPI_COMM_WORLD_LOCAL_RANK", "1")
      .set("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
  EXPECT_EQ(describeJobEnvironment(detectJobEnvironment()),
            "rank 5 of 8 (rank from OMPI_COMM_WORLD_RANK, mpirun), backend "
            "mpi, rendezvous through MPI, local rank 1 of 4 (from "
            "OMPI_COMM_WORLD_LOCAL_RANK)");
}

TEST(JobEnvironment, LocalRankErrors) {
  Environment env;
  env.set("TELAR_LOCAL_RANK", "2").set("TELAR_LOCAL_SIZE", "2");
  EXPECT_EQ(errorOf(), "TELAR_LOCAL_RANK=2 is not a local rank of 2 ranks "
                       "per node (TELAR_LOCAL_SIZE): local ranks go from 0 "
                       "to 1");
  env.set("TELAR_LOCAL_RANK", "one");
  EXPECT_EQ(errorOf(), "TELAR_LOCAL_RANK='one' is not a local rank (an "
                       "integer >= 0)");
  env.set("TELAR_LOCAL_RANK", "0").set("TELAR_LOCAL_SIZE", "0");
  EXPECT_EQ(errorOf(), "TELAR_LOCAL_SIZE='0' is not a number of ranks per "
                       "node (an integer >= 1)");
}

TEST(JobEnvironment, EmptyMeansUnset) {
  Environment env;
  env.set("TELAR_RANK", "").set("OMPI_COMM_WORLD_SIZE", "");
  EXPECT_EQ(detectJobEnvironment().transport, TransportKind::Local);
}

} // namespace
