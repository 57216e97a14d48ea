//===- ManifestWriter.cpp - Write manifest.json ---------------------------===//
//
// writeManifestJson (include/telar/artifact/Manifest.h). A small writer of
// our own rather than a JSON library's, for the layout: one field per
// line, short arrays on one line, so that manifests read well and diff
// well. It throws nothing (the compiler, built without exceptions, calls
// it).
//
//===----------------------------------------------------------------------===//

#include "telar/artifact/Manifest.h"

#include <cstdio>
#include <type_traits>
#include <utility>

using namespace telar_artifact;
namespace key = telar_artifact::key;

namespace {
void appendJsonString(std::string &out, const std::string &s) {
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
  void value(bool v) {
    element();
    out += v ? "true" : "false";
  }
  void number(double v) {
    element();
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", v);
    out += buffer;
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
} // namespace

std::string telar_artifact::writeManifestJson(const Manifest &m) {
  JsonWriter w;
  // Shardings by axis name; a sharded weight's global shape.
  auto tensor = [&](const TensorSpec &t, const WeightSpec *weight) {
    w.beginObject();
    w.key(key::kTensorName);
    w.value(t.name);
    w.key(key::kTensorDType);
    w.value(std::string(dtypeName(t.dtype)));
    w.key(key::kTensorShape);
    w.inlineArray(t.shape);
    bool sharded = !t.sharding.dims.empty();
    if (weight && (sharded || (!weight->globalShape.empty() &&
                               weight->globalShape != weight->shape))) {
      w.key(key::kWeightGlobalShape);
      w.inlineArray(weight->globalShape.empty() ? weight->shape
                                                : weight->globalShape);
    }
    if (sharded) {
      std::vector<std::vector<std::string>> names;
      for (const std::vector<int64_t> &axes : t.sharding.dims) {
        names.emplace_back();
        for (int64_t a : axes)
          names.back().push_back(a >= 0 && a < m.mesh.getNumAxes()
                                     ? m.mesh.axisNames[size_t(a)]
                                     : "?");
      }
      w.key(key::kTensorSharding);
      w.inlineNestedArray(names);
    }
    if (weight) {
      w.key(key::kWeightFile);
      w.value(weight->file);
    }
    if (!t.updates.empty()) {
      w.key(key::kTensorUpdates);
      w.value(t.updates);
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
  if (m.hasMesh()) {
    w.key(key::kMesh);
    w.beginObject();
    w.key(key::kMeshAxes);
    w.inlineArray(m.mesh.axisNames);
    w.key(key::kMeshShape);
    w.inlineArray(m.mesh.axisSizes);
    w.endObject();
  }
  if (m.hasMesh() || m.isPipelined() || m.worldSize != 1) {
    w.key(key::kWorldSize);
    w.value(m.worldSize);
  }
  w.key(key::kPrograms);
  w.beginArray();
  for (const ProgramSpec &p : m.programs) {
    w.beginObject();
    w.key(key::kProgramName);
    w.value(p.name);
    w.key(key::kProgramLibrary);
    w.value(p.library);
    w.key(key::kProgramEntry);
    w.value(p.entry);
    w.key(key::kProgramWeightFiles);
    w.inlineArray(p.weightFiles);
    if (p.isGpuProgram()) {
      w.key(key::kProgramKernelDirectory);
      w.value(p.kernelDirectory);
      if (!p.emulationLibrary.empty()) {
        w.key(key::kProgramEmulationLibrary);
        w.value(p.emulationLibrary);
      }
      w.key(key::kProgramKernels);
      w.beginArray();
      for (const KernelSpec &k : p.kernels) {
        w.beginObject();
        w.key(key::kProgramKernelModule);
        w.value(k.module);
        w.key(key::kProgramKernelFunction);
        w.value(k.function);
        w.endObject();
      }
      w.endArray();
    }
    w.endObject();
  }
  w.endArray();
  if (m.largestLiveSetBytes >= 0) {
    w.key(key::kMemory);
    w.beginObject();
    w.key(key::kMemoryLargestLiveSetBytes);
    w.value(m.largestLiveSetBytes);
    w.endObject();
  }
  for (auto [k, list] : {std::pair{key::kInputs, &m.inputs},
                         std::pair{key::kOutputs, &m.outputs}}) {
    w.key(k);
    w.beginArray();
    for (const TensorSpec &t : *list)
      tensor(t, nullptr);
    w.endArray();
  }
  w.key(key::kWeights);
  w.beginArray();
  for (const WeightSpec &t : m.weights)
    tensor(t, &t);
  w.endArray();
  if (m.training) {
    const TrainingSpec &t = *m.training;
    w.key(key::kTraining);
    w.beginObject();
    w.key(key::kTrainingLoss);
    w.value(t.loss);
    w.key(key::kTrainingOptimizer);
    w.value(t.optimizer);
    w.key(key::kTrainingHyperparameters);
    w.beginObject();
    for (const auto &[k, v] : t.hyperparameters) {
      w.key(k.c_str());
      w.number(v);
    }
    w.endObject();
    w.key(key::kTrainingParameters);
    w.beginArray();
    for (const TrainingParameterSpec &p : t.parameters) {
      w.beginObject();
      w.key(key::kTrainingParameterName);
      w.value(p.name);
      w.key(key::kTrainingParameterOutput);
      w.value(p.output);
      w.endObject();
    }
    w.endArray();
    if (!t.exportModel.empty()) {
      w.key(key::kTrainingExportModel);
      w.value(t.exportModel);
    }
    w.endObject();
  }
  if (m.pipeline) {
    const PipelineSpec &p = *m.pipeline;
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
    for (const PipelineStageSpec &s : p.stages) {
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
    for (const PipelineTensorSpec &i : p.inputs) {
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
    for (const PipelineTensorSpec &o : p.outputs) {
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
    for (const PipelineTransferSpec &t : p.transfers) {
      w.beginObject();
      w.key(key::kTransferName);
      w.value(t.name);
      w.key(key::kTransferFromStage);
      w.value(t.fromStage);
      w.key(key::kTransferToStage);
      w.value(t.toStage);
      w.key(key::kTransferDType);
      w.value(std::string(dtypeName(t.dtype)));
      w.key(key::kTransferShape);
      w.inlineArray(t.shape);
      if (t.gradient) {
        w.key(key::kTransferGradient);
        w.value(true);
      }
      w.key(key::kTransferMessages);
      w.beginArray();
      for (const PipelineMessageSpec &msg : t.messages) {
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
    for (const std::vector<PipelineStepSpec> &steps : p.scheduleTable) {
      w.beginArray();
      for (const PipelineStepSpec &step : steps) {
        w.beginObject();
        w.key(key::kStepOp);
        w.value(std::string(telar_sharding::getPipelineStepKindName(step.op)));
        if (step.op != PipelineStepSpec::Op::Optimizer) {
          w.key(key::kStepMicrobatch);
          w.value(step.microbatch);
        }
        w.key(key::kStepStage);
        w.value(step.stage);
        if (step.isTransfer()) {
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

