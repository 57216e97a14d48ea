//===- Tensors.cpp - ONNX TensorProto to elements attributes --------------===//
//
// Weights become blob resources: copied once into a heap blob when they live
// in the protobuf, memory-mapped (and kept mapped by the blob's deleter) when
// they are external data. Only tiny tensors (<= kDenseElementLimit elements)
// and booleans become plain `dense` attributes, so shape math folds.
// External data locations may not leave the model's folder.
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"
#include "telar/dialects/Telar/TelarOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cstring>

using namespace mlir;
using namespace mlir::telar::onnx_import;

Type mlir::telar::onnx_import::onnxElementType(MLIRContext *ctx,
                                               int32_t onnxType) {
  auto sint = [&](unsigned w) { return IntegerType::get(ctx, w); };
  auto uint = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  // Types newer than libonnx 1.12's onnx.proto (17-23) are matched by
  // number.
  switch (onnxType) {
  case ::onnx::TensorProto::FLOAT: return Float32Type::get(ctx);
  case ::onnx::TensorProto::UINT8: return uint(8);
  case ::onnx::TensorProto::INT8: return sint(8);
  case ::onnx::TensorProto::UINT16: return uint(16);
  case ::onnx::TensorProto::INT16: return sint(16);
  case ::onnx::TensorProto::INT32: return sint(32);
  case ::onnx::TensorProto::INT64: return sint(64);
  case ::onnx::TensorProto::BOOL: return sint(1);
  case ::onnx::TensorProto::FLOAT16: return Float16Type::get(ctx);
  case ::onnx::TensorProto::DOUBLE: return Float64Type::get(ctx);
  case ::onnx::TensorProto::UINT32: return uint(32);
  case ::onnx::TensorProto::UINT64: return uint(64);
  case ::onnx::TensorProto::BFLOAT16: return BFloat16Type::get(ctx);
  case 17: // FLOAT8E4M3FN
    return Float8E4M3FNType::get(ctx);
  case 18: // FLOAT8E4M3FNUZ
    return Float8E4M3FNUZType::get(ctx);
  case 19: // FLOAT8E5M2
    return Float8E5M2Type::get(ctx);
  case 20: // FLOAT8E5M2FNUZ
    return Float8E5M2FNUZType::get(ctx);
  // 4-bit types: ONNX packs two per byte; telar holds one per byte (as
  // MLIR's dense elements store them), see unpackNibbles.
  case 21: // UINT4
    return uint(4);
  case 22: // INT4
    return sint(4);
  case 23: // FLOAT4E2M1
    return Float4E2M1FNType::get(ctx);
  default: return Type();
  }
}

static const char *onnxTypeName(int32_t t) {
  switch (t) {
  case 0: return "undefined";
  case 8: return "string";
  case 14: return "complex64";
  case 15: return "complex128";
  case 17: return "float8e4m3fn";
  case 18: return "float8e4m3fnuz";
  case 19: return "float8e5m2";
  case 20: return "float8e5m2fnuz";
  case 21: return "uint4";
  case 22: return "int4";
  case 23: return "float4e2m1";
  default: return nullptr;
  }
}

/// Bytes per element in telar's storage (bool and 4-bit types: one byte).
static unsigned byteWidth(Type t) {
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

static bool isPacked4Bit(Type t) { return t.getIntOrFloatBitWidth() == 4; }

uint64_t mlir::telar::onnx_import::onnxBytes(Type t, int64_t count) {
  if (isPacked4Bit(t))
    return (static_cast<uint64_t>(count) + 1) / 2;
  return static_cast<uint64_t>(count) * byteWidth(t);
}

/// Unpacks ONNX's two-per-byte 4-bit data (first element in the low
/// nibble) into one element per byte, sign-extending signed integers.
static std::vector<char> unpackNibbles(llvm::ArrayRef<char> packed,
                                       int64_t count, Type t) {
  bool isSigned = t.isSignedInteger() || t.isSignlessInteger();
  std::vector<char> out;
  out.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t byte = static_cast<uint8_t>(packed[i / 2]);
    uint8_t nib = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
    if (isSigned && (nib & 0x8))
      nib |= 0xF0;
    out.push_back(static_cast<char>(nib));
  }
  return out;
}

ElementsAttr mlir::telar::onnx_import::makeElements(RankedTensorType type,
                                                    llvm::ArrayRef<char> raw,
                                                    llvm::StringRef blobName) {
  Type et = type.getElementType();
  if (et.isInteger(1)) {
    llvm::SmallVector<bool> bits;
    bits.reserve(raw.size());
    for (char c : raw)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
  }
  if (type.getNumElements() <= kDenseElementLimit)
    return DenseElementsAttr::getFromRawBuffer(type, raw);
  return DenseResourceElementsAttr::get(
      type, mlir::telar::weightKey(blobName),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, 64,
                                                    /*dataIsMutable=*/false));
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

