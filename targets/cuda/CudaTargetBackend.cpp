//===- CudaTargetBackend.cpp - The CUDA target ----------------------------===//
//
// `telarc --target cuda --gpu sm_90 [--dtype tf32|bf16] [--emulation]
// -o out/`:
// the translated program (host code launching one kernel per linalg op,
// calling the runtime's GEMM for matmuls) is serialized from copies of the
// same module:
//   - the kernels, all in one module, through NVVM to PTX
//     (programs/<name>.kernels/kernels.ptx), and to a cubin by the
//     toolkit's ptxas when it is installed, running while the host program
//     compiles (its register, spill and shared-memory report in ptxas.txt);
//   - the host program (programs/<name>.so): launches as telarrt_gpu_launch
//     calls by kernel index, matmuls as telarrt_gpu_matmul_f32 calls
//     (abi/Gpu.h), compiled for a generic x86-64 host
//     by the CPU target's code generation; the manifest lists its kernel
//     table;
//   - with --emulation, the same kernels compiled for this CPU
//     (programs/<name>.emulation.so): what telar-run --emulate runs them
//     with.
//
//===----------------------------------------------------------------------===//

#include "telar/targets/cuda/CudaTargetBackend.h"
#include "telar/codegen/Artifact.h"
#include "telar/dialects/Telar/TelarDialect.h"
#include "telar/codegen/ArtifactWriter.h"
#include "telar/targets/cpu/CpuCodegen.h"
#include "telar/targets/cpu/CpuTarget.h"
#include "telar/targets/cuda/CudaPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;

namespace mlir::telar {
namespace {

constexpr llvm::StringLiteral kCudaTargetKind = "cuda";
constexpr llvm::StringLiteral kNvptxTriple = "nvptx64-nvidia-cuda";

/// ptxas from PATH, else the toolkit's default place; empty when absent.
std::string findPtxas() {
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::ErrorOr<std::string> path =
          llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *path;
  return "";
}

class CudaTargetBackend : public TargetBackend {
public:
  explicit CudaTargetBackend(const CudaTargetOptions &options)
      : options(options) {}

  StringRef getName() const override { return kCudaTargetKind; }

  bool supportsElementType(Type elementType) const override {
    return !numpyDtypeName(elementType).empty();
  }

  void buildWeightPreparationPipeline(OpPassManager &pm) const override {
    CudaPipelineOptions pipeline;
    setPipelineOptions(pipeline);
    buildCudaWeightPreparationPipeline(pm, pipeline);
  }

  void buildTranslationPipeline(OpPassManager &pm) const override {
    CudaPipelineOptions pipeline;
    setPipelineOptions(pipeline);
    buildCudaTranslationPipeline(pm, pipeline);
  }
  StringRef getTranslationStageName() const override {
    return "generating GPU kernels";
  }
  SmallVector<StringRef> getSerializationStageNames() const override {
    SmallVector<StringRef> names = {
        "compiling kernels to PTX", "lowering the host program",
        "generating native code", "linking", "assembling kernels"};
    if (options.emulation)
      names.push_back("emulating kernels (CPU)");
    return names;
  }

  LogicalResult checkOptions(bool partitioned,
                             std::string &error) const override {
    if (!llvm::is_contained(kCudaDtypes, options.dtype)) {
      error = "--dtype " + options.dtype +
              " is not a compute type of the CUDA target (fp32, tf32, bf16, "
              "fp16)";
      return failure();
    }
    if (!llvm::is_contained(kImplementedCudaDtypes, options.dtype)) {
      error = "--dtype " + options.dtype +
              " is not implemented yet: the CUDA target computes in fp32, "
              "tf32 (matrix products on tensor cores) or bf16 for now";
      return failure();
    }
    if (!isSupportedCudaChip(options.gpu)) {
      error = "--gpu " + options.gpu +
              " is not a supported GPU architecture (sm_80, sm_86, sm_89, "
              "sm_90)";
      return failure();
    }
    if (partitioned) {
      error = "--target cuda compiles single-device programs for now: a "
              "plan (--plan, --mesh, --devices) needs the multi-GPU "
              "runtime (NCCL), not built yet; use --target cpu";
      return failure();
    }
    return success();
  }

