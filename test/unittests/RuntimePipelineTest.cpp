//===- RuntimePipelineTest.cpp - The pieces of the pipeline executor ------===//
//
// Box packing and unpacking, microbatch slicing and concatenation, and the
// checks of a version-4 manifest's pipeline (each error naming its field).
// The executor end to end: test/runtime/pipeline.test.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Pipeline.h"
#include "telar/runtime/Runtime.h"
#include "telar/sharding/core/Schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

using namespace telar::runtime;
namespace artifact = telar_artifact;

namespace {

template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(expr, substring)                                          \
  EXPECT_NE(errorOf([&] { (void)(expr); }).find(substring), std::string::npos) \
      << "error was: '" << errorOf([&] { (void)(expr); }) << "'"

Tensor iota(Shape shape) {
  Tensor t(DType::Float32, std::move(shape));
  float *p = t.data<float>();
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    p[i] = float(i);
  return t;
}

//===----------------------------------------------------------------------===//
// Boxes
//===----------------------------------------------------------------------===//

TEST(RuntimePipeline, PackBox) {
  // A [3,4,5] block; the box [2,2,3] at [1,1,2].
  Tensor block = iota({3, 4, 5});
  std::vector<float> box(12);
  packBox(block.data(), {3, 4, 5}, {1, 1, 2}, {2, 2, 3}, sizeof(float),
          box.data());
  std::vector<float> expected;
  for (int i = 1; i < 3; ++i)
    for (int j = 1; j < 3; ++j)
      for (int k = 2; k < 5; ++k)
        expected.push_back(float(i * 20 + j * 5 + k));
  EXPECT_EQ(box, expected);

  // Unpacking writes the box and nothing else.
  Tensor target(DType::Float32, {3, 4, 5});
  unpackBox(target.data(), {3, 4, 5}, {1, 1, 2}, {2, 2, 3}, sizeof(float),
            box.data());
  const float *t = target.data<float>(), *b = block.data<float>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) {
        int at = i * 20 + j * 5 + k;
        bool inside = i >= 1 && j >= 1 && j < 3 && k >= 2;
        EXPECT_EQ(t[at], inside ? b[at] : 0.0f) << i << "," << j << "," << k;
      }

  // The whole block, a scalar, an empty box.
  std::vector<float> whole(60);
  packBox(block.data(), {3, 4, 5}, {0, 0, 0}, {3, 4, 5}, sizeof(float),
          whole.data());
  EXPECT_EQ(std::memcmp(whole.data(), block.data(), block.getByteSize()), 0);
  float scalar = 7, out = 0;
  packBox(&scalar, {}, {}, {}, sizeof(float), &out);
  EXPECT_EQ(out, 7);
  packBox(block.data(), {3, 4, 5}, {3, 0, 0}, {0, 4, 5}, sizeof(float),
          nullptr);
}

TEST(RuntimePipeline, BoxErrors) {
  Tensor block = iota({3, 4});
  std::vector<float> box(16);
  EXPECT_ERROR(packBox(block.data(), {3, 4}, {2, 0}, {2, 4}, 4, box.data()),
               "pack: the box [2,4] at [2,0] is not inside the block [3,4]");
  EXPECT_ERROR(unpackBox(block.data(), {3, 4}, {0, 1}, {1, 4}, 4, box.data()),
               "unpack: the box [1,4] at [0,1] is not inside the block [3,4]");
  EXPECT_ERROR(packBox(block.data(), {3, 4}, {0}, {1, 1}, 4, box.data()),
               "pack: a box of 2 dimensions at 1 offsets in a block of 2");
}

//===----------------------------------------------------------------------===//
// Microbatches
//===----------------------------------------------------------------------===//

