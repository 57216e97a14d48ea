//===- ManifestTest.cpp - The artifact library: manifest.json -------------===//
//
// What the writer writes the reader reads back, every field of the schema;
// the reader's checks of training schedules (backward passes, gradients,
// optimizer steps). The runtime's tests check the rest of the reader
// through the runtime (RuntimeTest, RuntimeMultiRankTest,
// RuntimePipelineTest).
//
//===----------------------------------------------------------------------===//

#include "telar/artifact/Manifest.h"

#include <gtest/gtest.h>

#include <functional>

using namespace telar_artifact;

namespace {

using Step = PipelineStepSpec;

telar_sharding::Sharding split(std::vector<std::vector<int64_t>> dims) {
  return {std::move(dims), {}};
}

/// A multi-rank manifest with every field of version 3 set to a value other
/// than its default.
Manifest everyField() {
  Manifest m;
  m.formatVersion = 3;
  m.telarVersion = "1.2.3";
  m.modelPath = "dir/\"odd\"\\name\n\x01\u00e9.onnx"; // escapes survive
  m.modelSha256 = "00ff";
  m.targetKind = "cpu";
  m.targetTriple = "x86_64-unknown-linux-gnu";
  m.targetChip = "znver5";
  m.targetFeatures = "+avx2,+avx512f";
  m.mesh = telar_sharding::Mesh{{"data", "model"}, {2, 2}};
  m.worldSize = 4;
  m.inputs = {{"x", DType::BFloat16, {8, 16}, split({{0}, {}})},
              {"ids", DType::Int64, {3}}};
  m.outputs = {{"y", DType::Float32, {8, 32}, split({{0}, {1}})},
               {"flag", DType::Bool, {}}};
  WeightSpec w;
  w.name = "w";
  w.dtype = DType::Float16;
  w.shape = {16, 8};
  w.globalShape = {16, 32};
  w.sharding = split({{}, {1, 0}});
  w.file = "weights/shard-{rank}.safetensors";
  WeightSpec b;
  b.name = "b";
  b.dtype = DType::UInt8;
  b.shape = {32};
  b.globalShape = {32};
  b.file = "weights/weights.safetensors";
  m.weights = {w, b};
  m.programs = {{"main",
                 "programs/main.so",
                 "my_entry",
                 {"weights/weights.safetensors",
                  "weights/shard-{rank}.safetensors"}}};
  m.largestLiveSetBytes = 4456448;
  return m;
}

/// A training pipeline of two one-rank stages: h [2,4] per microbatch from
/// stage 0 to stage 1, its gradient back; every step kind.
Manifest trainingPipeline() {
  Manifest m;
  m.telarVersion = "1.2.3";
  m.targetKind = "cpu";
  m.worldSize = 2;
  m.inputs = {{"x", DType::Float32, {4, 4}}, {"lr", DType::Float32, {}}};
  m.outputs = {{"loss", DType::Float32, {}}};
  PipelineSpec p;
  p.microbatches = 2;
  p.schedule = "1f1b";
  p.stages = {{"stage0", 0, 1}, {"stage1", 1, 1}};
  p.inputs = {{"x", 0, -1}, {"lr", -1, -1}};
  p.outputs = {{"loss", -1, 1}};
  PipelineTransferSpec h;
  h.name = "h";
  h.fromStage = 0;
  h.toStage = 1;
  h.dtype = DType::Float32;
  h.shape = {2, 4};
  h.messages = {{0, 1, {0, 0}, {0, 0}, {2, 4}}};
  PipelineTransferSpec g = h;
  g.gradient = true;
  g.fromStage = 1;
  g.toStage = 0;
  g.messages = {{1, 0, {0, 0}, {0, 0}, {2, 4}}};
  p.transfers = {h, g};
  p.scheduleTable = {
      {{Step::Op::Forward, 0, 0},
       {Step::Op::Send, 0, 0, {0}},
       {Step::Op::Forward, 1, 0},
       {Step::Op::Send, 1, 0, {0}},
       {Step::Op::Recv, 0, 0, {1}},
       {Step::Op::Backward, 0, 0},
       {Step::Op::Recv, 1, 0, {1}},
       {Step::Op::Backward, 1, 0},
       {Step::Op::Optimizer, -1, 0}},
      {{Step::Op::Recv, 0, 1, {0}},
       {Step::Op::Forward, 0, 1},
       {Step::Op::Recv, 1, 1, {0}},
       {Step::Op::Backward, 0, 1},
       {Step::Op::Send, 0, 1, {1}},
       {Step::Op::Forward, 1, 1},
       {Step::Op::Backward, 1, 1},
       {Step::Op::Send, 1, 1, {1}},
       {Step::Op::Optimizer, -1, 1}}};
  m.pipeline = p;
  return m;
}

TEST(Manifest, RoundTripsEveryField) {
  for (const Manifest &written : {everyField(), trainingPipeline()}) {
    std::string text = writeManifestJson(written);
    Manifest read = parseManifest(text, "m.json");
    EXPECT_EQ(read, written) << text;
    // And the text is stable: what was read writes the same.
    EXPECT_EQ(writeManifestJson(read), text);
  }
  // Fields the two manifests set, as written.
  std::string text = writeManifestJson(everyField());
  for (const char *field :
       {"\"entry\": \"my_entry\"", "\"chip\": \"znver5\"",
        "\"sharding\": [[], [\"model\", \"data\"]]",
        "\"global_shape\": [16, 32]", "\"largest_live_set_bytes\": 4456448",
        "\"dtype\": \"bfloat16\""})
    EXPECT_NE(text.find(field), std::string::npos) << field << "\n" << text;
  text = writeManifestJson(trainingPipeline());
  for (const char *field :
       {"\"gradient\": true", "\"op\": \"backward\"",
        "\"op\": \"optimizer\",\n", "\"schedule\": \"1f1b\""})
    EXPECT_NE(text.find(field), std::string::npos) << field << "\n" << text;
  EXPECT_TRUE(parseManifest(text, "m.json").pipeline->isTraining());
}

TEST(Manifest, GpuProgram) {
  Manifest m = everyField();
  m.targetKind = "cuda";
  ProgramSpec &p = m.programs[0];
  p.kernelDirectory = "programs/main.kernels";
  p.kernels = {{"main_kernel", "main_kernel"}, {"main_kernel_0", "f"}};
  p.emulationLibrary = "programs/main.emulation.so";
  std::string text = writeManifestJson(m);
  Manifest read = parseManifest(text, "m.json");
  EXPECT_EQ(read, m) << text;
  EXPECT_TRUE(read.programs[0].isGpuProgram());
  EXPECT_FALSE(everyField().programs[0].isGpuProgram());
  for (const char *field :
       {"\"kernel_directory\": \"programs/main.kernels\"",
        "\"emulation_library\": \"programs/main.emulation.so\"",
        "\"module\": \"main_kernel_0\""})
    EXPECT_NE(text.find(field), std::string::npos) << field << "\n" << text;
  // Kernel names become file names and symbols; paths stay inside.
  auto errorOf = [&](const std::string &from, const std::string &to) {
    std::string edited = text;
    edited.replace(edited.find(from), from.size(), to);
    try {
      parseManifest(edited, "m.json");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(errorOf("\"function\": \"f\"", "\"function\": \"../f\"")
                .find("has the kernel name '../f' (letters, digits and '_' "
                      "only)"),
            std::string::npos);
  EXPECT_NE(errorOf("\"programs/main.kernels\"", "\"/tmp\"")
                .find("must be a relative path inside the artifact"),
            std::string::npos);
  EXPECT_NE(errorOf("\"kernel_directory\"", "\"kernel_folder\"")
                .find("has kernels but no 'kernel_directory'"),
            std::string::npos);
}

TEST(Manifest, Equality) {
  // Each part takes part in the comparison.
  std::vector<std::function<void(Manifest &)>> edits = {
      [](Manifest &m) { m.telarVersion = "9"; },
      [](Manifest &m) { m.targetFeatures = ""; },
      [](Manifest &m) { m.inputs[0].sharding = {}; },
      [](Manifest &m) { m.weights[0].globalShape = {16, 8}; },
      [](Manifest &m) { m.programs[0].entry = "telar_entry"; },
      [](Manifest &m) { m.programs[0].kernels = {{"k", "f"}}; },
      [](Manifest &m) { m.largestLiveSetBytes = -1; },
      [](Manifest &m) { m.pipeline->transfers[1].gradient = false; },
      [](Manifest &m) { m.pipeline->scheduleTable[1][8].stage = 0; },
      [](Manifest &m) { m.pipeline->outputs[0].stage = 0; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Manifest m = i < 7 ? everyField() : trainingPipeline();
    Manifest edited = m;
    edits[i](edited);
    EXPECT_NE(m, edited) << "edit " << i;
  }
}

/// The reader's error for trainingPipeline() edited by `edit`.
std::string errorOf(const std::function<void(Manifest &)> &edit) {
  Manifest m = trainingPipeline();
  edit(m);
  try {
    parseManifest(writeManifestJson(m), "t.json");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Manifest, TrainingScheduleErrors) {
  auto table = [](Manifest &m) -> std::vector<std::vector<Step>> & {
    return m.pipeline->scheduleTable;
  };
  EXPECT_EQ(errorOf([](Manifest &) {}), "");
  EXPECT_EQ(errorOf([&](Manifest &m) {
              std::swap(table(m)[0][4], table(m)[0][5]);
            }),
            "t.json: pipeline.schedule_table[0][5] receives transfer 1 of "
            "microbatch 0 after the backward pass of stage 0 computed it");
  EXPECT_EQ(errorOf([&](Manifest &m) {
              std::swap(table(m)[1][3], table(m)[1][4]);
            }),
            "t.json: pipeline.schedule_table[1][3] sends transfer 1 of "
            "microbatch 0 before the backward pass of stage 1 computed it");
  EXPECT_EQ(errorOf([&](Manifest &m) {
              table(m)[1][3] = {Step::Op::Backward, 1, 1};
            }),
            "t.json: pipeline.schedule_table[1][3] computes the backward "
            "pass of stage 1 on microbatch 1 before its forward pass");
  EXPECT_EQ(errorOf([&](Manifest &m) { table(m)[1][6].microbatch = 0; }),
            "t.json: pipeline.schedule_table[1][6] computes the backward "
            "pass of stage 1 on microbatch 0 a second time (step 3 did)");
  EXPECT_NE(errorOf([&](Manifest &m) { table(m)[0].resize(7); })
                .find("field 'pipeline.schedule_table[0]' never computes the "
                      "backward pass of stage 0 on microbatch 1"),
            std::string::npos);
  EXPECT_EQ(errorOf([&](Manifest &m) {
              std::swap(table(m)[0][7], table(m)[0][8]);
            }),
            "t.json: pipeline.schedule_table[0][7] runs the optimizer of "
            "stage 0 before the backward pass of microbatch 1");
  EXPECT_EQ(errorOf([&](Manifest &m) {
              table(m)[1].push_back({Step::Op::Optimizer, -1, 1});
            }),
            "t.json: pipeline.schedule_table[1][9] runs the optimizer of "
            "stage 1 a second time (step 8 did)");
  // (The writer leaves an optimizer step's microbatch out.)
  std::string text = writeManifestJson(trainingPipeline());
  const std::string op = "\"op\": \"optimizer\",";
  text.replace(text.find(op), op.size(), op + " \"microbatch\": 0,");
  try {
    parseManifest(text, "t.json");
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "t.json: pipeline.schedule_table[0][8] has a 'microbatch' "
                 "but is an optimizer step (it applies every microbatch's "
                 "gradients)");
  }
  // Gradients go back, values forward.
  EXPECT_EQ(errorOf([&](Manifest &m) {
              std::swap(m.pipeline->transfers[1].fromStage,
                        m.pipeline->transfers[1].toStage);
            }),
            "t.json: pipeline.transfers[1] goes from stage 0 to stage 1 "
            "(stages of the 2, a gradient to an earlier one)");
  // Without backward passes no gradient moves and no optimizer runs.
  EXPECT_EQ(errorOf([&](Manifest &m) {
              for (std::vector<Step> &steps : table(m))
                for (Step &step : steps)
                  if (step.op == Step::Op::Backward)
                    step.op = Step::Op::Forward;
            }),
            "t.json: pipeline.transfers[1] moves a gradient, but no "
            "schedule step is a backward pass");
  EXPECT_EQ(errorOf([&](Manifest &m) {
              m.pipeline->transfers.pop_back();
              for (std::vector<Step> &steps : table(m)) {
                std::vector<Step> kept;
                for (Step &step : steps)
                  if (step.op == Step::Op::Forward ||
                      step.op == Step::Op::Optimizer ||
                      (step.isTransfer() && step.transfers[0] == 0))
                    kept.push_back(step);
                steps = kept;
              }
            }),
            "t.json: pipeline.schedule_table[0][4] is an optimizer step, but "
            "no schedule step is a backward pass");
  // Sends and receives keep to one kind.
  EXPECT_NE(errorOf([&](Manifest &m) { table(m)[0][1].transfers = {0, 1}; })
                .find("names transfer 1 (gradient, stage 1 -> 0), not one "
                      "sent by stage 0"),
            std::string::npos);
}

/// A data-parallel training step: the parameter w replicated, its AdamW
/// state split over `data`.
Manifest trainingStep() {
  Manifest m = everyField();
  m.mesh = telar_sharding::Mesh{{"data"}, {2}};
  m.worldSize = 2;
  m.inputs = {{"x", DType::Float32, {8, 16}, split({{0}, {}})},
              {"@lr", DType::Float32, {}},
              {"@step", DType::Float32, {}}};
  m.outputs = {{"loss", DType::Float32, {}},
               {"w@new", DType::Float32, {16, 8}, {}, "w"},
               {"w@m@new", DType::Float32, {16, 8}, split({{0}, {}}), "w_m"}};
  WeightSpec w;
  w.name = "w";
  w.shape = {16, 8};
  w.globalShape = {16, 8};
  w.file = "weights/weights.safetensors";
  WeightSpec state = w;
  state.name = "w_m";
  state.shape = {8, 8};
  state.sharding = split({{0}, {}});
  state.file = "weights/shard-{rank}.safetensors";
  m.weights = {w, state};
  m.programs[0].weightFiles = {"weights/weights.safetensors",
                               "weights/shard-{rank}.safetensors"};
  TrainingSpec t;
  t.loss = "loss";
  t.optimizer = "adamw";
  t.hyperparameters = {{"lr", 0.001}, {"beta2", 0.999}};
  t.parameters = {{"w", "w@new"}};
  t.exportModel = "model.onnx";
  m.training = t;
  return m;
}

TEST(Manifest, TrainingStep) {
  Manifest written = trainingStep();
  std::string text = writeManifestJson(written);
  Manifest read = parseManifest(text, "m.json");
  EXPECT_EQ(read, written) << text;
  EXPECT_EQ(writeManifestJson(read), text);
  EXPECT_DOUBLE_EQ(read.training->get("lr", 0), 0.001);
  EXPECT_DOUBLE_EQ(read.training->get("momentum", -1), -1);
  for (const char *field : {"\"updates\": \"w_m\"", "\"optimizer\": \"adamw\"",
                            "\"output\": \"w@new\"", "\"lr\": 0.001",
                            "\"export_model\": \"model.onnx\""})
    EXPECT_NE(text.find(field), std::string::npos) << field << "\n" << text;

  auto errorOf = [](const std::function<void(Manifest &)> &edit) {
    Manifest m = trainingStep();
    edit(m);
    try {
      parseManifest(writeManifestJson(m), "t.json");
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto contains = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(contains(errorOf([](Manifest &m) { m.outputs[1].updates = "v"; }),
                       "outputs[1].updates' ('v') names no weight"));
  EXPECT_TRUE(contains(
      errorOf([](Manifest &m) { m.outputs[2].sharding = {}; }),
      "the weight is float32[8,8] on each rank, the output float32[16,8]"));
  EXPECT_TRUE(contains(errorOf([](Manifest &m) {
                         m.outputs.push_back(m.outputs[1]);
                         m.outputs.back().name = "w@again";
                       }),
                       "is updated by two outputs"));
  EXPECT_TRUE(contains(errorOf([](Manifest &m) { m.training.reset(); }),
                       "needs a training artifact"));
  EXPECT_TRUE(contains(errorOf([](Manifest &m) { m.training->loss = "w@new"; }),
                       "must name a scalar output"));
  EXPECT_TRUE(contains(
      errorOf([](Manifest &m) { m.training->parameters[0].output = "loss"; }),
      "must name an output that updates a weight"));
  EXPECT_TRUE(contains(
      errorOf([](Manifest &m) { m.training->exportModel = "../x.onnx"; }),
      "must be a relative path inside the artifact"));
}

TEST(Manifest, DTypesAndShapes) {
  for (DType d : {DType::Float32, DType::Float64, DType::Float16,
                  DType::BFloat16, DType::Int8, DType::Int16, DType::Int32,
                  DType::Int64, DType::UInt8, DType::UInt16, DType::UInt32,
                  DType::UInt64, DType::Bool})
    EXPECT_EQ(parseDType(dtypeName(d)), d);
  EXPECT_FALSE(parseDType("float7"));
  EXPECT_EQ(dtypeSize(DType::BFloat16), 2u);
  EXPECT_EQ(formatType(DType::Bool, {}), "bool[]");
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(expandRankPath("w/{rank}-{rank}.st", 12), "w/12-12.st");
}

} // namespace