namespace mlir::telar::onnx_import {
class ExternalDataCache {
public:
  struct Mapping {
    std::shared_ptr<llvm::sys::fs::mapped_file_region> region;
    uint64_t size = 0;
  };
  llvm::StringMap<Mapping> files;
};
} // namespace mlir::telar::onnx_import

TensorLoader::TensorLoader(MLIRContext *ctx, llvm::StringRef baseDir)
    : ctx(ctx), baseDir(baseDir.str()),
      external(std::make_unique<ExternalDataCache>()) {}
TensorLoader::~TensorLoader() = default;

Type TensorLoader::elementType(int32_t onnxType, Location loc) {
  Type t = onnxElementType(ctx, onnxType);
  if (!t) {
    auto diag = emitError(loc) << "unsupported element type ";
    if (const char *n = onnxTypeName(onnxType))
      diag << n;
    else
      diag << "(ONNX data type " << onnxType << ")";
  }
  return t;
}

/// Resolves `location` inside `baseDir`, refusing anything that leaves it.
static FailureOr<std::string> resolveExternalPath(llvm::StringRef baseDir,
                                                  llvm::StringRef location,
                                                  llvm::StringRef tensorName,
                                                  Location loc) {
  auto refuse = [&](llvm::StringRef why) {
    return emitError(loc) << "external data of tensor '" << tensorName
                          << "': location '" << location << "' " << why;
  };
  if (baseDir.empty())
    return refuse("cannot be resolved (the model has no folder)");
  if (location.empty())
    return refuse("is empty");
  if (llvm::sys::path::is_absolute(location) || location.starts_with("/") ||
      location.starts_with("\\"))
    return refuse("is absolute; it must be relative to the model's folder");
  for (auto it = llvm::sys::path::begin(location),
            e = llvm::sys::path::end(location);
       it != e; ++it)
    if (*it == "..")
      return refuse("leaves the model's folder ('..')");
  llvm::SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realBase, realPath;
  if (llvm::sys::fs::real_path(baseDir, realBase))
    return refuse("cannot be resolved (model folder not found)");
  if (llvm::sys::fs::real_path(path, realPath))
    return refuse("names a file that does not exist");
  llvm::StringRef rb = realBase, rp = realPath;
  if (!rp.starts_with(rb) || rp.size() <= rb.size() ||
      !llvm::sys::path::is_separator(rp[rb.size()]))
    return refuse("resolves outside the model's folder (symbolic link)");
  if (!llvm::sys::fs::is_regular_file(realPath))
    return refuse("is not a regular file");
  return std::string(realPath);
}

FailureOr<llvm::ArrayRef<char>>
TensorLoader::externalBytes(const ::onnx::TensorProto &tensor,
                            uint64_t expected, Location loc,
                            std::shared_ptr<const void> *owner) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : tensor.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v;
      if (llvm::StringRef(kv.value()).getAsInteger(10, v) || v < 0)
        return emitError(loc) << "external data of tensor '" << tensor.name()
                              << "': invalid " << kv.key() << " '"
                              << kv.value() << "'";
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  auto path = resolveExternalPath(baseDir, location, tensor.name(), loc);
  if (failed(path))
    return failure();

  auto &cache = external->files;
  auto it = cache.find(*path);
  if (it == cache.end()) {
    ExternalDataCache::Mapping m;
    if (llvm::sys::fs::file_size(*path, m.size))
      return emitError(loc)
             << "cannot read external data file '" << location << "'";
    if (m.size > 0) {
      int fd;
      if (llvm::sys::fs::openFileForRead(*path, fd))
        return emitError(loc)
               << "cannot open external data file '" << location << "'";
      std::error_code ec;
      auto region = std::make_shared<llvm::sys::fs::mapped_file_region>(
          llvm::sys::fs::convertFDToNativeFile(fd),
          llvm::sys::fs::mapped_file_region::readonly, m.size, 0, ec);
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
      if (ec)
        return emitError(loc) << "cannot map external data file '" << location
                              << "': " << ec.message();
      m.region = std::move(region);
    }
    it = cache.insert({*path, std::move(m)}).first;
  }
  const ExternalDataCache::Mapping &m = it->second;
  if (length < 0)
    length = static_cast<int64_t>(m.size) - offset;
  if (static_cast<uint64_t>(offset) > m.size ||
      static_cast<uint64_t>(length) > m.size - static_cast<uint64_t>(offset))
    return emitError(loc) << "external data of tensor '" << tensor.name()
                          << "': offset " << offset << " + length " << length
                          << " is past the end of '" << location << "' ("
                          << m.size << " bytes)";
  if (static_cast<uint64_t>(length) != expected)
    return emitError(loc) << "external data of tensor '" << tensor.name()
                          << "': length " << length
                          << " bytes, but the tensor needs " << expected;
  if (expected == 0)
    return llvm::ArrayRef<char>();
  if (owner)
    *owner = m.region;
  return llvm::ArrayRef<char>(m.region->const_data() + offset, expected);
}

