//===- RuntimeMultiRankTest.cpp - Manifest v3, blocks, collectives --------===//
//
// The parts of multi-rank execution that one process can check: the
// version-3 manifest (mesh, world size, shardings, per-rank weight files)
// read back from the schema's writer and its errors, the block math and
// copies, the collective ABI on a context without a mesh (a single device)
// and on a one-device mesh, its error statuses, and the float16/bfloat16
// conversions reductions use. Collectives among several ranks are
// test/runtime/comm (telar-comm-test under mpirun).
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/Runtime.h"

#include "../../runtime/Blocks.h"
#include "../../runtime/comm/HalfFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <unistd.h>

using namespace telar::runtime;

namespace {

template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(expr, substring)                                          \
  EXPECT_NE(errorOf([&] { (void)(expr); }).find(substring), std::string::npos) \
      << "error was: '" << errorOf([&] { (void)(expr); }) << "'"

/// `text` with its first `from` replaced by `to` (which must be there).
void replaceOnce(std::string &text, const std::string &from,
                 const std::string &to) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << text;
  text.replace(at, from.size(), to);
}

/// A version-3 manifest as the compiler writes it: a 2x2 mesh, a
/// data-split input, an output split on both axes, a replicated and a
/// model-split weight.
/// A sharding splitting each dimension along the mesh axes (indices) given.
telar_sharding::Sharding split(std::vector<std::vector<int64_t>> dims) {
  return {std::move(dims), {}};
}

artifact::Manifest shardedManifest() {
  artifact::Manifest m;
  m.formatVersion = 3;
  m.targetKind = "cpu";
  m.mesh = telar_sharding::Mesh{{"data", "model"}, {2, 2}};
  m.worldSize = 4;
  m.inputs = {{"x", DType::Float32, {8, 16}, split({{0}, {}})},
              {"ids", DType::Int64, {3}}};
  m.outputs = {{"y", DType::Float32, {8, 32}, split({{0}, {1}})}};
  artifact::WeightSpec w;
  w.name = "w";
  w.dtype = DType::Float32;
  w.shape = {16, 16};
  w.globalShape = {16, 32};
  w.sharding = split({{}, {1}});
  w.file = "weights/shard-{rank}.safetensors";
  artifact::WeightSpec b;
  b.name = "b";
  b.dtype = DType::Float32;
  b.shape = {32};
  b.globalShape = {32};
  b.file = "weights/weights.safetensors";
  m.weights = {w, b};
  m.programs = {
      {"main",
       "programs/main.so",
       "telar_entry",
       {"weights/weights.safetensors", "weights/shard-{rank}.safetensors"}}};
  return m;
}

Manifest parse(const artifact::Manifest &m) {
  return artifact::parseManifest(artifact::writeManifestJson(m), "m.json");
}

//===----------------------------------------------------------------------===//
// Manifest version 3
//===----------------------------------------------------------------------===//

