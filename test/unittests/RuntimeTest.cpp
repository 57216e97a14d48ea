//===- RuntimeTest.cpp - The runtime's file formats and allocator ---------===//
//
// .npy and TensorProto round trips and errors, safetensors parsing and its
// corruption errors, manifest checks, and the tracked allocator.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Runtime.h"
#include "telar/runtime/Abi.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/Safetensors.h"
#include "telar/runtime/TensorProto.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sched.h>

using namespace telar::runtime;
namespace artifact = telar_artifact;

namespace {

/// Runs `f` and returns the message of the Error it throws ("" if none).
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

Tensor iota(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  auto *bytes = t.data<uint8_t>();
  for (size_t i = 0; i < t.getByteSize(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  if (dtype == DType::Bool)
    for (size_t i = 0; i < t.getByteSize(); ++i)
      bytes[i] = i % 3 == 0;
  return t;
}

const DType kAllDTypes[] = {DType::Float32,  DType::Float64, DType::Float16,
                            DType::BFloat16, DType::Int8,    DType::Int16,
                            DType::Int32,    DType::Int64,   DType::UInt8,
                            DType::UInt16,   DType::UInt32,  DType::UInt64,
                            DType::Bool};

//===----------------------------------------------------------------------===//
// DType / Tensor
//===----------------------------------------------------------------------===//

TEST(RuntimeTensor, DTypeNames) {
  for (DType d : kAllDTypes)
    EXPECT_EQ(parseDType(dtypeName(d)), d);
  EXPECT_FALSE(parseDType("float"));
  EXPECT_EQ(formatType(DType::Int64, {2, 16}), "int64[2,16]");
  EXPECT_EQ(formatType(DType::Bool, {}), "bool[]");
}

TEST(RuntimeTensor, AlignedAndNeverNull) {
  Tensor empty(DType::Float32, {0, 3});
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_EQ(empty.getByteSize(), 0u);
  Tensor t(DType::Float64, {3, 5});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.getByteSize(), 120u);
  EXPECT_ERROR(Tensor(DType::Float32, {1 << 30, 1 << 30, 1 << 30}),
               "too large");
}

TEST(RuntimeTensor, NarrowFloats) {
  uint16_t half[] = {0x3c00, 0xc000, 0x0001, 0x7bff};
  EXPECT_EQ(elementAsDouble(DType::Float16, half, 0), 1.0);
  EXPECT_EQ(elementAsDouble(DType::Float16, half, 1), -2.0);
  EXPECT_EQ(elementAsDouble(DType::Float16, half, 2), std::ldexp(1.0, -24));
  EXPECT_EQ(elementAsDouble(DType::Float16, half, 3), 65504.0);
  uint16_t bf[] = {0x3fc0};
  EXPECT_EQ(elementAsDouble(DType::BFloat16, bf, 0), 1.5);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST(RuntimeNpy, RoundTripEveryDType) {
  for (DType d : kAllDTypes)
    for (const Shape &shape : {Shape{2, 3}, Shape{5}, Shape{}, Shape{0, 4}}) {
      Tensor t = iota(d, shape);
      std::string bytes = serializeNpy(d, shape, t.data());
      // The data starts 64-byte aligned, after a '\n'-terminated header.
      size_t dataStart = bytes.size() - t.getByteSize();
      EXPECT_EQ(dataStart % 64, 0u);
      EXPECT_EQ(bytes[dataStart - 1], '\n');
      Tensor back = parseNpy(bytes.data(), bytes.size(), "x.npy");
      EXPECT_EQ(back.getDType(), d) << dtypeName(d);
      EXPECT_EQ(back.getShape(), shape);
      EXPECT_EQ(std::memcmp(back.data(), t.data(), t.getByteSize()), 0);
    }
}

TEST(RuntimeNpy, HeaderText) {
  Tensor t = iota(DType::Int64, {3});
  std::string bytes = serializeNpy(DType::Int64, {3}, t.data());
  EXPECT_NE(bytes.find("{'descr': '<i8', 'fortran_order': False, "
                       "'shape': (3,), }"),
            std::string::npos);
  bytes = serializeNpy(DType::Bool, {}, t.data());
  EXPECT_NE(bytes.find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': ()"), std::string::npos);
}

std::string npyImage(const std::string &dict, const std::string &data,
                     int version = 1) {
  std::string header = dict;
  size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(RuntimeNpy, ReadsOtherWriters) {
  // Version 2, big-endian, double quotes, no trailing comma.
  std::string be("\x3f\x80\x00\x00\x40\x00\x00\x00", 8);
  std::string img = npyImage(
      R"({"descr": ">f4", "fortran_order": False, "shape": (2,)})", be, 2);
  Tensor t = parseNpy(img.data(), img.size(), "be.npy");
  ASSERT_EQ(t.getShape(), (Shape{2}));
  EXPECT_EQ(t.data<float>()[0], 1.0f);
  EXPECT_EQ(t.data<float>()[1], 2.0f);

  // Fortran order: [[1, 2, 3], [4, 5, 6]] stored column by column.
  int32_t f[] = {1, 4, 2, 5, 3, 6};
  img = npyImage("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                 std::string(reinterpret_cast<char *>(f), sizeof(f)));
  t = parseNpy(img.data(), img.size(), "f.npy");
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(t.data<int32_t>()[i], i + 1);

  // Bools other than 0/1 are normalised.
  img = npyImage("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                 std::string("\x00\x07", 2));
  t = parseNpy(img.data(), img.size(), "b.npy");
  EXPECT_EQ(t.data<uint8_t>()[1], 1);
}

TEST(RuntimeNpy, Errors) {
  auto parse = [](const std::string &s) {
    return parseNpy(s.data(), s.size(), "in.npy");
  };
  EXPECT_ERROR(parse("PK\x03\x04 zip"), "in.npy: not a .npy file (bad magic)");
  EXPECT_ERROR(parse(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)),
               "in.npy: truncated .npy header");
  EXPECT_ERROR(parse(std::string("\x93NUMPY\x04\x00", 8)),
               "unsupported .npy format version 4.0");
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_ERROR(parse(npyImage(dict, std::string(20, '\0'))),
               "truncated .npy data (float32[2,3] needs 24 bytes, found 20)");
  EXPECT_ERROR(parse(npyImage(dict, std::string(28, '\0'))),
               "trailing bytes after the .npy data");
  EXPECT_ERROR(parse(npyImage("{'descr': '<c8', 'fortran_order': False, "
                              "'shape': (1,), }",
                              std::string(8, '\0'))),
               "unsupported .npy dtype '<c8'");
  EXPECT_ERROR(parse(npyImage("{'descr': [('a', '<f4')], 'fortran_order': "
                              "False, 'shape': (1,), }",
                              "")),
               "structured (record) arrays are not supported");
  EXPECT_ERROR(parse(npyImage("{'descr': '<f4', 'shape': (1,), }", "abcd")),
               ".npy header has no 'fortran_order'");
  EXPECT_ERROR(parse(npyImage("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (1, x), }",
                              "abcd")),
               "malformed .npy header");
  EXPECT_ERROR(readNpy("/nonexistent/x.npy"),
               "cannot read '/nonexistent/x.npy': No such file or directory");
}

//===----------------------------------------------------------------------===//
// safetensors
//===----------------------------------------------------------------------===//

std::string safetensorsImage(const std::string &header, size_t dataSize) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + std::string(dataSize, '\0');
}

TEST(RuntimeSafetensors, WriteAndParse) {
  Tensor a = iota(DType::Float32, {2, 3});
  Tensor b = iota(DType::Int64, {5});
  Tensor c = iota(DType::Bool, {});
  std::string img = writeSafetensors({{"a", &a}, {"b.weight", &b}, {"c", &c}});
  auto file = SafetensorsFile::parse(img.data(), img.size(), "w.safetensors");
  ASSERT_EQ(file->getTensors().size(), 3u);
  for (auto [name, t] : {std::pair<const char *, Tensor *>{"a", &a},
                         {"b.weight", &b},
                         {"c", &c}}) {
    const SafetensorsTensor *s = file->find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->dtype, t->getDType());
    EXPECT_EQ(s->dtypeCode, safetensorsDTypeCode(t->getDType()));
    EXPECT_EQ(s->shape, t->getShape());
    // Every tensor's data is 64-byte aligned within the image.
    EXPECT_EQ((static_cast<const char *>(s->data) - img.data()) % 64, 0);
    EXPECT_EQ(std::memcmp(s->data, t->data(), t->getByteSize()), 0);
  }
  EXPECT_EQ(file->find("d"), nullptr);
}

TEST(RuntimeSafetensors, ForeignDTypesAndMetadata) {
  std::string img = safetensorsImage(
      R"({"__metadata__": {"format": "pt"},)"
      R"( "f8": {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]}})",
      4);
  auto file = SafetensorsFile::parse(img.data(), img.size(), "m.safetensors");
  EXPECT_EQ(file->getMetadata().at("format"), "pt");
  const SafetensorsTensor *t = file->find("f8");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->dtype.has_value());
  EXPECT_EQ(t->dtypeCode, "F8_E4M3");
}

TEST(RuntimeSafetensors, Errors) {
  auto parse = [](const std::string &s) {
    return SafetensorsFile::parse(s.data(), s.size(), "w.safetensors");
  };
  const std::string prefix = "corrupt safetensors file 'w.safetensors': ";
  EXPECT_ERROR(parse("abc"), prefix + "file is 3 bytes, too short");
  std::string huge(8, '\xff');
  EXPECT_ERROR(parse(huge + "{}"), prefix + "header length");
  EXPECT_ERROR(parse(safetensorsImage("{\"a\": ", 0)),
               prefix + "header is not valid JSON");
  EXPECT_ERROR(parse(safetensorsImage("[1]", 0)),
               prefix + "header is not a JSON object");
  EXPECT_ERROR(parse(safetensorsImage(
                   R"({"a": {"shape": [1], "data_offsets": [0, 4]}})", 4)),
               prefix + "tensor 'a': missing 'dtype'");
  EXPECT_ERROR(
      parse(safetensorsImage(R"({"a": {"dtype": "F32", "shape": [-1], )"
                             R"("data_offsets": [0, 4]}})",
                             4)),
      "'shape' holds -1, not a non-negative integer");
  EXPECT_ERROR(parse(safetensorsImage(R"({"a": {"dtype": "F32", "shape": [2], )"
                                      R"("data_offsets": [0, 8]}})",
                                      4)),
               prefix + "tensor 'a': data_offsets [0, 8] lie outside the "
                        "4-byte data section");
  EXPECT_ERROR(
      parse(safetensorsImage(R"({"a": {"dtype": "F32", "shape": [2, 2], )"
                             R"("data_offsets": [0, 8]}})",
                             16)),
      prefix + "tensor 'a': holds 8 bytes but F32[2,2] needs 16");
  EXPECT_ERROR(parse(safetensorsImage(R"({"a": {"dtype": "F32", "shape": [2], )"
                                      R"("data_offsets": [0, 8]}, )"
                                      R"("b": {"dtype": "F32", "shape": [2], )"
                                      R"("data_offsets": [4, 12]}})",
                                      12)),
               prefix + "tensor data ranges overlap");
  EXPECT_ERROR(SafetensorsFile::open("/nonexistent/w.safetensors"),
               "cannot open weights file '/nonexistent/w.safetensors'");
}

//===----------------------------------------------------------------------===//
// manifest.json
//===----------------------------------------------------------------------===//

const char *kManifest = R"({
  "format": "telar-artifact", "format_version": 2, "telar_version": "0.1.0",
  "model": {"path": "m.onnx", "sha256": "ab"},
  "target": {"kind": "cpu", "triple": "x86_64-unknown-linux-gnu",
             "cpu": "znver3", "features": "+avx2"},
  "programs": [{"name": "main", "library": "programs/main.so",
                "entry": "telar_entry",
                "weight_files": ["weights/weights.safetensors"]}],
  "inputs": [{"name": "ids", "dtype": "int64", "shape": [2, 16]}],
  "outputs": [{"name": "logits", "dtype": "float32", "shape": [2, 16, 100]},
              {"name": "s", "dtype": "bool", "shape": []}],
  "weights": [{"name": "tok.weight", "dtype": "float32", "shape": [100, 64],
               "file": "weights/weights.safetensors"}]
})";

std::string edit(std::string text, const std::string &from,
                 const std::string &to) {
  size_t p = text.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return text.replace(p, from.size(), to);
}

TEST(RuntimeManifest, Parse) {
  Manifest m = artifact::parseManifest(kManifest, "manifest.json");
  EXPECT_EQ(m.formatVersion, 2);
  EXPECT_EQ(m.targetChip, "znver3");
  ASSERT_EQ(m.programs.size(), 1u);
  EXPECT_EQ(m.programs[0].entry, "telar_entry");
  EXPECT_EQ(m.programs[0].weightFiles,
            std::vector<std::string>{"weights/weights.safetensors"});
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].typeString(), "int64[2,16]");
  ASSERT_EQ(m.outputs.size(), 2u);
  EXPECT_EQ(m.outputs[1].typeString(), "bool[]");
  ASSERT_EQ(m.weights.size(), 1u);
  EXPECT_EQ(m.weights[0].file, "weights/weights.safetensors");
  EXPECT_EQ(m.weights[0].byteSize(), 100u * 64 * 4);
}

