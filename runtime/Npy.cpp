//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// "\x93NUMPY", major, minor, header length (2 bytes LE in v1, 4 in v2/v3),
// a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
// padded with spaces and ended by '\n', then the data.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Npy.h"
#include "Blocks.h"
#include "telar/runtime/FileUtil.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <map>
#include <variant>

using namespace telar::runtime;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the runtime assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// The values a .npy header dict holds: strings, booleans, int tuples.
using HeaderValue = std::variant<std::string, bool, std::vector<int64_t>>;

/// Parses the Python dict literal of a .npy header.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &origin)
      : text(text), origin(origin) {}

  std::map<std::string, HeaderValue> parse() {
    std::map<std::string, HeaderValue> dict;
    skipSpace();
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') {
        ++pos;
        break;
      }
      std::string key = parseString();
      skipSpace();
      expect(':');
      skipSpace();
      dict[key] = parseValue(key);
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      expect('}');
      break;
    }
    return dict;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    throw Error(origin + ": malformed .npy header (" + what +
                "): " + std::string(text));
  }
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  void skipSpace() {
    while (pos < text.size() && std::strchr(" \t\r\n", text[pos]))
      ++pos;
  }
  void expect(char c) {
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++pos;
  }
  std::string parseString() {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a string");
    size_t end = text.find(quote, pos + 1);
    if (end == std::string_view::npos)
      fail("unterminated string");
    std::string s(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
    return s;
  }
  int64_t parseInt() {
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    // Python 2 era writers emitted longs as "3L".
    std::string digits(text.substr(start, pos - start));
    if (peek() == 'L')
      ++pos;
    if (digits.empty() || digits.size() > 18)
      fail("bad dimension");
    return std::stoll(digits);
  }
  HeaderValue parseValue(const std::string &key) {
    char c = peek();
    if (c == '\'' || c == '"')
      return parseString();
    if (text.substr(pos, 4) == "True") {
      pos += 4;
      return true;
    }
    if (text.substr(pos, 5) == "False") {
      pos += 5;
      return false;
    }
    if (c == '(') {
      ++pos;
      std::vector<int64_t> dims;
      while (true) {
        skipSpace();
        if (peek() == ')') {
          ++pos;
          break;
        }
        dims.push_back(parseInt());
        skipSpace();
        if (peek() == ',') {
          ++pos;
          continue;
        }
        expect(')');
        break;
      }
      return dims;
    }
    if (c == '[' && key == "descr")
      throw Error(origin + ": structured (record) arrays are not supported");
    fail("unexpected value for '" + key + "'");
  }

  std::string_view text;
  const std::string &origin;
  size_t pos = 0;
};

struct Descr {
  DType dtype;
  bool bigEndian;
};

Descr parseDescr(const std::string &descr, const std::string &origin) {
  std::string_view d = descr;
  bool bigEndian = false;
  if (!d.empty() && std::strchr("<>|=", d[0])) {
    bigEndian = d[0] == '>';
    d.remove_prefix(1);
  }
  static const std::pair<const char *, DType> kCodes[] = {
      {"f4", DType::Float32},  {"f8", DType::Float64}, {"f2", DType::Float16},
      {"V2", DType::BFloat16}, {"i1", DType::Int8},    {"i2", DType::Int16},
      {"i4", DType::Int32},    {"i8", DType::Int64},   {"u1", DType::UInt8},
      {"u2", DType::UInt16},   {"u4", DType::UInt32},  {"u8", DType::UInt64},
      {"b1", DType::Bool},     {"?", DType::Bool},
  };
  for (const auto &[code, dtype] : kCodes)
    if (d == code)
      return {dtype, bigEndian && dtypeSize(dtype) > 1};
  throw Error(origin + ": unsupported .npy dtype '" + descr +
              "' (supported: float32/64/16, bfloat16 as |V2, int8-64, "
              "uint8-64, bool)");
}

