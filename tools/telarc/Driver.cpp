//===- Driver.cpp - The Telar compiler driver -----------------------------===//
//
//   telarc model.onnx -o out/ --target cpu [--cpu=native] [-q] [--timings]
//   telarc model.onnx --emit=mlir|linalg|llvm|gpu|ptx|plan [-o out.mlir]
//   common: [--input-shape NAME=DxD]... [--bind-input NAME=FILE]...
//           [--plan plan.json] [--mesh data=2,model=2]
//           [--devices N] [--profile NAME|FILE] [--memory-limit BYTES]
//           [--search-time-limit S] [--explain] [--explain-html FILE]
//           [--pipeline-stages N] [--no-pipeline] [--microbatches M]
//           [--virtual-stages V] [--schedule gpipe|1f1b|interleaved]
//   launch files (multi-rank artifacts): [--nodes N] [--tasks-per-node N]
//           [--cpus-per-task N] [--time T] [--partition P] [--slurm-mpi M]
//           [--job-name NAME] [--image IMAGE] [--namespace NS]
//           [--master-port PORT]
//
// Imports the model (ONNX protobuf or .onnxtext) and canonicalises it (shape
// subgraphs fold away). With --target it compiles the model into an
// artifact directory (docs/Artifact.md) through that target's backend
// (TargetBackend.h); with --emit it prints the IR at one stage of the
// lowering. With --plan (and/or --mesh) the plan is completed
// (docs/Plan.md): --emit=plan prints it, --emit=mlir prints the IR annotated
// with it (telar-apply-plan), --target compiles a sharded artifact. With
// --devices N the planner chooses the plan (lib/planner: --mesh fixes the
// mesh, --plan constrains it); every plan is priced by the cost model on
// --profile, into plan.json's "cost" and, with --explain, a table. The
// passes are the library's named pipelines (Pipeline.h), the
// ones telar-opt runs; telarc has none of its own. Exits 0 on success and 1
// on any error; errors name the node, op type and opset.
//
// All of it is one function (telar/driver/Telarc.h): telarc's main
// (telarc.cpp) and the Python package's telar.compile call it.
//
//===----------------------------------------------------------------------===//

#include "telar/InitAllTelar.h"
#include "telar/codegen/Artifact.h"
#include "telar/codegen/Pipeline.h"
#include "telar/codegen/TargetBackend.h"
#include "telar/driver/Telarc.h"
#include "telar/launch/LaunchFiles.h"
#include "telar/onnx/Importer.h"
#include "telar/passes/autodiff/Passes.h"
#include "telar/passes/partition/Passes.h"
#include "telar/planner/Explain.h"
#include "telar/planner/Profile.h"
#include "telar/sharding/Completion.h"
#include "telar/sharding/core/DeviceLimit.h"
#include "telar/view/Page.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>
#include <mutex>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class EmitKind { MLIR, Linalg, LLVM, Gpu, Ptx, Plan };

cl::OptionCategory telarcCategory("telarc options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<model.onnx | model.onnxtext>"),
                               cl::cat(telarcCategory));

cl::opt<EmitKind> emit(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::MLIR),
    cl::values(clEnumValN(EmitKind::MLIR, "mlir",
                          "the imported telar graph IR, canonicalised"),
               clEnumValN(EmitKind::Linalg, "linalg",
                          "after lowering to linalg/tensor (weights as "
                          "arguments)"),
               clEnumValN(EmitKind::LLVM, "llvm",
                          "the LLVM dialect the CPU target hands to code "
                          "generation"),
               clEnumValN(EmitKind::Gpu, "gpu",
                          "the CUDA target's translation: the kernels in a "
                          "gpu.module, the host code's launches and GEMM "
                          "calls (--gpu applies)"),
               clEnumValN(EmitKind::Ptx, "ptx",
                          "the CUDA target's kernels as PTX (for --gpu)"),
               clEnumValN(EmitKind::Plan, "plan",
                          "the completed plan as plan.json: every named "
                          "value's sharding (with --plan/--mesh)")),
    cl::cat(telarcCategory));

cl::opt<std::string> outputFile(
    "o",
    cl::desc("Output: the artifact directory with --target, else the IR "
             "file (default: stdout)"),
    cl::value_desc("path"), cl::init("-"), cl::cat(telarcCategory));

cl::opt<std::string> target(
    "target",
    cl::desc("Compile to an artifact directory for this target"),
    cl::cat(telarcCategory));

cl::opt<bool> quiet("q", cl::desc("No progress lines"),
                    cl::cat(telarcCategory));

cl::opt<bool> timings("timings",
                      cl::desc("Print the wall time of each compile stage"),
                      cl::cat(telarcCategory));

cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Static shape of a graph input, e.g. input_ids=4x128 "
             "(repeatable; fixes symbolic dims)"),
    cl::value_desc("NAME=DxD..."), cl::cat(telarcCategory));

cl::list<std::string> bindInputs(
    "bind-input",
    cl::desc("Bind a graph input to a constant read from FILE, a numpy .npy "
             "or an ONNX TensorProto .pb (repeatable; for inputs that "
             "determine shapes, e.g. Reshape's shape)"),
    cl::value_desc("NAME=FILE"), cl::cat(telarcCategory));

