//===- comm_test.cpp - The collectives among MPI or Gloo ranks ------------===//
//
//   mpirun -np N telar-comm-test SIZES     (SIZES: the mesh, e.g. 2,2)
//   TELAR_RANK=i TELAR_WORLD_SIZE=N TELAR_MASTER_ADDR=... TELAR_MASTER_PORT=...
//     telar-comm-test SIZES                (N processes: over Gloo)
//
// Runs every collective of the ABI (Abi.h: all_reduce with each reduction,
// all_gather, reduce_scatter, all_to_all, local_slice) for every element
// type and every set of mesh axes, through a context whose mesh
// communicator sits on MPI, plus broadcast, send/recv and barrier of the
// MeshCommunicator, and checks each rank's result against the value
// computed locally from what every rank's inputs are (each rank's input is
// a function of its rank and the element index). Then checks the
// statistics per axis set (calls, bytes sent), and the world
// communicator's own operations (gather, all_gather, float16/bfloat16
// sums rounded once, split with keys). The backend is the one telar-run
// would use (telar/runtime/Launch.h). Prints one line per rank,
// "rank R/N: K checks, F failed here, A in all (BACKEND)", after the first
// failures, and exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Bootstrap.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Launch.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/World.h"

#include "../../../runtime/comm/HalfFloat.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace telar::runtime;
using namespace telar::runtime::comm;

namespace {

int64_t checks = 0, failures = 0;
int worldRank = 0, worldSize = 1;

void fail(const std::string &what) {
  if (++failures <= 10)
    std::fprintf(stderr, "rank %d: FAIL: %s\n", worldRank, what.c_str());
}

/// Rank r's element i, before conversion: small integers, exact in every
/// type, whose sums and products over 4 ranks fit in int8.
double value(int64_t r, int64_t i) { return double((r * 7 + i * 3) % 5) - 2; }

void store(DataType t, void *p, int64_t i, double v) {
  switch (t) {
  case DataType::F32:
    static_cast<float *>(p)[i] = float(v);
    break;
  case DataType::F64:
    static_cast<double *>(p)[i] = v;
    break;
  case DataType::F16:
    static_cast<uint16_t *>(p)[i] = comm::detail::floatToF16(float(v));
    break;
  case DataType::BF16:
    static_cast<uint16_t *>(p)[i] = comm::detail::floatToBf16(float(v));
    break;
  case DataType::I64:
    static_cast<int64_t *>(p)[i] = int64_t(v);
    break;
  case DataType::I32:
    static_cast<int32_t *>(p)[i] = int32_t(v);
    break;
  case DataType::I8:
    static_cast<int8_t *>(p)[i] = int8_t(v);
    break;
  case DataType::Bool:
    static_cast<uint8_t *>(p)[i] = v != 0;
    break;
  }
}

double load(DataType t, const void *p, int64_t i) {
  switch (t) {
  case DataType::F32:
    return static_cast<const float *>(p)[i];
  case DataType::F64:
    return static_cast<const double *>(p)[i];
  case DataType::F16:
    return comm::detail::f16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case DataType::BF16:
    return comm::detail::bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case DataType::I64:
    return double(static_cast<const int64_t *>(p)[i]);
  case DataType::I32:
    return static_cast<const int32_t *>(p)[i];
  case DataType::I8:
    return static_cast<const int8_t *>(p)[i];
  case DataType::Bool:
    return static_cast<const uint8_t *>(p)[i];
  }
  return 0;
}

/// What rank r's input element i holds, as read back in type t.
double held(DataType t, int64_t r, int64_t i) {
  double v = value(r, i);
  return t == DataType::Bool ? double(v != 0) : v;
}

double reduce(DataType t, ReduceOp op, const std::vector<double> &values) {
  double acc = values[0];
  for (size_t k = 1; k < values.size(); ++k) {
    double v = values[k];
    if (t == DataType::Bool) {
      bool any = acc != 0 || v != 0, all = acc != 0 && v != 0;
      acc = op == ReduceOp::Sum || op == ReduceOp::Max ? any : all;
      continue;
    }
    switch (op) {
    case ReduceOp::Sum:
      acc += v;
      break;
    case ReduceOp::Max:
      acc = std::max(acc, v);
      break;
    case ReduceOp::Min:
      acc = std::min(acc, v);
      break;
    case ReduceOp::Prod:
      acc *= v;
      break;
    }
  }
  return acc;
}

struct Buffer {
  explicit Buffer(DataType t, int64_t n)
      : type(t), bytes(std::max<int64_t>(1, n) * getDataTypeSize(t), 0xcd) {}
  void *data() { return bytes.data(); }
  DataType type;
  std::vector<unsigned char> bytes;
};

Buffer input(DataType t, int64_t n) {
  Buffer b(t, n);
  for (int64_t i = 0; i < n; ++i)
    store(t, b.data(), i, value(worldRank, i));
  return b;
}

class Tester {
public:
  Tester(Context &ctx, MeshCommunicator &mesh) : ctx(ctx), mesh(mesh) {}

