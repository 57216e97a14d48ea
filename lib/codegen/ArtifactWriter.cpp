//===- ArtifactWriter.cpp - Write an artifact directory -------------------===//

#include "telar/codegen/ArtifactWriter.h"
#include "telar/codegen/Artifact.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace mlir;

// Defined inside the namespace: `telar` alone would be ambiguous with the
// manifest schema's ::telar.
namespace mlir::telar {

artifact::TensorEntry describeTensor(StringRef name,
                                            RankedTensorType type) {
  return {name.str(), numpyDtypeName(type.getElementType()),
          std::vector<int64_t>(type.getShape().begin(), type.getShape().end())};
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
  WeightFileEntry entry{relative.str(), {}};
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
    artifact::WeightEntry described;
    static_cast<artifact::TensorEntry &>(described) =
        describeTensor(w.name, w.type);
    described.file = relative.str();
    entry.tensors.push_back(std::move(described));
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
  weightFiles.push_back(std::move(entry));
  return success();
}

void ArtifactWriter::addProgram(artifact::ProgramEntry program) {
  programs.push_back(std::move(program));
}

void ArtifactWriter::setTarget(StringRef kind, StringRef triple, StringRef cpu,
                               StringRef features) {
  header.targetKind = kind.str();
  header.targetTriple = triple.str();
  header.targetCpu = cpu.str();
  header.targetFeatures = features.str();
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

void ArtifactWriter::setInputs(ArrayRef<artifact::TensorEntry> inputs) {
  header.inputs.assign(inputs.begin(), inputs.end());
}

void ArtifactWriter::setOutputs(ArrayRef<artifact::TensorEntry> outputs) {
  header.outputs.assign(outputs.begin(), outputs.end());
}

void ArtifactWriter::setLargestLiveSetBytes(int64_t bytes) {
  header.largestLiveSetBytes = bytes;
}

artifact::Manifest ArtifactWriter::getManifest() const {
  artifact::Manifest m = header;
  // The version of the entry-point ABI the programs are compiled for.
  m.formatVersion = kArtifactFormatVersion;
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