cl::opt<std::string> planFile(
    "plan",
    cl::desc("A parallelization plan (plan.json, docs/Plan.md): the mesh and "
             "the shardings of some named values; the rest are completed"),
    cl::value_desc("FILE"), cl::cat(telarcCategory));

cl::opt<std::string> meshSpec(
    "mesh",
    cl::desc("The device mesh, e.g. data=2,model=2: for a plan that names "
             "none (it must equal a plan's own); alone, a plan naming nothing "
             "(everything replicated)"),
    cl::value_desc("AXIS=N,..."), cl::cat(telarcCategory));

cl::opt<int64_t> devices(
    "devices",
    cl::desc("Plan automatically for N devices: the planner chooses the mesh "
             "(every factorisation of N into at most 3 axes the profile's "
             "node size allows; --mesh fixes it) and every sharding (a "
             "--plan's shardings are kept)"),
    cl::value_desc("N"), cl::init(0), cl::cat(telarcCategory));

cl::opt<std::string> profileName(
    "profile",
    cl::desc("The hardware profile plans are priced on: a shipped name (cpu, "
             "a100-80g, h100-sxm, h200-sxm) or a profile JSON file "
             "(docs/Profile.md, telar-calibrate)"),
    cl::value_desc("NAME|FILE"), cl::init("cpu"), cl::cat(telarcCategory));

cl::opt<std::string> memoryLimit(
    "memory-limit",
    cl::desc("Bytes of memory per device the plan may use (suffixes K, M, G, "
             "T: powers of 1024), instead of the profile's capacity"),
    cl::value_desc("BYTES"), cl::cat(telarcCategory));

cl::opt<double> searchTimeLimit(
    "search-time-limit",
    cl::desc("Seconds the planner's search may take over all meshes; when "
             "hit, the best plan so far is used and its gap reported"),
    cl::value_desc("S"), cl::init(60), cl::cat(telarcCategory));

cl::opt<int64_t> pipelineStages(
    "pipeline-stages",
    cl::desc("With --devices: the number of pipeline stages (1: no "
             "pipeline; default: searched, one-stage plans competing)"),
    cl::value_desc("N"), cl::init(0), cl::cat(telarcCategory));

cl::opt<bool> noPipeline(
    "no-pipeline",
    cl::desc("With --devices: plan one stage only (no pipeline parallelism)"),
    cl::cat(telarcCategory));

cl::opt<int64_t> microbatches(
    "microbatches",
    cl::desc("With --devices: split the batch into M microbatches (default: "
             "searched among the divisors of the batch up to 16)"),
    cl::value_desc("M"), cl::init(0), cl::cat(telarcCategory));

cl::opt<int64_t> virtualStages(
    "virtual-stages",
    cl::desc("With --devices and --pipeline-stages N: V virtual stages per "
             "position (N / V positions, interleaved schedule)"),
    cl::value_desc("V"), cl::init(1), cl::cat(telarcCategory));

cl::opt<std::string> scheduleName(
    "schedule",
    cl::desc("With --devices: the pipeline schedule, gpipe (default), 1f1b or "
             "interleaved (with --virtual-stages)"),
    cl::value_desc("gpipe|1f1b|interleaved"), cl::cat(telarcCategory));

cl::opt<bool> explain(
    "explain",
    cl::desc("Print why this plan: per op (repeated layers once) the "
             "sharding, compute, communication and bytes; the totals; the "
             "runner-ups (pure data and pure tensor parallelism); for a "
             "pipelined plan one row per stage (layers, submesh, first rank, "
             "shardings, compute, communication, sends, memory) and the "
             "predicted bubble. To stdout, "
             "or to stderr when --emit writes to stdout"),
    cl::cat(telarcCategory));

cl::opt<std::string> explainHtml(
    "explain-html",
    cl::desc("Write the plan as a self-contained HTML page (no network): the "
             "mesh and its groups of ranks, the largest weights' and "
             "activations' shardings as blocks coloured by rank, the "
             "predicted cost (compute, communication per axis set, memory "
             "per device against the limit), the runner-up plans, and a "
             "pipeline's schedule as a chart per rank (docs/Plan.md)"),
    cl::value_desc("FILE"), cl::cat(telarcCategory));

cl::opt<bool> listOps("list-ops",
                      cl::desc("Print the supported ONNX op types, one per "
                               "line, and exit"),
                      cl::cat(telarcCategory));

cl::opt<bool> randomWeights(
    "random-weights",
    cl::desc("For benchmarks only: write no weight bytes; telar-run fills "
             "the weights with seeded random values when it loads the "
             "artifact, each by its name (a model too large to carry; "
             "inference, weights not sharded by a plan)"),
    cl::cat(telarcCategory));

cl::opt<bool> elideWeights(
    "elide-weights",
    cl::desc("Elide weight blobs (dense_resource data) in the printed IR"),
    cl::cat(telarcCategory));

// Training (docs/Training.md): the artifact runs a training step.
cl::OptionCategory trainCategory(
    "telarc training options (--train: the artifact runs a training step, "
    "forward, backward and the optimizer update, with telar-run --train)");

cl::opt<bool> train(
    "train",
    cl::desc("Compile a training step: the trainable parameters are the "
             "floating-point initializers not frozen, the loss the output "
             "--loss names (a scalar)"),
    cl::cat(trainCategory));