  /// The world ranks of this rank's group of `axes`, by index.
  std::vector<int64_t> members(AxisSet axes) const {
    const std::vector<int64_t> &sizes = mesh.getAxisSizes();
    std::vector<int64_t> result;
    for (int64_t r = 0; r < worldSize; ++r) {
      std::vector<int64_t> c(sizes.size());
      int64_t x = r;
      for (size_t a = sizes.size(); a-- > 0;) {
        c[a] = x % sizes[a];
        x /= sizes[a];
      }
      bool same = true;
      for (size_t a = 0; a < sizes.size(); ++a)
        if (!(axes & (AxisSet(1) << a)) && c[a] != mesh.getCoordinates()[a])
          same = false;
      if (same)
        result.push_back(r); // row-major over the set's axes: rank order
    }
    return result;
  }

  void expect(const std::string &what, DataType t, const void *out,
              int64_t n, const std::function<double(int64_t)> &want) {
    for (int64_t i = 0; i < n; ++i) {
      ++checks;
      double got = load(t, out, i), w = want(i);
      if (got != w) {
        fail(what + ": element " + std::to_string(i) +
             ": got " + std::to_string(got) + ", expected " +
             std::to_string(w));
        return;
      }
    }
  }

  void status(const std::string &what, int s) {
    ++checks;
    if (s != TELAR_STATUS_OK)
      fail(what + ": status " + std::to_string(s) + ": " + ctx.getError());
  }

