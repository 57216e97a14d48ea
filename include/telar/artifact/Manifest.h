//===- Manifest.h - The schema of an artifact's manifest.json ---*- C++ -*-===//
//
// The one description of manifest.json (docs/Artifact.md), shared by the
// writer (telarc, lib/codegen) and the reader (the runtime): the format name
// and version, every field name, plain structs holding a manifest, and the
// one function that serialises them. Plain C++17 with no MLIR, LLVM or JSON
// library dependency, so that both sides (LLVM-built code without
// exceptions, and the runtime) include it as it is.
//
// The namespace is telar_artifact, not telar::artifact: the compiler's code
// lives in mlir::telar and writes `telar::` under `using namespace mlir`,
// which a ::telar namespace would make ambiguous. The runtime (telar::runtime)
// names it telar::runtime::artifact.
//
// The reader (runtime/Artifact.cpp) parses with nlohmann-json and checks
// every field, naming the field at fault; it reads the keys below.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_ARTIFACT_MANIFEST_H
#define TELAR_ARTIFACT_MANIFEST_H

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace telar_artifact {

/// The value of the "format" field.
inline constexpr char kFormatName[] = "telar-artifact";

/// The artifact format version written into manifest.json. The runtime
/// reads it and every version from kOldestReadableFormatVersion on. History:
/// 1, `void telar_main_entry(void **)`, one program; 2, `int
/// telar_entry(TelarContext *, void **)` (the context ABI,
/// include/telar/runtime/Abi.h), programs name the weight files they read;
/// 3, multi-rank artifacts: a device mesh, the world size, the sharding of
/// inputs, outputs and weights, per-rank weight files ("{rank}" in a path)
/// and the collective ABI. A version-3 manifest without a mesh, and every
/// version-2 one, is a single-device artifact; 4, pipelined artifacts: a
/// "pipeline" object (stages in sub-directories, each a complete version-3
/// artifact, the transfers between them and the schedule table). A
/// version-4 manifest without a pipeline reads as version 3.
inline constexpr int64_t kArtifactFormatVersion = 4;
inline constexpr int64_t kOldestReadableFormatVersion = 2;
/// The version an artifact without a pipeline is written with (a pipeline's
/// stages among them): what it holds means what it meant in version 3.
inline constexpr int64_t kUnpipelinedFormatVersion = 3;

/// In a weight's `file` (and a program's `weight_files`), replaced by the
/// rank number: each rank maps its own file.
inline constexpr char kRankPlaceholder[] = "{rank}";

/// The manifest's file name inside the artifact directory.
inline constexpr char kManifestFileName[] = "manifest.json";

/// The entry point telarc's programs export (Abi.h: TelarEntryFn).
inline constexpr char kDefaultEntryName[] = "telar_entry";

/// Field names. Nested objects' fields are prefixed with the object's name.
namespace key {
inline constexpr char kFormat[] = "format";
inline constexpr char kFormatVersion[] = "format_version";
inline constexpr char kTelarVersion[] = "telar_version";

inline constexpr char kModel[] = "model";
inline constexpr char kModelPath[] = "path";
inline constexpr char kModelSha256[] = "sha256";

inline constexpr char kTarget[] = "target";
inline constexpr char kTargetKind[] = "kind";
inline constexpr char kTargetTriple[] = "triple";
/// The chip (CPU name, GPU architecture) of #telar.target; "cpu" before
/// targets other than the CPU existed (still read).
inline constexpr char kTargetChip[] = "chip";
inline constexpr char kTargetCpu[] = "cpu";
inline constexpr char kTargetFeatures[] = "features";

inline constexpr char kPrograms[] = "programs";
inline constexpr char kProgramName[] = "name";
inline constexpr char kProgramLibrary[] = "library";
inline constexpr char kProgramEntry[] = "entry";
inline constexpr char kProgramWeightFiles[] = "weight_files";

inline constexpr char kInputs[] = "inputs";
inline constexpr char kOutputs[] = "outputs";
inline constexpr char kWeights[] = "weights";
inline constexpr char kTensorName[] = "name";
inline constexpr char kTensorDType[] = "dtype";
inline constexpr char kTensorShape[] = "shape";
inline constexpr char kWeightFile[] = "file";
/// Version 3: per tensor dimension the mesh axes (names) that split it,
/// major to minor (absent: replicated); on inputs and outputs `shape` is the
/// global shape, on weights the local one with the global one in
/// `global_shape`.
inline constexpr char kTensorSharding[] = "sharding";
inline constexpr char kWeightGlobalShape[] = "global_shape";

/// Version 3: the device mesh {"axes": [names], "shape": [sizes]} and the
/// number of ranks (the product of the sizes).
inline constexpr char kMesh[] = "mesh";
inline constexpr char kMeshAxes[] = "axes";
inline constexpr char kMeshShape[] = "shape";
inline constexpr char kWorldSize[] = "world_size";

/// Version 4: the pipeline of a pipelined artifact (docs/Artifact.md,
/// "Pipelined artifacts").
inline constexpr char kPipeline[] = "pipeline";
inline constexpr char kPipelineMicrobatches[] = "microbatches";
inline constexpr char kPipelineSchedule[] = "schedule";
inline constexpr char kPipelineVirtualStages[] = "virtual_stages";
inline constexpr char kPipelineStages[] = "stages";
inline constexpr char kStageDirectory[] = "directory";
inline constexpr char kStageFirstRank[] = "first_rank";
inline constexpr char kStageNumRanks[] = "num_ranks";
inline constexpr char kPipelineInputs[] = "inputs";
inline constexpr char kPipelineOutputs[] = "outputs";
inline constexpr char kPipelineTensorName[] = "name";
inline constexpr char kPipelineMicrobatchDim[] = "microbatch_dim";
inline constexpr char kPipelineOutputStage[] = "stage";
inline constexpr char kPipelineTransfers[] = "transfers";
inline constexpr char kTransferName[] = "name";
inline constexpr char kTransferFromStage[] = "from_stage";
inline constexpr char kTransferToStage[] = "to_stage";
inline constexpr char kTransferDType[] = "dtype";
inline constexpr char kTransferShape[] = "shape";
inline constexpr char kTransferMessages[] = "messages";
inline constexpr char kMessageFromRank[] = "from_rank";
inline constexpr char kMessageToRank[] = "to_rank";
inline constexpr char kMessageFromOffsets[] = "from_offsets";
inline constexpr char kMessageToOffsets[] = "to_offsets";
inline constexpr char kMessageSizes[] = "sizes";
inline constexpr char kPipelineScheduleTable[] = "schedule_table";
inline constexpr char kStepOp[] = "op";
inline constexpr char kStepMicrobatch[] = "microbatch";
inline constexpr char kStepStage[] = "stage";
inline constexpr char kStepTransfers[] = "transfers";

inline constexpr char kMemory[] = "memory";
inline constexpr char kMemoryLargestLiveSetBytes[] = "largest_live_set_bytes";
} // namespace key

/// Per tensor dimension, the names of the mesh axes that split it, major to
/// minor. Empty (no dimensions): replicated, not written.
using ShardingEntry = std::vector<std::vector<std::string>>;

/// A tensor of the interface: `dtype` is numpy's name ("float32", "int64",
/// "bool", ...), the shape static (empty for a scalar). For inputs and
/// outputs of a multi-rank artifact `shape` is the global shape and
/// `sharding` says how it is split (the program's buffers are the local
/// blocks).
struct TensorEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  ShardingEntry sharding = {};
};