cl::opt<std::string> lossName(
    "loss", cl::desc("With --train: the model output that is the loss "
                     "(default: loss)"),
    cl::value_desc("NAME"), cl::init("loss"), cl::cat(trainCategory));

cl::opt<std::string> optimizerName(
    "optimizer",
    cl::desc("With --train: sgd (torch.optim.SGD) or adamw (torch.optim.AdamW; "
             "default)"),
    cl::value_desc("sgd|adamw"), cl::init("adamw"), cl::cat(trainCategory));

cl::opt<double> learningRate(
    "lr",
    cl::desc("With --train: the learning rate, telar-run's default (default: "
             "0.01 for sgd, 1e-3 for adamw)"),
    cl::value_desc("F"), cl::init(-1.0), cl::cat(trainCategory));

cl::opt<double> momentumValue(
    "momentum", cl::desc("With --train --optimizer sgd: the momentum "
                         "(default: 0)"),
    cl::value_desc("F"), cl::init(0.0), cl::cat(trainCategory));

cl::opt<double> weightDecay(
    "weight-decay",
    cl::desc("With --train: weight decay (sgd: added to the gradient, "
             "default 0; adamw: decoupled, default 0.01)"),
    cl::value_desc("F"), cl::init(-1.0), cl::cat(trainCategory));

cl::opt<std::string> betas(
    "betas", cl::desc("With --train --optimizer adamw: beta1,beta2 (default: "
                      "0.9,0.999)"),
    cl::value_desc("F,F"), cl::cat(trainCategory));

cl::opt<double> epsilon(
    "eps", cl::desc("With --train --optimizer adamw: epsilon (default: 1e-8)"),
    cl::value_desc("F"), cl::init(1e-8), cl::cat(trainCategory));

cl::opt<double> gradClip(
    "grad-clip",
    cl::desc("With --train: clip the gradients' global L2 norm to F "
             "(torch.nn.utils.clip_grad_norm_; default: no clipping)"),
    cl::value_desc("F"), cl::init(0.0), cl::cat(trainCategory));

cl::opt<int> gradAccum(
    "grad-accum",
    cl::desc("With --train: accumulate the gradients of K microbatches per "
             "step (one optimizer update); every input then takes K "
             "microbatches as a leading dimension [K, ...] (default: 1)"),
    cl::value_desc("K"), cl::init(1), cl::cat(trainCategory));

cl::list<std::string> freeze(
    "freeze",
    cl::desc("With --train: initializers that are not trained (constants: "
             "masks, buffers, frozen layers); names or glob patterns "
             "('layer1.*'), comma-separated, repeatable"),
    cl::value_desc("NAME,..."), cl::CommaSeparated, cl::cat(trainCategory));

/// The training step's pass options from the flags; "" or the error.
std::string getTrainingOptions(telar::TelarBuildTrainingStepOptions &o) {
  o.loss = lossName;
  o.optimizer = optimizerName;
  o.learningRate = learningRate;
  o.momentum = momentumValue;
  o.weightDecay = weightDecay;
  o.epsilon = epsilon;
  o.gradClip = gradClip;
  o.microbatches = gradAccum;
  if (gradAccum < 1)
    return "--grad-accum must be at least 1";
  if (!betas.empty()) {
    StringRef first, second;
    std::tie(first, second) = StringRef(betas).split(',');
    if (first.trim().getAsDouble(o.beta1) ||
        second.trim().getAsDouble(o.beta2))
      return "--betas '" + betas + "': expected two numbers, e.g. 0.9,0.999";
  }
  bool sgd = optimizerName == "sgd";
  if (sgd && (!betas.empty() || epsilon.getNumOccurrences()))
    return "--betas and --eps apply to --optimizer adamw";
  if (!sgd && momentumValue.getNumOccurrences())
    return "--momentum applies to --optimizer sgd";
  return "";
}

// The launch files of a multi-rank artifact (out/launch/, docs/Launch.md).
cl::OptionCategory launchCategory(
    "telarc launch options (the files of out/launch/ in a multi-rank "
    "artifact: mpirun.sh, slurm.sbatch, k8s.yaml, k8s-mpijob.yaml, "
    "Dockerfile, ray_launch.py)");

cl::opt<int64_t> launchNodes(
    "nodes",
    cl::desc("Machines the ranks run on (Slurm nodes, MPIJob workers); "
             "nodes x tasks per node must be the world size (default: 1, or "
             "the world size / --tasks-per-node)"),
    cl::value_desc("N"), cl::init(0), cl::cat(launchCategory));

cl::opt<int64_t> launchTasksPerNode(
    "tasks-per-node",
    cl::desc("Ranks per machine (Slurm --ntasks-per-node, MPIJob slots per "
             "worker; default: the world size / --nodes)"),
    cl::value_desc("N"), cl::init(0), cl::cat(launchCategory));

cl::opt<int64_t> launchCpusPerTask(
    "cpus-per-task",
    cl::desc("CPUs per rank: Slurm --cpus-per-task, the pods' CPU request "
             "and telar-run --threads (default: 1)"),
    cl::value_desc("N"), cl::init(1), cl::cat(launchCategory));

