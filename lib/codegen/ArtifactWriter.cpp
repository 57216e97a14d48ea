//===- ArtifactWriter.cpp - Write an artifact directory -------------------===//

#include "telar/codegen/ArtifactWriter.h"
#include "telar/codegen/Artifact.h"
#include "telar/dialects/Telar/ShapeInference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstring>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace mlir;

// Defined inside the namespace: `telar` alone would be ambiguous with the
// manifest schema's ::telar.
namespace mlir::telar {

artifact::TensorSpec describeTensor(StringRef name, RankedTensorType type) {
  artifact::TensorSpec spec;
  spec.name = name.str();
  // checkInterfaceType admitted only element types with a numpy name.
  spec.dtype = *artifact::parseDType(numpyDtypeName(type.getElementType()));
  spec.shape.assign(type.getShape().begin(), type.getShape().end());
  return spec;
}

std::optional<telar_sharding::Sharding>
resolveSharding(const AxisNames &names, const std::vector<int64_t> &globalShape,
                RankedTensorType localType, const telar_sharding::Mesh &mesh,
                const std::string &what, std::string &error) {
  telar_sharding::Sharding sharding;
  for (const std::vector<std::string> &axes : names) {
    sharding.dims.emplace_back();
    for (const std::string &axis : axes) {
      std::optional<int64_t> index = mesh.getAxisIndex(axis);
      if (!index) {
        error = what + " is split along '" + axis +
                "', which is not an axis of the mesh " + mesh.str();
        return std::nullopt;
      }
      sharding.dims.back().push_back(*index);
    }
  }
  if (failed(checkSharding(sharding, globalShape, localType, mesh, what,
                           error)))
    return std::nullopt;
  return sharding;
}

LogicalResult checkSharding(const telar_sharding::Sharding &sharding,
                            const std::vector<int64_t> &globalShape,
                            RankedTensorType localType,
                            const telar_sharding::Mesh &mesh,
                            const std::string &what, std::string &error) {
  std::string invalid =
      telar_sharding::verifySharding(sharding, mesh, globalShape);
  if (!invalid.empty()) {
    error = what + ": " + invalid;
    return failure();
  }
  std::vector<int64_t> local =
      telar_sharding::getLocalShape(globalShape, sharding, mesh);
  if (ArrayRef<int64_t>(local) != localType.getShape()) {
    auto shape = [](ArrayRef<int64_t> dims) {
      return llvm::join(
          llvm::map_range(dims, [](int64_t d) { return std::to_string(d); }),
          "x");
    };
    error = what + " has the local type " + toString(localType) +
            ", but the block of its global shape " + shape(globalShape) +
            " is " + shape(local);
    return failure();
  }
  return success();
}

LogicalResult ArtifactWriter::createDirectories(std::string &error) {
  for (const char *sub : {kProgramsDir, kWeightsDir}) {
    std::string dir = getPath(sub);
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      error = "cannot create " + dir + ": " + ec.message();
      return failure();
    }
  }
  return success();
}

std::string ArtifactWriter::getPath(StringRef relative) const {
  SmallString<256> path(directory);
  llvm::sys::path::append(path, relative);
  return path.str().str();
}

/// The safetensors layout: an 8-byte little-endian header size, the JSON
/// header (padded with spaces, as the format allows, so that the data
/// starts 64-byte aligned), then each tensor's data at a 64-byte aligned
/// offset.
LogicalResult ArtifactWriter::writeWeightFile(StringRef relative,
                                              ArrayRef<WeightTensor> tensors,
                                              std::string &error) {
  if (failed(writeSafetensors(relative, tensors, error)))
    return failure();
  recordWeightFile(relative, tensors);
  return success();
}