TEST(RuntimePipeline, Microbatches) {
  Tensor whole = iota({4, 6});
  EXPECT_EQ(getMicrobatchShape({4, 6}, 0, 2), (Shape{2, 6}));
  EXPECT_EQ(getMicrobatchShape({4, 6}, 1, 3), (Shape{4, 2}));
  EXPECT_EQ(getMicrobatchShape({4, 6}, -1, 4), (Shape{4, 6}));

  // Along dim 0: contiguous rows.
  Tensor m1 = sliceMicrobatch(whole, 0, 1, 2);
  ASSERT_EQ(m1.getShape(), (Shape{2, 6}));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(m1.data<float>()[i], float(12 + i));
  // Along dim 1: strided.
  Tensor c2 = sliceMicrobatch(whole, 1, 2, 3);
  ASSERT_EQ(c2.getShape(), (Shape{4, 2}));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(c2.data<float>()[r * 2 + c], float(r * 6 + 4 + c));
  // Not split: a copy.
  Tensor all = sliceMicrobatch(whole, -1, 3, 4);
  EXPECT_EQ(std::memcmp(all.data(), whole.data(), whole.getByteSize()), 0);

  // Concatenating the slices gives the whole back, on either dimension.
  for (auto [dim, count] :
       {std::pair<int64_t, int64_t>{0, 4}, {0, 2}, {1, 3}, {1, 6}, {0, 1}}) {
    Tensor rebuilt(DType::Float32, {4, 6});
    for (int64_t m = 0; m < count; ++m)
      insertMicrobatch(rebuilt, sliceMicrobatch(whole, dim, m, count), dim, m,
                       count);
    EXPECT_EQ(std::memcmp(rebuilt.data(), whole.data(), whole.getByteSize()), 0)
        << "dim " << dim << ", " << count << " microbatches";
  }
}

TEST(RuntimePipeline, MicrobatchErrors) {
  Tensor whole = iota({4, 6});
  EXPECT_ERROR(sliceMicrobatch(whole, 0, 0, 3),
               "cannot split [4,6] into 3 microbatches along dim 0");
  EXPECT_ERROR(sliceMicrobatch(whole, 2, 0, 2),
               "cannot split [4,6] into 2 microbatches along dim 2");
  EXPECT_ERROR(sliceMicrobatch(whole, 0, 2, 2), "no microbatch 2 of 2");
  Tensor rebuilt(DType::Float32, {4, 6});
  EXPECT_ERROR(insertMicrobatch(rebuilt, iota({2, 3}), 0, 0, 2),
               "microbatch 0: expected float32[2,6], got float32[2,3]");
}

//===----------------------------------------------------------------------===//
// The manifest's pipeline
//===----------------------------------------------------------------------===//

/// Stage 0 on rank 0, stage 1 on ranks 1-2 taking h ([2,16] per
/// microbatch) split by columns; 2 microbatches of x [4,8].
artifact::Manifest pipelinedManifest() {
  artifact::Manifest m;
  m.telarVersion = "0.1.0";
  m.modelPath = "tp.onnx";
  m.targetKind = "cpu";
  m.worldSize = 3;
  m.inputs = {{"x", DType::Float32, {4, 8}}};
  m.outputs = {{"y", DType::Float32, {4, 8}}, {"h", DType::Float32, {4, 16}}};
  artifact::PipelineSpec p;
  p.microbatches = 2;
  p.stages = {{"stage0", 0, 1}, {"stage1", 1, 2}};
  p.inputs = {{"x", 0}};
  p.outputs = {{"y", 0, 1}, {"h", 0, 0}};
  artifact::PipelineTransferSpec h;
  h.name = "h";
  h.fromStage = 0;
  h.toStage = 1;
  h.dtype = DType::Float32;
  h.shape = {2, 16};
  h.messages = {{0, 1, {0, 0}, {0, 0}, {2, 8}}, {0, 2, {0, 8}, {0, 0}, {2, 8}}};
  p.transfers = {h};
  using Step = artifact::PipelineStepSpec;
  std::vector<Step> first, second;
  for (int64_t mb = 0; mb < 2; ++mb) {
    first.push_back({Step::Op::Forward, mb, 0});
    first.push_back({Step::Op::Send, mb, 0, {0}});
    second.push_back({Step::Op::Recv, mb, 1, {0}});
    second.push_back({Step::Op::Forward, mb, 1});
  }
  p.scheduleTable = {first, second, second};
  m.pipeline = p;
  return m;
}

