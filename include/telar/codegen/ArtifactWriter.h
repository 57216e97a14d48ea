//===- ArtifactWriter.h - Write an artifact directory -----------*- C++ -*-===//
//
// The files of an artifact directory (docs/Artifact.md): any number of
// programs (a library each, with its entry point and the weight files it
// reads) and of weight files (safetensors), then manifest.json describing
// them, written through the one manifest schema
// (include/telar/artifact/Manifest.h). Targets write their libraries
// themselves and record them here; weight files are written here.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_ARTIFACTWRITER_H
#define TELAR_CODEGEN_ARTIFACTWRITER_H

#include "telar/artifact/Manifest.h"
#include "telar/dialects/Telar/TelarAttrs.h"
#include "telar/sharding/core/Sharding.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::telar {

/// The manifest schema (plain C++, namespace ::telar_artifact).
namespace artifact = ::telar_artifact;

class TargetBackend;

/// A tensor of a weight file and its bytes (row-major, the element type's
/// storage size each; booleans a byte). A sharded weight (of a partitioned
/// program) has its `sharding` (on the program's mesh) and `globalShape`;
/// `type` is then the local block's and `data` holds the whole (global)
/// tensor, which writeShardedWeightFiles cuts per rank.
struct WeightTensor {
  std::string name;
  RankedTensorType type;
  ArrayRef<char> data;
  telar_sharding::Sharding sharding = {};
  std::vector<int64_t> globalShape = {};

  bool isSharded() const { return !globalShape.empty(); }
};

/// A weight file of the artifact: its path relative to the directory and
/// the tensors it holds, in file order.
struct WeightFileEntry {
  std::string path;
  std::vector<artifact::WeightSpec> tensors;
};

class ArtifactWriter {
public:
  /// The subfolders programs and weight files go in.
  static constexpr const char *kProgramsDir = "programs";
  static constexpr const char *kWeightsDir = "weights";

  explicit ArtifactWriter(StringRef directory) : directory(directory.str()) {}

  /// Creates the directory and its programs/ and weights/ folders.
  LogicalResult createDirectories(std::string &error);

  /// The path of `relative` (e.g. "programs/main.so") inside the artifact.
  std::string getPath(StringRef relative) const;

  /// Records `tensors` as the artifact's weights in the file `relative`,
  /// writing nothing (kRandomWeightsFile: filled at load).
  void recordWeightFile(StringRef relative, ArrayRef<WeightTensor> tensors);

  /// Writes the safetensors file `relative` holding `tensors` (each
  /// tensor's data aligned to 64 bytes) and records them as the artifact's
  /// weights in that file.
  LogicalResult writeWeightFile(StringRef relative,
                                ArrayRef<WeightTensor> tensors,
                                std::string &error);

  /// Writes one safetensors file per rank of `mesh`, `pattern` (a path with
  /// "{rank}") with the rank's number, holding each rank's block of every
  /// sharded tensor of `tensors` (telar_sharding::getBlockOffsets), and
  /// records them once as the artifact's weights in `pattern`.
  LogicalResult writeShardedWeightFiles(StringRef pattern,
                                        ArrayRef<WeightTensor> tensors,
                                        const telar_sharding::Mesh &mesh,
                                        std::string &error);

  /// Records a program whose library a target has written.
  void addProgram(artifact::ProgramSpec program);

  /// The target's description in the manifest (the program's
  /// #telar.target).
  void setTarget(TargetAttr target);

  /// The model the artifact was compiled from (the manifest hashes it).
  void setModel(StringRef path);
  void setInputs(ArrayRef<artifact::TensorSpec> inputs);
  void setOutputs(ArrayRef<artifact::TensorSpec> outputs);
  void setLargestLiveSetBytes(int64_t bytes);
  /// The mesh of a multi-rank artifact (and its world size).
  void setMesh(const telar_sharding::Mesh &mesh);
  /// A training step's loss, optimizer and parameters.
  void setTraining(const artifact::TrainingSpec &training);

  ArrayRef<artifact::ProgramSpec> getPrograms() const { return programs; }
  ArrayRef<WeightFileEntry> getWeightFiles() const { return weightFiles; }

  /// The manifest of what was recorded so far.
  artifact::Manifest getManifest() const;

  /// Writes manifest.json. Call it last: a directory with a manifest is a
  /// complete artifact.
  LogicalResult writeManifest(std::string &error) const;

private:
  /// Writes the safetensors file `relative` holding `tensors`, whose data
  /// is exactly their type's bytes.
  LogicalResult writeSafetensors(StringRef relative,
                                 ArrayRef<WeightTensor> tensors,
                                 std::string &error);

  std::string directory;
  std::vector<artifact::ProgramSpec> programs;
  std::vector<WeightFileEntry> weightFiles;
  artifact::Manifest header; // model, target, interface, memory
};

/// Per tensor dimension the names of the mesh axes that split it, as the
/// telar.sharding attribute and plans write them.
using AxisNames = std::vector<std::vector<std::string>>;

/// `names` as a sharding on `mesh`, checked (checkSharding); none with
/// `error` naming `what` otherwise.
std::optional<telar_sharding::Sharding>
resolveSharding(const AxisNames &names, const std::vector<int64_t> &globalShape,
                RankedTensorType localType, const telar_sharding::Mesh &mesh,
                const std::string &what, std::string &error);

/// Checks `sharding` against the global shape (telar_sharding::
/// verifySharding) and the local type (its block); failure with `error`
/// naming `what` otherwise.
LogicalResult checkSharding(const telar_sharding::Sharding &sharding,
                            const std::vector<int64_t> &globalShape,
                            RankedTensorType localType,
                            const telar_sharding::Mesh &mesh,
                            const std::string &what, std::string &error);

/// Checks that `type` (of the interface tensor `what`, e.g. "input 'x'")
/// can be in an artifact for `target`: a static shape and an element type
/// the target supports; sets `ranked`, or `error` naming `what`.
LogicalResult checkInterfaceType(Type type, const std::string &what,
                                 const TargetBackend &target,
                                 RankedTensorType &ranked, std::string &error);

/// The manifest's description of a tensor of type `type`.
artifact::TensorSpec describeTensor(StringRef name, RankedTensorType type);

} // namespace mlir::telar

#endif // TELAR_CODEGEN_ARTIFACTWRITER_H