  void run(AxisSet axes, DataType t) {
    std::vector<int64_t> group = members(axes);
    int64_t g = int64_t(group.size());
    int64_t me = mesh.getGroupIndex(axes);
    std::string tag = std::string(" on {") + mesh.formatAxisSet(axes) + "} " +
                      getDataTypeName(t);
    ++checks;
    if (group[me] != worldRank || g != mesh.getGroupSize(axes))
      fail("group of" + tag);
    int64_t dt = int64_t(t);

    for (int op = 0; op < kNumReduceOps; ++op) {
      int64_t n = 7;
      Buffer in = input(t, n), out(t, n);
      status("all_reduce" + tag, telarrt_all_reduce(ctx.get(), dt, op, axes,
                                                     in.data(), out.data(), n));
      expect(std::string("all_reduce ") + getReduceOpName(ReduceOp(op)) + tag,
             t, out.data(), n, [&](int64_t i) {
               std::vector<double> v;
               for (int64_t r : group)
                 v.push_back(held(t, r, i));
               return reduce(t, ReduceOp(op), v);
             });
      // In place.
      status("all_reduce in place" + tag,
             telarrt_all_reduce(ctx.get(), dt, op, axes, in.data(), in.data(),
                                n));
      expect("all_reduce in place" + tag, t, in.data(), n, [&](int64_t i) {
        std::vector<double> v;
        for (int64_t r : group)
          v.push_back(held(t, r, i));
        return reduce(t, ReduceOp(op), v);
      });
    }

    for (auto [outer, inner] : {std::pair<int64_t, int64_t>{1, 5},
                                {3, 2},
                                {4, 1},
                                {2, 0}}) {
      std::string shape = " [" + std::to_string(outer) + "][G][" +
                          std::to_string(inner) + "]" + tag;
      // all_gather: [outer][inner] -> [outer][G][inner].
      {
        Buffer in = input(t, outer * inner), out(t, outer * g * inner);
        status("all_gather" + shape,
               telarrt_all_gather(ctx.get(), dt, axes, in.data(), out.data(),
                                  outer, inner));
        expect("all_gather" + shape, t, out.data(), outer * g * inner,
               [&](int64_t i) {
                 int64_t o = i / (g * inner), m = i / inner % g,
                         j = i % inner;
                 return held(t, group[m], o * inner + j);
               });
      }
      // reduce_scatter: [outer][G][inner] -> [outer][inner].
      for (int op = 0; op < kNumReduceOps; ++op) {
        Buffer in = input(t, outer * g * inner), out(t, outer * inner);
        status("reduce_scatter" + shape,
               telarrt_reduce_scatter(ctx.get(), dt, op, axes, in.data(),
                                      out.data(), outer, inner));
        expect(std::string("reduce_scatter ") + getReduceOpName(ReduceOp(op)) +
                   shape,
               t, out.data(), outer * inner, [&](int64_t i) {
                 int64_t o = i / inner, j = i % inner;
                 std::vector<double> v;
                 for (int64_t r : group)
                   v.push_back(held(t, r, (o * g + me) * inner + j));
                 return reduce(t, ReduceOp(op), v);
               });
      }
      // local_slice: [outer][G][inner] -> [outer][inner].
      {
        Buffer in = input(t, outer * g * inner), out(t, outer * inner);
        status("local_slice" + shape,
               telarrt_local_slice(ctx.get(), dt, axes, in.data(), out.data(),
                                   outer, inner));
        expect("local_slice" + shape, t, out.data(), outer * inner,
               [&](int64_t i) {
                 return held(t, worldRank,
                             (i / inner * g + me) * inner + i % inner);
               });
      }
    }

    // all_to_all: [sO][G][sI] -> [cO][G][cI], pieces of sO*sI = cO*cI.
    for (auto [so, si, co, ci] :
         {std::tuple<int64_t, int64_t, int64_t, int64_t>{1, 6, 2, 3},
          {3, 2, 1, 6},
          {2, 3, 3, 2},
          {1, 4, 1, 4}}) {
      std::string shape = " [" + std::to_string(so) + "][G][" +
                          std::to_string(si) + "] -> [" + std::to_string(co) +
                          "][G][" + std::to_string(ci) + "]" + tag;
      Buffer in = input(t, so * g * si), out(t, co * g * ci);
      status("all_to_all" + shape,
             telarrt_all_to_all(ctx.get(), dt, axes, in.data(), out.data(), so,
                                si, co, ci));
      expect("all_to_all" + shape, t, out.data(), co * g * ci,
             [&](int64_t i) {
               int64_t c = i / (g * ci), q = i / ci % g, k = i % ci;
               int64_t f = c * ci + k; // in the piece from member q
               return held(t, group[q], (f / si * g + me) * si + f % si);
             });
    }

    // broadcast from each member.
    for (int64_t root = 0; root < g; ++root) {
      int64_t n = 5;
      Buffer b = input(t, n);
      mesh.broadcast(axes, t, b.data(), n, root);
      expect("broadcast from " + std::to_string(root) + tag, t, b.data(), n,
             [&](int64_t i) { return held(t, group[root], i); });
    }
    mesh.barrier(axes);
  }

