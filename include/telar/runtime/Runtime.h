//===- Runtime.h - Load and run Telar artifacts -----------------*- C++ -*-===//
//
// The runtime side of Telar (libtelar_runtime.so): plain C++17, no MLIR or
// LLVM. It loads an artifact directory (docs/Artifact.md): parses and checks
// manifest.json, memory-maps the weights, dlopens the program library and
// runs it on caller-provided buffers.
//
// Errors are reported by throwing telar::runtime::Error, whose message names
// the file and the field or tensor at fault.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_RUNTIME_H
#define TELAR_RUNTIME_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace telar::runtime {

/// Every error of the runtime library: a message meant for the user.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

//===----------------------------------------------------------------------===//
// Element types and tensor types
//===----------------------------------------------------------------------===//

/// The element types of the artifact format, named as numpy names them.
enum class DType : uint8_t {
  Float32,
  Float64,
  Float16,
  BFloat16,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Bool,
};

/// Parses a numpy dtype name ("float32", "int64", "bool", ...).
std::optional<DType> parseDType(std::string_view name);
/// The numpy name of `dtype`.
const char *dtypeName(DType dtype);
/// Bytes per element (bool is one byte).
size_t dtypeSize(DType dtype);

using Shape = std::vector<int64_t>;

/// Product of the dimensions (1 for a scalar).
int64_t numElements(const Shape &shape);
/// "[2,3]" ("[]" for a scalar).
std::string formatShape(const Shape &shape);
/// "float32[2,3]".
std::string formatType(DType dtype, const Shape &shape);

/// A named tensor of the manifest.
struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;

  int64_t numElements() const { return runtime::numElements(shape); }
  size_t byteSize() const { return numElements() * dtypeSize(dtype); }
  std::string typeString() const { return formatType(dtype, shape); }
};

/// A dense, row-major tensor owning a 64-byte aligned, zero-initialised
/// buffer (never null, even when empty).
class Tensor {
public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape);

  DType getDType() const { return dtype; }
  const Shape &getShape() const { return shape; }
  int64_t getNumElements() const { return runtime::numElements(shape); }
  size_t getByteSize() const { return bytes; }
  std::string typeString() const { return formatType(dtype, shape); }

  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data());
  }

private:
  struct Free {
    void operator()(void *p) const;
  };
  DType dtype = DType::Float32;
  Shape shape;
  size_t bytes = 0;
  std::unique_ptr<void, Free> storage;
};

/// Element `index` of a dense `dtype` buffer as a double (for printing and
/// comparisons; float16/bfloat16 are widened exactly).
double elementAsDouble(DType dtype, const void *data, int64_t index);

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

/// The artifact format version this runtime reads.
constexpr int64_t kArtifactFormatVersion = 1;

struct WeightSpec : TensorSpec {
  /// The safetensors file, relative to the artifact directory.
  std::string file;
};

struct ProgramSpec {
  std::string name;
  /// The shared library, relative to the artifact directory.
  std::string library;
  std::string entry;
};

/// manifest.json, checked: known format and version, every required field
/// present with the right type, known dtypes, non-negative dimensions,
/// unique tensor names, relative paths that stay inside the artifact.
struct Manifest {
  int64_t formatVersion = 0;
  std::string telarVersion;
  std::string modelPath, modelSha256;
  std::string targetKind, targetTriple, targetCpu, targetFeatures;
  std::vector<ProgramSpec> programs;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<WeightSpec> weights;
  /// The compiler's lower bound for intermediate memory (the largest set of
  /// intermediate tensors alive at once), or -1 when the manifest has none.
  int64_t largestLiveSetBytes = -1;

  /// Parses manifest text; `origin` (the file name) prefixes error messages.
  static Manifest parse(std::string_view text, const std::string &origin);
};

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

class SafetensorsFile;

/// A loaded artifact: the checked manifest, the memory-mapped weights
/// (checked against the manifest) and the program library, ready to run.
class Artifact {
public:
  /// Loads the artifact in `directory`. Everything is checked here, before
  /// anything runs: the manifest, that every referenced file exists, every
  /// weight's presence, dtype and shape in its safetensors file, and that
  /// the program library loads and exports its entry point.
  static std::unique_ptr<Artifact> load(const std::string &directory);
  ~Artifact();

  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const Manifest &getManifest() const { return manifest; }
  const std::string &getDirectory() const { return directory; }

  /// Total bytes of the weights the program reads.
  size_t getWeightsBytes() const;

  /// Allocates (zeroed) output tensors of the manifest's types.
  std::vector<Tensor> allocateOutputs() const;

  /// Runs the program once. `inputs` and `outputs` hold one dense buffer per
  /// manifest input/output, in manifest order; their sizes are the caller's
  /// responsibility (use the Tensor overload to have them checked).
  void run(const std::vector<const void *> &inputs,
           const std::vector<void *> &outputs) const;

  /// Runs the program once after checking that the tensors match the
  /// manifest's inputs and outputs (count, dtype, shape).
  void run(const std::vector<Tensor> &inputs,
           std::vector<Tensor> &outputs) const;

private:
  Artifact() = default;

  using EntryFn = void (*)(void **);

  std::string directory;
  Manifest manifest;
  std::vector<std::unique_ptr<SafetensorsFile>> weightFiles;
  /// The mappings registered with registerConstantRange.
  std::vector<std::pair<const void *, size_t>> constantRanges;
  /// One pointer per manifest weight, into weightFiles' mappings.
  std::vector<const void *> weightData;
  void *programHandle = nullptr;
  EntryFn entry = nullptr;
};

/// Marks [data, data + bytes) as constant memory (Artifact does this for its
/// memory-mapped weights): it must hold the same values, and stay mapped,
/// until unregisterConstantRange(data, bytes). GEMMs whose `b` operand lies
/// wholly inside a constant range pack it once, on first use, and reuse the
/// packed copy (telarrt_prepacked_bytes() counts them); unregistering frees
/// the copies no other registered range covers. Ranges may overlap or be
/// registered more than once (each registration is unregistered once).
/// Not to be called while kernels that read the range run.
void registerConstantRange(const void *data, size_t bytes);
void unregisterConstantRange(const void *data, size_t bytes);

/// Makes the runtime library and libomp (which generated programs resolve
/// their undefined symbols against) globally visible in this process, so
/// that a program can be dlopened even when the runtime itself was loaded
/// with RTLD_LOCAL (e.g. from Python). Artifact::load calls it.
void exposeRuntimeSymbols();

} // namespace telar::runtime

#endif // TELAR_RUNTIME_RUNTIME_H
