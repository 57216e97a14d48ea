//===- CpuTargetBackend.cpp - The CPU target ------------------------------===//

#include "telar/targets/cpu/CpuTargetBackend.h"
#include "telar/codegen/Artifact.h"
#include "telar/codegen/ArtifactWriter.h"
#include "telar/targets/cpu/CpuCodegen.h"
#include "telar/targets/cpu/CpuPipeline.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include <optional>

using namespace mlir;

namespace mlir::telar {

namespace {

class CpuTargetBackend : public TargetBackend {
public:
  explicit CpuTargetBackend(const CpuTargetOptions &options)
      : options(options) {}

  StringRef getName() const override { return "cpu"; }

  bool supportsElementType(Type elementType) const override {
    // Whatever the artifact format carries: the lowering handles them all.
    return !numpyDtypeName(elementType).empty();
  }

  void buildTranslationPipeline(OpPassManager &pm) const override {
    CpuPipelineOptions pipeline;
    pipeline.cpu = options.cpu;
    pipeline.libraryCalls = options.libraryCalls;
    pipeline.parallel = options.parallel;
    pipeline.minParallelWork = options.minParallelWork;
    buildCpuTranslationPipeline(pm, pipeline);
  }

  StringRef getTranslationStageName() const override {
    return "lowering to LLVM";
  }

  SmallVector<StringRef> getSerializationStageNames() const override {
    return {"generating native code", "linking"};
  }

  LogicalResult serialize(ModuleOp module, const ProgramInterface &interface,
                          ArtifactWriter &writer, CompileStages &stages,
                          std::string &error) override {
    // The CPU telar-set-cpu-target resolved `--cpu` to.
    FailureOr<CpuTarget> target = getModuleCpuTarget(module, error);
    if (failed(target))
      return failure();
    FailureOr<artifact::ProgramSpec> program =
        writeProgramLibrary(module, interface, *target, writer, stages, error);
    if (failed(program))
      return failure();
    writer.addProgram(std::move(*program));
    writer.setTarget(target->toAttr(module.getContext()));
    return success();
  }

  SmallVector<std::string> getRuntimeLibraries() const override {
    // The core (contexts, collectives: libtelar_runtime), the CPU device's
    // allocator and kernels (libtelar_runtime_cpu), OpenMP's runtime for
    // parallel loops, and libm for the math functions left as calls.
    SmallVector<std::string> libraries = {"telar_runtime", "telar_runtime_cpu",
                                          "m"};
    if (options.parallel)
      libraries.push_back("omp");
    return libraries;
  }

private:
  CpuTargetOptions options;
};

/// telarc's flags for the CPU target.
struct CpuTargetFlags {
  explicit CpuTargetFlags(llvm::cl::OptionCategory &category)
      : cpu("cpu",
            llvm::cl::desc("CPU to generate code for: 'native' (this "
                           "machine, with the vector extensions it has) or "
                           "an LLVM CPU name such as x86-64-v3 or "
                           "skylake-avx512"),
            llvm::cl::init("native"), llvm::cl::cat(category)),
        libraryCalls(
            "library-calls",
            llvm::cl::desc("Send large f32 matmuls/convolutions to the "
                           "runtime's GEMM kernels (default on; "
                           "--library-calls=false generates them)"),
            llvm::cl::init(true), llvm::cl::cat(category)),
        minParallelWork(
            "min-parallel-work",
            llvm::cl::desc("Work (iterations times operations per "
                           "iteration) from which a generated loop nest "
                           "runs on threads"),
            llvm::cl::init(kDefaultMinParallelWork),
            llvm::cl::cat(category)) {}
  llvm::cl::opt<std::string> cpu;
  llvm::cl::opt<bool> libraryCalls;
  llvm::cl::opt<int64_t> minParallelWork;
};

std::optional<CpuTargetFlags> &cpuTargetFlags() {
  static std::optional<CpuTargetFlags> flags;
  return flags;
}

} // namespace

FailureOr<artifact::ProgramSpec>
writeProgramLibrary(ModuleOp module, const ProgramInterface &interface,
                    const CpuTarget &target, ArtifactWriter &writer,
                    CompileStages &stages, std::string &error) {
  std::string programs = ArtifactWriter::kProgramsDir;
  std::string library = programs + "/" + interface.name + ".so";
  std::string objectPath =
      writer.getPath(programs + "/" + interface.name + ".o");
  // LLVM IR, O3 for the target CPU, object code.
  if (failed(stages.run("generating native code", [&] {
        return emitObjectFile(module, interface.getBufferShapes(), target,
                              objectPath, error);
      })))
    return failure();
  // The shared library.
  if (failed(stages.run("linking", [&] {
        LogicalResult linked =
            linkSharedLibrary(objectPath, writer.getPath(library), error);
        llvm::sys::fs::remove(objectPath);
        return linked;
      })))
    return failure();
  artifact::ProgramSpec program;
  program.name = interface.name;
  program.library = library;
  program.entry = artifact::kDefaultEntryName; // CpuCodegen.h's entry point
  program.weightFiles.assign(interface.weightFiles.begin(),
                             interface.weightFiles.end());
  return program;
}

std::unique_ptr<TargetBackend>
createCpuTargetBackend(const CpuTargetOptions &options) {
  return std::make_unique<CpuTargetBackend>(options);
}

void registerCpuTargetBackend() {
  TargetBackendInfo info;
  info.name = "cpu";
  info.description = "native code for the host architecture (--cpu picks "
                     "the CPU)";
  info.registerFlags = [](llvm::cl::OptionCategory &category) {
    cpuTargetFlags().emplace(category);
  };
  info.create = [] {
    CpuTargetOptions options;
    if (const auto &flags = cpuTargetFlags()) {
      options.cpu = flags->cpu;
      options.libraryCalls = flags->libraryCalls;
      options.minParallelWork = flags->minParallelWork;
    }
    return createCpuTargetBackend(options);
  };
  info.givenFlags = []() -> SmallVector<std::string> {
    auto &flags = cpuTargetFlags();
    if (!flags)
      return {};
    return getGivenFlags(
        {&flags->cpu, &flags->libraryCalls, &flags->minParallelWork});
  };
  registerTargetBackend(std::move(info));
}

} // namespace mlir::telar
