//===- World.cpp - Forming a job's bootstrap and transport ----------------===//
//
// include/telar/runtime/World.h: the one place that pairs a bootstrap with
// a transport.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/World.h"

#include "telar/runtime/GlooComm.h"
#include "telar/runtime/MpiComm.h"
#include "telar/runtime/TcpBootstrap.h"

using namespace telar::runtime::comm;

World telar::runtime::comm::connectWorld(JobEnvironment &env, int *argc,
                                         char ***argv,
                                         std::chrono::milliseconds timeout) {
  World world;
  world.transport = env.transport;
  switch (env.bootstrap) {
  case BootstrapKind::Local:
    world.bootstrap = createLocalBootstrap();
    break;
  case BootstrapKind::Mpi:
    initializeMpi(argc, argv);
    world.bootstrap = createMpiBootstrap();
    // MPI's word over the launcher's variables.
    env.rank = world.bootstrap->getRank();
    env.size = world.bootstrap->getSize();
    break;
  case BootstrapKind::Tcp:
    world.bootstrap = std::make_shared<TcpBootstrap>(
        env.masterAddr, env.masterPort, env.rank, env.size, timeout);
    break;
  }
  switch (env.transport) {
  case TransportKind::Local:
    break;
  case TransportKind::Mpi:
    if (env.bootstrap != BootstrapKind::Mpi)
      throw CommError(std::string("the MPI transport meets through MPI, not "
                                  "through the ") +
                      world.bootstrap->getName() + " bootstrap");
    world.communicator = createMpiWorldCommunicator();
    break;
  case TransportKind::Gloo:
    world.communicator =
        createGlooWorldCommunicator(world.bootstrap, timeout);
    break;
  }
  if (env.localRank < 0) {
    LocalPlace place = findLocalPlace(*world.bootstrap, getHostName());
    env.localRank = place.localRank;
    env.localSize = place.localSize;
    env.localRankSource = "the ranks' host names";
  }
  return world;
}

void telar::runtime::comm::disconnectWorld(World &world) {
  world.communicator.reset();
  world.bootstrap.reset();
  // Only when connectWorld initialised MPI.
  finalizeMpi();
}
