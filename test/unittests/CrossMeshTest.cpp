//===- CrossMeshTest.cpp - Messages between two submeshes -----------------===//
//
// Hand-worked cases, then the property every transfer must have, checked by
// brute force on random small cases: the messages, applied to the senders'
// local blocks of a tensor whose elements are their own global index, fill
// every receiver's block with the right elements, each exactly once.
//
//===----------------------------------------------------------------------===//

#include "telar/sharding/core/CrossMesh.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <stdexcept>

using namespace telar_sharding;

namespace {

using Shape = std::vector<int64_t>;

Mesh makeMesh(std::vector<std::string> names, std::vector<int64_t> sizes) {
  return Mesh{std::move(names), std::move(sizes)};
}

int64_t product(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Applies `messages` to the senders' blocks and checks every receiver's
/// block element by element. Returns "" or the first failure.
std::string checkMessages(const Shape &shape, int64_t elementBytes,
                          const Mesh &fromMesh, const Sharding &from,
                          int64_t fromFirst, const Mesh &toMesh,
                          const Sharding &to, int64_t toFirst,
                          const std::vector<BoxMessage> &messages) {
  const size_t rank = shape.size();
  Shape fromLocal = getLocalShape(shape, from, fromMesh);
  Shape toLocal = getLocalShape(shape, to, toMesh);
  // receiver -> per local element: how often written, and with what.
  std::map<int64_t, std::vector<int64_t>> count, value;
  for (int64_t r = 0; r < toMesh.getNumDevices(); ++r) {
    count[toFirst + r].assign(size_t(product(toLocal)), 0);
    value[toFirst + r].assign(size_t(product(toLocal)), -1);
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const BoxMessage &m = messages[i];
    std::string where = "message " + std::to_string(i) + " (" +
                        std::to_string(m.fromRank) + " -> " +
                        std::to_string(m.toRank) + ")";
    if (i &&
        !(std::make_pair(messages[i - 1].fromRank, messages[i - 1].toRank) <
          std::make_pair(m.fromRank, m.toRank)))
      return where + ": not sorted by (fromRank, toRank), or a pair repeats";
    int64_t sender = m.fromRank - fromFirst;
    if (sender < 0 || sender >= fromMesh.getNumDevices())
      return where + ": the sender is not in the sending mesh";
    if (!count.count(m.toRank))
      return where + ": the receiver is not in the receiving mesh";
    if (m.fromOffsets.size() != rank || m.toOffsets.size() != rank ||
        m.sizes.size() != rank)
      return where + ": wrong rank";
    if (m.bytes != product(m.sizes) * elementBytes)
      return where + ": bytes " + std::to_string(m.bytes);
    if (product(m.sizes) == 0)
      return where + ": an empty box";
    Shape senderOffsets = getBlockOffsets(shape, from, fromMesh, sender);
    for (size_t d = 0; d < rank; ++d)
      if (m.fromOffsets[d] < 0 || m.sizes[d] < 0 ||
          m.fromOffsets[d] + m.sizes[d] > fromLocal[d] || m.toOffsets[d] < 0 ||
          m.toOffsets[d] + m.sizes[d] > toLocal[d])
        return where + ": the box leaves a local block in dimension " +
               std::to_string(d);
    // Walk the box.
    Shape at(rank, 0);
    for (int64_t e = 0; e < product(m.sizes); ++e) {
      int64_t rem = e;
      for (size_t d = rank; d-- > 0;) {
        at[d] = rem % m.sizes[d];
        rem /= m.sizes[d];
      }
      // The global index of what the sender holds there.
      int64_t global = 0, local = 0;
      for (size_t d = 0; d < rank; ++d) {
        global =
            global * shape[d] + senderOffsets[d] + m.fromOffsets[d] + at[d];
        local = local * toLocal[d] + m.toOffsets[d] + at[d];
      }
      ++count[m.toRank][size_t(local)];
      value[m.toRank][size_t(local)] = global;
    }
  }
  for (int64_t r = 0; r < toMesh.getNumDevices(); ++r) {
    Shape offsets = getBlockOffsets(shape, to, toMesh, r);
    Shape at(rank, 0);
    for (int64_t e = 0; e < product(toLocal); ++e) {
      int64_t rem = e;
      for (size_t d = rank; d-- > 0;) {
        at[d] = rem % toLocal[d];
        rem /= toLocal[d];
      }
      int64_t global = 0;
      for (size_t d = 0; d < rank; ++d)
        global = global * shape[d] + offsets[d] + at[d];
      std::string where = "receiver " + std::to_string(toFirst + r) +
                          ", local element " + std::to_string(e);
      if (count[toFirst + r][size_t(e)] != 1)
        return where + " arrives " +
               std::to_string(count[toFirst + r][size_t(e)]) + " times";
      if (value[toFirst + r][size_t(e)] != global)
        return where + " holds global element " +
               std::to_string(value[toFirst + r][size_t(e)]) + ", not " +
               std::to_string(global);
    }
  }
  return "";
}

BoxMessage box(int64_t fromRank, int64_t toRank, Shape fromOffsets,
               Shape toOffsets, Shape sizes, int64_t elementBytes) {
  BoxMessage m;
  m.fromRank = fromRank;
  m.toRank = toRank;
  m.fromOffsets = std::move(fromOffsets);
  m.toOffsets = std::move(toOffsets);
  m.bytes = product(sizes) * elementBytes;
  m.sizes = std::move(sizes);
  return m;
}

std::string str(const std::vector<BoxMessage> &messages) {
  std::string s;
  auto vec = [](const Shape &v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
      out += (i ? "," : "") + std::to_string(v[i]);
    return out + "]";
  };
  for (const BoxMessage &m : messages)
    s += std::to_string(m.fromRank) + "->" + std::to_string(m.toRank) + " " +
         vec(m.fromOffsets) + " " + vec(m.toOffsets) + " " + vec(m.sizes) +
         " " + std::to_string(m.bytes) + "\n";
  return s;
}

/// getCrossMeshLoad's fields, from the messages.
CrossMeshLoad loadOf(const std::vector<BoxMessage> &messages) {
  CrossMeshLoad load;
  std::map<int64_t, int64_t> sent, received;
  for (const BoxMessage &m : messages) {
    ++load.messages;
    if (m.fromRank == m.toRank) {
      load.selfBytes += m.bytes;
      continue;
    }
    load.bytes += m.bytes;
    load.maxSentBytes =
        std::max(load.maxSentBytes, sent[m.fromRank] += m.bytes);
    load.maxReceivedBytes =
        std::max(load.maxReceivedBytes, received[m.toRank] += m.bytes);
  }
  return load;
}

TEST(CrossMesh, ReplicatedToSharded) {
  // Two replicas on ranks 0-1, two column blocks on ranks 2-3: each
  // receiver is served by a different replica.
  Shape shape{4, 6};
  Mesh fromMesh = makeMesh({"data"}, {2});
  Mesh toMesh = makeMesh({"model"}, {2});
  Sharding from = Sharding::getReplicated(2);
  Sharding to{{{}, {0}}, {}};
  auto messages =
      getCrossMeshMessages(shape, 4, fromMesh, from, 0, toMesh, to, 2);
  std::vector<BoxMessage> expected{box(0, 2, {0, 0}, {0, 0}, {4, 3}, 4),
                                   box(1, 3, {0, 3}, {0, 0}, {4, 3}, 4)};
  EXPECT_EQ(messages, expected) << str(messages);
  EXPECT_EQ(getMessageBytes(messages), 4 * 6 * 4);
  EXPECT_EQ(checkMessages(shape, 4, fromMesh, from, 0, toMesh, to, 2, messages),
            "");

  // From one device (a mesh without axes): everything comes from rank 0.
  Mesh one;
  messages = getCrossMeshMessages(shape, 2, one, Sharding::getReplicated(2), 0,
                                  toMesh, to, 1);
  expected = {box(0, 1, {0, 0}, {0, 0}, {4, 3}, 2),
              box(0, 2, {0, 3}, {0, 0}, {4, 3}, 2)};
  EXPECT_EQ(messages, expected) << str(messages);
}

TEST(CrossMesh, ShardedToDifferentlyShardedSubmesh) {
  // Rows split 2 ways on ranks 0-1, then 4 ways on ranks 2-5: each sender's
  // block feeds two receivers.
  Shape shape{8, 2};
  Mesh fromMesh = makeMesh({"model"}, {2});
  Mesh toMesh = makeMesh({"model"}, {4});
  Sharding rows{{{0}, {}}, {}};
  auto messages =
      getCrossMeshMessages(shape, 4, fromMesh, rows, 0, toMesh, rows, 2);
  std::vector<BoxMessage> expected{box(0, 2, {0, 0}, {0, 0}, {2, 2}, 4),
                                   box(0, 3, {2, 0}, {0, 0}, {2, 2}, 4),
                                   box(1, 4, {0, 0}, {0, 0}, {2, 2}, 4),
                                   box(1, 5, {2, 0}, {0, 0}, {2, 2}, 4)};
  EXPECT_EQ(messages, expected) << str(messages);

  // The other way round: each receiver gets two boxes, one per sender.
  messages = getCrossMeshMessages(shape, 4, toMesh, rows, 2, fromMesh, rows, 0);
  expected = {box(2, 0, {0, 0}, {0, 0}, {2, 2}, 4),
              box(3, 0, {0, 0}, {2, 0}, {2, 2}, 4),
              box(4, 1, {0, 0}, {0, 0}, {2, 2}, 4),
              box(5, 1, {0, 0}, {2, 0}, {2, 2}, 4)};
  EXPECT_EQ(messages, expected) << str(messages);

  // Rows to columns (3 ways) on a submesh of another shape: every sender
  // sends a piece to every receiver.
  Shape wide{4, 6};
  Mesh three = makeMesh({"m"}, {3});
  Sharding cols{{{}, {0}}, {}};
  messages = getCrossMeshMessages(wide, 1, fromMesh, rows, 0, three, cols, 2);
  ASSERT_EQ(messages.size(), 6u) << str(messages);
  EXPECT_EQ(messages[1], box(0, 3, {0, 2}, {0, 0}, {2, 2}, 1));
  EXPECT_EQ(messages[5], box(1, 4, {0, 4}, {2, 0}, {2, 2}, 1));
  EXPECT_EQ(checkMessages(wide, 1, fromMesh, rows, 0, three, cols, 2, messages),
            "");
}

TEST(CrossMesh, TwoDimensionalMeshes) {
  // Axes swap roles: receiver (a, b) needs exactly the block of sender
  // (data = b, model = a).
  Shape shape{4, 6};
  Mesh fromMesh = makeMesh({"data", "model"}, {2, 2});
  Mesh toMesh = makeMesh({"a", "b"}, {2, 2});
  Sharding from{{{0}, {1}}, {}};
  Sharding to{{{1}, {0}}, {}};
  auto messages =
      getCrossMeshMessages(shape, 4, fromMesh, from, 0, toMesh, to, 4);
  ASSERT_EQ(messages.size(), 4u) << str(messages);
  for (const BoxMessage &m : messages) {
    int64_t receiver = m.toRank - 4;
    int64_t a = receiver / 2, b = receiver % 2;
    EXPECT_EQ(m.fromRank, b * 2 + a);
    EXPECT_EQ(m.sizes, (Shape{2, 3}));
    EXPECT_EQ(m.fromOffsets, (Shape{0, 0}));
  }
  EXPECT_EQ(checkMessages(shape, 4, fromMesh, from, 0, toMesh, to, 4, messages),
            "");

  // Two axes on one dimension (major to minor) into a 1-D mesh.
  Sharding both{{{1, 0}, {}}, {}};
  Mesh four = makeMesh({"m"}, {4});
  Sharding rows{{{0}, {}}, {}};
  messages = getCrossMeshMessages(shape, 4, fromMesh, both, 0, four, rows, 4);
  ASSERT_EQ(messages.size(), 4u) << str(messages);
  // Block index = model * 2 + data: rank (data, model) = data * 2 + model.
  EXPECT_EQ(messages[0].fromRank, 0); // block 0
  EXPECT_EQ(messages[0].toRank, 4);
  EXPECT_EQ(messages[1].fromRank, 1); // (0, 1): block 2
  EXPECT_EQ(messages[1].toRank, 6);
  EXPECT_EQ(messages[2].fromRank, 2); // (1, 0): block 1
  EXPECT_EQ(messages[2].toRank, 5);
}

TEST(CrossMesh, ReplicasSpreadTheLoad) {
  // Rows split on data, replicated on model; columns split 4 ways: each
  // receiver needs both row blocks, and receivers alternate between the two
  // replicas of each.
  Shape shape{4, 8};
  Mesh fromMesh = makeMesh({"data", "model"}, {2, 2});
  Sharding from{{{0}, {}}, {}};
  Mesh toMesh = makeMesh({"m"}, {4});
  Sharding to{{{}, {0}}, {}};
  auto messages =
      getCrossMeshMessages(shape, 4, fromMesh, from, 0, toMesh, to, 4);
  std::map<int64_t, int> perSender;
  std::map<int64_t, std::vector<int64_t>> sendersOf;
  for (const BoxMessage &m : messages) {
    ++perSender[m.fromRank];
    sendersOf[m.toRank].push_back(m.fromRank);
  }
  EXPECT_EQ(perSender,
            (std::map<int64_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
  EXPECT_EQ(sendersOf[4], (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(sendersOf[5], (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(sendersOf[6], (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(sendersOf[7], (std::vector<int64_t>{1, 3}));

  // Replicated to replicated: 4 replicas serve 8 receivers, two each.
  Mesh four = makeMesh({"x"}, {4});
  Mesh eight = makeMesh({"y", "z"}, {2, 4});
  perSender.clear();
  for (const BoxMessage &m :
       getCrossMeshMessages(shape, 4, four, Sharding::getReplicated(2), 0,
                            eight, Sharding::getReplicated(2), 4)) {
    ++perSender[m.fromRank];
    EXPECT_EQ(m.fromRank, (m.toRank - 4) % 4);
    EXPECT_EQ(m.sizes, shape);
  }
  EXPECT_EQ(perSender,
            (std::map<int64_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
}

TEST(CrossMesh, SendingToItself) {
  // The same ranks on both sides: a rank keeping its block sends it to
  // itself, and the rest moves.
  Shape shape{4, 4};
  Mesh mesh = makeMesh({"m"}, {2});
  Sharding rows{{{0}, {}}, {}};
  auto messages = getCrossMeshMessages(shape, 4, mesh, rows, 3, mesh, rows, 3);
  std::vector<BoxMessage> expected{box(3, 3, {0, 0}, {0, 0}, {2, 4}, 4),
                                   box(4, 4, {0, 0}, {0, 0}, {2, 4}, 4)};
  EXPECT_EQ(messages, expected) << str(messages);
  Sharding cols{{{}, {0}}, {}};
  messages = getCrossMeshMessages(shape, 4, mesh, rows, 3, mesh, cols, 3);
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0], box(3, 3, {0, 0}, {0, 0}, {2, 2}, 4));
  EXPECT_EQ(messages[1], box(3, 4, {0, 2}, {0, 0}, {2, 2}, 4));
}

TEST(CrossMesh, ScalarsAndEmptyTensors) {
  Mesh two = makeMesh({"m"}, {2});
  auto messages = getCrossMeshMessages({}, 8, two, Sharding::getReplicated(0),
                                       0, two, Sharding::getReplicated(0), 2);
  std::vector<BoxMessage> expected{box(0, 2, {}, {}, {}, 8),
                                   box(1, 3, {}, {}, {}, 8)};
  EXPECT_EQ(messages, expected) << str(messages);
  EXPECT_TRUE(getCrossMeshMessages({0, 4}, 4, two, Sharding{{{}, {0}}, {}}, 0,
                                   two, Sharding::getReplicated(2), 2)
                  .empty());
}

TEST(CrossMesh, RefusesPartialAndInvalid) {
  Shape shape{4, 4};
  Mesh mesh = makeMesh({"m"}, {2});
  Sharding partial{{{}, {}}, {{0, ReductionKind::Sum}}};
  Sharding rows{{{0}, {}}, {}};
  EXPECT_THROW(getCrossMeshMessages(shape, 4, mesh, partial, 0, mesh, rows, 2),
               std::invalid_argument);
  EXPECT_THROW(getCrossMeshMessages(shape, 4, mesh, rows, 0, mesh, partial, 2),
               std::invalid_argument);
  try {
    getCrossMeshMessages(shape, 4, mesh, partial, 0, mesh, rows, 2);
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("partial"), std::string::npos)
        << e.what();
  }
  // 3 rows do not split 2 ways; axis 1 is not in the mesh; bad rank.
  EXPECT_THROW(getCrossMeshMessages({3, 4}, 4, mesh, rows, 0, mesh,
                                    Sharding::getReplicated(2), 2),
               std::invalid_argument);
  EXPECT_THROW(getCrossMeshMessages(shape, 4, mesh, Sharding{{{1}, {}}, {}}, 0,
                                    mesh, rows, 2),
               std::invalid_argument);
  EXPECT_THROW(getCrossMeshMessages(shape, 4, mesh, Sharding{{{0}}, {}}, 0,
                                    mesh, rows, 2),
               std::invalid_argument);
  EXPECT_THROW(getCrossMeshMessages(shape, 0, mesh, rows, 0, mesh, rows, 2),
               std::invalid_argument);
  EXPECT_THROW(getCrossMeshMessages(shape, 4, mesh, rows, -1, mesh, rows, 2),
               std::invalid_argument);
}

/// A random valid sharding of `shape` on `mesh`: each axis splits a random
/// dimension it divides (in random order) or replicates.
Sharding randomSharding(std::mt19937 &rng, const Shape &shape,
                        const Mesh &mesh) {
  Sharding sharding = Sharding::getReplicated(int64_t(shape.size()));
  std::vector<int64_t> axes(size_t(mesh.getNumAxes()));
  for (size_t i = 0; i < axes.size(); ++i)
    axes[i] = int64_t(i);
  std::shuffle(axes.begin(), axes.end(), rng);
  for (int64_t axis : axes) {
    if (shape.empty() || rng() % 3 == 0)
      continue;
    size_t d = rng() % shape.size();
    int64_t blocks = getAxesSize(mesh, sharding.dims[d]) * mesh.axisSizes[axis];
    if (shape[d] % blocks == 0)
      sharding.dims[d].push_back(axis);
  }
  return sharding;
}

Mesh randomMesh(std::mt19937 &rng) {
  Mesh mesh;
  int axes = int(rng() % 4);
  for (int i = 0; i < axes; ++i) {
    mesh.axisNames.push_back("a" + std::to_string(i));
    mesh.axisSizes.push_back(int64_t(1 + rng() % 3));
  }
  return mesh;
}

TEST(CrossMesh, EveryElementExactlyOnceOnRandomCases) {
  std::mt19937 rng(11);
  const int64_t sizes[] = {1, 2, 3, 4, 6, 8, 12};
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Shape shape(size_t(rng() % 4));
    for (int64_t &d : shape)
      d = sizes[rng() % 7];
    Mesh fromMesh = randomMesh(rng), toMesh = randomMesh(rng);
    Sharding from = randomSharding(rng, shape, fromMesh);
    Sharding to = randomSharding(rng, shape, toMesh);
    // Disjoint, adjacent or overlapping rank ranges.
    int64_t fromFirst = int64_t(rng() % 3);
    int64_t toFirst =
        rng() % 2 ? fromFirst + fromMesh.getNumDevices() : int64_t(rng() % 3);
    int64_t elementBytes = int64_t(1 + rng() % 4);
    auto messages = getCrossMeshMessages(shape, elementBytes, fromMesh, from,
                                         fromFirst, toMesh, to, toFirst);
    std::string failure =
        checkMessages(shape, elementBytes, fromMesh, from, fromFirst, toMesh,
                      to, toFirst, messages);
    ASSERT_EQ(failure, "") << "case " << iter << ": from "
                           << formatSharding(from, fromMesh) << " on {"
                           << fromMesh.str() << "} at " << fromFirst << " to "
                           << formatSharding(to, toMesh) << " on {"
                           << toMesh.str() << "} at " << toFirst << "\n"
                           << str(messages);
    // The load summary adds up the same messages.
    EXPECT_EQ(loadOf(messages),
              getCrossMeshLoad(shape, elementBytes, fromMesh, from, fromFirst,
                               toMesh, to, toFirst))
        << "case " << iter;
    // The bytes that arrive are each receiver's block, no more.
    EXPECT_EQ(getMessageBytes(messages),
              product(getLocalShape(shape, to, toMesh)) * elementBytes *
                  toMesh.getNumDevices());
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

TEST(CrossMesh, LargeMeshesAreFast) {
  // The planner prices boundaries between submeshes of thousands of ranks:
  // a [batch, seq, hidden] activation moving from 8-way tensor parallelism x
  // 192-way data parallelism on 1536 ranks to 4 x 384 on the next 1536.
  Shape shape{1536, 2048, 12288};
  Mesh fromMesh = makeMesh({"data", "model"}, {192, 8});
  Mesh toMesh = makeMesh({"data", "model"}, {384, 4});
  Sharding from{{{0}, {}, {1}}, {}};
  Sharding to{{{0}, {}, {1}}, {}};
  auto start = std::chrono::steady_clock::now();
  auto messages =
      getCrossMeshMessages(shape, 2, fromMesh, from, 0, toMesh, to, 1536);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Each receiver's block (4 rows, 3072 columns) lies in one row block and
  // two column blocks of the sender: 2 messages per receiver.
  EXPECT_EQ(messages.size(), 2u * 1536u);
  EXPECT_EQ(getMessageBytes(messages), product(shape) * 2);
  start = std::chrono::steady_clock::now();
  CrossMeshLoad load =
      getCrossMeshLoad(shape, 2, fromMesh, from, 0, toMesh, to, 1536);
  double loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(load, loadOf(messages));
  // Each receiver gets its whole block; each sender sends its block to
  // two receivers, half each.
  EXPECT_EQ(load.maxReceivedBytes, product(shape) * 2 / 1536);
  EXPECT_EQ(load.maxSentBytes, product(shape) * 2 / 1536);
  EXPECT_LT(loadSeconds, 0.5) << loadSeconds << " s";
  // Generous: well under a millisecond per thousand messages here.
  EXPECT_LT(seconds, 0.5) << seconds << " s";
}

} // namespace