TEST(RuntimeManifest, Errors) {
  auto parse = [](const std::string &text) {
    return artifact::parseManifest(text, "a/manifest.json");
  };
  EXPECT_ERROR(parse("{"), "a/manifest.json: invalid JSON");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"format_version\": 2", "\"format_version\": 7")),
      "a/manifest.json: artifact format version 7 is not supported "
      "(this runtime reads format versions 2 to 4)");
  EXPECT_ERROR(parse(edit(kManifest, "\"format_version\": 2,", "")),
               "a/manifest.json: missing field 'format_version'");
  EXPECT_ERROR(parse(edit(kManifest, "\"dtype\": \"int64\", ", "")),
               "a/manifest.json: missing field 'inputs[0].dtype'");
  EXPECT_ERROR(parse(edit(kManifest, "[2, 16]", "[2, -1]")),
               "a/manifest.json: inputs[0] has a bad dimension -1");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"name\": \"s\"", "\"name\": \"logits\"")),
      "a/manifest.json: outputs[1] repeats the name 'logits'");
  EXPECT_ERROR(parse(edit(kManifest, "\"file\": \"weights/weights.safetensors\"",
                          "\"file\": \"/etc/passwd\"")),
               "a/manifest.json: weights[0] field 'file' ('/etc/passwd') must "
               "be a relative path inside the artifact");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"entry\": \"telar_entry\"", "\"entry\": 3")),
      "field 'programs[0].entry' must be a string, got 3");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"weight_files\": [\"weights/weights.safetensors\"]",
                 "\"weight_files\": [\"weights/weights.safetensors\", "
                 "\"weights/weights.safetensors\"]")),
      "a/manifest.json: programs[0] field 'programs[0].weight_files[1]' "
      "repeats the weight file 'weights/weights.safetensors'");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"weight_files\": [\"weights/weights.safetensors\"]",
                 "\"weight_files\": [7]")),
      "field 'programs[0].weight_files[0]' must be a string, got 7");
  EXPECT_ERROR(
      parse(edit(kManifest, "\"weight_files\": [\"weights/weights.safetensors\"]",
                 "\"weight_files\": \"w\"")),
      "field 'programs[0].weight_files' must be an array");
}