TEST(RuntimeManifestV3, RoundTrip) {
  artifact::Manifest w = shardedManifest();
  std::string text = artifact::writeManifestJson(w);
  EXPECT_NE(text.find("\"mesh\": {\n    \"axes\": [\"data\", \"model\"],\n"
                      "    \"shape\": [2, 2]\n  }"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"sharding\": [[\"data\"], []]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"global_shape\": [16, 32]"), std::string::npos);
  EXPECT_NE(text.find("\"world_size\": 4"), std::string::npos);
  // Replicated tensors have no sharding field.
  EXPECT_EQ(text.find("\"sharding\": []"), std::string::npos);

  Manifest m = artifact::parseManifest(text, "m.json");
  EXPECT_EQ(m, w);
  EXPECT_EQ(m.formatVersion, 3);
  EXPECT_TRUE(m.hasMesh());
  EXPECT_EQ(m.mesh.axisNames, (std::vector<std::string>{"data", "model"}));
  EXPECT_EQ(m.mesh.axisSizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(m.worldSize, 4);
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[0].sharding.dims,
            (std::vector<std::vector<int64_t>>{{0}, {}}));
  EXPECT_TRUE(m.inputs[0].isSharded());
  EXPECT_FALSE(m.inputs[1].isSharded());
  EXPECT_EQ(m.getLocalShape(m.inputs[0]), (Shape{4, 16}));
  EXPECT_EQ(m.getLocalShape(m.inputs[1]), (Shape{3}));
  EXPECT_EQ(m.outputs[0].sharding.dims,
            (std::vector<std::vector<int64_t>>{{0}, {1}}));
  EXPECT_EQ(m.getLocalShape(m.outputs[0]), (Shape{4, 16}));
  // Rank 3 is data=1, model=1.
  EXPECT_EQ(m.getBlockOffsets(m.outputs[0], 3), (Shape{4, 16}));
  EXPECT_EQ(m.getBlockOffsets(m.outputs[0], 1), (Shape{0, 16}));
  EXPECT_EQ(m.getBlockOffsets(m.outputs[0], 2), (Shape{4, 0}));
  ASSERT_EQ(m.weights.size(), 2u);
  EXPECT_EQ(m.weights[0].shape, (Shape{16, 16}));
  EXPECT_EQ(m.weights[0].globalShape, (Shape{16, 32}));
  EXPECT_EQ(m.weights[0].file, "weights/shard-{rank}.safetensors");
  EXPECT_EQ(m.weights[1].globalShape, (Shape{32}));
  EXPECT_EQ(m.formatSharding(m.outputs[0].sharding),
            "[[\"data\"], [\"model\"]]");

  // A single-device manifest of version 3 has none of it.
  artifact::Manifest single = shardedManifest();
  single.mesh = {};
  single.worldSize = 1;
  single.inputs[0].sharding = {};
  single.outputs[0].sharding = {};
  single.weights.pop_back();
  single.weights[0].sharding = {};
  single.weights[0].globalShape = single.weights[0].shape;
  single.weights[0].file = "weights/weights.safetensors";
  single.programs[0].weightFiles = {"weights/weights.safetensors"};
  std::string singleText = artifact::writeManifestJson(single);
  EXPECT_EQ(singleText.find("mesh"), std::string::npos);
  EXPECT_EQ(singleText.find("world_size"), std::string::npos);
  EXPECT_EQ(singleText.find("sharding"), std::string::npos);
  EXPECT_EQ(singleText.find("global_shape"), std::string::npos);
  Manifest s = artifact::parseManifest(singleText, "s.json");
  EXPECT_EQ(s, single);
  EXPECT_FALSE(s.hasMesh());
  EXPECT_EQ(s.worldSize, 1);
  EXPECT_EQ(s.getLocalShape(s.inputs[0]), (Shape{8, 16}));
}

TEST(RuntimeManifestV3, ExpandRankPath) {
  EXPECT_EQ(artifact::expandRankPath("w/shard-{rank}.st", 12), "w/shard-12.st");
  EXPECT_EQ(artifact::expandRankPath("{rank}/{rank}", 3), "3/3");
  EXPECT_EQ(artifact::expandRankPath("w.st", 3), "w.st");
}

/// The reader's error for shardedManifest() edited by `edit`, then its text
/// by `textEdit` (for what the writer cannot write: a missing field, an
/// unknown axis).
void expectManifestError(
    int line, const std::function<void(artifact::Manifest &)> &edit,
    const std::string &substring,
    const std::function<void(std::string &)> &textEdit = {}) {
  artifact::Manifest m = shardedManifest();
  edit(m);
  std::string text = artifact::writeManifestJson(m);
  if (textEdit)
    textEdit(text);
  std::string e = errorOf([&] { artifact::parseManifest(text, "m.json"); });
  EXPECT_NE(e.find(substring), std::string::npos)
      << "line " << line << ": error was: '" << e << "'";
}

