//===- World.h - Forming a job's bootstrap and transport --------*- C++ -*-===//
//
// What a tool that runs ranks does once Launch.h has read the job's
// environment: meet through the bootstrap it names (MPI, the TCP
// rendezvous, or none), form the transport's world communicator through
// it (MPI, Gloo), and learn the rank's place on its node where no launcher
// said it. Library telar_runtime_world (links the MPI and Gloo transports).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_WORLD_H
#define TELAR_RUNTIME_WORLD_H

#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Launch.h"

#include <chrono>
#include <memory>

namespace telar::runtime::comm {

struct World {
  std::shared_ptr<Bootstrap> bootstrap;
  /// Null for one process without a launcher (TransportKind::Local).
  std::shared_ptr<Communicator> communicator;
  TransportKind transport = TransportKind::Local;
};

/// Meets and connects as `env` says, and completes `env` with what the
/// bootstrap knows: MPI's rank and size over the launcher's variables, and
/// the local rank and ranks per node from the ranks' host names when no
/// variable said them (collective over the bootstrap). MPI is initialised
/// here (with `argc`, `argv`) for an MPI bootstrap. `timeout` bounds the
/// TCP rendezvous and every Gloo operation. Throws CommError (or
/// std::runtime_error) when the ranks cannot meet or connect.
World connectWorld(JobEnvironment &env, int *argc, char ***argv,
                   std::chrono::milliseconds timeout);

/// Drops the world's communicator and bootstrap, then finalises MPI when
/// connectWorld initialised it.
void disconnectWorld(World &world);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_WORLD_H