/// A manifest with everything in it, as the schema's structs.
artifact::Manifest fullManifest() {
  artifact::Manifest m;
  m.telarVersion = "1.2.3";
  m.modelPath = "dir/\"odd\"\\name\n\x01.onnx"; // escapes survive
  m.modelSha256 = "00ff";
  m.targetKind = "cpu";
  m.targetTriple = "x86_64-unknown-linux-gnu";
  m.targetChip = "znver5";
  m.targetFeatures = "+avx2,+avx512f";
  m.inputs = {{"input_ids", DType::Int64, {2, 16}},
              {"t\u00e9", DType::Bool, {}}};
  m.outputs = {{"logits", DType::Float32, {2, 16, 100}}};
  for (auto [name, file] :
       {std::pair{"w", "weights/rank0.safetensors"},
        std::pair{"w", "weights/rank1.safetensors"},
        std::pair{"shared", "weights/shared.safetensors"}}) {
    artifact::WeightSpec w;
    w.name = name;
    w.dtype = DType::BFloat16;
    w.shape = {4, 0};
    w.globalShape = {4, 0};
    w.file = file;
    m.weights.push_back(w);
  }
  m.programs = {{"rank0", "programs/rank0.so", "telar_entry",
                 {"weights/rank0.safetensors", "weights/shared.safetensors"}},
                {"rank1", "programs/rank1.so", "rank1_entry",
                 {"weights/rank1.safetensors", "weights/shared.safetensors"}},
                {"tokenizer", "programs/tok.so", "telar_entry", {}}};
  m.largestLiveSetBytes = 4456448;
  return m;
}

