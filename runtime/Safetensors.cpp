//===- Safetensors.cpp - Memory-mapped safetensors files ------------------===//

#include "telar/runtime/Safetensors.h"
#include "telar/json/JsonCheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace telar::runtime;
using json = nlohmann::json;

namespace {
/// The safetensors format caps the header at 100 MB.
constexpr uint64_t kMaxHeaderLength = 100'000'000;

constexpr std::pair<const char *, DType> kCodes[] = {
    {"F32", DType::Float32},   {"F64", DType::Float64}, {"F16", DType::Float16},
    {"BF16", DType::BFloat16}, {"I8", DType::Int8},     {"I16", DType::Int16},
    {"I32", DType::Int32},     {"I64", DType::Int64},   {"U8", DType::UInt8},
    {"U16", DType::UInt16},    {"U32", DType::UInt32},  {"U64", DType::UInt64},
    {"BOOL", DType::Bool},
};
} // namespace

const char *telar::runtime::safetensorsDTypeCode(DType dtype) {
  for (const auto &[code, d] : kCodes)
    if (d == dtype)
      return code;
  return "";
}

std::optional<DType>
telar::runtime::parseSafetensorsDType(std::string_view code) {
  for (const auto &[c, d] : kCodes)
    if (code == c)
      return d;
  return std::nullopt;
}

std::unique_ptr<SafetensorsFile>
SafetensorsFile::open(const std::string &path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
  // below); reads of a regular file ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error("cannot open weights file '" + path +
                "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("weights file '" + path + "' is not a regular file");
  }
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path = path;
  size_t size = static_cast<size_t>(st.st_size);
  if (size > 0) {
    void *m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);
    if (m == MAP_FAILED)
      throw Error("cannot map weights file '" + path +
                  "': " + std::strerror(err));
    file->mapping = m;
    file->mappingSize = size;
  } else {
    ::close(fd);
  }
  file->parseImage(static_cast<const uint8_t *>(file->mapping), size);
  return file;
}

std::unique_ptr<SafetensorsFile>
SafetensorsFile::parse(const void *bytes, size_t size,
                       const std::string &origin) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path = origin;
  file->parseImage(static_cast<const uint8_t *>(bytes), size);
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping)
    ::munmap(mapping, mappingSize);
}

const SafetensorsTensor *SafetensorsFile::find(const std::string &name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

void SafetensorsFile::parseImage(const uint8_t *bytes, size_t size) {
  auto fail = [&](const std::string &what) -> Error {
    return Error("corrupt safetensors file '" + path + "': " + what);
  };
  if (size < 8)
    throw fail("file is " + std::to_string(size) +
               " bytes, too short for the 8-byte header length");
  uint64_t headerLength = 0;
  for (int i = 0; i < 8; ++i)
    headerLength |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  if (headerLength > kMaxHeaderLength || headerLength > size - 8)
    throw fail("header length " + std::to_string(headerLength) +
               " exceeds the file size " + std::to_string(size));
  uint64_t dataSize = size - 8 - headerLength;
  const uint8_t *data = bytes + 8 + headerLength;

  std::string_view headerText(reinterpret_cast<const char *>(bytes + 8),
                              headerLength);
  telar_json::JsonScan scan = telar_json::scanJson(headerText);
  if (scan.tooDeep)
    throw fail("header " + telar_json::describeTooDeep());
  json header;
  try {
    header = json::parse(headerText.begin(), headerText.end());
  } catch (const json::exception &e) {
    throw fail(std::string("header is not valid JSON: ") + e.what());
  }
  // nlohmann keeps one of a repeated tensor name's entries.
  if (scan.duplicateKey)
    throw fail("header names '" + *scan.duplicateKey + "' twice");
  if (!header.is_object())
    throw fail("header is not a JSON object");

  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto &[name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object())
        throw fail("__metadata__ is not an object");
      for (auto &[k, v] : entry.items()) {
        if (!v.is_string())
          throw fail("__metadata__ value '" + k + "' is not a string");
        metadata[k] = v.get<std::string>();
      }
      continue;
    }
    std::string where = "tensor '" + name + "': ";
    if (!entry.is_object())
      throw fail(where + "entry is not an object");
    auto field = [&](const char *key) -> const json & {
      auto it = entry.find(key);
      if (it == entry.end())
        throw fail(where + "missing '" + key + "'");
      return *it;
    };
    SafetensorsTensor t;
    const json &dtype = field("dtype");
    if (!dtype.is_string())
      throw fail(where + "'dtype' is not a string");
    t.dtypeCode = dtype.get<std::string>();
    t.dtype = parseSafetensorsDType(t.dtypeCode);

    const json &shape = field("shape");
    if (!shape.is_array())
      throw fail(where + "'shape' is not an array");
    for (const json &d : shape) {
      if (!d.is_number_unsigned())
        throw fail(where + "'shape' holds " + d.dump() +
                   ", not a non-negative integer");
      t.shape.push_back(d.get<int64_t>());
    }

    const json &offsets = field("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 ||
        !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
      throw fail(where + "'data_offsets' is not a pair of non-negative "
                         "integers");
    t.begin = offsets[0].get<uint64_t>();
    t.end = offsets[1].get<uint64_t>();
    if (t.begin > t.end || t.end > dataSize)
      throw fail(where + "data_offsets [" + std::to_string(t.begin) + ", " +
                 std::to_string(t.end) + "] lie outside the " +
                 std::to_string(dataSize) + "-byte data section");
    if (t.dtype) {
      uint64_t expected = dtypeSize(*t.dtype);
      for (int64_t d : t.shape)
        if (__builtin_mul_overflow(expected, static_cast<uint64_t>(d),
                                   &expected))
          throw fail(where + "shape " + formatShape(t.shape) + " overflows");
      if (t.end - t.begin != expected)
        throw fail(where + "holds " + std::to_string(t.end - t.begin) +
                   " bytes but " + t.dtypeCode + formatShape(t.shape) +
                   " needs " + std::to_string(expected));
    }
    t.data = data + t.begin;
    ranges.emplace_back(t.begin, t.end);
    tensors.emplace(name, std::move(t));
  }

  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      throw fail("tensor data ranges overlap");
}

std::string telar::runtime::writeSafetensors(
    const std::vector<std::pair<std::string, const Tensor *>> &tensors) {
  json header = json::object();
  uint64_t offset = 0;
  std::vector<uint64_t> begins;
  for (const auto &[name, t] : tensors) {
    offset = (offset + 63) / 64 * 64;
    begins.push_back(offset);
    header[name] = {{"dtype", safetensorsDTypeCode(t->getDType())},
                    {"shape", t->getShape()},
                    {"data_offsets", {offset, offset + t->getByteSize()}}};
    offset += t->getByteSize();
  }
  std::string text = header.dump();
  // Pad the header with spaces so that the data section starts at a
  // multiple of 64 bytes.
  text.append((64 - (8 + text.size()) % 64) % 64, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) &
                               0xff);
  out += text;
  size_t dataStart = out.size();
  out.resize(dataStart + offset, '\0');
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].second->getByteSize())
      std::memcpy(&out[dataStart + begins[i]], tensors[i].second->data(),
                  tensors[i].second->getByteSize());
  return out;
}
