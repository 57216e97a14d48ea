//===- Train.cpp - telar-run --train: a training artifact's steps ---------===//
//
// A training artifact (telarc --train; docs/Training.md) runs one program
// per step: it takes the step's inputs, the learning rate `@lr` (and, for
// adamw, the step number `@step`), and returns the loss and the new value
// of every variable (the outputs whose manifest entry `updates` a weight).
// After each step the runtime copies those into the (writable) weights, so
// that the next step reads them.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "Report.h"
#include "TensorIO.h"
#include "Trace.h"

#include "telar/runtime/FileUtil.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/OnnxExport.h"
#include "telar/runtime/Safetensors.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

using namespace telar::runtime;

namespace telar::tools::run {
namespace {

/// The inputs the runtime supplies to a training step.
constexpr char kLearningRateInput[] = "@lr";
constexpr char kStepInput[] = "@step";

/// One user input: every step's rows (the file's leading dimension).
struct StepInput {
  size_t index = 0; // in the manifest's inputs
  Tensor all;       // [rows, ...the input's global shape]
  int64_t rows = 0;
};

/// Reads the --input files: each holds the input's global shape behind a
/// leading dimension of steps.
std::vector<StepInput> readStepInputs(const Options &o, const Manifest &m) {
  std::map<std::string, std::string> files;
  for (const auto &[name, file] : o.inputs)
    if (!files.emplace(name, file).second)
      throw Error("input '" + name + "' is given more than once");
  std::vector<StepInput> result;
  std::vector<TensorSpec> expected;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const TensorSpec &s = m.inputs[i];
    if (s.name == kLearningRateInput || s.name == kStepInput)
      continue;
    expected.push_back(s);
    auto it = files.find(s.name);
    if (it == files.end())
      continue;
    const std::string &file = it->second;
    Tensor all = readNpy(file);
    Shape shape = all.getShape();
    if (all.getDType() != s.dtype || shape.size() != s.shape.size() + 1 ||
        !std::equal(s.shape.begin(), s.shape.end(), shape.begin() + 1) ||
        shape[0] < 1)
      throw Error("input '" + s.name + "': a training input holds the "
                  "steps' values, [steps, " +
                  formatShape(s.shape).substr(1) + " of " +
                  dtypeName(s.dtype) + ", but " + file + " holds " +
                  all.typeString());
    result.push_back({i, std::move(all), shape[0]});
    files.erase(it);
  }
  if (!files.empty())
    throw Error("unknown input '" + files.begin()->first +
                "' (the training step's inputs are: " +
                listTensors(expected) + ")");
  if (result.size() != expected.size()) {
    std::string missing;
    for (const TensorSpec &s : expected)
      if (std::none_of(result.begin(), result.end(), [&](const StepInput &i) {
            return m.inputs[i.index].name == s.name;
          }))
        missing += (missing.empty() ? "'" : ", '") + s.name + "'";
    throw Error("missing input " + missing + " (expected inputs: " +
                listTensors(expected) +
                ", each with a leading steps dimension; pass each as --input "
                "NAME=FILE.npy)");
  }
  return result;
}

/// Row `row` of `all`, a tensor of `spec`'s global shape.
Tensor selectRow(const StepInput &input, const TensorSpec &spec, int64_t row) {
  Tensor t(spec.dtype, spec.shape);
  std::memcpy(t.data(),
              static_cast<const char *>(input.all.data()) +
                  size_t(row) * t.getByteSize(),
              t.getByteSize());
  return t;
}

/// A float32 scalar.
Tensor scalar(double value) {
  Tensor t(DType::Float32, {});
  *t.data<float>() = float(value);
  return t;
}

/// A variable of the training step: the weight it is, the output holding
/// its new value after a step, and the weight's buffer on the device.
struct Variable {
  std::string weight;
  size_t output = 0;
  void *buffer = nullptr;
};

/// Writes `bytes` to `path` through a temporary file renamed into place:
/// a reader sees the old file or the whole new one.
void writeFileAtomically(const std::string &path, const std::string &bytes) {
  std::string partial = path + ".partial";
  detail::writeFile(partial, bytes);
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec)
    throw Error("cannot rename '" + partial + "' to '" + path +
                "': " + ec.message());
}

void barrier(const Job &job) {
  if (!job.world)
    return;
  comm::WaitScope wait("barrier", "the world");
  job.world->barrier();
}