/// A weight: tensor `name` of the safetensors file `file` (a path relative
/// to the artifact directory, "{rank}" replaced by the rank number). Names
/// are unique per file, so the shards of one weight in several files may
/// share a name. `shape` is what the program sees (the local block); a
/// sharded weight has its `sharding` and `globalShape` too.
struct WeightEntry : TensorEntry {
  std::string file;
  std::vector<int64_t> globalShape = {};
};

/// The device mesh of a multi-rank artifact (absent: single device). Ranks
/// are numbered row-major over the axes (include/telar/sharding/core/Sharding.h).
struct MeshEntry {
  std::vector<std::string> axes;
  std::vector<int64_t> shape;
};

/// `path` with every "{rank}" replaced by `rank`.
inline std::string expandRankPath(std::string path, int64_t rank) {
  const std::string placeholder = kRankPlaceholder;
  std::string number = std::to_string(rank);
  for (size_t p = path.find(placeholder); p != std::string::npos;
       p = path.find(placeholder, p + number.size()))
    path.replace(p, placeholder.size(), number);
  return path;
}

/// A program: a shared library (relative path) exporting `entry`. One
/// program per rank or pipeline stage; a single-device artifact has one,
/// called "main". It is called with the buffers of every manifest input,
/// then every weight whose file is in `weightFiles` (manifest order), then
/// every manifest output. A runtime running this program maps only those
/// files.
struct ProgramEntry {
  std::string name;
  std::string library;
  std::string entry = kDefaultEntryName;
  std::vector<std::string> weightFiles;
};