cl::opt<std::string> launchTime(
    "time",
    cl::desc("Slurm time limit of the job (HH:MM:SS, MM, D-HH:MM:SS, ...; "
             "default: 01:00:00)"),
    cl::value_desc("HH:MM:SS"), cl::init("01:00:00"),
    cl::cat(launchCategory));

cl::opt<std::string> launchPartition(
    "partition",
    cl::desc("Slurm partition to run in (default: the cluster's default)"),
    cl::value_desc("NAME"), cl::cat(launchCategory));

cl::opt<std::string> launchSlurmMpi(
    "slurm-mpi",
    cl::desc("srun's MPI plugin, the one the site's OpenMPI was built with: "
             "pmix (default), pmi2, or none (the ranks meet through telar's "
             "TCP rendezvous on the first node instead)"),
    cl::value_desc("pmix|pmi2|none"), cl::init("pmix"),
    cl::cat(launchCategory));

cl::opt<std::string> launchJobName(
    "job-name",
    cl::desc("Name of the Slurm job and the Kubernetes objects (a DNS label; "
             "default: telar-<model file name>)"),
    cl::value_desc("NAME"), cl::cat(launchCategory));

cl::opt<std::string> launchImage(
    "image",
    cl::desc("Container image the Kubernetes pods run, built from "
             "launch/Dockerfile (default: <job name>:latest)"),
    cl::value_desc("[REGISTRY/]NAME[:TAG]"), cl::cat(launchCategory));

cl::opt<std::string> launchNamespace(
    "namespace",
    cl::desc("Kubernetes namespace of the Job, Service and MPIJob (default: "
             "default)"),
    cl::value_desc("NS"), cl::init("default"), cl::cat(launchCategory));

cl::opt<int64_t> launchMasterPort(
    "master-port",
    cl::desc("TCP port of rank 0's rendezvous in the pods "
             "(TELAR_MASTER_PORT; default: 29500)"),
    cl::value_desc("PORT"), cl::init(29500), cl::cat(launchCategory));

std::string sourceName;
/// --train: the model whose trained initializers telar-run --export-onnx
/// fills (ImportOptions::exportTemplate).
std::string exportTemplate;

/// The launch flags' values.
telar::LaunchOptions getLaunchOptions() {
  telar::LaunchOptions o;
  o.nodes = launchNodes;
  o.tasksPerNode = launchTasksPerNode;
  o.cpusPerTask = launchCpusPerTask;
  o.time = launchTime;
  o.partition = launchPartition;
  o.slurmMpi = launchSlurmMpi;
  o.jobName = launchJobName;
  o.image = launchImage;
  o.k8sNamespace = launchNamespace;
  o.masterPort = launchMasterPort;
  return o;
}

/// The launch flags given on the command line, e.g. "--nodes, --time".
std::string getGivenLaunchFlags() {
  std::vector<std::string> given;
  for (cl::Option *opt :
       std::initializer_list<cl::Option *>{
           &launchNodes, &launchTasksPerNode, &launchCpusPerTask, &launchTime,
           &launchPartition, &launchSlurmMpi, &launchJobName, &launchImage,
           &launchNamespace, &launchMasterPort})
    if (opt->getNumOccurrences())
      given.push_back("--" + opt->ArgStr.str());
  return llvm::join(given, ", ");
}

/// "80G", "512M", "1.5T", "1000": bytes, with binary suffixes; nullopt when
/// malformed.
std::optional<double> parseBytes(StringRef text) {
  text = text.trim();
  double scale = 1;
  StringRef digits = text;
  if (digits.ends_with_insensitive("ib"))
    digits = digits.drop_back(2);
  else if (digits.ends_with_insensitive("b"))
    digits = digits.drop_back(1);
  if (!digits.empty()) {
    switch (llvm::toLower(digits.back())) {
    case 'k': scale = 1024.0; break;
    case 'm': scale = 1024.0 * 1024; break;
    case 'g': scale = 1024.0 * 1024 * 1024; break;
    case 't': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
    }
    if (scale != 1)
      digits = digits.drop_back(1);
  }
  double value = 0;
  if (digits.empty() || digits.getAsDouble(value) || value <= 0)
    return std::nullopt;
  return value * scale;
}

/// Prints diagnostics as "FILE: error: message" plus attached notes.
LogicalResult printDiagnostic(Diagnostic &diag) {
  auto &os = llvm::errs();
  os << (sourceName.empty() ? "telarc" : sourceName) << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error: os << "error: "; break;
  case DiagnosticSeverity::Warning: os << "warning: "; break;
  case DiagnosticSeverity::Note: os << "note: "; break;
  case DiagnosticSeverity::Remark: os << "remark: "; break;
  }
  os << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    os << "  note: " << note.str() << "\n";
  return success();
}

/// The backend `name` names, created with its flags' values; null (with an
/// error printed) when no target has that name.
std::unique_ptr<telar::TargetBackend> createTarget(StringRef name) {
  if (const telar::TargetBackendInfo *info = telar::lookupTargetBackend(name))
    return info->create();
  llvm::errs() << "telarc: error: unknown target '" << name
               << "' (supported: "
               << llvm::join(telar::getRegisteredTargetBackendNames(), ", ")
               << ")\n";
  return nullptr;
}