/// Writes the checkpoint of step `step` (1-based, just completed) into
/// `dir`: each rank its blocks of the variables (DIR/step-S/rank-R), then
/// rank 0 its description and DIR/latest, each file renamed into place
/// once complete, so a crash leaves the previous checkpoint the latest.
void writeCheckpoint(const Job &job, const std::string &dir, int64_t step,
                     const Manifest &m, const std::vector<Variable> &variables,
                     const std::vector<Tensor> &outputs) {
  namespace fs = std::filesystem;
  std::string name = "step-" + std::to_string(step);
  fs::path partial = fs::path(dir) / (name + ".partial");
  std::error_code ec;
  fs::create_directories(partial, ec);
  if (ec)
    throw Error("cannot create '" + partial.string() + "': " + ec.message());
  std::vector<std::pair<std::string, const Tensor *>> tensors;
  for (const Variable &v : variables)
    tensors.push_back({v.weight, &outputs[v.output]});
  writeFileAtomically(
      (partial / ("rank-" + std::to_string(job.rank) + ".safetensors"))
          .string(),
      writeSafetensors(tensors));
  barrier(job);
  if (job.rank == 0) {
    nlohmann::ordered_json j;
    j["step"] = step;
    j["world_size"] = job.size;
    j["model_sha256"] = m.modelSha256;
    j["optimizer"] = m.training->optimizer;
    writeFileAtomically((partial / "checkpoint.json").string(),
                        j.dump(2) + "\n");
    fs::path final = fs::path(dir) / name;
    fs::remove_all(final, ec);
    fs::rename(partial, final, ec);
    if (ec)
      throw Error("cannot rename '" + partial.string() + "': " + ec.message());
    writeFileAtomically((fs::path(dir) / "latest").string(), name + "\n");
  }
  barrier(job);
}

/// Loads the newest checkpoint of `dir` into the variables' weights (via
/// `load`); returns its step.
int64_t readCheckpoint(const Job &job, const std::string &dir,
                       const Manifest &m,
                       const std::function<void(const std::string &,
                                                const SafetensorsTensor &)>
                           &load) {
  namespace fs = std::filesystem;
  std::string latest = detail::readFile((fs::path(dir) / "latest").string());
  while (!latest.empty() && (latest.back() == '\n' || latest.back() == ' '))
    latest.pop_back();
  if (latest.empty() || latest.find('/') != std::string::npos ||
      latest.find("..") != std::string::npos)
    throw Error("--resume " + dir + ": 'latest' names no checkpoint");
  fs::path at = fs::path(dir) / latest;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(detail::readFile((at / "checkpoint.json").string()));
  } catch (const nlohmann::json::exception &e) {
    throw Error("--resume " + at.string() + ": checkpoint.json: " + e.what());
  }
  if (!j.is_object() || !j.contains("step") || !j["step"].is_number_integer() ||
      !j.contains("world_size") || !j["world_size"].is_number_integer())
    throw Error("--resume " + at.string() +
                ": checkpoint.json has no integer 'step' and 'world_size'");
  if (j["world_size"].get<int64_t>() != job.size)
    throw Error("--resume " + at.string() + ": the checkpoint has " +
                std::to_string(j["world_size"].get<int64_t>()) +
                " ranks, this job " + std::to_string(job.size));
  if (j.value("model_sha256", std::string()) != m.modelSha256)
    throw Error("--resume " + at.string() +
                ": the checkpoint is of another model than the artifact's");
  std::unique_ptr<SafetensorsFile> file = SafetensorsFile::open(
      (at / ("rank-" + std::to_string(job.rank) + ".safetensors")).string());
  for (const auto &[name, tensor] : file->getTensors())
    load(name, tensor);
  return j["step"].get<int64_t>();
}

} // namespace