/// Version 4: one stage of a pipeline, a complete artifact in `directory`
/// (relative) running on world ranks [firstRank, firstRank + numRanks).
struct PipelineStageEntry {
  std::string directory;
  int64_t firstRank = 0;
  int64_t numRanks = 1;
};

/// A graph input and the dimension microbatches split (-1: every
/// microbatch takes it whole).
struct PipelineInputEntry {
  std::string name;
  int64_t microbatchDim = 0;
};

/// A graph output, the stage computing it, and the dimension microbatches
/// concatenate along (-1: the same for every microbatch, microbatch 0's).
struct PipelineOutputEntry {
  std::string name;
  int64_t stage = 0;
  int64_t microbatchDim = 0;
};

/// A box of a boundary value from world rank `fromRank`'s local block (at
/// `fromOffsets`) to `toRank`'s (at `toOffsets`), of shape `sizes`.
struct PipelineMessageEntry {
  int64_t fromRank = 0, toRank = 0;
  std::vector<int64_t> fromOffsets, toOffsets, sizes;
};

/// A boundary value `name` of stage `fromStage` used by stage `toStage`:
/// `shape` is the global microbatch shape.
struct PipelineTransferEntry {
  std::string name;
  int64_t fromStage = 0, toStage = 0;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<PipelineMessageEntry> messages;
};

/// One step of a rank's schedule: `op` is "forward", "backward", "send" or
/// "recv"; send and recv steps list the transfers (indices, ascending) this
/// rank sends or receives in.
struct PipelineStepEntry {
  std::string op;
  int64_t microbatch = 0;
  int64_t stage = 0;
  std::vector<int64_t> transfers = {};
};

/// The "pipeline" object of a version-4 manifest.
struct PipelineEntry {
  int64_t microbatches = 1;
  std::string schedule = "gpipe";
  int64_t virtualStages = 1;
  std::vector<PipelineStageEntry> stages;
  std::vector<PipelineInputEntry> inputs;
  std::vector<PipelineOutputEntry> outputs;
  std::vector<PipelineTransferEntry> transfers;
  /// One list per world rank.
  std::vector<std::vector<PipelineStepEntry>> scheduleTable;
};

/// manifest.json. Optional fields are written only when non-empty.
struct Manifest {
  int64_t formatVersion = kArtifactFormatVersion;
  std::string telarVersion;
  std::string modelPath, modelSha256;
  std::string targetKind, targetTriple, targetChip, targetFeatures;
  std::vector<ProgramEntry> programs;
  std::vector<TensorEntry> inputs;
  std::vector<TensorEntry> outputs;
  std::vector<WeightEntry> weights;
  /// The compiler's lower bound for intermediate memory (the largest set of
  /// intermediate tensors alive at once), when known.
  std::optional<int64_t> largestLiveSetBytes;
  /// Multi-rank artifacts (version 3): the mesh and the number of ranks
  /// (written when the mesh is; one SPMD program runs on every rank).
  std::optional<MeshEntry> mesh;
  std::optional<int64_t> worldSize;
  /// Pipelined artifacts (version 4; with `worldSize`, no mesh, no
  /// programs or weights).
  std::optional<PipelineEntry> pipeline;
};

namespace detail {
inline void appendJsonString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c); // UTF-8 passes through
      }
    }
  }
  out += '"';
}