  void pointToPoint() {
    if (worldSize < 2)
      return;
    int64_t next = (worldRank + 1) % worldSize,
            prev = (worldRank + worldSize - 1) % worldSize;
    for (DataType t : {DataType::F32, DataType::BF16, DataType::I64}) {
      int64_t n = 6;
      Buffer out = input(t, n), in(t, n);
      if (worldRank % 2 == 0) {
        mesh.send(t, out.data(), n, next, 7);
        mesh.recv(t, in.data(), n, prev, 7);
      } else {
        mesh.recv(t, in.data(), n, prev, 7);
        mesh.send(t, out.data(), n, next, 7);
      }
      expect(std::string("recv from ") + std::to_string(prev), t, in.data(), n,
             [&](int64_t i) { return held(t, prev, i); });
    }
  }

private:
  Context &ctx;
  MeshCommunicator &mesh;
};

/// The statistics of a known sequence of calls on a fresh mesh.
void checkStats(MeshCommunicator &mesh, Context &ctx) {
  mesh.resetStats();
  int64_t numAxes = int64_t(mesh.getAxisSizes().size());
  AxisSet all = (AxisSet(1) << numAxes) - 1;
  int64_t g = mesh.getGroupSize(all);
  std::vector<float> in(8 * g, 1.0f), out(8 * g);
  telarrt_all_reduce(ctx.get(), TELAR_DTYPE_F32, TELAR_REDUCE_SUM, all,
                     in.data(), out.data(), 8 * g);
  telarrt_all_gather(ctx.get(), TELAR_DTYPE_F32, all, in.data(), out.data(), 2,
                     4);
  telarrt_reduce_scatter(ctx.get(), TELAR_DTYPE_F32, TELAR_REDUCE_SUM, all,
                         in.data(), out.data(), 2, 4);
  telarrt_all_to_all(ctx.get(), TELAR_DTYPE_F32, all, in.data(), out.data(), 2,
                     4, 4, 2);
  // On the empty axis set: a group of one.
  telarrt_local_slice(ctx.get(), TELAR_DTYPE_F32, 0, in.data(), out.data(), 1,
                      1);
  ++checks;
  if (ctx.getStatus() != TELAR_STATUS_OK) {
    fail("stats calls: " + ctx.getError());
    return;
  }
  const AxisSetStats &s = mesh.getStats().at(all);
  int64_t b = 8 * g * 4; // bytes of each call's input (all_gather: 32)
  int64_t want = 2 * (g - 1) * b / g  // all_reduce
                 + (g - 1) * 32       // all_gather of 8 floats
                 + (g - 1) * b / g    // reduce_scatter of 8g floats
                 + (g - 1) * b / g;   // all_to_all of 8g floats
  ++checks;
  if (s.calls != 4 || s.bytesSent != want || s.seconds <= 0)
    fail("stats on all axes: " + std::to_string(s.calls) + " calls, " +
         std::to_string(s.bytesSent) + " bytes (expected 4 calls, " +
         std::to_string(want) + " bytes)");
  ++checks;
  if (mesh.getStats().at(0).calls != 1 || mesh.getStats().at(0).bytesSent != 0)
    fail("stats of local_slice");
}

/// The world communicator's operations the mesh does not reach the same
/// way: gather to each root, all_gather, float16/bfloat16 sums that differ
/// when rounded at each step instead of once, split by parity with keys in
/// reverse rank order.
void checkWorld(Communicator &world) {
  int n = world.getSize(), me = world.getRank();
  for (int root = 0; root < n; ++root) {
    int64_t mine[3] = {me, 10 * me, -me};
    std::vector<int64_t> all(3 * n, -7);
    world.gather(mine, all.data(), 3, DataType::I64, root);
    if (me != root)
      continue;
    ++checks;
    for (int r = 0; r < n; ++r)
      if (all[3 * r] != r || all[3 * r + 1] != 10 * r || all[3 * r + 2] != -r)
        fail("gather to " + std::to_string(root) + ": block " +
             std::to_string(r));
  }
  {
    double mine[2] = {me + 0.5, -double(me)};
    std::vector<double> all(2 * n);
    world.allGather(mine, all.data(), 2, DataType::F64);
    ++checks;
    for (int r = 0; r < n; ++r)
      if (all[2 * r] != r + 0.5 || all[2 * r + 1] != -double(r))
        fail("all_gather f64: block " + std::to_string(r));
  }
  if (n >= 3) {
    // Element i: 1 from rank i, half an ulp of 1 from every other rank.
    // Rounded once, the n-1 half-ulps count (1 + (n-1)/2 ulps, ties to
    // even); rounded after each addition, whatever the order of the
    // algorithm, some element loses a half-ulp that ties to an even 1.
    for (DataType t : {DataType::F16, DataType::BF16}) {
      double ulp = std::ldexp(1.0, t == DataType::F16 ? -10 : -7);
      std::vector<uint16_t> v(n);
      for (int i = 0; i < n; ++i)
        store(t, v.data(), i, i == me ? 1.0 : ulp / 2);
      world.allReduce(v.data(), v.data(), n, t, ReduceOp::Sum);
      double want = 1.0 + std::nearbyint((n - 1) / 2.0) * ulp;
      for (int i = 0; i < n; ++i) {
        ++checks;
        if (load(t, v.data(), i) != want)
          fail(std::string("all_reduce sum ") + getDataTypeName(t) +
               " rounded once, element " + std::to_string(i) + ": got " +
               std::to_string(load(t, v.data(), i)) + ", expected " +
               std::to_string(want));
      }
    }
  }
  {
    // Parity groups, ordered by key = -rank: the highest rank first.
    std::unique_ptr<Communicator> part = world.split(me % 2, -me);
    std::vector<int> members;
    for (int r = n - 1; r >= 0; --r)
      if (r % 2 == me % 2)
        members.push_back(r);
    int index = int(std::find(members.begin(), members.end(), me) -
                    members.begin());
    ++checks;
    if (part->getSize() != int(members.size()) || part->getRank() != index)
      fail("split: member " + std::to_string(part->getRank()) + " of " +
           std::to_string(part->getSize()) + ", expected " +
           std::to_string(index) + " of " + std::to_string(members.size()));
    int32_t first = me, sum = me;
    part->broadcast(&first, 1, DataType::I32, 0);
    part->allReduce(&sum, &sum, 1, DataType::I32, ReduceOp::Sum);
    int32_t wantSum = 0;
    for (int r : members)
      wantSum += r;
    ++checks;
    if (first != members[0] || sum != wantSum)
      fail("split group: broadcast " + std::to_string(first) + ", sum " +
           std::to_string(sum));
    part->barrier();
  }
  world.barrier();
}

/// The bootstrap's exchanges (bytes of a different length per rank, from
/// each rank and from the last), and the rank's place on this machine:
/// every rank of these tests runs here, so local rank = rank (from the
/// launcher or the host names), except that ranks started as a Kubernetes
/// Indexed Job's pods are each a node of their own.
void checkBootstrap(Bootstrap &bootstrap, const JobEnvironment &env) {
  int me = bootstrap.getRank(), n = bootstrap.getSize();
  auto bytesOf = [](int r) { return std::vector<char>(r + 1, char('a' + r)); };
  std::vector<std::vector<char>> all = bootstrap.allGather(bytesOf(me));
  ++checks;
  if (int(all.size()) != n)
    fail("bootstrap all_gather: " + std::to_string(all.size()) + " ranks");
  for (int r = 0; r < int(all.size()); ++r) {
    ++checks;
    if (all[r] != bytesOf(r))
      fail("bootstrap all_gather: rank " + std::to_string(r) + "'s bytes");
  }
  std::vector<char> id = bootstrap.broadcast(
      me == n - 1 ? std::vector<char>{'i', 'd', '\0', '7'} : bytesOf(me),
      n - 1);
  ++checks;
  if (id != std::vector<char>{'i', 'd', '\0', '7'})
    fail("bootstrap broadcast from rank " + std::to_string(n - 1));
  bootstrap.barrier();
  bool pods = env.localRankSource == "JOB_COMPLETION_INDEX";
  int wantRank = pods ? 0 : me, wantSize = pods ? 1 : n;
  ++checks;
  if (env.localRank != wantRank || env.localSize != wantSize)
    fail("local rank " + std::to_string(env.localRank) + " of " +
         std::to_string(env.localSize) + " (from " + env.localRankSource +
         "), expected " + std::to_string(wantRank) + " of " +
         std::to_string(wantSize));
}

} // namespace