uint32_t readLE(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

/// Copies a Fortran-order array into C order.
void fortranToC(const uint8_t *src, uint8_t *dst, const Shape &shape,
                size_t elementSize) {
  size_t rank = shape.size();
  int64_t count = numElements(shape);
  if (count == 0)
    return;
  // Fortran strides (in elements) of each dimension.
  std::vector<int64_t> fstride(rank, 1);
  for (size_t i = 1; i < rank; ++i)
    fstride[i] = fstride[i - 1] * shape[i - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t srcOffset = 0;
  for (int64_t n = 0; n < count; ++n) {
    std::memcpy(dst + n * elementSize, src + srcOffset * elementSize,
                elementSize);
    // Increment the C-order multi-index, last dimension fastest.
    for (size_t i = rank; i-- > 0;) {
      srcOffset += fstride[i];
      if (++index[i] < shape[i])
        break;
      srcOffset -= fstride[i] * shape[i];
      index[i] = 0;
    }
  }
}

} // namespace

const char *telar::runtime::npyDescr(DType dtype) {
  switch (dtype) {
  case DType::Float32:
    return "<f4";
  case DType::Float64:
    return "<f8";
  case DType::Float16:
    return "<f2";
  case DType::BFloat16:
    return "|V2";
  case DType::Int8:
    return "|i1";
  case DType::Int16:
    return "<i2";
  case DType::Int32:
    return "<i4";
  case DType::Int64:
    return "<i8";
  case DType::UInt8:
    return "|u1";
  case DType::UInt16:
    return "<u2";
  case DType::UInt32:
    return "<u4";
  case DType::UInt64:
    return "<u8";
  case DType::Bool:
    return "|b1";
  }
  return "";
}

namespace {

/// A parsed .npy header; the data starts at `dataOffset`.
struct Header {
  Descr descr;
  bool fortran;
  Shape shape;
  size_t dataOffset;
};

/// Parses the header at the start of `p` (`size` bytes: the whole file, or
/// at least its header).
Header parseHeader(const uint8_t *p, size_t size, const std::string &origin) {
  if (size < kMagicSize + 2 || std::memcmp(p, kMagic, kMagicSize) != 0)
    throw Error(origin + ": not a .npy file (bad magic)");
  uint8_t major = p[kMagicSize];
  if (major < 1 || major > 3)
    throw Error(origin + ": unsupported .npy format version " +
                std::to_string(major) + "." +
                std::to_string(p[kMagicSize + 1]));
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicSize + 2 + lengthBytes;
  if (size < prefix)
    throw Error(origin + ": truncated .npy header");
  size_t headerLength = readLE(p + kMagicSize + 2, lengthBytes);
  if (headerLength > size - prefix)
    throw Error(origin + ": truncated .npy header (header length " +
                std::to_string(headerLength) + " exceeds the file)");
  std::string_view header(reinterpret_cast<const char *>(p + prefix),
                          headerLength);
  auto dict = HeaderParser(header, origin).parse();

  auto get = [&](const char *key) -> const HeaderValue & {
    auto it = dict.find(key);
    if (it == dict.end())
      throw Error(origin + ": .npy header has no '" + key + "'");
    return it->second;
  };
  const auto *descr = std::get_if<std::string>(&get("descr"));
  const bool *fortran = std::get_if<bool>(&get("fortran_order"));
  const auto *shape = std::get_if<std::vector<int64_t>>(&get("shape"));
  if (!descr || !fortran || !shape)
    throw Error(origin + ": malformed .npy header: " + std::string(header));
  return {parseDescr(*descr, origin), *fortran, *shape, prefix + headerLength};
}

/// The data must fill the rest of the file exactly.
void checkDataSize(const Header &h, size_t fileSize,
                   const std::string &origin) {
  size_t dataSize = fileSize - h.dataOffset;
  size_t want = size_t(numElements(h.shape)) * dtypeSize(h.descr.dtype);
  if (dataSize != want)
    throw Error(origin + ": " +
                (dataSize < want ? "truncated .npy data"
                                 : "trailing bytes after the .npy data") +
                " (" + formatType(h.descr.dtype, h.shape) + " needs " +
                std::to_string(want) + " bytes, found " +
                std::to_string(dataSize) + ")");
}

/// In place: native byte order, booleans 0 or 1.
void normalize(const Descr &d, uint8_t *data, size_t bytes) {
  size_t elementSize = dtypeSize(d.dtype);
  if (d.bigEndian)
    for (size_t i = 0; i < bytes; i += elementSize)
      std::reverse(data + i, data + i + elementSize);
  if (d.dtype == DType::Bool)
    for (size_t i = 0; i < bytes; ++i)
      data[i] = data[i] != 0;
}

/// An open file read with pread, closed at the end of its scope.
class File {
public:
  explicit File(const std::string &path) : path(path) {
    fd = detail::openRegularFile(path);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      throw Error("cannot read '" + path + "': " + std::strerror(err));
    }
    size = size_t(st.st_size);
  }
  ~File() {
    if (fd >= 0)
      ::close(fd);
  }
  /// Reads `n` bytes at `offset` (all of them, or throws).
  void read(void *out, size_t n, size_t offset) const {
    auto *p = static_cast<char *>(out);
    while (n > 0) {
      ssize_t got = ::pread(fd, p, n, off_t(offset));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        throw Error("cannot read '" + path + "': " +
                    (got < 0 ? std::strerror(errno) : "unexpected end"));
      p += got;
      n -= size_t(got);
      offset += size_t(got);
    }
  }
  /// The header (read in two steps: the fixed prefix, then its length).
  Header header() const {
    uint8_t prefix[kMagicSize + 2 + 4] = {};
    size_t n = std::min(size, sizeof(prefix));
    read(prefix, n, 0);
    size_t headerEnd = n;
    if (n >= kMagicSize + 2 && std::memcmp(prefix, kMagic, kMagicSize) == 0 &&
        prefix[kMagicSize] >= 1 && prefix[kMagicSize] <= 3) {
      size_t lengthBytes = prefix[kMagicSize] == 1 ? 2 : 4;
      if (n >= kMagicSize + 2 + lengthBytes)
        headerEnd = std::min(size, kMagicSize + 2 + lengthBytes +
                                       readLE(prefix + kMagicSize + 2,
                                              lengthBytes));
    }
    std::vector<uint8_t> bytes(headerEnd);
    read(bytes.data(), headerEnd, 0);
    Header h = parseHeader(bytes.data(), headerEnd, path);
    checkDataSize(h, size, path);
    return h;
  }

  const std::string &path;
  int fd = -1;
  size_t size = 0;
};

} // namespace