  LogicalResult serialize(ModuleOp module, const ProgramInterface &interface,
                          ArtifactWriter &writer, CompileStages &stages,
                          std::string &error) override {
    std::string kernelDir = std::string(ArtifactWriter::kProgramsDir) + "/" +
                            interface.name + ".kernels";
    if (std::error_code ec =
            llvm::sys::fs::create_directories(writer.getPath(kernelDir))) {
      error = "cannot create " + writer.getPath(kernelDir) + ": " +
              ec.message();
      return failure();
    }
    SmallVector<std::string> ptxFiles;
    if (failed(stages.run("compiling kernels to PTX", [&] {
          return writePtx(module, writer, kernelDir, ptxFiles, error);
        })))
      return failure();
    // ptxas runs while the host program compiles; its stage is the wait.
    std::vector<Assembly> assembly;
    llvm::scope_exit waitForPtxas([&] {
      for (Assembly &job : assembly) {
        llvm::sys::Wait(job.process, std::nullopt);
        llvm::sys::fs::remove(job.log);
      }
    });
    if (failed(startAssembling(writer, ptxFiles, assembly, error)))
      return failure();

    // The host program, and the kernel table its launches index.
    OwningOpRef<ModuleOp> host = cast<ModuleOp>(module->clone());
    FailureOr<CpuTarget> hostTarget;
    std::vector<artifact::KernelSpec> kernels;
    if (failed(stages.run("lowering the host program", [&]() -> LogicalResult {
          PassManager pm(module.getContext());
          CudaPipelineOptions pipeline;
          setPipelineOptions(pipeline);
          buildCudaHostPipeline(pm, pipeline);
          if (failed(pm.run(*host))) {
            error = "lowering the GPU program's host code failed (see above)";
            return failure();
          }
          StringRef tableName = TelarDialect::GpuKernelsAttrHelper::getNameStr();
          auto table = (*host)->getAttrOfType<ArrayAttr>(tableName);
          if (table)
            for (Attribute a : table) {
              auto ref = cast<SymbolRefAttr>(a);
              kernels.push_back({ref.getRootReference().str(),
                                 ref.getLeafReference().str()});
            }
          (*host)->removeAttr(tableName);
          hostTarget = getModuleCpuTarget(*host, error);
          return hostTarget;
        })))
      return failure();
    FailureOr<artifact::ProgramSpec> program = writeProgramLibrary(
        *host, interface, *hostTarget, writer, stages, error);
    if (failed(program))
      return failure();
    if (failed(stages.run("assembling kernels", [&] {
          return finishAssembling(writer, kernelDir, assembly, error);
        })))
      return failure();
    program->kernelDirectory = kernelDir;
    program->kernels = std::move(kernels);

    if (options.emulation &&
        failed(stages.run("emulating kernels (CPU)", [&]() -> LogicalResult {
          FailureOr<std::string> library =
              writeEmulationLibrary(module, interface, writer, error);
          if (failed(library))
            return failure();
          program->emulationLibrary = *library;
          return success();
        })))
      return failure();
    writer.addProgram(std::move(*program));
    writer.setTarget(TargetAttr::get(module.getContext(), kCudaTargetKind,
                                     kNvptxTriple, options.gpu, ""));
    return success();
  }

  /// The kernels' PTX, one text per kernel module (one per program).
  LogicalResult printDeviceCode(ModuleOp module, raw_ostream &os,
                                std::string &error) const override {
    SmallVector<std::string> ptx;
    if (failed(compilePtx(module, ptx, error)))
      return failure();
    for (const std::string &text : ptx)
      os << text;
    return success();
  }

  SmallVector<std::string> getRuntimeLibraries() const override {
    // The host program calls the runtime's core (its GPU calls go to the
    // context's device); the emulated kernels libm.
    return {"telar_runtime", "m"};
  }

private:
  /// The pipelines' options of this target's flags (for the runtime).
  void setPipelineOptions(CudaPipelineOptions &pipeline) const {
    pipeline.gpu = options.gpu;
    pipeline.dtype = options.dtype;
    pipeline.runtime = true;
  }

  /// The kernels compiled for this CPU, an entry point each, as the
  /// shared library programs/<name>.emulation.so; its path in the
  /// artifact.
  FailureOr<std::string> writeEmulationLibrary(ModuleOp module,
                                               const ProgramInterface &interface,
                                               ArtifactWriter &writer,
                                               std::string &error) const {
    OwningOpRef<ModuleOp> kernels = cast<ModuleOp>(module->clone());
    PassManager pm(module.getContext());
    CudaPipelineOptions pipeline;
    setPipelineOptions(pipeline);
    buildCudaKernelLibraryPipeline(pm, pipeline);
    if (failed(pm.run(*kernels))) {
      error = "compiling the kernels for the CPU emulation failed (see above)";
      return failure();
    }
    FailureOr<CpuTarget> target = getModuleCpuTarget(*kernels, error);
    if (failed(target))
      return failure();
    std::string programs = ArtifactWriter::kProgramsDir;
    std::string library = programs + "/" + interface.name + ".emulation.so";
    std::string object =
        writer.getPath(programs + "/" + interface.name + ".emulation.o");
    if (failed(emitObjectFile(*kernels, {}, *target, object, error,
                              /*entryPoint=*/false)))
      return failure();
    LogicalResult linked =
        linkSharedLibrary(object, writer.getPath(library), error);
    llvm::sys::fs::remove(object);
    if (failed(linked))
      return failure();
    return library;
  }