static ElementsAttr loadExternal(TensorLoader &loader,
                                 const ::onnx::TensorProto &tensor,
                                 RankedTensorType type, Location loc) {
  uint64_t expected = onnxBytes(type.getElementType(), type.getNumElements());
  std::shared_ptr<const void> region;
  FailureOr<llvm::ArrayRef<char>> mapped =
      loader.externalBytes(tensor, expected, loc, &region);
  if (failed(mapped))
    return {};
  if (expected == 0)
    return DenseElementsAttr::getFromRawBuffer(type, {});
  const char *data = mapped->data();
  llvm::ArrayRef<char> bytes = *mapped;
  unsigned align = byteWidth(type.getElementType());
  Type et = type.getElementType();
  if (isPacked4Bit(et))
    return makeElements(type, unpackNibbles(bytes, type.getNumElements(), et),
                        tensor.name());
  if (et.isInteger(1) || type.getNumElements() <= kDenseElementLimit ||
      reinterpret_cast<uintptr_t>(data) % align != 0)
    return makeElements(type, bytes, tensor.name());
  // The blob keeps the mapping alive.
  auto blob = UnmanagedAsmResourceBlob::allocateWithAlign(
      bytes, align, [region](void *, size_t, size_t) mutable { region.reset(); },
      /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(
      type, mlir::telar::weightKey(tensor.name()), std::move(blob));
}

//===----------------------------------------------------------------------===//
// TensorProto conversion
//===----------------------------------------------------------------------===//

template <typename T>
static void appendBytes(std::vector<char> &buf, T v) {
  char tmp[sizeof(T)];
  std::memcpy(tmp, &v, sizeof(T));
  buf.insert(buf.end(), tmp, tmp + sizeof(T));
}

ElementsAttr TensorLoader::convert(const ::onnx::TensorProto &tensor,
                                   Location loc) {
  auto tensorErr = [&]() {
    return emitError(loc) << "tensor '" << tensor.name() << "': ";
  };
  if (tensor.data_type() == ::onnx::TensorProto::STRING) {
    tensorErr() << "unsupported element type string";
    return {};
  }
  Type et = onnxElementType(ctx, tensor.data_type());
  if (!et) {
    auto d = tensorErr() << "unsupported element type ";
    if (const char *n = onnxTypeName(tensor.data_type()))
      d << n;
    else
      d << "(ONNX data type " << tensor.data_type() << ")";
    return {};
  }
  llvm::SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      tensorErr() << "negative dimension " << d;
      return {};
    }
    if (d != 0 && count > (int64_t(1) << 50) / d) {
      tensorErr() << "too many elements";
      return {};
    }
    count *= d;
    shape.push_back(d);
  }
  auto type = RankedTensorType::get(shape, et);
  unsigned width = byteWidth(et);

  if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL)
    return loadExternal(*this, tensor, type, loc);

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != onnxBytes(et, count)) {
      tensorErr() << "raw_data holds " << raw.size() << " bytes, but " << type
                  << " needs " << onnxBytes(et, count);
      return {};
    }
    if (isPacked4Bit(et))
      return makeElements(
          type,
          unpackNibbles(llvm::ArrayRef<char>(raw.data(), raw.size()), count, et),
          tensor.name());
    return makeElements(type, llvm::ArrayRef<char>(raw.data(), raw.size()),
                        tensor.name());
  }

  std::vector<char> buf;
  int64_t have = 0;
  switch (tensor.data_type()) {
  case ::onnx::TensorProto::FLOAT:
    have = tensor.float_data_size();
    if (have == count)
      for (float v : tensor.float_data())
        appendBytes(buf, v);
    break;
  case ::onnx::TensorProto::DOUBLE:
    have = tensor.double_data_size();
    if (have == count)
      for (double v : tensor.double_data())
        appendBytes(buf, v);
    break;
  case ::onnx::TensorProto::INT64:
    have = tensor.int64_data_size();
    if (have == count)
      for (int64_t v : tensor.int64_data())
        appendBytes(buf, v);
    break;
  case ::onnx::TensorProto::UINT32:
  case ::onnx::TensorProto::UINT64:
    have = tensor.uint64_data_size();
    if (have == count)
      for (uint64_t v : tensor.uint64_data()) {
        if (width == 4)
          appendBytes(buf, static_cast<uint32_t>(v));
        else
          appendBytes(buf, v);
      }
    break;
  default: // int32_data holds int8/16/32, uint8/16, bool, f16 and bf16 bits.
    have = tensor.int32_data_size();
    if (have == count)
      for (int32_t v : tensor.int32_data()) {
        switch (width) {
        case 1: appendBytes(buf, static_cast<uint8_t>(v)); break;
        case 2: appendBytes(buf, static_cast<uint16_t>(v)); break;
        default: appendBytes(buf, v); break;
        }
      }
    break;
  }
  if (isPacked4Bit(et)) {
    // int32_data holds one packed byte (two elements) per entry.
    int64_t packed = static_cast<int64_t>(onnxBytes(et, count));
    if (have == packed) {
      buf.clear();
      for (int32_t v : tensor.int32_data())
        buf.push_back(static_cast<char>(static_cast<uint8_t>(v)));
      return makeElements(type, unpackNibbles(buf, count, et), tensor.name());
    }
  }
  if (have != count) {
    if (have == 0)
      tensorErr() << "has no data (expected " << count << " elements of "
                  << et << ")";
    else
      tensorErr() << "holds " << have << " elements, but " << type << " needs "
                  << count;
    return {};
  }
  return makeElements(type, buf, tensor.name());
}

