//===- GlooComm.h - The Gloo transport of the communicators -----*- C++ -*-===//
//
// The Gloo backend of telar/runtime/Comm.h (library telar_runtime_gloo;
// Debian's libgloo, the library PyTorch uses for CPU collectives): for
// ranks that no MPI launcher started (plain processes, Kubernetes pods,
// Ray actors). They meet at a TCP rendezvous that rank 0 serves
// (runtime/comm/TcpStore.h), and Gloo's TCP transport connects every pair
// of ranks through it. Errors, Gloo's timeouts included, come back as
// CommError naming the operation.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_GLOOCOMM_H
#define TELAR_RUNTIME_GLOOCOMM_H

#include "telar/runtime/Comm.h"

#include <chrono>
#include <memory>
#include <string>

namespace telar::runtime::comm {

/// The communicator of every rank. Rank 0 serves a key-value store at
/// `masterPort` (a TCP server thread, bound to the port on all interfaces,
/// until its last communicator is gone); every rank connects to
/// `masterAddr:masterPort` (retrying until `timeout`), checks that all
/// `size` ranks joined with the same size, and Gloo's TCP transport forms
/// the full mesh through it (each rank listening on the address it reached
/// the store from). After `timeout` without rank 0 answering: CommError
/// "cannot reach the rendezvous at ADDR:PORT after 5 s (rank 0 serves it:
/// is it running? ...)"; ranks that do not join are named. `timeout` is
/// also Gloo's timeout of every operation: a peer that dies or stalls
/// makes the operation throw CommError. `split` forms a new Gloo context
/// over the same store. A size of 1 needs no rendezvous. Ignores SIGPIPE
/// when it has its default action (a write to a dead peer must be an
/// error, not the end of this process).
std::shared_ptr<Communicator>
createGlooWorldCommunicator(const std::string &masterAddr, int masterPort,
                            int rank, int size,
                            std::chrono::milliseconds timeout);

} // namespace telar::runtime::comm

#endif // TELAR_RUNTIME_GLOOCOMM_H