TEST(RuntimeManifestV3, Errors) {
  expectManifestError(
      __LINE__, [](artifact::Manifest &m) { m.worldSize = 2; },
      "m.json: field 'world_size' is 2 but the mesh "
      "(data=2,model=2) has 4 devices");
  expectManifestError(
      __LINE__, [](artifact::Manifest &) {}, "missing field 'world_size'",
      [](std::string &text) { replaceOnce(text, "\"world_size\": 4,", ""); });
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.mesh.axisSizes = {2, 0};
      },
      "mesh axis 'model' has a bad size 0");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.mesh.axisNames = {"data", "data"};
      },
      "mesh repeats the axis 'data'");
  expectManifestError(
      __LINE__, [](artifact::Manifest &m) { m.mesh.axisSizes = {4}; },
      "mesh has 2 axes but 1 sizes");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &) {},
      "inputs[0] field 'sharding' names \"rows\", which is "
      "not an axis of the mesh (data=2,model=2)",
      [](std::string &text) {
        replaceOnce(text, "[[\"data\"], []]", "[[\"rows\"], []]");
      });
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.inputs[0].sharding = split({{0}, {0}});
      },
      "inputs[0] field 'sharding' uses mesh axis 'data' "
      "twice");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) { m.inputs[0].sharding = split({{0}}); },
      "inputs[0] field 'sharding' must be an array of 2 "
      "lists");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.inputs[0].shape = {5, 16};
      },
      "inputs[0] is split [[\"data\"], []]: dimension 0 (size 5) is "
      "not divisible by 2, the size of axes 'data'");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.outputs[0].sharding = split({{0, 1}, {}});
        m.outputs[0].shape = {6, 32};
      },
      "not divisible by 4, the size of axes 'data', 'model'");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.weights[0].shape = {16, 32};
      },
      "weights[0] has shape [16,32] but the block of its "
      "global_shape [16,32] split [[], [\"model\"]] is "
      "[16,16]");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.weights[0].file = "weights/shard.safetensors";
        m.programs[0].weightFiles[1] = "weights/shard.safetensors";
      },
      "weights[0] is sharded but its file 'weights/shard.safetensors' is the "
      "same for every rank");
  expectManifestError(
      __LINE__, [](artifact::Manifest &m) { m.weights[1].globalShape = {64}; },
      "weights[1] has shape [32] but global_shape [64] "
      "without a sharding");
  // Version-3 fields need version 3 and a mesh.
  expectManifestError(
      __LINE__, [](artifact::Manifest &m) { m.formatVersion = 2; },
      "field 'mesh' needs format version 3");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.mesh = {};
        m.worldSize = 1;
      },
      "inputs[0] has a 'sharding' but the manifest has no "
      "mesh");
  expectManifestError(
      __LINE__,
      [](artifact::Manifest &m) {
        m.mesh = {};
        m.worldSize = 1;
        m.inputs[0].sharding = {};
        m.outputs[0].sharding = {};
        m.weights[0].sharding = {};
        m.weights[0].globalShape.clear();
      },
      "weights[0] has the per-rank file 'weights/shard-{rank}.safetensors' "
      "but the manifest has no mesh");
  expectManifestError(
      __LINE__, [](artifact::Manifest &m) { m.formatVersion = 5; },
      "artifact format version 5 is not supported (this "
      "runtime reads format versions 2 to 4)");
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

