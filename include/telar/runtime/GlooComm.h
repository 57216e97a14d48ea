//===- GlooComm.h - The Gloo transport of the communicators -----*- C++ -*-===//
//
// The Gloo transport of telar/runtime/Comm.h (library telar_runtime_gloo;
// Debian's libgloo, the library PyTorch uses for CPU collectives): for
// ranks that no MPI launcher started (plain processes, Kubernetes pods,
// Ray actors). They meet through the TCP rendezvous that rank 0 serves
// (the bootstrap of TcpBootstrap.h), and Gloo's TCP transport connects
// every pair of ranks through its store. Errors, Gloo's timeouts included,
// come back as CommError naming the operation.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_GLOOCOMM_H
#define TELAR_RUNTIME_GLOOCOMM_H

#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Comm.h"

#include <chrono>
#include <memory>
#include <string>

namespace telar::runtime::comm {

/// The communicator of every rank, formed through `bootstrap`, which must
/// be Telar's TCP rendezvous (TcpBootstrap.h: Gloo's TCP transport connects
/// every pair of ranks through its store, each rank listening on the
/// address it reached the store from) or a bootstrap of one rank (every
/// collective local); another is a CommError naming it. `timeout` is Gloo's
/// timeout of every operation: a peer that dies or stalls makes the
/// operation throw CommError. `split` forms a new Gloo context over the
/// same store. The communicator keeps the bootstrap alive.
std::shared_ptr<Communicator>
createGlooWorldCommunicator(std::shared_ptr<Bootstrap> bootstrap,
                            std::chrono::milliseconds timeout);

/// The same through a TcpBootstrap(masterAddr, masterPort, rank, size,
/// timeout) of its own: rank 0 serves the store at `masterPort`, every
/// rank connects to `masterAddr:masterPort` (retrying until `timeout`) and
/// checks that all `size` ranks joined with the same size; its errors are
/// TcpBootstrap's ("cannot reach the rendezvous at ADDR:PORT after 5 s
/// (rank 0 serves it: is it running? ...)", ranks that do not join named).
/// A size of 1 needs no rendezvous. Ignores SIGPIPE when it has its default
/// action (a write to a dead peer must be an error, not the end of this
/// process).
std::shared_ptr<Communicator>
createGlooWorldCommunicator(const std::string &masterAddr, int masterPort,
                            int rank, int size,
                            std::chrono::milliseconds timeout);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_GLOOCOMM_H