Manifest parse(const artifact::Manifest &m) {
  return artifact::parseManifest(artifact::writeManifestJson(m),
                                 "p/manifest.json");
}

/// `text` with the first `from` at or after `after` replaced by `to`.
void replaceOnce(std::string &text, const std::string &from,
                 const std::string &to, const std::string &after = "") {
  size_t at = text.find(from, text.find(after));
  ASSERT_NE(at, std::string::npos) << from << " not in " << text;
  text.replace(at, from.size(), to);
}

/// The reader's error for pipelinedManifest() edited by `edit`, then its
/// text by `textEdit` (for what the writer cannot write).
void expectError(int line,
                 const std::function<void(artifact::Manifest &)> &edit,
                 const std::string &message,
                 const std::function<void(std::string &)> &textEdit = {}) {
  artifact::Manifest m = pipelinedManifest();
  edit(m);
  std::string text = artifact::writeManifestJson(m);
  if (textEdit)
    textEdit(text);
  std::string got =
      errorOf([&] { artifact::parseManifest(text, "p/manifest.json"); });
  EXPECT_NE(got.find("p/manifest.json: " + message), std::string::npos)
      << "line " << line << ": error was '" << got << "'";
}

TEST(RuntimePipeline, ManifestRoundTrip) {
  Manifest m = parse(pipelinedManifest());
  EXPECT_EQ(m, pipelinedManifest());
  ASSERT_TRUE(m.isPipelined());
  EXPECT_EQ(m.formatVersion, 4);
  EXPECT_EQ(m.worldSize, 3);
  EXPECT_FALSE(m.hasMesh());
  EXPECT_TRUE(m.programs.empty());
  const PipelineSpec &p = *m.pipeline;
  EXPECT_EQ(p.microbatches, 2);
  EXPECT_EQ(p.schedule, "gpipe");
  EXPECT_EQ(p.getNumStages(), 2);
  EXPECT_EQ(p.getNumPositions(), 2);
  EXPECT_EQ(p.stages[1].directory, "stage1");
  EXPECT_EQ(p.stages[1].firstRank, 1);
  EXPECT_EQ(p.stages[1].numRanks, 2);
  EXPECT_EQ(p.getPositionOfRank(0), 0);
  EXPECT_EQ(p.getPositionOfRank(2), 1);
  EXPECT_EQ(p.getPositionOfRank(3), -1);
  ASSERT_EQ(p.outputs.size(), 2u);
  EXPECT_EQ(p.outputs[1].name, "h");
  EXPECT_EQ(p.outputs[1].stage, 0);
  ASSERT_EQ(p.transfers.size(), 1u);
  const PipelineTransferSpec &t = p.transfers[0];
  EXPECT_EQ(t.dtype, DType::Float32);
  EXPECT_EQ(t.shape, (Shape{2, 16}));
  ASSERT_EQ(t.messages.size(), 2u);
  EXPECT_EQ(t.messages[1].toRank, 2);
  EXPECT_EQ(t.messages[1].fromOffsets, (Shape{0, 8}));
  EXPECT_EQ(t.messages[1].sizes, (Shape{2, 8}));
  ASSERT_EQ(p.scheduleTable.size(), 3u);
  ASSERT_EQ(p.scheduleTable[0].size(), 4u);
  EXPECT_EQ(p.scheduleTable[0][1].op, PipelineStepSpec::Op::Send);
  EXPECT_EQ(p.scheduleTable[0][1].transfers, (std::vector<int64_t>{0}));
  EXPECT_EQ(p.scheduleTable[2][2].op, PipelineStepSpec::Op::Recv);
  EXPECT_EQ(p.scheduleTable[2][2].microbatch, 1);

  // Versions 2 and 3 still read; version 4 without a pipeline is version
  // 3's single-device artifact.
  artifact::Manifest plain;
  plain.programs = {{"main", "programs/main.so"}};
  for (int64_t version : {2, 3, 4}) {
    plain.formatVersion = version;
    Manifest old = parse(plain);
    EXPECT_FALSE(old.isPipelined());
    EXPECT_EQ(old.formatVersion, version);
  }
}

