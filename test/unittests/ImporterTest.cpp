//===- ImporterTest.cpp - Unit tests of the ONNX importer -----------------===//
//
// Builds ModelProtos in C++ (what .onnxtext cannot express: external data,
// typed data fields, truncated files) and checks the imported module or the
// error.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/onnx/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace mlir;
using namespace mlir::telar;

namespace {

class ImporterTest : public ::testing::Test {
protected:
  ImporterTest() {
    DialectRegistry registry;
    registerAllTelar(registry);
    ctx.appendDialectRegistry(registry);
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &ctx, [this](Diagnostic &d) {
          errors += d.str() + "\n";
          return success();
        });
    llvm::SmallString<128> dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("telar-importer", dir));
    tmp = std::string(dir);
  }
  ~ImporterTest() override { llvm::sys::fs::remove_directories(tmp); }

  /// A model computing Y = X + W (W an initializer of `shape`).
  ::onnx::ModelProto addModel(llvm::ArrayRef<int64_t> shape, int32_t type,
                              int64_t opset = 17) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    auto *g = m.mutable_graph();
    g->set_name("g");
    auto addValue = [&](auto *vi, const char *name) {
      vi->set_name(name);
      auto *tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(type);
      for (int64_t d : shape)
        tt->mutable_shape()->add_dim()->set_dim_value(d);
    };
    addValue(g->add_input(), "X");
    addValue(g->add_output(), "Y");
    auto *n = g->add_node();
    n->set_op_type("Add");
    n->add_input("X");
    n->add_input("W");
    n->add_output("Y");
    auto *w = g->add_initializer();
    w->set_name("W");
    w->set_data_type(type);
    for (int64_t d : shape)
      w->add_dims(d);
    return m;
  }

  OwningOpRef<ModuleOp> importProto(const ::onnx::ModelProto &m,
                                    llvm::StringRef baseDir = "") {
    std::string bytes;
    m.SerializeToString(&bytes);
    return importModelBytes(ctx, bytes, baseDir, "test.onnx", options);
  }

  OwningOpRef<ModuleOp> importFile(const ::onnx::ModelProto &m) {
    std::string path = tmp + "/model.onnx";
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
    out.close();
    return importModelFile(ctx, path, options);
  }

  void writeFile(const std::string &name, const std::string &data) {
    std::ofstream out(tmp + "/" + name, std::ios::binary);
    out << data;
  }

  /// The value of the constant named W (the Add's second operand).
  ElementsAttr weight(ModuleOp module) {
    ElementsAttr result;
    module.walk([&](telar::ConstantOp op) { result = op.getValue(); });
    return result;
  }

  MLIRContext ctx;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::string errors;
  std::string tmp;
  ImportOptions options;
};

