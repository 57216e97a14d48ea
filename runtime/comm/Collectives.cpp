//===- Collectives.cpp - The collective C ABI (Abi.h) ---------------------===//
//
// telarrt_all_reduce & co run on the MeshCommunicator of the program's
// context; a context without one is a single device (each group has one
// member: the collectives copy). Nothing here throws across the C ABI:
// failures become a status and the context's message.
//
//===----------------------------------------------------------------------===//

#include "../Context.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Comm.h"

#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

using namespace telar::runtime;
using namespace telar::runtime::comm;

namespace {

/// Runs `body` (given the mesh, null for a single device) and turns what
/// it throws into a status recorded in `ctx`, with `what` describing the
/// call.
template <typename Describe, typename Body>
int collective(TelarContext *ctx, const char *name, int64_t dtype,
               Describe describeCall, Body body) {
  if (!ctx)
    return TELAR_STATUS_INVALID_ARGUMENT;
  if (dtype < 0 || dtype >= kNumDataTypes)
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT,
                        "%s: unknown element type code %lld", name,
                        (long long)dtype);
  // The call's description is built only when it failed.
  std::exception_ptr error;
  try {
    body(ctx->mesh, DataType(dtype));
    return TELAR_STATUS_OK;
  } catch (...) {
    error = std::current_exception();
  }
  std::string what = describeCall();
  try {
    std::rethrow_exception(error);
  } catch (const CommError &e) {
    return detail::fail(ctx, TELAR_STATUS_COMM_ERROR, "%s(%s%s): %s", name,
                        getDataTypeName(DataType(dtype)), what.c_str(),
                        e.what());
  } catch (const std::bad_alloc &) {
    return detail::fail(ctx, TELAR_STATUS_OUT_OF_MEMORY,
                        "%s(%s%s): out of memory for its buffers", name,
                        getDataTypeName(DataType(dtype)), what.c_str());
  } catch (const std::exception &e) {
    return detail::fail(ctx, TELAR_STATUS_INVALID_ARGUMENT, "%s(%s%s): %s",
                        name, getDataTypeName(DataType(dtype)), what.c_str(),
                        e.what());
  }
}

std::string describe(const MeshCommunicator *mesh, int64_t axes) {
  size_t numAxes = mesh ? mesh->getAxisNames().size() : 0;
  if (!mesh || axes < 0 || (numAxes < 63 && (axes >> numAxes) != 0))
    return ", axis mask " + std::to_string(axes);
  return ", axes {" + mesh->formatAxisSet(AxisSet(axes)) + "}";
}

const char *reductionName(int64_t reduction) {
  return reduction >= 0 && reduction < kNumReduceOps
             ? getReduceOpName(ReduceOp(reduction))
             : "?";
}

void checkReduction(int64_t reduction) {
  if (reduction < 0 || reduction >= kNumReduceOps)
    throw std::invalid_argument("unknown reduction code " +
                                std::to_string(reduction));
}

void checkAxisMask(int64_t axes) {
  if (axes < 0)
    throw std::invalid_argument("negative axis mask " + std::to_string(axes));
}

/// A single device: out = in (count elements), after the checks a mesh
/// makes.
void copyLocal(DataType type, const void *in, void *out,
               std::initializer_list<int64_t> factors) {
  int64_t n = 1;
  for (int64_t f : factors) {
    if (f < 0)
      throw std::invalid_argument("negative element count " +
                                  std::to_string(f));
    n *= f;
  }
  if (n > 0 && (!in || !out))
    throw std::invalid_argument("null buffer for a non-empty tensor");
  if (n > 0 && in != out)
    std::memcpy(out, in, size_t(n) * getDataTypeSize(type));
}

} // namespace