TEST(RuntimeBlocks, ExtractAndInsert) {
  telar_sharding::Mesh mesh{{"a", "b", "c"}, {2, 3, 2}};
  // dims: 0 split by c then a (4 blocks), 1 by b (3), 2 whole.
  telar_sharding::Sharding sharding{{{2, 0}, {1}, {}}, {}};
  Shape shape{8, 6, 5};
  Shape local = telar_sharding::getLocalShape(shape, sharding, mesh);
  EXPECT_EQ(local, (Shape{2, 2, 5}));
  std::vector<int32_t> global(8 * 6 * 5);
  std::iota(global.begin(), global.end(), 0);
  std::vector<int32_t> assembled(global.size(), -1);
  for (int64_t rank = 0; rank < 12; ++rank) {
    Shape offsets = telar_sharding::getBlockOffsets(shape, sharding, mesh, rank);
    // rank = (a * 3 + b) * 2 + c; the block of dim 0 is c * 2 + a.
    int64_t a = rank / 6, b = rank / 2 % 3, c = rank % 2;
    EXPECT_EQ(offsets, (Shape{(c * 2 + a) * 2, b * 2, 0})) << rank;
    std::vector<int32_t> block(2 * 2 * 5);
    detail::extractBlock(global.data(), shape, offsets, local, 4, block.data());
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 5; ++k)
          ASSERT_EQ(block[(i * 2 + j) * 5 + k],
                    global[((offsets[0] + i) * 6 + offsets[1] + j) * 5 + k]);
    detail::insertBlock(assembled.data(), shape, offsets, local, 4,
                        block.data());
  }
  EXPECT_EQ(assembled, global);
  // A scalar.
  int64_t one = 7, copy = 0;
  detail::extractBlock(&one, {}, {}, {}, 8, &copy);
  EXPECT_EQ(copy, 7);
}

/// A .npy file of `shape` holding 0, 1, 2, ... as `descr` (<i4 or >i4), in
/// C or Fortran order.
std::string npyFile(const std::string &name, const Shape &shape, bool fortran,
                    bool bigEndian = false) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  std::string header = std::string("{'descr': '") + (bigEndian ? ">" : "<") +
                       "i4', 'fortran_order': " +
                       (fortran ? "True" : "False") + ", 'shape': (" + dims +
                       "), }";
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  bytes += header;
  int64_t n = numElements(shape);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  for (int64_t f = 0; f < n; ++f) {
    // Element f of the file: in Fortran order, its C index.
    int64_t c = f;
    if (fortran) {
      c = 0;
      int64_t rest = f;
      for (size_t d = 0; d < shape.size(); ++d) {
        c += (rest % shape[d]) * strides[d];
        rest /= shape[d];
      }
    }
    uint32_t v = uint32_t(c);
    for (int i = 0; i < 4; ++i)
      bytes += char(v >> (8 * (bigEndian ? 3 - i : i)));
  }
  std::string path =
      (std::filesystem::temp_directory_path() /
       ("telar-npy-block-" + std::to_string(::getpid()) + "-" + name + ".npy"))
          .string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(RuntimeBlocks, ReadNpyBlock) {
  struct Case {
    Shape shape, offsets, block;
  };
  const Case cases[] = {
      {{8, 6, 5}, {2, 2, 0}, {2, 2, 5}}, // runs of 2 rows of 5
      {{8, 6, 5}, {4, 0, 0}, {4, 6, 5}}, // one run
      {{8, 6, 5}, {0, 3, 1}, {8, 3, 2}}, // runs of 2 elements
      {{8, 6, 5}, {0, 0, 0}, {8, 6, 5}}, // the whole
      {{8, 6, 5}, {7, 5, 4}, {1, 1, 1}},
      {{12}, {4, }, {4}},
      {{}, {}, {}},
      {{4, 0}, {2, 0}, {2, 0}},
  };
  int k = 0;
  for (const Case &c : cases)
    for (bool fortran : {false, true})
      for (bool bigEndian : {false, true}) {
        std::string path = npyFile(std::to_string(k++), c.shape, fortran,
                                   bigEndian);
        auto [dtype, shape] = readNpyType(path);
        EXPECT_EQ(dtype, DType::Int32);
        EXPECT_EQ(shape, c.shape);
        Tensor whole = readNpy(path);
        Tensor block = readNpyBlock(path, c.offsets, c.block);
        std::vector<int32_t> want(std::max<int64_t>(1, numElements(c.block)));
        detail::extractBlock(whole.data(), c.shape, c.offsets, c.block, 4,
                             want.data());
        ASSERT_EQ(block.getShape(), c.block);
        for (int64_t i = 0; i < numElements(c.block); ++i)
          ASSERT_EQ(block.data<int32_t>()[i], want[i])
              << formatShape(c.shape) << " block " << formatShape(c.block)
              << " at " << formatShape(c.offsets) << " fortran " << fortran
              << " element " << i;
        std::filesystem::remove(path);
      }
  std::string path = npyFile("bad", {8, 4}, false);
  EXPECT_ERROR(readNpyBlock(path, {6, 0}, {4, 4}),
               "the block [4,4] at [6,0] is not inside int32[8,4]");
  EXPECT_ERROR(readNpyBlock(path, {0}, {4}),
               "a block of rank 1 of a tensor of rank 2");
  // A truncated file is refused from its header and size alone.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
  EXPECT_ERROR(readNpyType(path), "truncated .npy data (int32[8,4] needs 128 "
                                  "bytes, found 124)");
  std::filesystem::remove(path);
  EXPECT_ERROR(readNpyType("/nonexistent/x.npy"),
               "cannot read '/nonexistent/x.npy'");
}