Tensor telar::runtime::parseNpy(const void *bytes, size_t size,
                                const std::string &origin) {
  const auto *p = static_cast<const uint8_t *>(bytes);
  Header h = parseHeader(p, size, origin);
  checkDataSize(h, size, origin);
  Tensor tensor(h.descr.dtype, h.shape);
  const uint8_t *data = p + h.dataOffset;
  auto *out = tensor.data<uint8_t>();
  size_t dataSize = tensor.getByteSize();
  if (h.fortran && h.shape.size() > 1)
    fortranToC(data, out, h.shape, dtypeSize(h.descr.dtype));
  else if (dataSize)
    std::memcpy(out, data, dataSize);
  normalize(h.descr, out, dataSize);
  return tensor;
}

std::pair<DType, Shape> telar::runtime::readNpyType(const std::string &path) {
  Header h = File(path).header();
  return {h.descr.dtype, h.shape};
}

Tensor telar::runtime::readNpyBlock(const std::string &path,
                                    const Shape &offsets, const Shape &block) {
  File file(path);
  Header h = file.header();
  size_t rank = h.shape.size();
  if (offsets.size() != rank || block.size() != rank)
    throw Error(path + ": a block of rank " + std::to_string(block.size()) +
                " of a tensor of rank " + std::to_string(rank));
  for (size_t d = 0; d < rank; ++d)
    if (offsets[d] < 0 || block[d] < 0 || offsets[d] + block[d] > h.shape[d])
      throw Error(path + ": the block " + formatShape(block) + " at " +
                  formatShape(offsets) + " is not inside " +
                  formatType(h.descr.dtype, h.shape));
  size_t elementSize = dtypeSize(h.descr.dtype);
  Tensor tensor(h.descr.dtype, block);
  if (tensor.getByteSize() == 0)
    return tensor;
  if (h.fortran && rank > 1) {
    // Rare for inputs: the whole tensor, then the block.
    Tensor whole(h.descr.dtype, h.shape);
    std::vector<uint8_t> raw(whole.getByteSize());
    file.read(raw.data(), raw.size(), h.dataOffset);
    fortranToC(raw.data(), whole.data<uint8_t>(), h.shape, elementSize);
    detail::extractBlock(whole.data(), h.shape, offsets, block, elementSize,
                         tensor.data());
  } else {
    // Runs of contiguous bytes: the innermost dimensions the block spans
    // whole, plus the one inside which it starts.
    size_t k = rank == 0 ? 0 : rank - 1;
    while (k > 0 && block[k] == h.shape[k] && offsets[k] == 0)
      --k;
    std::vector<int64_t> strides(rank, 1); // of the file, in elements
    for (size_t d = rank; d-- > 1;)
      strides[d - 1] = strides[d] * h.shape[d];
    int64_t run = rank == 0 ? 1 : block[k] * strides[k];
    int64_t runs = tensor.getNumElements() / run;
    std::vector<int64_t> index(rank, 0); // over the dimensions before k
    auto *out = tensor.data<uint8_t>();
    for (int64_t r = 0; r < runs; ++r) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d)
        offset += (offsets[d] + (d < k ? index[d] : 0)) * strides[d];
      file.read(out + size_t(r * run) * elementSize, size_t(run) * elementSize,
                h.dataOffset + size_t(offset) * elementSize);
      for (size_t d = k; d-- > 0;) {
        if (++index[d] < block[d])
          break;
        index[d] = 0;
      }
    }
  }
  normalize(h.descr, tensor.data<uint8_t>(), tensor.getByteSize());
  return tensor;
}