int train(const Options &o, const Job &job) {
  setUpThreads(o, job);

  std::unique_ptr<Artifact> artifact;
  std::string exportTemplate;
  std::vector<StepInput> inputs;
  std::ofstream report;
  std::string problem;
  try {
    checkRanks(o, job);
    artifact = Artifact::load(o.artifact, o.program, job.world, o.emulate);
    const Manifest &m = artifact->getManifest();
    if (!m.training)
      throw Error("'" + o.artifact +
                  "' is no training artifact (compile it with telarc "
                  "--train)");
    if (!o.exportOnnx.empty()) {
      if (m.training->exportModel.empty())
        throw Error("--export-onnx: '" + o.artifact +
                    "' holds no model to export (telarc could not write it; "
                    "use --save-weights)");
      // Found before the first step, not after the last.
      exportTemplate = detail::resolveInside(
          artifact->getDirectory(), m.training->exportModel, "export model");
    }
    artifact->makeWeightsWritable();
    inputs = readStepInputs(o, m);
    checkTraceFile(o, job);
    if (!o.report.empty() && job.rank == 0) {
      report.open(o.report);
      if (!report)
        throw Error("cannot write report '" + o.report +
                    "': " + std::strerror(errno));
    }
  } catch (const std::exception &e) {
    problem = e.what();
  }
  if (!agree(job, problem))
    return 1;

  const Manifest &m = artifact->getManifest();
  const TrainingSpec &training = *m.training;
  double lr = o.learningRate ? *o.learningRate : training.get("lr", 0.0);

  std::vector<Tensor> outputs = artifact->allocateOutputs();
  std::vector<void *> out;
  for (Tensor &t : outputs)
    out.push_back(t.data());
  Device &device = artifact->getContext().getDevice();
  size_t lossIndex = m.outputs.size();
  for (size_t i = 0; i < m.outputs.size(); ++i)
    if (m.outputs[i].name == training.loss)
      lossIndex = i;

  // The variables: each output updating a weight, and that weight's buffer.
  std::vector<Variable> variables;
  int64_t firstStep = 0;
  problem.clear();
  try {
    std::map<std::string, size_t> weightIndex;
    const std::vector<const WeightSpec *> &weights = artifact->getWeights();
    for (size_t i = 0; i < weights.size(); ++i)
      weightIndex[weights[i]->name] = i;
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      const std::string &name = m.outputs[i].updates;
      if (name.empty())
        continue;
      auto it = weightIndex.find(name);
      if (it == weightIndex.end() || weightIndex.count(name + "#1"))
        throw Error("output '" + m.outputs[i].name + "' updates the weight '" +
                    name + "', which the program " +
                    (it == weightIndex.end() ? "does not take"
                                             : "takes split two ways"));
      variables.push_back(
          {name, i, artifact->getDeviceWeights().getData(it->second)});
    }
    if (!o.resumeDir.empty()) {
      std::map<std::string, const Variable *> byWeight;
      for (const Variable &v : variables)
        byWeight[v.weight] = &v;
      std::set<std::string> loaded;
      firstStep = readCheckpoint(
          job, o.resumeDir, m,
          [&](const std::string &name, const SafetensorsTensor &t) {
            auto it = byWeight.find(name);
            if (it == byWeight.end())
              throw Error("--resume: the checkpoint holds '" + name +
                          "', which is no variable of the artifact");
            Tensor &value = outputs[it->second->output];
            if (t.dtype != value.getDType() || t.shape != value.getShape())
              throw Error("--resume: the checkpoint's '" + name + "' is " +
                          t.dtypeCode + formatShape(t.shape) +
                          ", the artifact's " + value.typeString());
            std::memcpy(value.data(), t.data, value.getByteSize());
            device.copy(it->second->buffer, device.getMemorySpace(),
                        value.data(), MemorySpace::Host, value.getByteSize());
            loaded.insert(name);
          });
      if (loaded.size() != variables.size())
        throw Error("--resume: the checkpoint lacks some of the artifact's "
                    "variables");
      if (firstStep >= o.steps)
        throw Error("--resume: the checkpoint is of step " +
                    std::to_string(firstStep) + ", and --steps " +
                    std::to_string(o.steps) + " is no later");
    }
  } catch (const std::exception &e) {
    problem = e.what();
  }
  if (!agree(job, problem))
    return 1;

  using Clock = std::chrono::steady_clock;
  std::vector<double> losses, times;
  Context &context = artifact->getContext();
  if (o.profileKernels)
    context.setKernelProfiling(true);
  startTrace(o, job);
  Clock::time_point start = Clock::now();
  for (int64_t step = firstStep; step < o.steps; ++step) {
    comm::Watchdog::beginStep(step + 1, o.steps);
    // This step's inputs: the rows of the files, this rank's blocks.
    std::vector<Tensor> stepInputs(m.inputs.size());
    for (const StepInput &input : inputs) {
      const TensorSpec &spec = m.inputs[input.index];
      Tensor row = selectRow(input, spec, step % input.rows);
      stepInputs[input.index] = artifact->sliceInput(input.index, row);
    }
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      if (m.inputs[i].name == kLearningRateInput)
        stepInputs[i] = scalar(lr);
      else if (m.inputs[i].name == kStepInput)
        stepInputs[i] = scalar(double(step + 1));
    }
    std::vector<const void *> in;
    for (const Tensor &t : stepInputs)
      in.push_back(t.data());

    Clock::time_point stepStart = Clock::now();
    try {
      artifact->run(in, out);
    } catch (const RunError &e) {
      failRank(job, e.what(), e.getStatus() == TELAR_STATUS_COMM_ERROR, 3);
      throw;
    }
    // The variables' new values become the weights the next step reads.
    for (const Variable &v : variables)
      device.copy(v.buffer, device.getMemorySpace(), outputs[v.output].data(),
                  MemorySpace::Host, outputs[v.output].getByteSize());
    Clock::time_point stepEnd = Clock::now();
    traceRun(step + 1, "training", stepStart, stepEnd);
    double ms =
        std::chrono::duration<double, std::milli>(stepEnd - stepStart).count();
    times.push_back(ms);
    double loss = lossIndex < outputs.size()
                      ? elementAsDouble(outputs[lossIndex].getDType(),
                                        outputs[lossIndex].data(), 0)
                      : 0.0;
    losses.push_back(loss);
    if (job.rank == 0) {
      std::printf("step %" PRId64 "/%d loss %.9g\n", step + 1, o.steps, loss);
      std::fflush(stdout);
    }
    if (o.verbose)
      std::fprintf(stderr,
                   "telar-run: %sstep %" PRId64 "/%d (training) done in %s ms\n",
                   job.prefix().c_str(), step + 1, o.steps,
                   formatMs(ms).c_str());
    bool last = step + 1 == o.steps;
    if (!o.checkpointDir.empty() &&
        (last || (o.checkpointEvery && (step + 1) % o.checkpointEvery == 0))) {
      comm::Watchdog::setPhase("writing a checkpoint");
      writeCheckpoint(job, o.checkpointDir, step + 1, m, variables, outputs);
    }
  }
  double totalSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  finishTrace(o, job);
  size_t peak = context.getPeakBytes();
  std::vector<KernelProfileEntry> kernels = byTime(context.getKernelProfile());
  context.setKernelProfiling(false);

  // The trained parameters, whole, on rank 0.
  comm::Watchdog::setPhase("gathering the trained parameters");
  std::vector<std::pair<std::string, Tensor>> trained;
  if (!o.saveWeights.empty() || !o.exportOnnx.empty()) {
    std::map<std::string, size_t> outputIndex;
    for (size_t i = 0; i < m.outputs.size(); ++i)
      outputIndex[m.outputs[i].name] = i;
    comm::WaitScope wait("gather", "the world");
    for (const TrainingParameterSpec &p : training.parameters) {
      size_t i = outputIndex.at(p.output);
      trained.push_back({p.name, artifact->gatherOutput(i, outputs[i])});
    }
  }
  comm::Watchdog::setPhase("finishing");
  comm::Watchdog::endCollectives();
  if (job.rank != 0)
    return 0;
  std::vector<std::pair<std::string, const Tensor *>> tensors;
  for (const auto &[name, t] : trained)
    tensors.push_back({name, &t});
  if (!o.saveWeights.empty())
    writeFileAtomically(o.saveWeights, writeSafetensors(tensors));
  if (!o.exportOnnx.empty())
    writeFileAtomically(o.exportOnnx, exportOnnxModel(exportTemplate, tensors));
  if (!o.quiet)
    std::fprintf(stderr,
                 "telar-run: %d training step%s (%s, lr %g) in %.3f s%s\n",
                 o.steps, o.steps == 1 ? "" : "s", training.optimizer.c_str(),
                 lr, totalSeconds,
                 job.multi() ? (", " + std::to_string(job.size) + " ranks")
                                   .c_str()
                             : "");
  int64_t ran = o.steps - firstStep;
  double meanMs = 0;
  for (double ms : times)
    meanMs += ms / double(times.size());
  if (o.profileKernels)
    printKernelProfile(kernels, int(ran), meanMs, job.multi());
  if (report.is_open()) {
    nlohmann::ordered_json j;
    j["artifact"] = artifact->getDirectory();
    j["optimizer"] = training.optimizer;
    j["lr"] = lr;
    j["steps"] = o.steps;
    j["losses"] = losses;
    j["step_ms"] = times;
    j["peak_intermediate_bytes"] = int64_t(peak);
    j["weights_bytes"] = int64_t(artifact->getWeightsBytes());
    if (job.multi())
      j["world_size"] = job.size;
    if (o.profileKernels)
      addKernelReportFields(j, kernels, int(ran));
    writeReport(report, o.report, j);
  }
  return 0;
}

} // namespace telar::tools::run