extern "C" {

int telarrt_all_reduce(TelarContext *ctx, int64_t dtype, int64_t reduction,
                       int64_t axes, const void *in, void *out, int64_t count) {
  auto what = [&] {
    return std::string(", ") + reductionName(reduction) +
           describe(ctx->mesh, axes) + ", " + std::to_string(count) +
           " elements";
  };
  return collective(ctx, "telarrt_all_reduce", dtype, what,
                    [&](MeshCommunicator *mesh, DataType type) {
                      checkReduction(reduction);
                      checkAxisMask(axes);
                      if (!mesh)
                        return copyLocal(type, in, out, {count});
                      mesh->allReduce(AxisSet(axes), type, ReduceOp(reduction),
                                      in, out, count);
                    });
}

int telarrt_all_gather(TelarContext *ctx, int64_t dtype, int64_t axes,
                       const void *in, void *out, int64_t outer,
                       int64_t inner) {
  auto what = [&] {
    return describe(ctx->mesh, axes) + ", " + std::to_string(outer) + "x" +
           std::to_string(inner) + " elements";
  };
  return collective(ctx, "telarrt_all_gather", dtype, what,
                    [&](MeshCommunicator *mesh, DataType type) {
                      checkAxisMask(axes);
                      if (!mesh)
                        return copyLocal(type, in, out, {outer, inner});
                      mesh->allGather(AxisSet(axes), type, in, out, outer,
                                      inner);
                    });
}

int telarrt_reduce_scatter(TelarContext *ctx, int64_t dtype, int64_t reduction,
                           int64_t axes, const void *in, void *out,
                           int64_t outer, int64_t inner) {
  auto what = [&] {
    return std::string(", ") + reductionName(reduction) +
           describe(ctx->mesh, axes) + ", " + std::to_string(outer) + "x" +
           std::to_string(inner) + " elements";
  };
  return collective(ctx, "telarrt_reduce_scatter", dtype, what,
                    [&](MeshCommunicator *mesh, DataType type) {
                      checkReduction(reduction);
                      checkAxisMask(axes);
                      if (!mesh)
                        return copyLocal(type, in, out, {outer, inner});
                      mesh->reduceScatter(AxisSet(axes), type,
                                          ReduceOp(reduction), in, out, outer,
                                          inner);
                    });
}

int telarrt_all_to_all(TelarContext *ctx, int64_t dtype, int64_t axes,
                       const void *in, void *out, int64_t splitOuter,
                       int64_t splitInner, int64_t concatOuter,
                       int64_t concatInner) {
  auto what = [&] {
    return describe(ctx->mesh, axes) + ", " + std::to_string(splitOuter) + "x" +
           std::to_string(splitInner) + " -> " + std::to_string(concatOuter) +
           "x" + std::to_string(concatInner) + " elements per piece";
  };
  return collective(
      ctx, "telarrt_all_to_all", dtype, what,
      [&](MeshCommunicator *mesh, DataType type) {
        checkAxisMask(axes);
        if (!mesh) {
          if (splitOuter * splitInner != concatOuter * concatInner)
            throw std::invalid_argument("pieces of different sizes");
          return copyLocal(type, in, out, {splitOuter, splitInner});
        }
        mesh->allToAll(AxisSet(axes), type, in, out, splitOuter, splitInner,
                       concatOuter, concatInner);
      });
}

int telarrt_local_slice(TelarContext *ctx, int64_t dtype, int64_t axes,
                        const void *in, void *out, int64_t outer,
                        int64_t inner) {
  auto what = [&] {
    return describe(ctx->mesh, axes) + ", " + std::to_string(outer) + "x" +
           std::to_string(inner) + " elements";
  };
  return collective(ctx, "telarrt_local_slice", dtype, what,
                    [&](MeshCommunicator *mesh, DataType type) {
                      checkAxisMask(axes);
                      if (!mesh)
                        return copyLocal(type, in, out, {outer, inner});
                      mesh->localSlice(AxisSet(axes), type, in, out, outer,
                                       inner);
                    });
}

} // extern "C"