//===----------------------------------------------------------------------===//
// Reading constants back
//===----------------------------------------------------------------------===//

constexpr int64_t kReadLimit = 1 << 20;

static std::optional<llvm::ArrayRef<char>> resourceBytes(Attribute attr) {
  auto res = llvm::dyn_cast<DenseResourceElementsAttr>(attr);
  if (!res)
    return std::nullopt;
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob)
    return std::nullopt;
  return blob->getData();
}

std::optional<llvm::SmallVector<int64_t>>
mlir::telar::onnx_import::readInts(Attribute attr) {
  auto elements = llvm::dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements || elements.getNumElements() > kReadLimit)
    return std::nullopt;
  auto it = llvm::dyn_cast<IntegerType>(elements.getElementType());
  if (!it)
    return std::nullopt;
  llvm::SmallVector<int64_t> out;
  bool isUnsigned = it.isUnsigned() || it.getWidth() == 1;
  if (auto dense = llvm::dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
      out.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                               : v.getSExtValue());
    return out;
  }
  auto bytes = resourceBytes(attr);
  if (!bytes || it.getWidth() == 1)
    return std::nullopt;
  unsigned w = byteWidth(it);
  if (bytes->size() != static_cast<size_t>(elements.getNumElements()) * w)
    return std::nullopt;
  for (int64_t i = 0, e = elements.getNumElements(); i < e; ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes->data() + i * w, w);
    llvm::APInt v(it.getWidth(), raw, /*isSigned=*/false,
                  /*implicitTrunc=*/true);
    out.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                             : v.getSExtValue());
  }
  return out;
}

std::optional<llvm::SmallVector<double>>
mlir::telar::onnx_import::readFloats(Attribute attr) {
  auto elements = llvm::dyn_cast_or_null<ElementsAttr>(attr);
  if (!elements || elements.getNumElements() > kReadLimit)
    return std::nullopt;
  Type et = elements.getElementType();
  llvm::SmallVector<double> out;
  if (llvm::isa<IntegerType>(et)) {
    auto ints = readInts(attr);
    if (!ints)
      return std::nullopt;
    for (int64_t v : *ints)
      out.push_back(static_cast<double>(v));
    return out;
  }
  auto ft = llvm::dyn_cast<FloatType>(et);
  if (!ft)
    return std::nullopt;
  if (auto dense = llvm::dyn_cast<DenseFPElementsAttr>(attr)) {
    for (llvm::APFloat v : dense.getValues<llvm::APFloat>())
      out.push_back(v.convertToDouble());
    return out;
  }
  auto bytes = resourceBytes(attr);
  if (!bytes)
    return std::nullopt;
  unsigned w = byteWidth(ft);
  if (bytes->size() != static_cast<size_t>(elements.getNumElements()) * w)
    return std::nullopt;
  for (int64_t i = 0, e = elements.getNumElements(); i < e; ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes->data() + i * w, w);
    llvm::APFloat v(ft.getFloatSemantics(),
                    llvm::APInt(ft.getWidth(), raw, /*isSigned=*/false,
                                /*implicitTrunc=*/true));
    out.push_back(v.convertToDouble());
  }
  return out;
}