TEST_F(ImporterTest, SupportedOpsSorted) {
  std::vector<std::string> ops = supportedOpTypes();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char *op : {"Conv", "Gemm", "MatMul", "Reshape", "Softmax",
                         "LayerNormalization", "RotaryEmbedding", "Einsum"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
}

TEST_F(ImporterTest, RawDataLargeIsResource) {
  auto m = addModel({100}, ::onnx::TensorProto::FLOAT);
  std::vector<float> data(100);
  for (int i = 0; i < 100; ++i)
    data[i] = i * 0.5f;
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(
      std::string(reinterpret_cast<char *>(data.data()), 400));
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto w = weight(*module);
  auto res = llvm::dyn_cast<DenseResourceElementsAttr>(w);
  ASSERT_TRUE(res) << "large weights must be blob resources";
  ArrayRef<char> blob = res.getRawHandle().getBlob()->getData();
  ASSERT_EQ(blob.size(), 400u);
  EXPECT_EQ(std::memcmp(blob.data(), data.data(), 400), 0);
}

TEST_F(ImporterTest, TypedFields) {
  // float16 bits in int32_data.
  {
    auto m = addModel({2}, ::onnx::TensorProto::FLOAT16);
    auto *w = m.mutable_graph()->mutable_initializer(0);
    w->add_int32_data(0x3C00); // 1.0
    w->add_int32_data(0xC000); // -2.0
    auto module = importProto(m);
    ASSERT_TRUE(module) << errors;
    auto dense = llvm::dyn_cast<DenseFPElementsAttr>(weight(*module));
    ASSERT_TRUE(dense);
    auto values = llvm::to_vector(dense.getValues<llvm::APFloat>());
    EXPECT_EQ(values[0].convertToDouble(), 1.0);
    EXPECT_EQ(values[1].convertToDouble(), -2.0);
  }
  // int8 in int32_data.
  {
    auto m = addModel({3}, ::onnx::TensorProto::INT8);
    auto *w = m.mutable_graph()->mutable_initializer(0);
    for (int v : {-1, 2, -128})
      w->add_int32_data(v);
    auto module = importProto(m);
    ASSERT_TRUE(module) << errors;
    auto dense = llvm::dyn_cast<DenseIntElementsAttr>(weight(*module));
    ASSERT_TRUE(dense);
    auto values = llvm::to_vector(dense.getValues<int8_t>());
    EXPECT_EQ(values, (llvm::SmallVector<int8_t>{-1, 2, -128}));
  }
  // uint32 in uint64_data.
  {
    auto m = addModel({2}, ::onnx::TensorProto::UINT32);
    auto *w = m.mutable_graph()->mutable_initializer(0);
    w->add_uint64_data(7);
    w->add_uint64_data(4000000000u);
    auto module = importProto(m);
    ASSERT_TRUE(module) << errors;
    auto dense = llvm::dyn_cast<DenseIntElementsAttr>(weight(*module));
    ASSERT_TRUE(dense);
    EXPECT_TRUE(dense.getElementType().isUnsignedInteger(32));
    auto values = llvm::to_vector(dense.getValues<uint32_t>());
    EXPECT_EQ(values[1], 4000000000u);
  }
  // double_data and int64_data.
  {
    auto m = addModel({1}, ::onnx::TensorProto::DOUBLE);
    m.mutable_graph()->mutable_initializer(0)->add_double_data(0.25);
    auto module = importProto(m);
    ASSERT_TRUE(module) << errors;
    EXPECT_TRUE(weight(*module).getElementType().isF64());
  }
  {
    auto m = addModel({1}, ::onnx::TensorProto::INT64);
    m.mutable_graph()->mutable_initializer(0)->add_int64_data(-5);
    auto module = importProto(m);
    ASSERT_TRUE(module) << errors;
    auto dense = llvm::cast<DenseIntElementsAttr>(weight(*module));
    EXPECT_EQ(*dense.getValues<int64_t>().begin(), -5);
  }
}

TEST_F(ImporterTest, WrongElementCountIsError) {
  auto m = addModel({3}, ::onnx::TensorProto::FLOAT);
  m.mutable_graph()->mutable_initializer(0)->add_float_data(1.0f);
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("holds 1 elements"), std::string::npos) << errors;
}

TEST_F(ImporterTest, StringTensorIsError) {
  auto m = addModel({1}, ::onnx::TensorProto::FLOAT);
  auto *w = m.mutable_graph()->mutable_initializer(0);
  w->set_data_type(::onnx::TensorProto::STRING);
  w->add_string_data("hello");
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("unsupported element type string"), std::string::npos)
      << errors;
}

TEST_F(ImporterTest, TruncatedProtobufIsError) {
  auto m = addModel({100}, ::onnx::TensorProto::FLOAT);
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(400, 'x'));
  std::string bytes;
  m.SerializeToString(&bytes);
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t(3)}) {
    errors.clear();
    auto module = importModelBytes(ctx, llvm::StringRef(bytes).take_front(cut),
                                   "", "cut.onnx", options);
    EXPECT_FALSE(module);
    EXPECT_NE(errors.find("cannot parse ONNX model"), std::string::npos)
        << errors;
  }
  errors.clear();
  EXPECT_FALSE(importModelBytes(ctx, "", "", "empty.onnx", options));
  EXPECT_NE(errors.find("empty"), std::string::npos) << errors;
}

