//===- Context.h - The state behind a TelarContext --------------*- C++ -*-===//
//
// Internal to the runtime. A TelarContext (Abi.h) holds all the state a
// running program reaches: its device (include/telar/runtime/Device.h:
// memory, queue, and the state its kernels keep: for the CPU device the
// cache of freed blocks, the GEMM its kernels use, the packed weights of
// the artifact it runs, the kernel profile; runtime/cpu/CpuDevice.h), the
// mesh communicator its collectives use, and the first error of a run.
// Nothing of this is process-global.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_CONTEXT_H
#define TELAR_RUNTIME_CONTEXT_H

#include "telar/runtime/Device.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace telar::runtime::comm {
class MeshCommunicator; // include/telar/runtime/Comm.h
} // namespace telar::runtime::comm

struct TelarContext {
  /// The device its programs run on (never null once created).
  std::unique_ptr<telar::runtime::Device> device;
  /// The mesh the collectives (runtime/comm/Collectives.cpp) run on (not
  /// owned; null: a single device). Set by Context::setMeshCommunicator,
  /// or lent by Artifact::run for a run.
  telar::runtime::comm::MeshCommunicator *mesh = nullptr;
  /// The GPU kernels telarrt_gpu_launch launches (not owned; null: none):
  /// lent by Artifact::run for a run of a GPU program.
  const telar::runtime::DeviceKernels *kernels = nullptr;

  // The first error.
  std::mutex errorMutex;
  std::atomic<int> status{0};
  std::string message;
};

namespace telar::runtime::detail {
/// Records an error in `ctx` (first one wins), formatted printf-style;
/// returns `status`.
int fail(TelarContext *ctx, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_CONTEXT_H