// The writer (what telarc writes through) and the reader the runtime loads
// with agree on every field (test/unittests/ManifestTest.cpp has the rest).
TEST(RuntimeManifest, RoundTrip) {
  artifact::Manifest w = fullManifest();
  Manifest m = artifact::parseManifest(artifact::writeManifestJson(w), "rt.json");
  EXPECT_EQ(m, w);
  EXPECT_EQ(m.weights[2].typeString(), "bfloat16[4,0]");

  // Each program takes its own weights, in manifest order.
  std::vector<const WeightSpec *> rank1 = m.weightsOf(m.programs[1]);
  ASSERT_EQ(rank1.size(), 2u);
  EXPECT_EQ(rank1[0], &m.weights[1]);
  EXPECT_EQ(rank1[1], &m.weights[2]);
  EXPECT_TRUE(m.weightsOf(m.programs[2]).empty());

  // Without the optional memory section.
  w.largestLiveSetBytes = -1;
  EXPECT_EQ(artifact::parseManifest(artifact::writeManifestJson(w), "rt.json")
                .largestLiveSetBytes,
            -1);
  // Another version is refused with the reader's message.
  w.formatVersion = artifact::kArtifactFormatVersion + 1;
  EXPECT_ERROR(
      artifact::parseManifest(artifact::writeManifestJson(w), "rt.json"),
      "rt.json: artifact format version " +
          std::to_string(artifact::kArtifactFormatVersion + 1) +
          " is not supported");
}

TEST(RuntimeManifest, SelectProgram) {
  Manifest m = artifact::parseManifest(
      artifact::writeManifestJson(fullManifest()), "a.json");
  EXPECT_EQ(&m.selectProgram("rank1", "a.json"), &m.programs[1]);
  EXPECT_ERROR(m.selectProgram("", "a.json"),
               "a.json: none of the 3 programs is called 'main'; choose one "
               "of 'rank0', 'rank1', 'tokenizer'");
  EXPECT_ERROR(m.selectProgram("rank2", "a.json"),
               "a.json: no program 'rank2' (the programs are 'rank0', "
               "'rank1', 'tokenizer')");
  m.programs.resize(1);
  EXPECT_EQ(&m.selectProgram("", "a.json"), &m.programs[0]);
  m.programs.push_back(m.programs[0]);
  m.programs[1].name = "main";
  EXPECT_EQ(&m.selectProgram("", "a.json"), &m.programs[1]);
}

/// An artifact around test/runtime's fake program (fake_program.c): inputs
/// x float32[2,3], flags int64[3]; weights w float32[2,3], m float32[3,4];
/// outputs sum, out/prod:0 = (x + w) . m (a GEMM with the weight m as b),
/// positive, total. Its two temporaries peak at 56 bytes.
std::string writeFakeArtifact(const std::string &name) {
  std::string dir = ::testing::TempDir() + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/programs");
  std::filesystem::create_directories(dir + "/weights");
  std::filesystem::copy_file(TELAR_FAKE_PROGRAM, dir + "/programs/main.so");
  Tensor w = iota(DType::Float32, {2, 3}), m = iota(DType::Float32, {3, 4});
  std::ofstream(dir + "/weights/w.safetensors", std::ios::binary)
      << writeSafetensors({{"w", &w}, {"m", &m}});
  artifact::Manifest manifest;
  manifest.targetKind = "cpu";
  manifest.programs = {{"main", "programs/main.so", "telar_entry",
                        {"weights/w.safetensors"}},
                       {"bad", "programs/main.so", "telar_entry_bad_matmul",
                        {"weights/w.safetensors"}}};
  manifest.inputs = {{"x", DType::Float32, {2, 3}},
                     {"flags", DType::Int64, {3}}};
  manifest.outputs = {{"sum", DType::Float32, {2, 3}},
                      {"out/prod:0", DType::Float32, {2, 4}},
                      {"positive", DType::Bool, {2, 3}},
                      {"total", DType::Int64, {}}};
  for (const char *weight : {"w", "m"}) {
    artifact::WeightSpec e;
    e.name = weight;
    e.dtype = DType::Float32;
    e.shape = std::string(weight) == "w" ? Shape{2, 3} : Shape{3, 4};
    e.file = "weights/w.safetensors";
    manifest.weights.push_back(e);
  }
  std::ofstream(dir + "/manifest.json") << artifact::writeManifestJson(manifest);
  return dir;
}