TEST(RuntimePipeline, ManifestErrors) {
  using M = artifact::Manifest;
  auto pipe = [](M &m) -> artifact::PipelineSpec & { return *m.pipeline; };
  expectError(
      __LINE__, [](M &m) { m.formatVersion = 3; },
      "field 'pipeline' needs format version 4");
  expectError(
      __LINE__,
      [](M &m) {
        m.mesh = telar_sharding::Mesh{{"a"}, {3}};
      },
      "field 'mesh' is not allowed in a pipelined artifact");
  expectError(
      __LINE__, [](M &) {},
      "missing field 'world_size' (a pipelined artifact says its "
      "world size)",
      [](std::string &text) { replaceOnce(text, "\"world_size\": 3,", ""); });
  expectError(
      __LINE__,
      [](M &m) {
        m.programs = {{"main", "programs/main.so"}};
      },
      "field 'programs' must be empty in a pipelined artifact");
  expectError(
      __LINE__, [&](M &m) { pipe(m).microbatches = 0; },
      "field 'pipeline.microbatches' must be an integer >= 1, got 0");
  expectError(
      __LINE__, [&](M &m) { pipe(m).schedule = "zigzag"; },
      "field 'pipeline.schedule' is 'zigzag' (expected 'gpipe', "
      "'1f1b' or 'interleaved')");
  expectError(
      __LINE__, [&](M &m) { pipe(m).virtualStages = 2; },
      "field 'pipeline.virtual_stages' is 2 with schedule 'gpipe'");
  expectError(
      __LINE__,
      [&](M &m) {
        pipe(m).schedule = "interleaved";
        pipe(m).virtualStages = 2;
      },
      "field 'pipeline.stages': interleaving needs at least 2 "
      "positions, got 1");
  expectError(
      __LINE__, [&](M &m) { pipe(m).stages[1].firstRank = -1; },
      "field 'pipeline.stages[1].first_rank' must be an integer >= "
      "0, got -1");
  expectError(
      __LINE__, [&](M &m) { pipe(m).stages[1].numRanks = 3; },
      "field 'pipeline.stages[1].num_ranks': ranks 1..3 are beyond "
      "the world of 3 ranks");
  expectError(
      __LINE__, [&](M &m) { pipe(m).stages[1].directory = "../x"; },
      "pipeline.stages[1] field 'directory' ('../x') must be a "
      "relative path inside the artifact");
  expectError(
      __LINE__, [&](M &m) { pipe(m).stages[1].directory = "stage0"; },
      "pipeline.stages[1] repeats the directory 'stage0'");
  expectError(
      __LINE__,
      [&](M &m) {
        pipe(m).stages[1].firstRank = 0;
        pipe(m).stages[1].numRanks = 1;
      },
      "pipeline.stages: stages 0 and 1 share rank 0");
  expectError(
      __LINE__, [&](M &m) { pipe(m).stages[1].numRanks = 1; },
      "pipeline.stages: rank 2 of the 3 is in no stage");
  expectError(
      __LINE__, [&](M &m) { pipe(m).inputs.clear(); },
      "field 'pipeline.inputs' lacks the top-level input 'x'");
  expectError(
      __LINE__, [&](M &m) { pipe(m).inputs[0].name = "z"; },
      "pipeline.inputs[0] names 'z', which is not a top-level input");
  expectError(
      __LINE__, [&](M &m) { pipe(m).inputs[0].microbatchDim = 2; },
      "field 'pipeline.inputs[0].microbatch_dim' must be a dimension "
      "of 'x' (0..1) or -1 (whole), got 2");
  expectError(
      __LINE__, [&](M &m) { pipe(m).microbatches = 3; },
      "field 'pipeline.inputs[0].microbatch_dim': dim 0 of 'x' (4) "
      "is not divisible by 3 microbatches");
  expectError(
      __LINE__,
      [&](M &m) {
        pipe(m).outputs.push_back({"y", 0, 1});
      },
      "pipeline.outputs[2] repeats 'y'");
  expectError(
      __LINE__, [&](M &m) { pipe(m).outputs[0].stage = 2; },
      "field 'pipeline.outputs[0].stage' is 2 but there are 2 stages");
  expectError(
      __LINE__, [&](M &m) { pipe(m).transfers[0].toStage = 0; },
      "pipeline.transfers[0] goes from stage 0 to stage 0");
  expectError(
      __LINE__, [&](M &) {},
      "pipeline.transfers[0] has unknown dtype 'float7'",
      [](std::string &text) {
        replaceOnce(text, "\"float32\"", "\"float7\"", "\"from_stage\"");
      });
  expectError(
      __LINE__, [&](M &m) { pipe(m).transfers[0].messages[1].toRank = 0; },
      "field 'pipeline.transfers[0].messages[1].to_rank' is 0, not a "
      "rank of stage 1 (ranks 1..2)");
  expectError(
      __LINE__, [&](M &m) { pipe(m).transfers[0].messages[0].fromRank = 1; },
      "field 'pipeline.transfers[0].messages[0].from_rank' is 1, not "
      "a rank of stage 0 (ranks 0..0)");
  expectError(
      __LINE__, [&](M &m) { pipe(m).transfers[0].messages[0].sizes = {2}; },
      "field 'pipeline.transfers[0].messages[0].sizes' must have 2 "
      "sizes (one per dimension of the value), got [2]");
  expectError(
      __LINE__,
      [&](M &m) {
        pipe(m).transfers[0].messages[1].fromOffsets = {0, 9};
      },
      "pipeline.transfers[0].messages[1] has a box beyond the value's "
      "shape [2,16] in dimension 1");
  expectError(
      __LINE__,
      [&](M &m) {
        std::swap(pipe(m).transfers[0].messages[0],
                  pipe(m).transfers[0].messages[1]);
      },
      "pipeline.transfers[0].messages[1] is out of order");
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable.pop_back(); },
      "field 'pipeline.schedule_table' has 2 lists, but the world "
      "has 3 ranks");
  expectError(
      __LINE__, [&](M &) {},
      "field 'pipeline.schedule_table[0][0].op' is 'think'",
      [](std::string &text) {
        replaceOnce(text, "\"forward\"", "\"think\"", "\"schedule_table\"");
      });
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable[1][1].stage = 0; },
      "field 'pipeline.schedule_table[1][1].stage': stage 0 does not "
      "run on rank 1 (ranks 0..0)");
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable[1][1].microbatch = 2; },
      "field 'pipeline.schedule_table[1][1].microbatch' is 2 but "
      "there are 2 microbatches");
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable[1][3].microbatch = 0; },
      "pipeline.schedule_table[1][3] computes stage 1 on microbatch "
      "0 a second time (step 1 did)");
  expectError(
      __LINE__,
      [&](M &m) {
        auto &steps = pipe(m).scheduleTable[2];
        steps.erase(steps.begin() + 3);
      },
      "field 'pipeline.schedule_table[2]' never computes stage 1 on "
      "microbatch 1");
  expectError(
      __LINE__,
      [&](M &m) {
        auto &steps = pipe(m).scheduleTable[0];
        std::swap(steps[0], steps[1]);
      },
      "pipeline.schedule_table[0][0] sends transfer 0 of microbatch "
      "0 before stage 0 computed it");
  expectError(
      __LINE__,
      [&](M &m) {
        auto &steps = pipe(m).scheduleTable[1];
        std::swap(steps[0], steps[1]);
      },
      "pipeline.schedule_table[1][1] receives transfer 0 of "
      "microbatch 0 after stage 1 computed it");
  expectError(
      __LINE__,
      [&](M &m) {
        auto &steps = pipe(m).scheduleTable[0];
        steps.erase(steps.begin() + 3);
      },
      "field 'pipeline.schedule_table[0]' never sends transfer 0 "
      "('h') of microbatch 1");
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable[0][1].transfers = {1}; },
      "field 'pipeline.schedule_table[0][1].transfers' names 1, not a "
      "transfer (there are 1)");
  expectError(
      __LINE__, [&](M &m) { pipe(m).scheduleTable[0][1].transfers = {}; },
      "field 'pipeline.schedule_table[0][1].transfers' is empty");
  expectError(
      __LINE__,
      [&](M &m) {
        pipe(m).transfers[0].messages.pop_back();
        pipe(m).transfers[0].messages[0].sizes = {2, 16};
      },
      "field 'pipeline.schedule_table[2][0].transfers' names transfer "
      "0, in which rank 2 receives nothing");
  // Rank 0 sends microbatch 1 first, ranks 1 and 2 receive microbatch 0
  // first: stuck once sends wait for their receives.
  expectError(
      __LINE__,
      [&](M &m) {
        auto &steps = pipe(m).scheduleTable[0];
        steps = {steps[0], steps[2], steps[3], steps[1]};
      },
      "field 'pipeline.schedule_table' deadlocks when a send waits for "
      "its receive: rank 0 at schedule_table[0][2] (sending transfer 0 "
      "of microbatch 1 to rank 1); rank 1 at schedule_table[1][0] "
      "(receiving transfer 0 of microbatch 0 from rank 0); rank 2 at "
      "schedule_table[2][0] (receiving transfer 0 of microbatch 0 from "
      "rank 0)");
}

