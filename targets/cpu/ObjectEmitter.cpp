//===- ObjectEmitter.cpp - LLVM dialect -> optimised native object ---------===//

#include "telar/targets/cpu/CpuCodegen.h"

#include "telar/artifact/Manifest.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

/// `int telar_entry(TelarContext *ctx, void **buffers)` (docs/Artifact.md):
/// builds a dense descriptor (ptr, ptr, 0, sizes..., strides...) per buffer
/// and calls the lowered `main` with the context, returning its status;
/// `main` is made internal so that it is inlined into the entry.
static LogicalResult addEntryPoint(llvm::Module &module,
                                   ArrayRef<SmallVector<int64_t>> shapes,
                                   std::string &error) {
  llvm::Function *impl = module.getFunction("main");
  if (!impl) {
    error = "the lowered module has no @main";
    return failure();
  }
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  size_t expected = 1; // the context
  for (const auto &shape : shapes)
    expected += 3 + 2 * shape.size();
  if (impl->arg_size() != expected || impl->getReturnType() != i32 ||
      impl->getArg(0)->getType() != ptrTy) {
    error = "@main takes " + std::to_string(impl->arg_size()) +
            " scalar arguments, expected the runtime context and " +
            std::to_string(expected - 1) + " for " +
            std::to_string(shapes.size()) +
            " buffers, and an i32 status result";
    return failure();
  }
  impl->setName("telar_main");
  impl->setLinkage(llvm::GlobalValue::InternalLinkage);

  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(i32, {ptrTy, ptrTy}, false),
      llvm::GlobalValue::ExternalLinkage, telar_artifact::kDefaultEntryName,
      module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  SmallVector<llvm::Value *> args = {entry->getArg(0)};
  for (auto [i, shape] : llvm::enumerate(shapes)) {
    llvm::Value *slot =
        b.CreateConstInBoundsGEP1_64(ptrTy, entry->getArg(1), i);
    llvm::Value *ptr = b.CreateLoad(ptrTy, slot);
    args.push_back(ptr);
    args.push_back(ptr);
    args.push_back(b.getInt64(0));
    for (int64_t size : shape)
      args.push_back(llvm::ConstantInt::get(i64, size));
    int64_t stride = 1;
    SmallVector<int64_t> strides(shape.size());
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (int64_t s : strides)
      args.push_back(llvm::ConstantInt::get(i64, s));
  }
  b.CreateRet(b.CreateCall(impl, args));
  return success();
}

/// Lets LLVM reassociate floating-point adds/muls and contract them into
/// FMAs: the loop vectoriser can then vectorise reductions (softmax and
/// normalisation sums), as onnxruntime's kernels do. NaN/Inf semantics are
/// kept (no nnan/ninf); results differ from strict order only by rounding.
static void allowReassociation(llvm::Module &module) {
  for (llvm::Function &f : module)
    for (llvm::Instruction &inst : llvm::instructions(f))
      if (isa<llvm::FPMathOperator>(inst)) {
        inst.setHasAllowReassoc(true);
        inst.setHasAllowContract(true);
      }
}

LogicalResult telar::emitObjectFile(ModuleOp module,
                                    ArrayRef<SmallVector<int64_t>> bufferShapes,
                                    const CpuTarget &target,
                                    StringRef objectPath, std::string &error,
                                    bool entryPoint) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "telar_program");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  if (entryPoint && failed(addEntryPoint(*llvmModule, bufferShapes, error)))
    return failure();

  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget = lookupNativeTarget(triple, error);
  if (!llvmTarget)
    return failure();
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create a target machine for " + target.triple;
    return failure();
  }
  bool hasAvx512 = machine->getMCSubtargetInfo()->checkFeatures("+avx512f");
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // Attributes the vectorisers and the backend read per function.
  for (llvm::Function &f : *llvmModule) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", target.cpu);
    if (!target.features.empty())
      f.addFnAttr("target-features", target.features);
    // LLVM vectorises with 256-bit vectors on AVX-512 CPUs unless told
    // otherwise (older Xeons clocked down for 512-bit ones); the runtime's
    // GEMM runs 512-bit already, and the generated elementwise loops gain
    // from the full width too.
    if (hasAvx512)
      f.addFnAttr("prefer-vector-width", "512");
  }
  allowReassociation(*llvmModule);
  if (llvm::verifyModule(*llvmModule, &llvm::errs())) {
    error = "the generated LLVM IR does not verify";
    return failure();
  }

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    // Full unrolling of the many small static-trip loops, times AVX-512
    // widths, made basic blocks of thousands of instructions whose
    // scheduling took 10 s for a tiny GPT (0.24 s without), and the code
    // ran no faster.
    tuning.LoopUnrolling = false;
    llvm::PassBuilder pb(machine.get(), tuning);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm =
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*llvmModule, mam);
  }

  std::error_code ec;
  llvm::ToolOutputFile out(objectPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + objectPath.str() + ": " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  codegen.run(*llvmModule);
  out.keep();
  return success();
}