TEST_F(ImporterTest, OpsetOutOfRange) {
  auto m = addModel({1}, ::onnx::TensorProto::FLOAT, /*opset=*/24);
  m.mutable_graph()->mutable_initializer(0)->add_float_data(1.0f);
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("unsupported ONNX opset 24 (supported: 11 to 23)"),
            std::string::npos)
      << errors;
}

::onnx::TensorProto *makeExternal(::onnx::ModelProto &m,
                                  const std::string &location, int64_t offset,
                                  int64_t length) {
  auto *w = m.mutable_graph()->mutable_initializer(0);
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto add = [&](const char *k, const std::string &v) {
    auto *e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  add("length", std::to_string(length));
  return w;
}

TEST_F(ImporterTest, ExternalDataIsMapped) {
  std::vector<float> data(256);
  for (int i = 0; i < 256; ++i)
    data[i] = static_cast<float>(i);
  std::string file(4096, '\0');
  file.append(reinterpret_cast<char *>(data.data()), 1024);
  writeFile("weights.bin", file);
  auto m = addModel({256}, ::onnx::TensorProto::FLOAT);
  makeExternal(m, "weights.bin", 4096, 1024);
  auto module = importFile(m);
  ASSERT_TRUE(module) << errors;
  auto res = llvm::dyn_cast<DenseResourceElementsAttr>(weight(*module));
  ASSERT_TRUE(res);
  const AsmResourceBlob *blob = res.getRawHandle().getBlob();
  ASSERT_TRUE(blob);
  ASSERT_EQ(blob->getData().size(), 1024u);
  EXPECT_EQ(std::memcmp(blob->getData().data(), data.data(), 1024), 0);
  // Mapped, not copied: the blob is immutable and aligned to the element.
  EXPECT_FALSE(blob->isMutable());
  EXPECT_EQ(blob->getDataAlignment(), 4u);
}

TEST_F(ImporterTest, ExternalDataBoundsChecked) {
  writeFile("small.bin", std::string(100, '\0'));
  auto m = addModel({256}, ::onnx::TensorProto::FLOAT);
  makeExternal(m, "small.bin", 0, 1024);
  EXPECT_FALSE(importFile(m));
  EXPECT_NE(errors.find("past the end"), std::string::npos) << errors;
}

TEST_F(ImporterTest, ExternalDataOutsideFolderRefused) {
  auto check = [&](const std::string &location, const char *expected) {
    errors.clear();
    auto m = addModel({256}, ::onnx::TensorProto::FLOAT);
    makeExternal(m, location, 0, 1024);
    EXPECT_FALSE(importFile(m)) << location;
    EXPECT_NE(errors.find(expected), std::string::npos)
        << location << ": " << errors;
  };
  check("../outside.bin", "leaves the model's folder");
  check("sub/../../outside.bin", "leaves the model's folder");
  check("/etc/passwd", "is absolute");
  // A symbolic link inside the folder that points outside.
  std::string outside = tmp + "-outside.bin";
  {
    std::ofstream out(outside, std::ios::binary);
    out << std::string(1024, '\0');
  }
  ASSERT_FALSE(llvm::sys::fs::create_link(outside, tmp + "/link.bin"));
  check("link.bin", "resolves outside the model's folder");
  llvm::sys::fs::remove(outside);
  check("missing.bin", "does not exist");
}

TEST_F(ImporterTest, GraphInputInitializerIsConstant) {
  auto m = addModel({2}, ::onnx::TensorProto::FLOAT);
  m.mutable_graph()->mutable_initializer(0)->add_float_data(1.0f);
  m.mutable_graph()->mutable_initializer(0)->add_float_data(2.0f);
  auto *in = m.mutable_graph()->add_input();
  *in = m.graph().input(0);
  in->set_name("W");
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto func = *module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(func.getNumArguments(), 1u);
}

/// A numpy .npy file (format `version`) holding `data` with dtype `descr`.
static std::string npyFile(int version, llvm::StringRef descr,
                           llvm::StringRef shape, llvm::StringRef data) {
  std::string header = ("{'descr': '" + descr +
                        "', 'fortran_order': False, 'shape': (" + shape +
                        "), }")
                           .str();
  size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  uint32_t len = header.size();
  for (size_t i = 0; i < (version == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + header + data.str();
}

TEST_F(ImporterTest, BindInputNpyVersion2) {
  auto m = addModel({100}, ::onnx::TensorProto::FLOAT);
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(
      std::string(400, '\0'));
  std::vector<float> data(100);
  for (int i = 0; i < 100; ++i)
    data[i] = i + 0.25f;
  writeFile("x.npy", npyFile(2, "<f4", "100,",
                             llvm::StringRef(reinterpret_cast<char *>(
                                                 data.data()),
                                             400)));
  options.inputValues["X"] = tmp + "/x.npy";
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto func = *module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(func.getNumArguments(), 0u);
  bool found = false;
  module->walk([&](telar::ConstantOp op) {
    auto res = llvm::dyn_cast<DenseResourceElementsAttr>(op.getValue());
    if (!res || res.getRawHandle().getBlob()->getData().size() != 400)
      return;
    if (std::memcmp(res.getRawHandle().getBlob()->getData().data(),
                    data.data(), 400) == 0)
      found = true;
  });
  EXPECT_TRUE(found) << "the bound value must become a constant";
}

TEST_F(ImporterTest, BindInputTensorProtoTypedField) {
  auto m = addModel({2}, ::onnx::TensorProto::INT64);
  m.mutable_graph()->mutable_initializer(0)->add_int64_data(1);
  m.mutable_graph()->mutable_initializer(0)->add_int64_data(2);
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::INT64);
  t.add_dims(2);
  t.add_int64_data(10);
  t.add_int64_data(-20);
  std::string bytes;
  t.SerializeToString(&bytes);
  writeFile("x.pb", bytes);
  options.inputValues["X"] = tmp + "/x.pb";
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  // X + W folds: {11, -18}.
  llvm::SmallVector<int64_t> folded;
  module->walk([&](telar::ConstantOp op) {
    if (auto d = llvm::dyn_cast<DenseIntElementsAttr>(op.getValue()))
      if (d.getNumElements() == 2 &&
          d.getValues<int64_t>()[0] == 11)
        folded = llvm::to_vector(d.getValues<int64_t>());
  });
  EXPECT_EQ(folded, (llvm::SmallVector<int64_t>{11, -18}));
}

TEST_F(ImporterTest, BindInputNpyErrors) {
  auto m = addModel({2}, ::onnx::TensorProto::INT32);
  m.mutable_graph()->mutable_initializer(0)->add_int32_data(1);
  m.mutable_graph()->mutable_initializer(0)->add_int32_data(2);
  std::string eight(8, '\0');
  writeFile("be.npy", npyFile(1, ">i4", "2,", eight));
  options.inputValues["X"] = tmp + "/be.npy";
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("big-endian"), std::string::npos) << errors;
  errors.clear();
  writeFile("short.npy", npyFile(1, "<i4", "2,", "abc"));
  options.inputValues["X"] = tmp + "/short.npy";
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("holds 3 data bytes"), std::string::npos) << errors;
  errors.clear();
  writeFile("c.npy", npyFile(1, "<c8", "2,", std::string(16, '\0')));
  options.inputValues["X"] = tmp + "/c.npy";
  EXPECT_FALSE(importProto(m));
  EXPECT_NE(errors.find("unsupported numpy dtype '<c8'"), std::string::npos)
      << errors;
}

