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

#include "telar/runtime/Npy.h"
#include "telar/runtime/Safetensors.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <fstream>
#include <map>

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

} // namespace

int train(const Options &o, const Job &job) {
  int threads = o.threads ? o.threads : defaultThreads(job);
  telarrt_set_num_threads(threads);

  std::unique_ptr<Artifact> artifact;
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
    artifact->makeWeightsWritable();
    inputs = readStepInputs(o, m);
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

  // The variables: output index -> the weight buffer it replaces.
  std::map<std::string, size_t> weightIndex;
  const std::vector<const WeightSpec *> &weights = artifact->getWeights();
  for (size_t i = 0; i < weights.size(); ++i)
    weightIndex[weights[i]->name] = i;
  std::vector<std::pair<size_t, void *>> updates;
  const DeviceWeights &deviceWeights = artifact->getDeviceWeights();
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
    updates.push_back({i, deviceWeights.getData(it->second)});
  }
  size_t lossIndex = m.outputs.size();
  for (size_t i = 0; i < m.outputs.size(); ++i)
    if (m.outputs[i].name == training.loss)
      lossIndex = i;

  std::vector<Tensor> outputs = artifact->allocateOutputs();
  std::vector<void *> out;
  for (Tensor &t : outputs)
    out.push_back(t.data());
  Device &device = artifact->getContext().getDevice();

  using Clock = std::chrono::steady_clock;
  std::vector<double> losses, times;
  Clock::time_point start = Clock::now();
  for (int64_t step = 0; step < o.steps; ++step) {
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
    for (auto [index, weight] : updates)
      device.copy(weight, device.getMemorySpace(), outputs[index].data(),
                  MemorySpace::Host, outputs[index].getByteSize());
    double ms = std::chrono::duration<double, std::milli>(Clock::now() -
                                                          stepStart)
                    .count();
    times.push_back(ms);
    double loss = lossIndex < outputs.size()
                      ? elementAsDouble(outputs[lossIndex].getDType(),
                                        outputs[lossIndex].data(), 0)
                      : 0.0;
    losses.push_back(loss);
    if (job.rank == 0) {
      std::printf("step %" PRId64 "/%d loss %.9g\n", step + 1, o.steps, loss);
      std::fflush(stdout);
      if (o.verbose)
        std::fprintf(stderr, "telar-run: step %" PRId64 "/%d done in %s ms\n",
                     step + 1, o.steps, formatMs(ms).c_str());
    }
  }
  double totalSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();

  // The trained parameters, whole, on rank 0.
  comm::Watchdog::setPhase("gathering the trained parameters");
  std::vector<std::pair<std::string, Tensor>> trained;
  if (!o.saveWeights.empty()) {
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
  if (!o.saveWeights.empty()) {
    std::vector<std::pair<std::string, const Tensor *>> tensors;
    for (const auto &[name, t] : trained)
      tensors.push_back({name, &t});
    std::string image = writeSafetensors(tensors);
    std::ofstream file(o.saveWeights, std::ios::binary);
    file.write(image.data(), std::streamsize(image.size()));
    if (!file)
      throw Error("cannot write --save-weights '" + o.saveWeights + "'");
  }
  if (!o.quiet)
    std::fprintf(stderr,
                 "telar-run: %d training step%s (%s, lr %g) in %.3f s%s\n",
                 o.steps, o.steps == 1 ? "" : "s", training.optimizer.c_str(),
                 lr, totalSeconds,
                 job.multi() ? (", " + std::to_string(job.size) + " ranks")
                                   .c_str()
                             : "");
  if (report.is_open()) {
    nlohmann::ordered_json j;
    j["artifact"] = artifact->getDirectory();
    j["optimizer"] = training.optimizer;
    j["lr"] = lr;
    j["steps"] = o.steps;
    j["losses"] = losses;
    j["step_ms"] = times;
    if (job.multi())
      j["world_size"] = job.size;
    writeReport(report, o.report, j);
  }
  return 0;
}

} // namespace telar::tools::run