/// --target: the artifact directory, with a progress line per stage on a
/// terminal and a table of stage times with --timings.
int compileArtifact(ModuleOp module, double importSeconds,
                    std::optional<telar_sharding::Plan> plan) {
  std::unique_ptr<telar::TargetBackend> backend = createTarget(target);
  if (!backend)
    return 1;
  if (outputFile == "-") {
    llvm::errs() << "telarc: error: --target needs an output directory "
                    "(-o DIR)\n";
    return 1;
  }
  // lld resets every cl::opt to its default when it parses its arguments,
  // so read what is needed after the link now (the backend has read its
  // own flags when it was created).
  bool showTimings = timings;
  std::string outputDir = outputFile;
  bool progress = !quiet && llvm::sys::Process::StandardErrIsDisplayed();
  SmallVector<std::pair<std::string, double>> stageTimes = {
      {"importing", importSeconds}};
  telar::ArtifactOptions options;
  options.outputDir = outputFile;
  options.modelPath = inputFile;
  options.plan = std::move(plan);
  options.launch = getLaunchOptions();
  options.exportTemplate = std::move(exportTemplate);
  options.randomWeights = randomWeights;
  if (randomWeights && train) {
    llvm::errs() << "telarc: error: --random-weights is for benchmarks of "
                    "inference; a training artifact needs its weights\n";
    return 1;
  }
  options.stages.onBegin = [&](StringRef stage, int index, int count) {
    if (progress)
      llvm::errs() << "telarc: [" << index << "/" << count << "] " << stage
                   << "...\n";
  };
  options.stages.onEnd = [&](StringRef stage, double seconds) {
    stageTimes.push_back({stage.str(), seconds});
  };
  std::string error;
  if (failed(telar::compileArtifact(module, *backend, options, error))) {
    if (!error.empty())
      llvm::errs() << sourceName << ": error: " << error << "\n";
    return 1;
  }
  if (showTimings) {
    double total = 0;
    llvm::errs() << "telarc: stage times\n";
    for (auto &[stage, seconds] : stageTimes) {
      llvm::errs() << llvm::format("  %-24s %8.3f s\n", stage.c_str(),
                                   seconds);
      total += seconds;
    }
    llvm::errs() << llvm::format("  %-24s %8.3f s\n", "total", total);
  }
  if (progress)
    llvm::errs() << "telarc: wrote " << outputDir << "\n";
  return 0;
}

/// The targets' own flags (the CPU target's --cpu, --library-calls) are
/// telarc's too; registered once per process.
void registerFlags() {
  static std::once_flag once;
  std::call_once(once, [] {
    telar::registerAllTargetBackends();
    telar::registerTargetBackendFlags(telarcCategory);
    static std::string targets, targetHelp;
    targets = llvm::join(telar::getRegisteredTargetBackendNames(), "|");
    targetHelp = "Compile to an artifact directory for this target";
    for (const std::string &name : telar::getRegisteredTargetBackendNames())
      targetHelp += "\n  " + name + ": " +
                    telar::lookupTargetBackend(name)->description;
    target.setValueStr(targets);
    target.setDescription(targetHelp);
    cl::HideUnrelatedOptions({&telarcCategory, &trainCategory,
                              &launchCategory});
  });
}