int main(int argc, char **argv) {
  JobEnvironment env;
  try {
    env = detectJobEnvironment();
    World job = connectWorld(env, &argc, &argv, std::chrono::seconds(60));
    std::shared_ptr<Communicator> world = job.communicator;
    if (!world)
      throw std::runtime_error("no launcher started this process: run it "
                               "under mpirun or with the TELAR_* variables");
    worldRank = world->getRank();
    worldSize = world->getSize();
    std::vector<std::string> names;
    std::vector<int64_t> sizes;
    std::string spec = argc > 1 ? argv[1] : std::to_string(worldSize);
    for (size_t start = 0; start <= spec.size();) {
      size_t comma = std::min(spec.find(',', start), spec.size());
      sizes.push_back(std::stoll(spec.substr(start, comma - start)));
      names.push_back("axis" + std::to_string(names.size()));
      start = comma + 1;
    }
    {
      auto mesh = std::make_shared<MeshCommunicator>(world, names, sizes);
      Context ctx;
      ctx.setMeshCommunicator(mesh);
      Tester tester(ctx, *mesh);
      AxisSet sets = AxisSet(1) << sizes.size();
      for (AxisSet axes = 0; axes < sets; ++axes)
        for (int t = 0; t < kNumDataTypes; ++t)
          tester.run(axes, DataType(t));
      tester.pointToPoint();
      checkStats(*mesh, ctx);
      checkWorld(*world);
      checkBootstrap(*job.bootstrap, env);
      // Every rank's verdict, so that the exit status says it everywhere.
      int64_t bad = failures;
      world->allReduce(&bad, &bad, 1, DataType::I64, ReduceOp::Sum);
      std::printf(
          "rank %d/%d: %lld checks, %lld failed here, %lld in all (%s)\n",
          worldRank, worldSize, (long long)checks, (long long)failures,
          (long long)bad, world->getBackendName());
      failures = bad;
    }
    world.reset();
    disconnectWorld(job);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rank %d: error: %s\n", worldRank, e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
