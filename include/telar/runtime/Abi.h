/*===- Abi.h - The C ABI that generated programs call -------------*- C -*-===*\
|*                                                                            *|
|* Everything generated programs may call, in four headers: abi/Core.h        *|
|* (contexts, status, memory spaces, the queue an entry runs on,              *|
|* allocation), abi/Collectives.h (collectives on the device's buffers, in    *|
|* its queue's order), abi/CpuKernels.h (the CPU device's kernels and         *|
|* settings) and abi/Gpu.h (GPU host programs: kernel launches, constants).   *|
|* The core, collectives and GPU calls are exported by libtelar_runtime.so,   *|
|* the CPU kernels by libtelar_runtime_cpu.so, with default visibility;       *|
|* programs leave these symbols undefined and resolve them at dlopen time     *|
|* (docs/Artifact.md) and reach them through the TelarContext their entry     *|
|* point is given.                                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TELAR_RUNTIME_ABI_H
#define TELAR_RUNTIME_ABI_H

#include "telar/runtime/abi/Collectives.h"
#include "telar/runtime/abi/Core.h"
#include "telar/runtime/abi/CpuKernels.h"
#include "telar/runtime/abi/Gpu.h"

#endif /* TELAR_RUNTIME_ABI_H */