/// A manifest around the table buildSchedule makes: P positions of R ranks
/// each, every edge's value moved from each sender rank to each receiver
/// rank (R x R messages, as between two differently split blocks).
artifact::Manifest
scheduledManifest(const telar_sharding::PipelineSchedule &table, int64_t R) {
  const int64_t P = table.positions, S = table.getNumStages(),
                M = table.microbatches;
  artifact::Manifest m;
  m.targetKind = "cpu";
  m.worldSize = P * R;
  m.inputs = {{"x", DType::Float32, {2 * M, 4}}};
  m.outputs = {{"y", DType::Float32, {2 * M, 4}}};
  artifact::PipelineSpec p;
  p.microbatches = M;
  p.schedule = telar_sharding::getScheduleKindName(table.kind);
  p.virtualStages = table.virtualStages;
  for (int64_t s = 0; s < S; ++s)
    p.stages.push_back({"stage" + std::to_string(s), (s % P) * R, R});
  p.inputs = {{"x", 0}};
  p.outputs = {{"y", 0, S - 1}};
  for (const telar_sharding::StageEdge &e : table.edges) {
    artifact::PipelineTransferSpec x;
    x.name = "v" + std::to_string(e.from);
    x.fromStage = e.from;
    x.toStage = e.to;
    x.dtype = DType::Float32;
    x.shape = {R, R};
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < R; ++j)
        x.messages.push_back(
            {(e.from % P) * R + i, (e.to % P) * R + j, {j, i}, {i, j}, {1, 1}});
    p.transfers.push_back(x);
  }
  // Training tables: each value's gradient back along the same messages,
  // reversed.
  if (!table.forwardOnly)
    for (size_t t = 0, e = p.transfers.size(); t < e; ++t) {
      artifact::PipelineTransferSpec g = p.transfers[t];
      g.gradient = true;
      std::swap(g.fromStage, g.toStage);
      for (artifact::PipelineMessageSpec &msg : g.messages) {
        std::swap(msg.fromRank, msg.toRank);
        std::swap(msg.fromOffsets, msg.toOffsets);
      }
      std::sort(g.messages.begin(), g.messages.end(),
                [](const auto &a, const auto &b) {
                  return std::make_pair(a.fromRank, a.toRank) <
                         std::make_pair(b.fromRank, b.toRank);
                });
      p.transfers.push_back(g);
    }
  using Step = artifact::PipelineStepSpec;
  for (int64_t rank = 0; rank < P * R; ++rank) {
    std::vector<Step> steps;
    for (const telar_sharding::ScheduleStep &step : table.steps[rank / R]) {
      Step entry{step.kind, step.microbatch, step.stage};
      if (!entry.isTransfer()) {
        steps.push_back(entry);
        continue;
      }
      bool send = step.kind == Step::Op::Send;
      for (size_t t = 0; t < p.transfers.size(); ++t) {
        const artifact::PipelineTransferSpec &x = p.transfers[t];
        if ((send ? x.fromStage : x.toStage) != step.stage ||
            (send ? x.toStage : x.fromStage) != step.peerStage ||
            x.gradient != step.gradient)
          continue;
        for (const artifact::PipelineMessageSpec &msg : x.messages)
          if ((send ? msg.fromRank : msg.toRank) == rank) {
            entry.transfers.push_back(int64_t(t));
            break;
          }
      }
      if (!entry.transfers.empty())
        steps.push_back(entry);
    }
    // Training: each stage's optimizer once its last backward is done.
    if (!table.forwardOnly)
      for (int64_t s = (rank / R); s < S; s += P)
        steps.push_back({Step::Op::Optimizer, -1, s});
    p.scheduleTable.push_back(steps);
  }
  m.pipeline = p;
  return m;
}