  /// The PTX of every kernel module of the translated `module`, with its
  /// module's name.
  LogicalResult compilePtx(ModuleOp module, SmallVector<std::string> &texts,
                           std::string &error,
                           SmallVector<std::string> *names = nullptr) const {
    OwningOpRef<ModuleOp> kernels = cast<ModuleOp>(module->clone());
    PassManager pm(module.getContext());
    CudaPipelineOptions pipeline;
    setPipelineOptions(pipeline);
    buildCudaKernelPipeline(pm, pipeline);
    if (failed(pm.run(*kernels))) {
      error = "compiling the kernels to PTX failed (see above)";
      return failure();
    }
    for (auto binary : kernels->getOps<gpu::BinaryOp>()) {
      for (Attribute a : binary.getObjects()) {
        StringRef ptx = cast<gpu::ObjectAttr>(a).getObject().getValue();
        // A libdevice function left as a call cannot be resolved: this
        // build links no libdevice (telar-libdevice-to-intrinsics turns
        // those with an instruction into it).
        if (size_t at = ptx.find("__nv_"); at != StringRef::npos) {
          StringRef name = ptx.substr(at).take_while(
              [](char c) { return llvm::isAlnum(c) || c == '_'; });
          error = "kernel module " + binary.getName().str() +
                  " calls libdevice's " + name.str() +
                  ", which the CUDA target does not link yet (its math "
                  "needs an approximation of its own)";
          return failure();
        }
        texts.push_back(ptx.str());
        if (names)
          names->push_back(binary.getName().str());
      }
    }
    return success();
  }

  /// The PTX of every kernel module, one file each.
  LogicalResult writePtx(ModuleOp module, ArtifactWriter &writer,
                         StringRef kernelDir, SmallVector<std::string> &files,
                         std::string &error) const {
    SmallVector<std::string> texts, names;
    if (failed(compilePtx(module, texts, error, &names)))
      return failure();
    for (auto [text, name] : llvm::zip(texts, names)) {
      std::string relative = (kernelDir + "/" + name + ".ptx").str();
      std::error_code ec;
      llvm::raw_fd_ostream os(writer.getPath(relative), ec);
      if (ec) {
        error = "cannot write " + writer.getPath(relative) + ": " +
                ec.message();
        return failure();
      }
      os << text;
      files.push_back(relative);
    }
    return success();
  }

  /// ptxas assembling a PTX file to its cubin, started in the background
  /// (it overlaps the host program's compilation).
  struct Assembly {
    llvm::sys::ProcessInfo process;
    std::string input, log;
  };

  /// Starts ptxas on each PTX file when the toolkit is installed; nothing
  /// otherwise.
  LogicalResult startAssembling(ArtifactWriter &writer,
                                ArrayRef<std::string> ptxFiles,
                                std::vector<Assembly> &jobs,
                                std::string &error) const {
    std::string ptxas = findPtxas();
    if (ptxas.empty())
      return success();
    for (const std::string &ptx : ptxFiles) {
      Assembly job;
      job.input = writer.getPath(ptx);
      std::string out = job.input.substr(0, job.input.size() - 4) + ".cubin";
      SmallString<128> log;
      if (std::error_code ec =
              llvm::sys::fs::createTemporaryFile("telar-ptxas", "txt", log)) {
        error = "cannot create a temporary file for ptxas: " + ec.message();
        return failure();
      }
      job.log = log.str().str();
      std::string arch = "-arch=" + options.gpu;
      // --split-compile 0: the kernels on all of the machine's cores.
      SmallVector<StringRef> args = {ptxas, arch, "-O3", "-v",
                                     "--split-compile", "0", job.input,
                                     "-o", out};
      std::optional<StringRef> redirects[] = {std::nullopt, job.log, job.log};
      std::string why;
      bool failed = false;
      job.process = llvm::sys::ExecuteNoWait(ptxas, args, std::nullopt,
                                             redirects, 0, &why, &failed);
      if (failed) {
        error = "cannot run " + ptxas + ": " + why;
        return failure();
      }
      jobs.push_back(std::move(job));
    }
    return success();
  }