/// Builds a JSON text two spaces per level, one field per line; arrays of
/// numbers and of strings stay on one line.
class JsonWriter {
public:
  std::string take() { return std::move(out); }
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  void key(const char *k) {
    element();
    appendJsonString(out, k);
    out += ": ";
    pendingValue = true;
  }
  void value(const std::string &s) {
    element();
    appendJsonString(out, s);
  }
  void value(int64_t v) {
    element();
    out += std::to_string(v);
  }
  /// [["data"], []]: an array of inline arrays, on one line.
  void inlineNestedArray(const std::vector<std::vector<std::string>> &v) {
    element();
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i)
        out += ", ";
      pendingValue = true;
      inlineArray(v[i]);
    }
    out += ']';
  }
  template <typename T> void inlineArray(const std::vector<T> &values) {
    element();
    out += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i)
        out += ", ";
      if constexpr (std::is_same_v<T, std::string>)
        appendJsonString(out, values[i]);
      else
        out += std::to_string(values[i]);
    }
    out += ']';
  }

private:
  // Starts a value: a comma and a new line unless it follows its key.
  void element() {
    if (pendingValue) {
      pendingValue = false;
      return;
    }
    if (!first.empty()) {
      if (!first.back())
        out += ',';
      first.back() = false;
      newline();
    }
  }
  void open(char c) {
    element();
    out += c;
    first.push_back(true);
  }
  void close(char c) {
    bool empty = first.back();
    first.pop_back();
    if (!empty)
      newline();
    out += c;
  }
  void newline() {
    out += '\n';
    out.append(2 * first.size(), ' ');
  }
  std::string out;
  std::vector<bool> first; // per open container: nothing written yet
  bool pendingValue = false;
};
} // namespace detail