//===----------------------------------------------------------------------===//
// The collective ABI in one process
//===----------------------------------------------------------------------===//

TEST(RuntimeCollectives, SingleDeviceCopies) {
  Context ctx;
  TelarContext *c = ctx.get();
  float in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  EXPECT_EQ(
      telarrt_all_reduce(c, TELAR_DTYPE_F32, TELAR_REDUCE_SUM, 3, in, out, 6),
      TELAR_STATUS_OK);
  EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
  float g[6] = {};
  EXPECT_EQ(telarrt_all_gather(c, TELAR_DTYPE_F32, 1, in, g, 2, 3),
            TELAR_STATUS_OK);
  EXPECT_EQ(std::memcmp(in, g, sizeof(in)), 0);
  float r[6] = {};
  EXPECT_EQ(telarrt_reduce_scatter(c, TELAR_DTYPE_F32, TELAR_REDUCE_MAX, 1, in,
                                   r, 3, 2),
            TELAR_STATUS_OK);
  EXPECT_EQ(std::memcmp(in, r, sizeof(in)), 0);
  float a[6] = {};
  EXPECT_EQ(telarrt_all_to_all(c, TELAR_DTYPE_F32, 2, in, a, 2, 3, 3, 2),
            TELAR_STATUS_OK);
  EXPECT_EQ(std::memcmp(in, a, sizeof(in)), 0);
  float l[6] = {};
  EXPECT_EQ(telarrt_local_slice(c, TELAR_DTYPE_F32, 2, in, l, 6, 1),
            TELAR_STATUS_OK);
  EXPECT_EQ(std::memcmp(in, l, sizeof(in)), 0);
  EXPECT_EQ(ctx.getStatus(), TELAR_STATUS_OK);
}