TEST_F(ImporterTest, Float8Initializer) {
  auto m = addModel({2}, 17); // FLOAT8E4M3FN
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(
      std::string("\x38\xC0", 2)); // 1.0, -2.0
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto dense = llvm::dyn_cast<DenseFPElementsAttr>(weight(*module));
  ASSERT_TRUE(dense);
  EXPECT_TRUE(llvm::isa<Float8E4M3FNType>(dense.getElementType()));
  auto values = llvm::to_vector(dense.getValues<llvm::APFloat>());
  EXPECT_EQ(values[0].convertToDouble(), 1.0);
  EXPECT_EQ(values[1].convertToDouble(), -2.0);
  // float8 bits in int32_data.
  auto m2 = addModel({1}, 19); // FLOAT8E5M2
  m2.mutable_graph()->mutable_initializer(0)->add_int32_data(0x3C); // 1.0
  auto module2 = importProto(m2);
  ASSERT_TRUE(module2) << errors;
  auto d2 = llvm::cast<DenseFPElementsAttr>(weight(*module2));
  EXPECT_TRUE(llvm::isa<Float8E5M2Type>(d2.getElementType()));
  EXPECT_EQ((*d2.getValues<llvm::APFloat>().begin()).convertToDouble(), 1.0);
}

/// Makes addModel's node `Y = Identity(W)` (for types Add does not take).
static void identityOfWeight(::onnx::ModelProto &m) {
  auto *n = m.mutable_graph()->mutable_node(0);
  n->set_op_type("Identity");
  n->clear_input();
  n->add_input("W");
}