int runImpl(int argc, char **argv) {
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "telarc " << TELAR_VERSION << " (LLVM " << LLVM_VERSION_STRING
       << ")\n";
  });
  registerFlags();
  // Every flag from its default, as on a first call.
  cl::ResetAllOptionOccurrences();
  sourceName.clear();
  exportTemplate.clear();
  // A bad flag prints its error and returns instead of exiting.
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "telarc - the Telar ONNX compiler\n\n"
                                   "Imports an ONNX model (.onnx protobuf or "
                                   ".onnxtext) and compiles it to an artifact "
                                   "directory (--target cpu -o DIR) or prints "
                                   "its IR (--emit).\n",
                                   &llvm::errs()))
    return 1;

  if (listOps) {
    for (const std::string &op : telar::supportedOpTypes())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "telarc: error: no input model given (see --help)\n";
    return 1;
  }
  sourceName = inputFile;

  // A target's own flags (--gpu, --cpu, ...) apply only where it is used:
  // --target, or the stages --emit prints of it.
  StringRef used = !target.empty()           ? StringRef(target)
                   : emit == EmitKind::LLVM  ? StringRef("cpu")
                   : emit == EmitKind::Gpu || emit == EmitKind::Ptx
                       ? StringRef("cuda")
                       : StringRef();
  for (const std::string &name : telar::getRegisteredTargetBackendNames()) {
    const telar::TargetBackendInfo *info = telar::lookupTargetBackend(name);
    if (name == used || !info->givenFlags)
      continue;
    SmallVector<std::string> given = info->givenFlags();
    if (given.empty())
      continue;
    llvm::errs() << "telarc: error: " << llvm::join(given, ", ")
                 << (given.size() > 1 ? " apply" : " applies")
                 << " to the '" << name << "' target (--target " << name
                 << "), which this command does not use\n";
    return 1;
  }

  telar::ImportOptions options;
  telar::TelarBuildTrainingStepOptions trainingOptions;
  if (train) {
    std::string err = getTrainingOptions(trainingOptions);
    if (!err.empty()) {
      llvm::errs() << "telarc: error: " << err << "\n";
      return 1;
    }
    if (target == "cuda") {
      llvm::errs() << "telarc: error: --train applies to --target cpu for "
                      "now (the CUDA target compiles inference only)\n";
      return 1;
    }
    options.trainableInitializers = true;
    options.exportTemplate = &exportTemplate;
    for (const std::string &name : freeze)
      options.frozen.insert(name);
  } else {
    cl::Option *trainingFlags[] = {
        &lossName, &optimizerName, &learningRate, &momentumValue,
        &weightDecay, &betas, &epsilon, &gradClip, &gradAccum,
        std::addressof(freeze)};
    for (cl::Option *opt : trainingFlags)
      if (opt->getNumOccurrences()) {
        llvm::errs() << "telarc: error: --" << opt->ArgStr
                     << " applies to --train\n";
        return 1;
      }
  }
  for (const std::string &spec : inputShapes) {
    std::string err = telar::parseInputShapeOption(spec, options);
    if (!err.empty()) {
      llvm::errs() << "telarc: error: " << err << "\n";
      return 1;
    }
  }

  for (const std::string &spec : bindInputs) {
    std::string err = telar::parseBindInputOption(spec, options);
    if (!err.empty()) {
      llvm::errs() << "telarc: error: " << err << "\n";
      return 1;
    }
  }

  // Before any work: the planner's search grows with the device count.
  if (devices < 0 || (devices.getNumOccurrences() && devices == 0)) {
    llvm::errs() << "telarc: error: --devices must be at least 1\n";
    return 1;
  }
  if (devices > telar_sharding::kMaxDevices) {
    llvm::errs() << "telarc: error: --devices " << devices
                 << " is more than the " << telar_sharding::kMaxDevices
                 << " devices Telar supports\n";
    return 1;
  }

  auto start = std::chrono::steady_clock::now();
  if (!target.empty() && !quiet && llvm::sys::Process::StandardErrIsDisplayed())
    llvm::errs() << "telarc: importing " << inputFile << "...\n";
  DialectRegistry registry;
  telar::registerAllTelar(registry);
  MLIRContext ctx(registry);
  ScopedDiagnosticHandler handler(&ctx, printDiagnostic);

  OwningOpRef<ModuleOp> module =
      telar::importModelFile(ctx, inputFile, options);
  if (!module)
    return 1;

  PassManager pm(&ctx);
  telar::buildImportCleanupPipeline(pm);
  if (train) {
    // The training step, then the forward outputs it dropped cleaned away.
    pm.addPass(telar::createTelarBuildTrainingStep(trainingOptions));
    telar::buildImportCleanupPipeline(pm);
  }
  if (failed(pm.run(*module)))
    return 1;
  std::chrono::duration<double> importTime =
      std::chrono::steady_clock::now() - start;

  // The plan, read once the module exists (its diagnostics go through the
  // context's handler).
  std::optional<telar_sharding::Plan> plan;
  if (!planFile.empty() || !meshSpec.empty()) {
    FailureOr<telar_sharding::Plan> loaded =
        telar::loadPlan(UnknownLoc::get(&ctx), planFile, meshSpec);
    if (failed(loaded))
      return 1;
    plan = std::move(*loaded);
  }

  // Planning and pricing: --devices searches a plan; any plan is priced
  // (plan.json's "cost"), and explained with --explain.
  bool planning = devices > 0;
  bool emitsPlan = emit == EmitKind::Plan && target.empty();
  // The pipeline flags shape the search of --devices.
  for (cl::Option *opt : std::initializer_list<cl::Option *>{
           &pipelineStages, &noPipeline, &microbatches, &virtualStages,
           &scheduleName})
    if (opt->getNumOccurrences() && !planning) {
      llvm::errs() << "telarc: error: --" << opt->ArgStr
                   << " applies to --devices\n";
      return 1;
    }
  telar::planner::PipelineOptions pipeline;
  if (planning) {
    if (pipelineStages.getNumOccurrences() && pipelineStages < 1) {
      llvm::errs() << "telarc: error: --pipeline-stages must be at least 1\n";
      return 1;
    }
    if (microbatches.getNumOccurrences() && microbatches < 1) {
      llvm::errs() << "telarc: error: --microbatches must be at least 1\n";
      return 1;
    }
    if (virtualStages < 1) {
      llvm::errs() << "telarc: error: --virtual-stages must be at least 1\n";
      return 1;
    }
    if (noPipeline && pipelineStages > 1) {
      llvm::errs() << "telarc: error: --no-pipeline and --pipeline-stages "
                   << pipelineStages << " contradict each other\n";
      return 1;
    }
    pipeline.stages = pipelineStages;
    pipeline.disabled = noPipeline;
    pipeline.microbatches = microbatches;
    pipeline.virtualStages = virtualStages;
    if (!scheduleName.empty()) {
      pipeline.schedule = telar_sharding::parseScheduleKindName(scheduleName);
      if (!pipeline.schedule) {
        llvm::errs() << "telarc: error: --schedule '" << scheduleName
                     << "': expected gpipe, 1f1b or interleaved\n";
        return 1;
      }
    }
    bool interleaved =
        pipeline.schedule == telar_sharding::ScheduleKind::Interleaved;
    if (virtualStages > 1 && pipeline.schedule && !interleaved) {
      llvm::errs() << "telarc: error: --virtual-stages " << virtualStages
                   << " needs --schedule interleaved\n";
      return 1;
    }
    if (interleaved && virtualStages < 2) {
      llvm::errs() << "telarc: error: --schedule interleaved needs "
                      "--virtual-stages V >= 2\n";
      return 1;
    }
    if (virtualStages > 1 &&
        (pipelineStages < 2 * virtualStages ||
         pipelineStages % virtualStages != 0)) {
      llvm::errs() << "telarc: error: --virtual-stages " << virtualStages
                   << " needs --pipeline-stages P x " << virtualStages
                   << " (P >= 2 positions)\n";
      return 1;
    }
  }
  bool explainPage = !explainHtml.empty();
  if (planning ||
      (plan && (explain || explainPage || emitsPlan || !target.empty()))) {
    std::string error;
    std::optional<telar_planner::Profile> profile =
        telar_planner::loadProfile(profileName, error);
    if (!profile) {
      llvm::errs() << "telarc: error: --profile " << profileName << ": "
                   << error << "\n";
      return 1;
    }
    std::optional<telar::planner::SearchOptions> search;
    if (planning) {
      if (!(searchTimeLimit > 0)) {
        llvm::errs() << "telarc: error: --search-time-limit must be a "
                        "positive number of seconds\n";
        return 1;
      }
      search.emplace();
      search->devices = devices;
      search->timeLimitSeconds = searchTimeLimit;
      search->pipeline = pipeline;
      if (!memoryLimit.empty()) {
        std::optional<double> bytes = parseBytes(memoryLimit);
        if (!bytes) {
          llvm::errs() << "telarc: error: --memory-limit '" << memoryLimit
                       << "' is no byte count (e.g. 80G, 512M, 1000000)\n";
          return 1;
        }
        search->memoryLimit = *bytes;
      }
      if (plan && plan->mesh.getNumAxes())
        search->mesh = plan->mesh;
      if (!quiet && llvm::sys::Process::StandardErrIsDisplayed())
        search->progress = [](const std::string &line) {
          llvm::errs() << "telarc: planning " << line << "\n";
        };
    } else if (!memoryLimit.empty()) {
      llvm::errs() << "telarc: error: --memory-limit applies to --devices\n";
      return 1;
    }
    auto main = module->lookupSymbol<func::FuncOp>("main");
    FailureOr<telar::planner::PlanningResult> result =
        telar::planner::planAndPrice(main, *profile, plan, search,
                                     explain || explainPage);
    if (failed(result))
      return 1;
    plan = result->chosen.plan;
    plan->costJson = telar::planner::getCostJson(*result);
    if (explain) {
      bool toStdout = !target.empty() || outputFile != "-";
      telar::planner::printExplain(toStdout ? llvm::outs() : llvm::errs(),
                                   main, *result, *profile);
    }
    if (explainPage) {
      std::string pageError;
      auto page = openOutputFile(explainHtml, &pageError);
      if (!page) {
        llvm::errs() << "telarc: error: --explain-html: " << pageError << "\n";
        return 1;
      }
      page->os() << telar_view::renderPage(
          "Telar plan: " + llvm::sys::path::filename(inputFile).str(),
          telar::planner::getExplainPageJson(*result, *profile, inputFile));
      page->keep();
    }
  } else if (explain || explainPage || !memoryLimit.empty()) {
    llvm::errs() << "telarc: error: --explain, --explain-html and "
                    "--memory-limit need a plan (--devices N, or "
                    "--plan/--mesh)\n";
    return 1;
  }

  // The launch flags, checked before the compilation: they need a
  // multi-rank artifact.
  if (std::string given = getGivenLaunchFlags(); !given.empty()) {
    int64_t world = plan ? plan->mesh.getNumDevices() : 1;
    if (plan)
      for (const telar_sharding::PlanStage &stage : plan->stages)
        world = std::max(world, stage.firstRank + stage.mesh.getNumDevices());
    const char *apply = StringRef(given).contains(',') ? " apply" : " applies";
    if (target.empty()) {
      llvm::errs() << "telarc: error: " << given << apply
                   << " to the launch files of an artifact (--target)\n";
      return 1;
    }
    if (world <= 1) {
      llvm::errs() << "telarc: error: " << given << apply
                   << " to the launch files of a multi-rank artifact "
                      "(--devices N, --plan or --mesh with more than one "
                      "device); this one runs on one device\n";
      return 1;
    }
    // 0 means "not given" to resolveLaunchOptions.
    for (cl::opt<int64_t> *count : {&launchNodes, &launchTasksPerNode})
      if (count->getNumOccurrences() && *count < 1) {
        llvm::errs() << "telarc: error: --" << count->ArgStr
                     << " must be at least 1\n";
        return 1;
      }
    telar::LaunchOptions launch = getLaunchOptions();
    std::string error = telar::resolveLaunchOptions(launch, world, inputFile);
    if (!error.empty()) {
      llvm::errs() << "telarc: error: " << error << "\n";
      return 1;
    }
  }

  if (!target.empty()) {
    if (emit.getNumOccurrences()) {
      llvm::errs() << "telarc: error: --emit prints IR and --target writes "
                      "an artifact: give one of them (--emit=gpu and "
                      "--emit=ptx print the CUDA target's stages)\n";
      return 1;
    }
    return compileArtifact(*module, importTime.count(), std::move(plan));
  }
  if (randomWeights) {
    llvm::errs() << "telarc: error: --random-weights applies to --target (an "
                    "artifact)\n";
    return 1;
  }

  if (plan && (!plan->stages.empty() || plan->schedule) &&
      emit != EmitKind::Plan) {
    llvm::errs() << "telarc: error: a pipelined plan (\"stages\" or "
                    "\"schedule\") applies to --emit=plan and --target\n";
    return 1;
  }
  if (plan && emit != EmitKind::MLIR && emit != EmitKind::Plan) {
    llvm::errs() << "telarc: error: --plan/--mesh apply to --emit=mlir, "
                    "--emit=plan and --target\n";
    return 1;
  }

  std::string outError;
  if (emit == EmitKind::Plan && plan &&
      (!plan->stages.empty() || plan->schedule)) {
    // Completed per stage when it was priced.
    auto out = openOutputFile(outputFile, &outError);
    if (!out) {
      llvm::errs() << "telarc: error: " << outError << "\n";
      return 1;
    }
    out->os() << telar_sharding::writePlanJson(*plan);
    out->keep();
    return 0;
  }
  if (emit == EmitKind::Plan) {
    auto main = module->lookupSymbol<func::FuncOp>("main");
    FailureOr<telar::CompletedPlan> completed =
        telar::completePlan(main, plan ? *plan : telar_sharding::Plan());
    if (failed(completed))
      return 1;
    auto out = openOutputFile(outputFile, &outError);
    if (!out) {
      llvm::errs() << "telarc: error: " << outError << "\n";
      return 1;
    }
    telar_sharding::Plan named = telar::getNamedPlan(*completed);
    if (plan)
      named.costJson = plan->costJson;
    out->os() << telar_sharding::writePlanJson(named);
    out->keep();
    return 0;
  }

  if (plan) {
    PassManager annotate(&ctx);
    annotate.addPass(telar::createTelarApplyPlan(*plan));
    if (failed(annotate.run(*module)))
      return 1;
  }

  std::unique_ptr<telar::TargetBackend> emitTarget;
  if (emit != EmitKind::MLIR) {
    PassManager lower(&ctx);
    if (emit == EmitKind::Linalg) {
      telar::buildLowerToLinalgPipeline(lower);
    } else {
      // --emit=llvm is the CPU target's; gpu and ptx the CUDA target's.
      emitTarget = createTarget(emit == EmitKind::LLVM ? "cpu" : "cuda");
      if (!emitTarget)
        return 1;
      std::string error;
      if (failed(emitTarget->checkOptions(/*partitioned=*/false, error))) {
        llvm::errs() << "telarc: error: " << error << "\n";
        return 1;
      }
      telar::buildTargetPipeline(lower, *emitTarget);
    }
    if (failed(lower.run(*module)))
      return 1;
  }

  auto out = openOutputFile(outputFile, &outError);
  if (!out) {
    llvm::errs() << "telarc: error: " << outError << "\n";
    return 1;
  }
  if (emit == EmitKind::Ptx) {
    std::string error;
    if (failed(emitTarget->printDeviceCode(*module, out->os(), error))) {
      llvm::errs() << "telarc: error: " << error << "\n";
      return 1;
    }
    out->keep();
    return 0;
  }
  OpPrintingFlags flags;
  if (elideWeights) {
    // MLIR renders a blob to hex before deciding to elide it, which touches
    // every byte of memory-mapped weights; printing in local scope skips the
    // resource section altogether (the dense_resource<...> names remain).
    flags.elideLargeResourceString();
    flags.useLocalScope();
  }
  module->print(out->os(), flags);
  out->os() << "\n";
  out->keep();
  return 0;
}
} // namespace

