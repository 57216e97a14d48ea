//===- CodegenTest.cpp - Unit tests of the target registry and writer -----===//
//
// The target registry and the CPU target behind it, and the artifact
// writer's lists of programs and weight files, read back by the runtime's
// manifest reader.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/codegen/ArtifactWriter.h"
#include "telar/codegen/Pipeline.h"
#include "telar/codegen/TargetBackend.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/runtime/Runtime.h"
#include "telar/targets/cpu/CpuPipeline.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

namespace {

namespace mt = mlir::telar;

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

std::string pipelineText(mlir::OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

TEST(TargetBackendTest, CpuTargetIsRegistered) {
  mt::registerAllTargetBackends();
  llvm::SmallVector<std::string> names = mt::getRegisteredTargetBackendNames();
  EXPECT_NE(llvm::find(names, "cpu"), names.end());
  EXPECT_EQ(mt::lookupTargetBackend("tpu"), nullptr);

  const mt::TargetBackendInfo *info = mt::lookupTargetBackend("cpu");
  ASSERT_NE(info, nullptr);
  std::unique_ptr<mt::TargetBackend> cpu = info->create();
  EXPECT_EQ(cpu->getName(), "cpu");
  mlir::MLIRContext ctx;
  EXPECT_TRUE(cpu->supportsElementType(mlir::Float32Type::get(&ctx)));
  EXPECT_TRUE(cpu->supportsElementType(
      mlir::IntegerType::get(&ctx, 8, mlir::IntegerType::Unsigned)));
  EXPECT_FALSE(cpu->supportsElementType(mlir::Float8E4M3FNType::get(&ctx)));
  EXPECT_FALSE(cpu->supportsElementType(mlir::IntegerType::get(&ctx, 4)));
  llvm::SmallVector<std::string> libraries = cpu->getRuntimeLibraries();
  EXPECT_NE(llvm::find(libraries, "telar_runtime"), libraries.end());
  EXPECT_NE(llvm::find(libraries, "telar_runtime_cpu"), libraries.end());
  EXPECT_NE(llvm::find(libraries, "omp"), libraries.end());
}

// With its default flags, the CPU target's whole pipeline is the named
// telar-lower-to-llvm that telar-opt runs.
TEST(TargetBackendTest, CpuPipelineIsTelarLowerToLLVM) {
  mt::registerAllTargetBackends();
  std::unique_ptr<mt::TargetBackend> cpu =
      mt::lookupTargetBackend("cpu")->create();
  mlir::MLIRContext ctx;
  mlir::PassManager target(&ctx), named(&ctx);
  mt::buildTargetPipeline(target, *cpu);
  mt::buildCpuLoweringPipeline(named, mt::CpuPipelineOptions());
  EXPECT_EQ(pipelineText(target), pipelineText(named));
  EXPECT_NE(pipelineText(named).find(
                "telar-fold-weight-transposes,telar-fold-constants{"
                "inline-elements=4096 max-bytes=16777216},"
                "telar-outline-weights,telar-lower-to-linalg"),
            std::string::npos)
      << pipelineText(named);
}

// Two programs (one per rank), each reading its own weight file; the same
// weight name in both files (its two shards).
TEST(ArtifactWriterTest, WritesProgramsAndWeightFiles) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("telar-writer", dir));
  mlir::MLIRContext ctx;
  ctx.loadDialect<mt::TelarDialect>();
  auto f32 = mlir::RankedTensorType::get({2, 3}, mlir::Float32Type::get(&ctx));
  auto i64 = mlir::RankedTensorType::get({4}, mlir::IntegerType::get(&ctx, 64));
  std::vector<char> shard0(24, 1), bias(32, 2), shard1(24, 3);

  mt::ArtifactWriter writer(dir);
  std::string error;
  ASSERT_TRUE(mlir::succeeded(writer.createDirectories(error))) << error;
  ASSERT_TRUE(mlir::succeeded(writer.writeWeightFile(
      "weights/rank0.safetensors",
      {{"w", f32, shard0}, {"bias", i64, bias}}, error)))
      << error;
  ASSERT_TRUE(mlir::succeeded(writer.writeWeightFile(
      "weights/rank1.safetensors", {{"w", f32, shard1}}, error)))
      << error;
  writer.addProgram({"rank0", "programs/rank0.so", "telar_entry",
                     {"weights/rank0.safetensors"}});
  writer.addProgram({"rank1", "programs/rank1.so", "telar_entry",
                     {"weights/rank1.safetensors"}});
  writer.setTarget(mt::TargetAttr::get(&ctx, "cpu", "x86_64-pc-linux-gnu",
                                      "x86-64-v3", "+avx2"));
  writer.setInputs({mt::describeTensor("x", f32)});
  writer.setOutputs({mt::describeTensor("y", i64)});
  writer.setLargestLiveSetBytes(96);
  ASSERT_TRUE(mlir::succeeded(writer.writeManifest(error))) << error;
  EXPECT_EQ(writer.getWeightFiles().size(), 2u);

  // The runtime's reader accepts it and sees both programs and all three
  // weights with their files.
  std::string text = readFile(writer.getPath("manifest.json"));
  ::telar_artifact::Manifest m =
      ::telar_artifact::parseManifest(text, "manifest.json");
  ASSERT_EQ(m.programs.size(), 2u);
  EXPECT_EQ(m.programs[1].name, "rank1");
  EXPECT_EQ(m.programs[1].library, "programs/rank1.so");
  ASSERT_EQ(m.weights.size(), 3u);
  EXPECT_EQ(m.weights[0].name, "w");
  EXPECT_EQ(m.weights[0].file, "weights/rank0.safetensors");
  EXPECT_EQ(m.weights[1].name, "bias");
  EXPECT_EQ(m.weights[1].dtype, ::telar::runtime::DType::Int64);
  EXPECT_EQ(m.weights[2].file, "weights/rank1.safetensors");
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m.largestLiveSetBytes, 96);
  EXPECT_EQ(m.targetChip, "x86-64-v3");

  // Each program names the weight files it reads.
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  ASSERT_TRUE(bool(json));
  const llvm::json::Array *programs =
      json->getAsObject()->getArray("programs");
  ASSERT_NE(programs, nullptr);
  const llvm::json::Array *files =
      (*programs)[1].getAsObject()->getArray("weight_files");
  ASSERT_NE(files, nullptr);
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].getAsString(), "weights/rank1.safetensors");

  // Safetensors: 8-byte header size, a header padded to 64 bytes, data at
  // 64-byte aligned offsets (bias after w's 24 bytes, at 64).
  std::string rank0 = readFile(writer.getPath("weights/rank0.safetensors"));
  uint64_t headerSize = 0;
  for (int i = 0; i < 8; ++i)
    headerSize |= uint64_t(static_cast<unsigned char>(rank0[i])) << (8 * i);
  EXPECT_EQ((8 + headerSize) % 64, 0u);
  EXPECT_EQ(rank0.size(), 8 + headerSize + 64 + 32);
  llvm::Expected<llvm::json::Value> header =
      llvm::json::parse(rank0.substr(8, headerSize));
  ASSERT_TRUE(bool(header));
  const llvm::json::Array *offsets =
      header->getAsObject()->getObject("bias")->getArray("data_offsets");
  ASSERT_NE(offsets, nullptr);
  EXPECT_EQ((*offsets)[0].getAsInteger(), 64);
  EXPECT_EQ((*offsets)[1].getAsInteger(), 96);
  EXPECT_EQ(rank0[8 + headerSize + 64], 2);

  llvm::sys::fs::remove_directories(dir);
}

} // namespace