  /// Waits for the ptxas runs; their resource reports (registers, spills,
  /// shared memory per kernel) go to ptxas.txt.
  LogicalResult finishAssembling(ArtifactWriter &writer, StringRef kernelDir,
                                 std::vector<Assembly> &jobs,
                                 std::string &error) const {
    std::string reportPath = writer.getPath((kernelDir + "/ptxas.txt").str());
    std::error_code ec;
    llvm::raw_fd_ostream report(reportPath, ec);
    if (ec) {
      error = "cannot write " + reportPath + ": " + ec.message();
      return failure();
    }
    if (jobs.empty() && findPtxas().empty())
      report << "ptxas not found (PATH, /usr/local/cuda/bin): PTX only, "
                "the driver compiles it at load\n";
    LogicalResult result = success();
    for (Assembly &job : jobs) {
      std::string why;
      llvm::sys::ProcessInfo done = llvm::sys::Wait(
          job.process, /*SecondsToWait=*/std::optional<unsigned>(300), &why);
      auto text = llvm::MemoryBuffer::getFile(job.log);
      std::string output = text ? (*text)->getBuffer().str() : "";
      llvm::sys::fs::remove(job.log);
      report << "== " << llvm::sys::path::filename(job.input) << "\n"
             << output;
      if (done.ReturnCode != 0 && succeeded(result)) {
        error = "ptxas failed on " + job.input + " (rc " +
                std::to_string(done.ReturnCode) +
                (why.empty() ? "" : ", " + why) + "): " + output;
        result = failure();
      }
    }
    jobs.clear(); // waited for
    return result;
  }

  CudaTargetOptions options;
};

/// telarc's flags for the CUDA target.
struct CudaTargetFlags {
  explicit CudaTargetFlags(llvm::cl::OptionCategory &category)
      : gpu("gpu",
            llvm::cl::desc("GPU architecture of --target cuda: sm_80, "
                           "sm_86, sm_89 or sm_90 (default)"),
            llvm::cl::init(kDefaultCudaChip), llvm::cl::cat(category)),
        emulation(
            "emulation",
            llvm::cl::desc("With --target cuda: also compile the kernels "
                           "for this machine's CPU, so that telar-run "
                           "--emulate runs the artifact without a GPU"),
            llvm::cl::init(false), llvm::cl::cat(category)),
        dtype("dtype",
              llvm::cl::desc("With --target cuda: the compute type, fp32 "
                             "(default), tf32 (matrix products on tensor "
                             "cores, inputs rounded to TF32) or bf16 "
                             "(weights and the tensors between kernels "
                             "stored as bfloat16; every kernel computes, "
                             "and reductions and matrix products "
                             "accumulate, in f32); fp16 is not implemented "
                             "yet"),
              llvm::cl::init("fp32"), llvm::cl::cat(category)) {}
  llvm::cl::opt<std::string> gpu;
  llvm::cl::opt<bool> emulation;
  llvm::cl::opt<std::string> dtype;
};

std::optional<CudaTargetFlags> &cudaTargetFlags() {
  static std::optional<CudaTargetFlags> flags;
  return flags;
}

} // namespace

std::unique_ptr<TargetBackend>
createCudaTargetBackend(const CudaTargetOptions &options) {
  return std::make_unique<CudaTargetBackend>(options);
}

void registerCudaTargetBackend() {
  TargetBackendInfo info;
  info.name = kCudaTargetKind.str();
  info.description = "NVIDIA GPUs: one kernel per fused region through NVVM "
                     "to PTX, a host program launching them through the "
                     "runtime's CUDA device (--gpu picks the architecture; "
                     "--emulation also compiles the kernels for the CPU)";
  info.registerFlags = [](llvm::cl::OptionCategory &category) {
    cudaTargetFlags().emplace(category);
  };
  info.create = [] {
    CudaTargetOptions options;
    if (const auto &flags = cudaTargetFlags()) {
      options.gpu = flags->gpu;
      options.emulation = flags->emulation;
      options.dtype = flags->dtype;
    }
    return createCudaTargetBackend(options);
  };
  info.givenFlags = []() -> SmallVector<std::string> {
    auto &flags = cudaTargetFlags();
    if (!flags)
      return {};
    return getGivenFlags({&flags->gpu, &flags->emulation, &flags->dtype});
  };
  registerTargetBackend(std::move(info));
}

} // namespace mlir::telar