TEST_F(ImporterTest, Int4InitializerUnpacked) {
  // {1, -1, 7}: two per byte, first in the low nibble.
  auto m = addModel({3}, 22); // INT4
  identityOfWeight(m);
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(
      std::string("\xF1\x07", 2));
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto dense = llvm::dyn_cast<DenseIntElementsAttr>(weight(*module));
  ASSERT_TRUE(dense);
  EXPECT_TRUE(dense.getElementType().isInteger(4));
  llvm::SmallVector<int64_t> values;
  for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
    values.push_back(v.getSExtValue());
  EXPECT_EQ(values, (llvm::SmallVector<int64_t>{1, -1, 7}));
  // uint4 in int32_data (one packed byte per entry); wrong size is an error.
  auto m2 = addModel({2}, 21); // UINT4
  identityOfWeight(m2);
  m2.mutable_graph()->mutable_initializer(0)->add_int32_data(0xF3);
  auto module2 = importProto(m2);
  ASSERT_TRUE(module2) << errors;
  auto d2 = llvm::cast<DenseIntElementsAttr>(weight(*module2));
  auto v2 = llvm::to_vector(d2.getValues<llvm::APInt>());
  EXPECT_EQ(v2[0].getZExtValue(), 3u);
  EXPECT_EQ(v2[1].getZExtValue(), 15u);
  auto m3 = addModel({4}, 22);
  identityOfWeight(m3);
  m3.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(3, '\0'));
  EXPECT_FALSE(importProto(m3));
  EXPECT_NE(errors.find("raw_data holds 3 bytes, but 'tensor<4xi4>' needs 2"),
            std::string::npos)
      << errors;
}

TEST_F(ImporterTest, Int4LargeIsOneBytePerElementBlob) {
  auto m = addModel({100}, 21); // UINT4
  identityOfWeight(m);
  std::string packed(50, '\0');
  for (int i = 0; i < 50; ++i)
    packed[i] = static_cast<char>(((2 * i + 1) % 16) << 4 | ((2 * i) % 16));
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(packed);
  auto module = importProto(m);
  ASSERT_TRUE(module) << errors;
  auto res = llvm::dyn_cast<DenseResourceElementsAttr>(weight(*module));
  ASSERT_TRUE(res);
  ArrayRef<char> blob = res.getRawHandle().getBlob()->getData();
  ASSERT_EQ(blob.size(), 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(blob[i], i % 16) << i;
}

} // namespace