Tensor telar::runtime::readNpy(const std::string &path) {
  std::string bytes = detail::readFile(path);
  return parseNpy(bytes.data(), bytes.size(), path);
}

std::string telar::runtime::serializeNpy(DType dtype, const Shape &shape,
                                         const void *data) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    dims += ","; // a one-element Python tuple
  std::string dict = std::string("{'descr': '") + npyDescr(dtype) +
                     "', 'fortran_order': False, 'shape': (" + dims + "), }";

  // Pad with spaces so that the data starts 64-byte aligned; the header
  // ends with '\n'.
  size_t lengthBytes = dict.size() + 64 > 65535 ? 4 : 2;
  size_t prefix = kMagicSize + 2 + lengthBytes;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  size_t dataSize = numElements(shape) * dtypeSize(dtype);
  std::string out;
  out.reserve(total + dataSize);
  out.append(kMagic, kMagicSize);
  out += static_cast<char>(lengthBytes == 2 ? 1 : 2);
  out += '\0';
  for (size_t i = 0; i < lengthBytes; ++i)
    out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  out += dict;
  out.append(static_cast<const char *>(data), dataSize);
  return out;
}

void telar::runtime::writeNpy(const std::string &path, DType dtype,
                              const Shape &shape, const void *data) {
  detail::writeFile(path, serializeNpy(dtype, shape, data));
}