void ArtifactWriter::recordWeightFile(StringRef relative,
                                      ArrayRef<WeightTensor> tensors) {
  WeightFileEntry entry{relative.str(), {}};
  for (const WeightTensor &w : tensors) {
    artifact::WeightSpec described;
    static_cast<artifact::TensorSpec &>(described) =
        describeTensor(w.name, w.type);
    described.globalShape = described.shape;
    described.file = relative.str();
    entry.tensors.push_back(std::move(described));
  }
  weightFiles.push_back(std::move(entry));
}

namespace {
/// Copies the block at `offsets` of local shape `local` out of the
/// row-major tensor `data` of shape `global`, `elementBytes` an element.
std::vector<char> cutBlock(ArrayRef<char> data, ArrayRef<int64_t> global,
                           ArrayRef<int64_t> local, ArrayRef<int64_t> offsets,
                           int64_t elementBytes) {
  int64_t rank = global.size();
  int64_t count = 1;
  for (int64_t d : local)
    count *= d;
  std::vector<char> block(count * elementBytes);
  if (count == 0)
    return block;
  if (rank == 0) {
    std::memcpy(block.data(), data.data(), elementBytes);
    return block;
  }
  // Strides (elements) of the global tensor; rows of the last dim are
  // copied whole.
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * global[d + 1];
  int64_t rowBytes = local[rank - 1] * elementBytes;
  SmallVector<int64_t> index(rank, 0);
  for (int64_t row = 0, rows = count / local[rank - 1]; row < rows; ++row) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d)
      src += (offsets[d] + index[d]) * strides[d];
    std::memcpy(block.data() + row * rowBytes, data.data() + src * elementBytes,
                rowBytes);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < local[d])
        break;
      index[d] = 0;
    }
  }
  return block;
}
} // namespace

LogicalResult ArtifactWriter::writeShardedWeightFiles(
    StringRef pattern, ArrayRef<WeightTensor> tensors,
    const telar_sharding::Mesh &mesh, std::string &error) {
  // The tensors' shardings on the mesh, checked.
  for (const WeightTensor &w : tensors) {
    if (failed(checkSharding(w.sharding, w.globalShape, w.type, mesh,
                             "weight '" + w.name + "'", error)))
      return failure();
    int64_t elements = 1;
    for (int64_t d : w.globalShape)
      elements *= d;
    if (elements == 0 || w.data.size() % elements != 0) {
      error = "weight '" + w.name + "' holds " +
              std::to_string(w.data.size()) +
              " bytes, which its global shape does not divide";
      return failure();
    }
  }
  // Names are unique per file: two shardings of one weight cannot share it.
  llvm::StringSet<> names;
  for (const WeightTensor &w : tensors)
    if (!names.insert(w.name).second) {
      error = "weight '" + w.name + "' is used with two shardings; a rank's "
              "weight file holds one block of it";
      return failure();
    }

  for (int64_t rank = 0, e = mesh.getNumDevices(); rank < e; ++rank) {
    std::vector<std::vector<char>> blocks;
    SmallVector<WeightTensor> local;
    for (const WeightTensor &w : tensors) {
      int64_t elements = 1;
      for (int64_t d : w.globalShape)
        elements *= d;
      blocks.push_back(cutBlock(
          w.data, w.globalShape, w.type.getShape(),
          telar_sharding::getBlockOffsets(w.globalShape, w.sharding, mesh,
                                          rank),
          w.data.size() / elements));
    }
    for (auto [w, block] : llvm::zip(tensors, blocks))
      local.push_back({w.name, w.type, ArrayRef<char>(block)});
    if (failed(writeSafetensors(
            artifact::expandRankPath(pattern.str(), rank), local, error)))
      return failure();
  }

  WeightFileEntry entry{pattern.str(), {}};
  for (const WeightTensor &w : tensors) {
    artifact::WeightSpec described;
    static_cast<artifact::TensorSpec &>(described) =
        describeTensor(w.name, w.type);
    described.sharding = w.sharding;
    described.globalShape = w.globalShape;
    described.file = pattern.str();
    entry.tensors.push_back(std::move(described));
  }
  weightFiles.push_back(std::move(entry));
  return success();
}