/// manifest.json's text for `m` (ending in a new line). Writes what it is
/// given: checking is the reader's (and the writer's caller's) business.
inline std::string writeManifestJson(const Manifest &m) {
  detail::JsonWriter w;
  auto tensor = [&](const TensorEntry &t, const WeightEntry *weight) {
    w.beginObject();
    w.key(key::kTensorName);
    w.value(t.name);
    w.key(key::kTensorDType);
    w.value(t.dtype);
    w.key(key::kTensorShape);
    w.inlineArray(t.shape);
    if (weight && !weight->globalShape.empty()) {
      w.key(key::kWeightGlobalShape);
      w.inlineArray(weight->globalShape);
    }
    if (!t.sharding.empty()) {
      w.key(key::kTensorSharding);
      w.inlineNestedArray(t.sharding);
    }
    if (weight) {
      w.key(key::kWeightFile);
      w.value(weight->file);
    }
    w.endObject();
  };
  w.beginObject();
  w.key(key::kFormat);
  w.value(std::string(kFormatName));
  w.key(key::kFormatVersion);
  w.value(m.formatVersion);
  if (!m.telarVersion.empty()) {
    w.key(key::kTelarVersion);
    w.value(m.telarVersion);
  }
  w.key(key::kModel);
  w.beginObject();
  w.key(key::kModelPath);
  w.value(m.modelPath);
  w.key(key::kModelSha256);
  w.value(m.modelSha256);
  w.endObject();
  w.key(key::kTarget);
  w.beginObject();
  w.key(key::kTargetKind);
  w.value(m.targetKind);
  w.key(key::kTargetTriple);
  w.value(m.targetTriple);
  w.key(key::kTargetChip);
  w.value(m.targetChip);
  w.key(key::kTargetFeatures);
  w.value(m.targetFeatures);
  w.endObject();
  if (m.mesh) {
    w.key(key::kMesh);
    w.beginObject();
    w.key(key::kMeshAxes);
    w.inlineArray(m.mesh->axes);
    w.key(key::kMeshShape);
    w.inlineArray(m.mesh->shape);
    w.endObject();
  }
  if (m.worldSize) {
    w.key(key::kWorldSize);
    w.value(*m.worldSize);
  }
  w.key(key::kPrograms);
  w.beginArray();
  for (const ProgramEntry &p : m.programs) {
    w.beginObject();
    w.key(key::kProgramName);
    w.value(p.name);
    w.key(key::kProgramLibrary);
    w.value(p.library);
    w.key(key::kProgramEntry);
    w.value(p.entry);
    w.key(key::kProgramWeightFiles);
    w.inlineArray(p.weightFiles);
    w.endObject();
  }
  w.endArray();
  if (m.largestLiveSetBytes) {
    w.key(key::kMemory);
    w.beginObject();
    w.key(key::kMemoryLargestLiveSetBytes);
    w.value(*m.largestLiveSetBytes);
    w.endObject();
  }
  for (auto [k, list] : {std::pair{key::kInputs, &m.inputs},
                         std::pair{key::kOutputs, &m.outputs}}) {
    w.key(k);
    w.beginArray();
    for (const TensorEntry &t : *list)
      tensor(t, nullptr);
    w.endArray();
  }
  w.key(key::kWeights);
  w.beginArray();
  for (const WeightEntry &t : m.weights)
    tensor(t, &t);
  w.endArray();
  if (m.pipeline) {
    const PipelineEntry &p = *m.pipeline;
    w.key(key::kPipeline);
    w.beginObject();
    w.key(key::kPipelineMicrobatches);
    w.value(p.microbatches);
    w.key(key::kPipelineSchedule);
    w.value(p.schedule);
    w.key(key::kPipelineVirtualStages);
    w.value(p.virtualStages);
    w.key(key::kPipelineStages);
    w.beginArray();
    for (const PipelineStageEntry &s : p.stages) {
      w.beginObject();
      w.key(key::kStageDirectory);
      w.value(s.directory);
      w.key(key::kStageFirstRank);
      w.value(s.firstRank);
      w.key(key::kStageNumRanks);
      w.value(s.numRanks);
      w.endObject();
    }
    w.endArray();
    w.key(key::kPipelineInputs);
    w.beginArray();
    for (const PipelineInputEntry &i : p.inputs) {
      w.beginObject();
      w.key(key::kPipelineTensorName);
      w.value(i.name);
      w.key(key::kPipelineMicrobatchDim);
      w.value(i.microbatchDim);
      w.endObject();
    }
    w.endArray();
    w.key(key::kPipelineOutputs);
    w.beginArray();
    for (const PipelineOutputEntry &o : p.outputs) {
      w.beginObject();
      w.key(key::kPipelineTensorName);
      w.value(o.name);
      w.key(key::kPipelineOutputStage);
      w.value(o.stage);
      w.key(key::kPipelineMicrobatchDim);
      w.value(o.microbatchDim);
      w.endObject();
    }
    w.endArray();
    w.key(key::kPipelineTransfers);
    w.beginArray();
    for (const PipelineTransferEntry &t : p.transfers) {
      w.beginObject();
      w.key(key::kTransferName);
      w.value(t.name);
      w.key(key::kTransferFromStage);
      w.value(t.fromStage);
      w.key(key::kTransferToStage);
      w.value(t.toStage);
      w.key(key::kTransferDType);
      w.value(t.dtype);
      w.key(key::kTransferShape);
      w.inlineArray(t.shape);
      w.key(key::kTransferMessages);
      w.beginArray();
      for (const PipelineMessageEntry &msg : t.messages) {
        w.beginObject();
        w.key(key::kMessageFromRank);
        w.value(msg.fromRank);
        w.key(key::kMessageToRank);
        w.value(msg.toRank);
        w.key(key::kMessageFromOffsets);
        w.inlineArray(msg.fromOffsets);
        w.key(key::kMessageToOffsets);
        w.inlineArray(msg.toOffsets);
        w.key(key::kMessageSizes);
        w.inlineArray(msg.sizes);
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    w.endArray();
    w.key(key::kPipelineScheduleTable);
    w.beginArray();
    for (const std::vector<PipelineStepEntry> &steps : p.scheduleTable) {
      w.beginArray();
      for (const PipelineStepEntry &step : steps) {
        w.beginObject();
        w.key(key::kStepOp);
        w.value(step.op);
        w.key(key::kStepMicrobatch);
        w.value(step.microbatch);
        w.key(key::kStepStage);
        w.value(step.stage);
        if (step.op == "send" || step.op == "recv") {
          w.key(key::kStepTransfers);
          w.inlineArray(step.transfers);
        }
        w.endObject();
      }
      w.endArray();
    }
    w.endArray();
    w.endObject();
  }
  w.endObject();
  return w.take() + "\n";
}

} // namespace telar_artifact

#endif // TELAR_ARTIFACT_MANIFEST_H