// Every table buildSchedule makes, inference and training (gradients back,
// an optimizer step per stage), reads back checked: it runs to its end when
// sends wait for their receives: positions of one and of two
// ranks, chains and skip edges (to the next stage of the same position
// with virtual stages: the recv step's exchange within the position).
TEST(RuntimePipeline, BuiltSchedulesRun) {
  using telar_sharding::ScheduleKind;
  int64_t tables = 0;
  for (ScheduleKind kind :
       {ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved})
    for (int64_t P : {2, 3, 4})
      for (int64_t V : kind == ScheduleKind::Interleaved
                           ? std::vector<int64_t>{2, 3}
                           : std::vector<int64_t>{1})
        for (int64_t M : {1, 2, 3, 4, 6, 8}) {
          if (kind == ScheduleKind::Interleaved && M % P != 0)
            continue;
          const int64_t S = P * V;
          std::vector<telar_sharding::StageEdge> chain, skips;
          for (int64_t s = 0; s + 1 < S; ++s)
            chain.push_back({s, s + 1});
          int64_t skip = V > 1 ? P : 2;
          skips = chain;
          for (int64_t s = 0; s + skip < S; ++s)
            skips.push_back({s, s + skip});
          for (const auto &edges : {chain, skips})
            for (int64_t R : {1, 2})
              for (bool forwardOnly : {true, false}) {
                std::string error;
                std::optional<telar_sharding::PipelineSchedule> table =
                    telar_sharding::buildSchedule(kind, P, V, M, forwardOnly,
                                                  edges, error);
                ASSERT_TRUE(table) << error;
                std::string got = errorOf([&] {
                  artifact::Manifest written = scheduledManifest(*table, R);
                  Manifest m = parse(written);
                  EXPECT_EQ(m, written);
                  EXPECT_EQ(m.pipeline->getNumStages(), S);
                  EXPECT_EQ(m.pipeline->isTraining(), !forwardOnly);
                });
                EXPECT_EQ(got, "")
                    << telar_sharding::getScheduleKindName(kind) << " P=" << P
                    << " V=" << V << " M=" << M << " R=" << R << " "
                    << edges.size() << " edges"
                    << (forwardOnly ? "" : ", training");
                ++tables;
              }
        }
  EXPECT_GT(tables, 200);
}

} // namespace
