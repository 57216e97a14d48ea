//===- Safetensors.h - Memory-mapped safetensors files ----------*- C++ -*-===//
//
// The safetensors layout: an 8-byte little-endian header length N, N bytes
// of JSON mapping tensor names to {"dtype", "shape", "data_offsets"}
// (offsets relative to the end of the header), then the data. The file is
// mapped read-only; tensors point into the mapping.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_SAFETENSORS_H
#define TELAR_RUNTIME_SAFETENSORS_H

#include "telar/runtime/Runtime.h"

#include <map>

namespace telar::runtime {

struct SafetensorsTensor {
  /// The dtype code as written ("F32", "BF16", ...).
  std::string dtypeCode;
  /// The code's DType, if it is one the artifact format knows.
  std::optional<DType> dtype;
  Shape shape;
  /// Byte range relative to the start of the data section.
  uint64_t begin = 0, end = 0;
  /// Points into the mapping.
  const void *data = nullptr;
};

/// A checked, memory-mapped safetensors file. Opening checks the header
/// length, the JSON, every entry's fields, that offsets lie in the file and
/// do not overlap, and that each byte range holds exactly shape x dtype.
class SafetensorsFile {
public:
  /// Maps and checks `path`; throws Error naming the file on any problem.
  static std::unique_ptr<SafetensorsFile> open(const std::string &path);
  /// Checks an in-memory image (not copied; must outlive the object).
  static std::unique_ptr<SafetensorsFile> parse(const void *bytes, size_t size,
                                                const std::string &origin);
  ~SafetensorsFile();

  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;

  const std::string &getPath() const { return path; }
  /// The file's mapping (null and 0 for an empty file or a parsed image).
  const void *getMapping() const { return mapping; }
  size_t getMappingSize() const { return mappingSize; }
  const std::map<std::string, SafetensorsTensor> &getTensors() const {
    return tensors;
  }
  /// The tensor called `name`, or null.
  const SafetensorsTensor *find(const std::string &name) const;
  /// The "__metadata__" string map (empty when absent).
  const std::map<std::string, std::string> &getMetadata() const {
    return metadata;
  }

private:
  SafetensorsFile() = default;
  void parseImage(const uint8_t *bytes, size_t size);

  std::string path;
  void *mapping = nullptr;
  size_t mappingSize = 0;
  std::map<std::string, SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// The safetensors dtype code of `dtype` ("F32", "BOOL", ...).
const char *safetensorsDTypeCode(DType dtype);
/// The DType of a safetensors code, if the artifact format knows it.
std::optional<DType> parseSafetensorsDType(std::string_view code);

/// Serialises tensors as a safetensors image whose data sections are each
/// aligned to 64 bytes (the header is padded with spaces), as telarc writes
/// them. Used by tests and tools.
std::string writeSafetensors(
    const std::vector<std::pair<std::string, const Tensor *>> &tensors);

} // namespace telar::runtime

#endif // TELAR_RUNTIME_SAFETENSORS_H
