//===- InputValues.cpp - Values bound to graph inputs (--bind-input) ------===//
//
// A graph input can be replaced by a constant read from a file: an ONNX
// TensorProto (`.pb`, as in the ONNX backend tests' test_data_set_N) or a
// numpy `.npy` file (format versions 1-3, little-endian, C order). The
// importer then checks the value against the input's declared type.
//
//===----------------------------------------------------------------------===//

#include "ImporterInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>

using namespace mlir;
using namespace mlir::telar::onnx_import;

namespace {

/// Reads the value of `key` in a numpy header dict: the text after
/// "'key':" up to the matching end (a quoted string, a tuple, or a word).
std::optional<llvm::StringRef> npyField(llvm::StringRef header,
                                        llvm::StringRef key) {
  std::string quoted1 = ("'" + key + "'").str();
  std::string quoted2 = ("\"" + key + "\"").str();
  size_t pos = header.find(quoted1);
  size_t klen = quoted1.size();
  if (pos == llvm::StringRef::npos) {
    pos = header.find(quoted2);
    if (pos == llvm::StringRef::npos)
      return std::nullopt;
  }
  llvm::StringRef rest = header.drop_front(pos + klen).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.empty())
    return std::nullopt;
  char open = rest.front();
  if (open == '\'' || open == '"') {
    size_t end = rest.find(open, 1);
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    return rest.substr(1, end - 1);
  }
  if (open == '(') {
    size_t end = rest.find(')');
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    return rest.substr(1, end - 1);
  }
  size_t end = rest.find_first_of(",}");
  return rest.substr(0, end).trim();
}

/// The element type of a numpy dtype string such as "<f4"; `declared` is
/// used for raw void types ("|V2") of the same byte width (bfloat16, float8
/// arrays saved through ml_dtypes). Sets `why` when unsupported.
Type npyElementType(MLIRContext *ctx, llvm::StringRef descr, Type declared,
                    std::string &why) {
  if (descr.size() < 3) {
    why = "unsupported numpy dtype '" + descr.str() + "'";
    return Type();
  }
  char order = descr[0], kind = descr[1];
  unsigned bytes;
  if (descr.drop_front(2).getAsInteger(10, bytes) || bytes == 0) {
    why = "unsupported numpy dtype '" + descr.str() + "'";
    return Type();
  }
  if (order == '>' && bytes > 1) {
    why = "numpy dtype '" + descr.str() +
          "' is big-endian; only little-endian data is supported";
    return Type();
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    why = "unsupported numpy dtype '" + descr.str() + "'";
    return Type();
  }
  switch (kind) {
  case 'f':
    if (bytes == 2) return Float16Type::get(ctx);
    if (bytes == 4) return Float32Type::get(ctx);
    if (bytes == 8) return Float64Type::get(ctx);
    break;
  case 'i':
    if (bytes <= 8 && llvm::isPowerOf2_32(bytes))
      return IntegerType::get(ctx, bytes * 8);
    break;
  case 'u':
    if (bytes <= 8 && llvm::isPowerOf2_32(bytes))
      return IntegerType::get(ctx, bytes * 8, IntegerType::Unsigned);
    break;
  case 'b':
    if (bytes == 1)
      return IntegerType::get(ctx, 1);
    break;
  case 'V':
    // Raw bytes: accepted for element types numpy has no dtype of its own.
    if (declared && llvm::isa<FloatType>(declared) &&
        !declared.isF16() && !declared.isF32() && !declared.isF64() &&
        declared.getIntOrFloatBitWidth() == bytes * 8)
      return declared;
    break;
  default:
    break;
  }
  why = "unsupported numpy dtype '" + descr.str() + "'";
  return Type();
}

ElementsAttr loadNpy(MLIRContext *ctx, llvm::StringRef bytes,
                     llvm::StringRef name, llvm::StringRef path,
                     Type declared, Location loc) {
  auto err = [&]() {
    return emitError(loc) << "--bind-input " << name << ": '" << path
                          << "' is not a valid .npy file: ";
  };
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return err() << "bad magic", ElementsAttr();
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return err() << "truncated header", ElementsAttr();
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return err() << "unsupported format version " << major, ElementsAttr();
  }
  if (headerStart + headerLen > bytes.size())
    return err() << "truncated header", ElementsAttr();
  llvm::StringRef header = bytes.substr(headerStart, headerLen);
  llvm::StringRef data = bytes.drop_front(headerStart + headerLen);

  auto descr = npyField(header, "descr");
  auto fortran = npyField(header, "fortran_order");
  auto shapeText = npyField(header, "shape");
  if (!descr || !fortran || !shapeText)
    return err() << "the header lacks descr, fortran_order or shape",
           ElementsAttr();
  if (*fortran != "False") {
    emitError(loc) << "--bind-input " << name << ": '" << path
                   << "' is in Fortran order; only C order is supported "
                      "(save np.ascontiguousarray(a))";
    return {};
  }
  std::string why;
  Type et = npyElementType(ctx, *descr, declared, why);
  if (!et) {
    emitError(loc) << "--bind-input " << name << ": '" << path << "': " << why;
    return {};
  }
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> parts;
  shapeText->split(parts, ',');
  int64_t count = 1;
  for (llvm::StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t d;
    p.consume_back("L"); // Python 2 longs
    if (p.getAsInteger(10, d) || d < 0)
      return err() << "bad shape '(" << *shapeText << ")'", ElementsAttr();
    if (d != 0 && count > (int64_t(1) << 50) / d)
      return err() << "too many elements", ElementsAttr();
    count *= d;
    shape.push_back(d);
  }
  unsigned width = et.isInteger(1) ? 1 : et.getIntOrFloatBitWidth() / 8;
  uint64_t need = static_cast<uint64_t>(count) * width;
  if (data.size() != need)
    return err() << "it holds " << data.size() << " data bytes, but shape ("
                 << *shapeText << ") of '" << *descr << "' needs " << need,
           ElementsAttr();
  auto type = RankedTensorType::get(shape, et);
  return makeElements(type, llvm::ArrayRef<char>(data.data(), data.size()),
                      name);
}

} // namespace

ElementsAttr mlir::telar::onnx_import::loadInputValue(MLIRContext *ctx,
                                                      llvm::StringRef name,
                                                      llvm::StringRef path,
                                                      Type declared,
                                                      Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(loc) << "--bind-input " << name << ": cannot open '" << path
                   << "': " << buffer.getError().message();
    return {};
  }
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.starts_with("\x93NUMPY"))
    return loadNpy(ctx, bytes, name, path, declared, loc);

  ::onnx::TensorProto tensor;
  bool ok = false;
  try {
    ok = bytes.size() <= static_cast<size_t>(INT_MAX) &&
         tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  } catch (...) {
    ok = false;
  }
  if (!ok) {
    emitError(loc) << "--bind-input " << name << ": '" << path
                   << "' is neither a .npy file nor an ONNX TensorProto";
    return {};
  }
  tensor.set_name(name.str());
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  TensorLoader loader(ctx, dir);
  return loader.convert(tensor, loc);
}