// Weights made writable are the device's private copies (the CPU's): the
// runs that follow read the updated values, the weight file keeps its own.
TEST(RuntimeArtifact, WeightsMadeWritableAreUpdatedInPlace) {
  std::string dir = writeFakeArtifact("writable");
  std::unique_ptr<Artifact> artifact = Artifact::load(dir);
  EXPECT_FALSE(artifact->getDeviceWeights().isWritable());
  const void *mapped = artifact->getDeviceWeights().getData(0);
  artifact->makeWeightsWritable();
  const DeviceWeights &weights = artifact->getDeviceWeights();
  ASSERT_TRUE(weights.isWritable());
  ASSERT_EQ(weights.size(), 2u);
  EXPECT_NE(weights.getData(0), mapped);
  auto *w = static_cast<float *>(weights.getData(0)); // w: 2x3
  float before = w[4];
  w[4] += 100.0f;
  std::vector<Tensor> inputs;
  inputs.push_back(iota(DType::Float32, {2, 3}));
  inputs.emplace_back(DType::Int64, Shape{3});
  std::vector<Tensor> outputs = artifact->allocateOutputs();
  artifact->run(inputs, outputs);
  // sum = x + w
  EXPECT_EQ(outputs[0].data<float>()[4],
            inputs[0].data<float>()[4] + before + 100.0f);
  EXPECT_EQ(static_cast<const float *>(mapped)[4], before);
  // The packed copies are not made for writable weights.
  EXPECT_EQ(artifact->getPrepackedBytes(), 0u);
}