TEST(RuntimeCollectives, Errors) {
  Context ctx;
  TelarContext *c = ctx.get();
  float in[4] = {}, out[4] = {};
  EXPECT_EQ(telarrt_all_reduce(c, 99, TELAR_REDUCE_SUM, 1, in, out, 4),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(ctx.getError().find("telarrt_all_reduce: unknown element type "
                                "code 99"),
            std::string::npos)
      << ctx.getError();
  ctx.clearError();
  EXPECT_EQ(telarrt_all_reduce(c, TELAR_DTYPE_F32, 9, 1, in, out, 4),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(ctx.getError().find("unknown reduction code 9"), std::string::npos)
      << ctx.getError();
  ctx.clearError();
  EXPECT_EQ(telarrt_all_gather(c, TELAR_DTYPE_I32, 1, nullptr, out, 2, 2),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(ctx.getError().find("telarrt_all_gather(i32, axis mask 1, 2x2 "
                                "elements): null buffer"),
            std::string::npos)
      << ctx.getError();
  ctx.clearError();
  EXPECT_EQ(telarrt_all_to_all(c, TELAR_DTYPE_F32, 1, in, out, 1, 4, 1, 3),
            TELAR_STATUS_INVALID_ARGUMENT);
  ctx.clearError();

  // On a mesh: axes beyond it are refused, naming the call.
  ctx.setMeshCommunicator(std::make_shared<comm::MeshCommunicator>(
      comm::createLocalCommunicator(), std::vector<std::string>{"data"},
      std::vector<int64_t>{1}));
  EXPECT_EQ(
      telarrt_all_reduce(c, TELAR_DTYPE_F32, TELAR_REDUCE_SUM, 2, in, out, 4),
      TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(ctx.getError().find("all_reduce: axis mask 2 names axes beyond "
                                "the mesh's 1"),
            std::string::npos)
      << ctx.getError();
}

// A mesh of one device along each axis: every group has one member; the
// statistics count the calls, with no bytes sent.
TEST(RuntimeCollectives, OneDeviceMeshStats) {
  auto mesh = std::make_shared<comm::MeshCommunicator>(
      comm::createLocalCommunicator(),
      std::vector<std::string>{"data", "model"}, std::vector<int64_t>{1, 1});
  Context ctx;
  ctx.setMeshCommunicator(mesh);
  int64_t in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  EXPECT_EQ(telarrt_all_reduce(ctx.get(), TELAR_DTYPE_I64, TELAR_REDUCE_PROD, 2,
                               in, out, 6),
            TELAR_STATUS_OK);
  EXPECT_EQ(out[5], 6);
  EXPECT_EQ(telarrt_all_gather(ctx.get(), TELAR_DTYPE_I64, 3, in, out, 3, 2),
            TELAR_STATUS_OK);
  EXPECT_EQ(mesh->getStats().at(2).calls, 1);
  EXPECT_EQ(mesh->getStats().at(3).calls, 1);
  EXPECT_EQ(mesh->getTotalStats().bytesSent, 0);
  EXPECT_EQ(mesh->formatAxisSet(3), "data,model");
  mesh->resetStats();
  EXPECT_TRUE(mesh->getStats().empty());
  EXPECT_ERROR(
      comm::MeshCommunicator(comm::createLocalCommunicator(), {"data"}, {2}),
      "the mesh has 2 devices but the world 1 ranks");
}

/// A device of its own memory, which the host cannot read as it is: host
/// memory holding every byte XORed with 0x5a, which Device::copy undoes
/// between the spaces. A collective that handed its buffers to a host
/// transport without staging them would compute on the scrambled bytes.
class ScrambledDevice : public Device {
public:
  int copies = 0;
  const char *getKind() const override { return "scrambled"; }
  MemorySpace getMemorySpace() const override { return MemorySpace::Device; }
  DeviceAllocator &getAllocator() override { return cpu->getAllocator(); }
  Queue &getQueue() override { return cpu->getQueue(); }
  void copy(void *dst, MemorySpace dstSpace, const void *src,
            MemorySpace srcSpace, size_t bytes) override {
    ++copies;
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = static_cast<const unsigned char *>(src);
    for (size_t i = 0; i < bytes; ++i)
      d[i] = dstSpace == srcSpace ? s[i] : s[i] ^ 0x5a;
  }
  std::unique_ptr<DeviceWeights>
  loadWeights(const std::vector<HostSpan> &weights,
              const std::vector<HostSpan> &mappings, bool writable) override {
    return cpu->loadWeights(weights, mappings, writable);
  }
  const void *setWeightsBinding(const void *binding) override {
    return cpu->setWeightsBinding(binding);
  }

private:
  std::unique_ptr<Device> cpu = createDevice("cpu");
};

// A context's collectives take buffers in its device's memory: with a host
// transport (the local one here) they are staged through host memory, in
// and out, on the device's queue.
TEST(RuntimeCollectives, DeviceBuffersAreStagedForHostTransports) {
  auto owned = std::make_unique<ScrambledDevice>();
  ScrambledDevice &device = *owned;
  Context ctx(std::move(owned));
  auto mesh = std::make_shared<comm::MeshCommunicator>(
      comm::createLocalCommunicator(),
      std::vector<std::string>{"data", "model"}, std::vector<int64_t>{1, 1});
  ctx.setMeshCommunicator(mesh);
  EXPECT_EQ(mesh->getDevice(), &device);
  EXPECT_EQ(mesh->getWorld().getMemorySpace(), MemorySpace::Host);

  const int64_t host[6] = {1, 2, 3, 4, 5, 6};
  int64_t in[6], out[6], back[6];
  device.copy(in, MemorySpace::Device, host, MemorySpace::Host, sizeof(in));
  device.copies = 0;
  ASSERT_EQ(telarrt_all_reduce(ctx.get(), TELAR_DTYPE_I64, TELAR_REDUCE_SUM,
                               3, in, out, 6),
            TELAR_STATUS_OK)
      << ctx.getError();
  EXPECT_EQ(device.copies, 2); // in to the host, the result back
  device.copy(back, MemorySpace::Host, out, MemorySpace::Device, sizeof(out));
  EXPECT_EQ(std::vector<int64_t>(back, back + 6),
            std::vector<int64_t>(host, host + 6));

  // [outer=3][G=1][inner=2]: packed and unpacked on the host copies.
  std::memset(out, 0, sizeof(out));
  ASSERT_EQ(telarrt_all_gather(ctx.get(), TELAR_DTYPE_I64, 1, in, out, 3, 2),
            TELAR_STATUS_OK)
      << ctx.getError();
  device.copy(back, MemorySpace::Host, out, MemorySpace::Device, sizeof(out));
  EXPECT_EQ(std::vector<int64_t>(back, back + 6),
            std::vector<int64_t>(host, host + 6));
  // local_slice moves no data between ranks but still reads device memory.
  ASSERT_EQ(telarrt_local_slice(ctx.get(), TELAR_DTYPE_I64, 2, in, out, 2, 3),
            TELAR_STATUS_OK)
      << ctx.getError();
  device.copy(back, MemorySpace::Host, out, MemorySpace::Device, sizeof(out));
  EXPECT_EQ(std::vector<int64_t>(back, back + 6),
            std::vector<int64_t>(host, host + 6));

  // A host device's buffers go to the transport as they are.
  Context host0;
  auto hostMesh = std::make_shared<comm::MeshCommunicator>(
      comm::createLocalCommunicator(), std::vector<std::string>{"data"},
      std::vector<int64_t>{1});
  host0.setMeshCommunicator(hostMesh);
  EXPECT_EQ(hostMesh->getDevice(), &host0.getDevice());
  std::memset(out, 0, sizeof(out));
  ASSERT_EQ(telarrt_all_reduce(host0.get(), TELAR_DTYPE_I64, TELAR_REDUCE_MAX,
                               1, host, out, 6),
            TELAR_STATUS_OK);
  EXPECT_EQ(out[5], 6);
}

//===----------------------------------------------------------------------===//
// float16 / bfloat16
//===----------------------------------------------------------------------===//

TEST(RuntimeCollectives, HalfConversions) {
  using namespace comm::detail;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = f16ToFloat(uint16_t(h));
    float b = bf16ToFloat(uint16_t(h));
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(f16ToFloat(floatToF16(f)))) << h;
    else
      ASSERT_EQ(floatToF16(f), h) << h;
    if (std::isnan(b))
      EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(b)))) << h;
    else
      ASSERT_EQ(floatToBf16(b), h) << h;
  }
  // Rounding to nearest even, overflow, subnormals.
  EXPECT_EQ(floatToF16(1.0f + 1.0f / 2048), 0x3c00); // tie: even
  EXPECT_EQ(floatToF16(1.0f + 3.0f / 2048), 0x3c02); // tie: even
  EXPECT_EQ(floatToF16(1.0f + 1.5f / 2048), 0x3c01); // above the tie
  EXPECT_EQ(floatToF16(65504.0f), 0x7bff);
  EXPECT_EQ(floatToF16(65519.0f), 0x7bff);
  EXPECT_EQ(floatToF16(65520.0f), 0x7c00);
  EXPECT_EQ(floatToF16(-1e10f), 0xfc00);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000); // tie: even
  EXPECT_EQ(floatToF16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToBf16(1.0f + 1.0f / 256), 0x3f80); // tie: even
  EXPECT_EQ(floatToBf16(1.0f + 3.0f / 256), 0x3f82);
}

} // namespace