LogicalResult ArtifactWriter::writeSafetensors(StringRef relative,
                                               ArrayRef<WeightTensor> tensors,
                                               std::string &error) {
  llvm::json::Object header;
  header["__metadata__"] = llvm::json::Object{{"format", "telar"}};
  SmallVector<uint64_t> offsets;
  uint64_t offset = 0;
  for (const WeightTensor &w : tensors) {
    offset = llvm::alignTo(offset, 64);
    uint64_t end = offset + w.data.size();
    llvm::json::Array shape;
    for (int64_t d : w.type.getShape())
      shape.push_back(d);
    header[w.name] = llvm::json::Object{
        {"dtype", safetensorsDtype(w.type.getElementType())},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, end}}};
    offsets.push_back(offset);
    offset = end;
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  while ((8 + text.size()) % 64 != 0)
    text.push_back(' ');

  std::string path = getPath(relative);
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return failure();
  }
  uint64_t headerSize = text.size();
  char sizeBytes[8];
  for (int i = 0; i < 8; ++i)
    sizeBytes[i] = static_cast<char>((headerSize >> (8 * i)) & 0xff);
  out.os().write(sizeBytes, 8);
  out.os() << text;
  uint64_t written = 0;
  for (auto [w, begin] : llvm::zip(tensors, offsets)) {
    out.os().write_zeros(begin - written);
    out.os().write(w.data.data(), w.data.size());
    written = begin + w.data.size();
  }
  if (out.os().has_error()) {
    error = "cannot write " + path;
    return failure();
  }
  out.keep();
  return success();
}

void ArtifactWriter::addProgram(artifact::ProgramSpec program) {
  programs.push_back(std::move(program));
}

void ArtifactWriter::setTarget(TargetAttr target) {
  header.targetKind = target.getKind().str();
  header.targetTriple = target.getTriple().str();
  header.targetChip = target.getChip().str();
  header.targetFeatures = target.getFeatures().str();
}

static std::string hashFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "";
  llvm::SHA256 sha;
  sha.update(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

void ArtifactWriter::setModel(StringRef path) {
  header.modelPath = llvm::sys::path::filename(path).str();
  header.modelSha256 = path.empty() ? std::string() : hashFile(path);
}

void ArtifactWriter::setInputs(ArrayRef<artifact::TensorSpec> inputs) {
  header.inputs.assign(inputs.begin(), inputs.end());
}

void ArtifactWriter::setOutputs(ArrayRef<artifact::TensorSpec> outputs) {
  header.outputs.assign(outputs.begin(), outputs.end());
}

void ArtifactWriter::setMesh(const telar_sharding::Mesh &mesh) {
  header.mesh = mesh;
  header.worldSize = mesh.getNumDevices();
}

void ArtifactWriter::setTraining(const artifact::TrainingSpec &training) {
  header.training = training;
}

void ArtifactWriter::setLargestLiveSetBytes(int64_t bytes) {
  header.largestLiveSetBytes = bytes;
}

artifact::Manifest ArtifactWriter::getManifest() const {
  artifact::Manifest m = header;
  // The version of the entry-point ABI the programs are compiled for.
  m.formatVersion = m.pipeline ? kArtifactFormatVersion
                               : artifact::kUnpipelinedFormatVersion;
  m.telarVersion = TELAR_VERSION;
  m.programs = programs;
  for (const WeightFileEntry &file : weightFiles)
    m.weights.insert(m.weights.end(), file.tensors.begin(), file.tensors.end());
  return m;
}

LogicalResult ArtifactWriter::writeManifest(std::string &error) const {
  std::string path = getPath(artifact::kManifestFileName);
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return failure();
  }
  out.os() << artifact::writeManifestJson(getManifest());
  if (out.os().has_error()) {
    error = "cannot write " + path;
    return failure();
  }
  out.keep();
  return success();
}

} // namespace mlir::telar