// Two artifacts (even of one directory) and two contexts share nothing:
// each artifact packs its own weights, each context counts its own
// allocations; a failed run frees what it left allocated and reports its
// status and message.
TEST(RuntimeArtifact, ContextsAndArtifactsAreIsolated) {
  std::string dir = writeFakeArtifact("isolated");
  std::unique_ptr<Artifact> one = Artifact::load(dir);
  std::unique_ptr<Artifact> two = Artifact::load(dir);
  std::vector<Tensor> inputs;
  inputs.push_back(iota(DType::Float32, {2, 3}));
  inputs.emplace_back(DType::Int64, Shape{3});
  for (int64_t i = 0; i < 3; ++i)
    inputs[1].data<int64_t>()[i] = 10 * i + 3;
  std::vector<Tensor> outputs = one->allocateOutputs();
  one->run(inputs, outputs);
  EXPECT_EQ(outputs[3].data<int64_t>()[0], 3 + 13 + 23);
  EXPECT_EQ(one->getContext().getPeakBytes(), 56u);
  EXPECT_EQ(one->getContext().getCurrentBytes(), 0u);
  EXPECT_EQ(two->getContext().getPeakBytes(), 0u);
  // The product's weight b is packed once (the runtime's GEMM, when the
  // CPU runs it) by the artifact that ran, not by the other one.
  bool ownGemm = one->getContext().getGemmKernel() != TELARRT_GEMM_OPENBLAS;
  EXPECT_EQ(one->getPrepackedBytes() > 0, ownGemm);
  EXPECT_EQ(two->getPrepackedBytes(), 0u);

  // Another context, with a limit the second temporary passes.
  Context small;
  small.setMemoryLimit(55);
  try {
    one->run(small, inputs, outputs);
    ADD_FAILURE() << "the run should fail";
  } catch (const RunError &e) {
    EXPECT_EQ(e.getStatus(), TELAR_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find(
                  "failed (status 1, out of memory): out of memory: cannot "
                  "allocate 32 bytes of intermediates (the context's memory "
                  "limit is 55 bytes; 24 bytes allocated)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(small.getCurrentBytes(), 0u); // the 24 bytes were freed
  EXPECT_EQ(small.getPeakBytes(), 24u);
  EXPECT_EQ(one->getContext().getPeakBytes(), 56u);
  // The next run on that context starts without the old error.
  small.setMemoryLimit(SIZE_MAX);
  one->run(small, inputs, outputs);
  EXPECT_EQ(small.getStatus(), TELAR_STATUS_OK);

  // A kernel's status comes back the same way.
  std::unique_ptr<Artifact> bad = Artifact::load(dir, "bad");
  EXPECT_EQ(bad->getProgram().name, "bad");
  try {
    bad->run(inputs, outputs);
    ADD_FAILURE() << "the run should fail";
  } catch (const RunError &e) {
    EXPECT_EQ(e.getStatus(), TELAR_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find(
                  "telarrt_matmul_f32: shapes 2x2 . 3x4 -> 2x4"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(bad->getContext().getCurrentBytes(), 0u);
}

TEST(RuntimeArtifact, LoadErrors) {
  EXPECT_ERROR(Artifact::load("/nonexistent/artifact"),
               "artifact directory '/nonexistent/artifact' does not exist");
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

TEST(RuntimeTensorProto, RawRoundTrip) {
  for (DType d : kAllDTypes) {
    Tensor t = iota(d, {3, 2});
    std::string bytes = serializeTensorProto("t", d, {3, 2}, t.data());
    std::string name;
    Tensor back = parseTensorProto(bytes, "t.pb", &name);
    EXPECT_EQ(name, "t");
    EXPECT_EQ(back.getDType(), d);
    EXPECT_EQ(back.getShape(), (Shape{3, 2}));
    EXPECT_EQ(std::memcmp(back.data(), t.data(), t.getByteSize()), 0);
  }
}

TEST(RuntimeTensorProto, TypedFields) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT16);
  p.add_dims(2);
  p.add_int32_data(0x3c00);
  p.add_int32_data(0xc000);
  Tensor t = parseTensorProto(p.SerializeAsString(), "h.pb");
  EXPECT_EQ(elementAsDouble(DType::Float16, t.data(), 1), -2.0);

  p.Clear();
  p.set_data_type(onnx::TensorProto::INT8);
  p.add_dims(3);
  for (int v : {-1, 5, -128})
    p.add_int32_data(v);
  t = parseTensorProto(p.SerializeAsString(), "i8.pb");
  EXPECT_EQ(t.data<int8_t>()[0], -1);
  EXPECT_EQ(t.data<int8_t>()[2], -128);

  p.Clear();
  p.set_data_type(onnx::TensorProto::UINT32);
  p.add_uint64_data(4000000000u);
  t = parseTensorProto(p.SerializeAsString(), "u32.pb");
  EXPECT_EQ(t.getShape(), Shape{});
  EXPECT_EQ(t.data<uint32_t>()[0], 4000000000u);

  p.Clear();
  p.set_data_type(onnx::TensorProto::DOUBLE);
  p.add_dims(1);
  p.add_double_data(0.25);
  t = parseTensorProto(p.SerializeAsString(), "f64.pb");
  EXPECT_EQ(t.data<double>()[0], 0.25);

  p.Clear();
  p.set_data_type(onnx::TensorProto::BOOL);
  p.add_dims(2);
  p.add_int32_data(0);
  p.add_int32_data(9);
  t = parseTensorProto(p.SerializeAsString(), "b.pb");
  EXPECT_EQ(t.data<uint8_t>()[1], 1);
}

TEST(RuntimeTensorProto, Errors) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(3);
  p.add_float_data(1);
  EXPECT_ERROR(parseTensorProto(p.SerializeAsString(), "f.pb"),
               "f.pb: float_data holds 1 values but float32[3] needs 3");
  p.clear_float_data();
  p.set_raw_data(std::string(8, '\0'));
  EXPECT_ERROR(parseTensorProto(p.SerializeAsString(), "f.pb"),
               "f.pb: raw_data holds 8 bytes but float32[3] needs 12");
  p.set_data_type(onnx::TensorProto::STRING);
  EXPECT_ERROR(parseTensorProto(p.SerializeAsString(), "s.pb"),
               "s.pb: unsupported tensor data type STRING");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_ERROR(parseTensorProto(p.SerializeAsString(), "e.pb"),
               "e.pb: tensors with external data are not supported");
  EXPECT_ERROR(parseTensorProto("\xff\xff\xff", "g.pb"),
               "g.pb: not a serialized ONNX TensorProto");
}

//===----------------------------------------------------------------------===//
// Allocator
//===----------------------------------------------------------------------===//

TEST(RuntimeAllocator, TracksCurrentAndPeak) {
  Context context;
  TelarContext *ctx = context.get();
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  EXPECT_EQ(context.getPeakBytes(), 0u);
  void *a = telarrt_alloc(ctx, 100);
  void *b = telarrt_aligned_alloc(ctx, 256, 1000);
  void *z = telarrt_alloc(ctx, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(z) % 64, 0u);
  std::memset(a, 1, 100);
  std::memset(b, 2, 1000);
  EXPECT_EQ(context.getCurrentBytes(), 1100u);
  telarrt_free(ctx, a);
  void *c = telarrt_aligned_alloc(ctx, 8, 50);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 64, 0u);
  EXPECT_EQ(context.getCurrentBytes(), 1050u);
  EXPECT_EQ(context.getPeakBytes(), 1100u);
  telarrt_free(ctx, b);
  telarrt_free(ctx, c);
  telarrt_free(ctx, z);
  telarrt_free(ctx, nullptr);
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  EXPECT_EQ(context.getPeakBytes(), 1100u);
  context.resetPeakBytes();
  EXPECT_EQ(context.getPeakBytes(), 0u);
  EXPECT_EQ(context.getStatus(), TELAR_STATUS_OK);
}

TEST(RuntimeAllocator, ReusesLargeBlocks) {
  Context context;
  TelarContext *ctx = context.get();
  EXPECT_EQ(context.getCachedBytes(), 0u);

  // Small blocks are malloc's business.
  telarrt_free(ctx, telarrt_alloc(ctx, 1000));
  EXPECT_EQ(context.getCachedBytes(), 0u);

  const size_t mib = 1 << 20;
  void *a = telarrt_alloc(ctx, mib);
  std::memset(a, 1, mib);
  telarrt_free(ctx, a);
  size_t cached = context.getCachedBytes();
  EXPECT_GE(cached, mib);
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  // The same size (and one a few bytes smaller: whole pages) gets the same
  // block back.
  void *b = telarrt_alloc(ctx, mib - 8);
  EXPECT_EQ(b, a);
  EXPECT_EQ(context.getCachedBytes(), 0u);
  EXPECT_EQ(context.getCurrentBytes(), mib - 8);
  // Another size or alignment gets a new block.
  void *c = telarrt_alloc(ctx, 2 * mib);
  void *d = telarrt_aligned_alloc(ctx, 8192, mib - 8);
  EXPECT_NE(c, a);
  EXPECT_NE(d, a);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 8192, 0u);
  EXPECT_EQ(context.getCurrentBytes(), 4 * mib - 16);
  telarrt_free(ctx, b);
  telarrt_free(ctx, c);
  telarrt_free(ctx, d);
  // Cached blocks are not live: only the peak of live bytes counts.
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  EXPECT_EQ(context.getPeakBytes(), 4 * mib - 16);
  EXPECT_GE(context.getCachedBytes(), 4 * mib);
  void *e = telarrt_aligned_alloc(ctx, 8192, mib);
  EXPECT_EQ(e, d);
  telarrt_free(ctx, e);

  context.releaseCachedMemory();
  EXPECT_EQ(context.getCachedBytes(), 0u);
  EXPECT_EQ(context.getCurrentBytes(), 0u);
}

/// The VmFlags of the mapping holding `p` in /proc/self/smaps ("" if none).
static std::string mappingFlags(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 &&
        line.find('-') < line.find(' ')) {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}

// Blocks of 2 MiB or more start on a huge page and ask the kernel for
// transparent huge pages (MADV_HUGEPAGE: "hg" in the mapping's VmFlags);
// TELAR_HUGE_PAGES=0 turns that off.
TEST(RuntimeAllocator, LargeBlocksAskForHugePages) {
  Context context;
  TelarContext *ctx = context.get();
  const size_t mib = 1 << 20;
  void *big = telarrt_alloc(ctx, 5 * mib);
  ASSERT_NE(big, nullptr);
  std::memset(big, 1, 5 * mib);
  std::string flags = mappingFlags(big);
  ASSERT_NE(flags, "") << "no mapping holds the block";
  const char *env = std::getenv("TELAR_HUGE_PAGES");
  bool wanted = !(env && std::strcmp(env, "0") == 0);
  EXPECT_EQ(flags.find(" hg") != std::string::npos, wanted) << flags;
  if (wanted) {
    // The block follows its header, one alignment (64 bytes) into a huge
    // page.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % (2 * mib), 64u);
  }
  telarrt_free(ctx, big);
}

// Two contexts share no allocator state: counters, block caches, limits
// and errors are their own.
TEST(RuntimeContext, StateIsPerContext) {
  Context one, two;
  const size_t mib = 1 << 20;
  void *a = telarrt_alloc(one.get(), mib);
  void *b = telarrt_alloc(two.get(), 100);
  EXPECT_EQ(one.getCurrentBytes(), mib);
  EXPECT_EQ(two.getCurrentBytes(), 100u);
  telarrt_free(one.get(), a);
  EXPECT_GE(one.getCachedBytes(), mib);
  EXPECT_EQ(two.getCachedBytes(), 0u);
  // A cached block of one context is not handed out by the other.
  void *c = telarrt_alloc(two.get(), mib);
  EXPECT_NE(c, a);
  EXPECT_EQ(two.getPeakBytes(), mib + 100);
  EXPECT_EQ(one.getPeakBytes(), mib);
  telarrt_free(two.get(), b);
  telarrt_free(two.get(), c);

  one.setMemoryLimit(1000);
  EXPECT_EQ(telarrt_alloc(one.get(), 1001), nullptr);
  EXPECT_EQ(one.getStatus(), TELAR_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(one.getError(),
            "out of memory: cannot allocate 1001 bytes of intermediates (the "
            "context's memory limit is 1000 bytes; 0 bytes allocated)");
  EXPECT_EQ(two.getStatus(), TELAR_STATUS_OK);
  EXPECT_EQ(two.getError(), "");
  void *d = telarrt_alloc(two.get(), 1001);
  EXPECT_NE(d, nullptr);
  telarrt_free(two.get(), d);

  // The GEMM choice is per context too.
  int best = one.setGemmKernel(TELARRT_GEMM_AUTO);
  EXPECT_EQ(one.setGemmKernel(TELARRT_GEMM_OPENBLAS), TELARRT_GEMM_OPENBLAS);
  EXPECT_EQ(one.getGemmKernel(), TELARRT_GEMM_OPENBLAS);
  EXPECT_EQ(two.getGemmKernel(), best);
}

TEST(RuntimeContext, Errors) {
  Context context;
  TelarContext *ctx = context.get();
  EXPECT_EQ(telarrt_context_fail(ctx, TELAR_STATUS_OK, "ignored"),
            TELAR_STATUS_OK);
  EXPECT_EQ(context.getStatus(), TELAR_STATUS_OK);
  // The first error sticks.
  EXPECT_EQ(telarrt_context_fail(ctx, TELAR_STATUS_INVALID_ARGUMENT, "first"),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(telarrt_context_fail(ctx, TELAR_STATUS_OUT_OF_MEMORY, "second"),
            TELAR_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(context.getStatus(), TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(context.getError(), "first");
  context.clearError();
  EXPECT_EQ(context.getStatus(), TELAR_STATUS_OK);
  EXPECT_EQ(context.getError(), "");
  // An allocation too large to represent fails, it does not wrap.
  EXPECT_EQ(telarrt_alloc(ctx, SIZE_MAX - 10), nullptr);
  EXPECT_EQ(context.getStatus(), TELAR_STATUS_OUT_OF_MEMORY);
  EXPECT_NE(context.getError().find("the size overflows"), std::string::npos)
      << context.getError();
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  // What a failed run leaves allocated is freed at once.
  context.clearError();
  void *block = telarrt_alloc(ctx, 1 << 20);
  ASSERT_NE(block, nullptr);
  telarrt_alloc(ctx, 10);
  EXPECT_EQ(context.getCurrentBytes(), (1u << 20) + 10);
  telarrt_context_free_live_blocks(ctx);
  EXPECT_EQ(context.getCurrentBytes(), 0u);
  EXPECT_GE(context.getCachedBytes(), 1u << 20);
  EXPECT_STREQ(statusName(TELAR_STATUS_OUT_OF_MEMORY), "out of memory");
}

TEST(RuntimeThreads, SetAndGet) {
  telarrt_set_num_threads(3);
  EXPECT_EQ(telarrt_get_num_threads(), 3);
  telarrt_set_num_threads(0); // clamped
  EXPECT_EQ(telarrt_get_num_threads(), 1);
}

/// The CPUs a thread may run on (tid 0: the calling thread).
std::vector<int> allowedCpus(pid_t tid = 0) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(tid, sizeof(set), &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set))
        cpus.push_back(c);
  return cpus;
}

/// The threads of this process allowed on exactly `cpu` and nowhere else.
int threadsPinnedTo(int cpu) {
  int count = 0;
  for (const auto &task : std::filesystem::directory_iterator("/proc/self/task"))
    if (allowedCpus(std::stoi(task.path().filename().string())) ==
        std::vector<int>{cpu})
      ++count;
  return count;
}

TEST(RuntimeThreads, BindOnePerCpu) {
  int saved = telarrt_get_num_threads();
  std::vector<int> all = allowedCpus();
  int n = int(all.size());
  // This machine's CPUs: the test is about placing 2 threads on 2 of them.
  ASSERT_GE(n, 2) << "telarrt_bind_threads needs 2 CPUs to pin 2 threads";
  int cpus[4] = {-1, -1, -1, -1};

  // Nothing to place: one thread, or more threads than CPUs.
  telarrt_set_num_threads(1);
  EXPECT_EQ(telarrt_bind_threads(-1), 0);
  telarrt_set_num_threads(n + 1);
  EXPECT_EQ(telarrt_bind_threads(-1), 0);
  EXPECT_EQ(telarrt_bound_thread_cpus(cpus, 4), 0);

  // Two threads from slot 1: thread 0 (this one) on the process's second
  // CPU, thread 1 on the next (wrapping).
  telarrt_set_num_threads(2);
  ASSERT_EQ(telarrt_bind_threads(1), 2);
  ASSERT_EQ(telarrt_bound_thread_cpus(cpus, 4), 2);
  EXPECT_EQ(cpus[0], all[1 % n]);
  EXPECT_EQ(cpus[1], all[2 % n]);
  EXPECT_EQ(allowedCpus(), std::vector<int>{cpus[0]});
  EXPECT_EQ(threadsPinnedTo(cpus[1]), 1) << "the worker is not pinned";
  // A run's parallel loops keep that placement (the same threads).
  EXPECT_EQ(allowedCpus(), std::vector<int>{cpus[0]});

  // Unpinning gives every thread the process's CPUs back.
  telarrt_unbind_threads();
  EXPECT_EQ(telarrt_bound_thread_cpus(cpus, 4), 0);
  EXPECT_EQ(allowedCpus(), all);
  EXPECT_EQ(threadsPinnedTo(all[0]) + threadsPinnedTo(all[1]), 0);

  // From the CPU the caller runs on.
  ASSERT_EQ(telarrt_bind_threads(-1), 2);
  ASSERT_EQ(telarrt_bound_thread_cpus(cpus, 4), 2);
  EXPECT_NE(cpus[0], cpus[1]);
  // Another team size unpins (some threads pinned, some not, would be
  // worse than none).
  telarrt_set_num_threads(1);
  EXPECT_EQ(telarrt_bound_thread_cpus(cpus, 4), 0);
  EXPECT_EQ(allowedCpus(), all);

  // The user's OpenMP affinity variables win: libomp places the threads.
  telarrt_set_num_threads(2);
  setenv("OMP_PROC_BIND", "close", 1);
  EXPECT_EQ(telarrt_bind_threads(-1), 0);
  unsetenv("OMP_PROC_BIND");
  EXPECT_EQ(allowedCpus(), all);
  telarrt_set_num_threads(saved);
}

} // namespace