int telar::driver::runTelarc(int argc, char **argv) {
  int status = runImpl(argc, argv);
  llvm::outs().flush();
  llvm::errs().flush();
  return status;
}

std::vector<telar::driver::TelarcFlag> telar::driver::getTelarcFlags() {
  registerFlags();
  std::vector<TelarcFlag> flags;
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *opt = entry.second;
    bool telarcs = llvm::any_of(opt->Categories, [](cl::OptionCategory *c) {
      return c == &telarcCategory || c == &trainCategory ||
             c == &launchCategory;
    });
    if (!telarcs || opt->ArgStr.empty() ||
        opt->getOptionHiddenFlag() != cl::NotHidden)
      continue;
    TelarcFlag flag;
    flag.name = opt->ArgStr.str();
    // cl::list takes ZeroOrMore occurrences, cl::opt one at most; a flag
    // whose value may be left out is a switch (cl::opt<bool>).
    if (opt->getNumOccurrencesFlag() == cl::ZeroOrMore)
      flag.kind = "list";
    else if (opt->getValueExpectedFlag() == cl::ValueOptional)
      flag.kind = "bool";
    else
      flag.kind = "value";
    flag.value = opt->ValueStr.str();
    flag.help = opt->HelpStr.str();
    flags.push_back(std::move(flag));
  }
  std::sort(flags.begin(), flags.end(),
            [](const TelarcFlag &a, const TelarcFlag &b) {
              return a.name < b.name;
            });
  return flags;
}

const char *telar::driver::getTelarcVersion() { return TELAR_VERSION; }
