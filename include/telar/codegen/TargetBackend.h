//===- TargetBackend.h - The interface every code target implements -*- C++ -*-===//
//
// A target turns a prepared telar program (after telar-prepare-program:
// weights outlined into @main arguments) into program files of an artifact.
// The driver (compileArtifact, Artifact.h) is the same for every target:
//
//   telar IR ─ telar-prepare-program ─ target.buildWeightPreparationPipeline
//     ─ read the program interface, write the weights ─ the shared translation prefix (fused linalg on
//     tensors, buildFusedLinalgPipeline) ─ target.buildTranslationPipeline ─
//     target.serialize (libraries into the artifact) ─ manifest.json
//
// The CPU target (targets/cpu, telar/targets/cpu/CpuTargetBackend.h) is the
// first implementation; a CUDA target is a second one in a folder of its
// own, registered under its own name, with no change to the driver or to
// telarc. Modelled on IREE's HAL TargetBackend.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_CODEGEN_TARGETBACKEND_H
#define TELAR_CODEGEN_TARGETBACKEND_H

#include "telar/codegen/ArtifactWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm::cl {
class Option;
class OptionCategory;
} // namespace llvm::cl

namespace mlir {
class OpPassManager;
namespace telar {

class ArtifactWriter;
class CompileStages;

/// A tensor crossing a program's boundary, with the element type the model
/// declares (before the lowering turns ui8 into i8).
struct ProgramTensor {
  std::string name;
  RankedTensorType type;
  /// Of a partitioned program: how the global tensor is split on the
  /// program's mesh (no dimensions: replicated) and its global shape
  /// (`type` is the local block's).
  telar_sharding::Sharding sharding = {};
  std::vector<int64_t> globalShape = {};
  /// A training step's output: the weight (its resource key) whose value
  /// it replaces after each step ("": none).
  std::string updates = {};
};

/// A weight argument of a program and the bytes the runtime maps for it:
/// a tensor of the weight file it is written to.
using ProgramWeight = WeightTensor;

/// What a program takes and returns, read from the prepared program before
/// its translation. The entry point takes one buffer per input, then per
/// weight, then per output, in this order.
struct ProgramInterface {
  /// The function (and the artifact's program name): "main".
  std::string name;
  SmallVector<ProgramTensor> inputs;
  SmallVector<ProgramWeight> weights;
  SmallVector<ProgramTensor> outputs;
  /// The artifact's weight files (relative paths) holding `weights`.
  SmallVector<std::string> weightFiles;
  /// The mesh of a partitioned program (its `shard.grid`), or none.
  std::optional<telar_sharding::Mesh> mesh;

  /// The static shape of every buffer of the entry point, in order.
  SmallVector<SmallVector<int64_t>> getBufferShapes() const;
};

/// A code target. Implementations hold their options (the flags they
/// registered, read when the backend is created).
class TargetBackend {
public:
  virtual ~TargetBackend();

  /// The name `--target` selects; also the manifest's target kind.
  virtual StringRef getName() const = 0;

  /// Checks the target's options (its flags) for a program, `partitioned`
  /// or not, before anything is compiled or written; `error` says what is
  /// wrong.
  virtual LogicalResult checkOptions(bool partitioned,
                                     std::string &error) const {
    return success();
  }

  /// Whether tensors of `elementType` can be a program's input, output or
  /// weight on this target.
  virtual bool supportsElementType(Type elementType) const = 0;

  /// Adds the passes that run on the prepared program (weights outlined
  /// into @main's arguments, their bytes in the context's resource blobs)
  /// before its weights are read and written: a target that stores weights
  /// in another element type converts them here. None by default.
  virtual void buildWeightPreparationPipeline(OpPassManager &pm) const {}

  /// Adds the passes that take the shared translation prefix's result (a
  /// prepared program in fused linalg on tensors, buildFusedLinalgPipeline)
  /// to the IR serialize() consumes.
  virtual void buildTranslationPipeline(OpPassManager &pm) const = 0;

  /// The progress-line name of the translation ("lowering to LLVM").
  virtual StringRef getTranslationStageName() const = 0;

  /// The stages serialize() runs through `stages`, in order.
  virtual SmallVector<StringRef> getSerializationStageNames() const = 0;

  /// Turns the translated `module` into the program(s) of the artifact:
  /// writes their files with `writer`, records each (name, library, entry,
  /// weight files) and the target's description in it.
  virtual LogicalResult serialize(ModuleOp module,
                                  const ProgramInterface &interface,
                                  ArtifactWriter &writer,
                                  CompileStages &stages,
                                  std::string &error) = 0;

  /// Prints the device code of the translated `module` (the CUDA target:
  /// its kernels' PTX) for telarc --emit; failure with the reason in
  /// `error` for targets whose code is the module itself (the CPU).
  virtual LogicalResult printDeviceCode(ModuleOp module, raw_ostream &os,
                                        std::string &error) const {
    error = "the '" + getName().str() + "' target has no device code apart "
            "from its LLVM IR";
    return failure();
  }

  /// The libraries a process needs loaded to run this target's programs
  /// (the symbols the programs leave undefined), by library name.
  virtual SmallVector<std::string> getRuntimeLibraries() const = 0;
};

/// The translation of a prepared program for `target`: the prefix every
/// target shares (buildFusedLinalgPipeline), then the target's own passes.
void buildTranslationPipeline(OpPassManager &pm, const TargetBackend &target);

/// telar-prepare-program, then the target's weight preparation: the program
/// whose weights the artifact stores.
void buildPreparationPipeline(OpPassManager &pm, const TargetBackend &target);

/// Every pass from the imported graph IR to what `target.serialize` takes:
/// buildPreparationPipeline, the shared prefix (telar-lower-to-fused-linalg
/// together), then the target's translation. For the CPU target with
/// telarc's default flags it is `telar-lower-to-llvm`.
void buildTargetPipeline(OpPassManager &pm, const TargetBackend &target);

/// A target in the registry.
struct TargetBackendInfo {
  std::string name;
  std::string description;
  /// Declares the target's command-line flags in `category` (telarc's).
  /// Called at most once, before the command line is parsed; may be empty.
  std::function<void(llvm::cl::OptionCategory &category)> registerFlags;
  /// Creates the backend with the values of its flags (their defaults when
  /// they were never registered).
  std::function<std::unique_ptr<TargetBackend>()> create;
  /// The target's flags given on the command line ("--gpu"), so that a
  /// command not using the target can refuse them; may be empty.
  std::function<SmallVector<std::string>()> givenFlags;
};

/// "--name" of each of `flags` given on the command line (for
/// TargetBackendInfo::givenFlags).
SmallVector<std::string> getGivenFlags(ArrayRef<llvm::cl::Option *> flags);

/// Adds a target to the registry; a second registration of a name is
/// ignored.
void registerTargetBackend(TargetBackendInfo info);

/// The target registered as `name`, or null.
const TargetBackendInfo *lookupTargetBackend(StringRef name);

/// The registered targets' names, sorted.
SmallVector<std::string> getRegisteredTargetBackendNames();

/// Calls every registered target's registerFlags once.
void registerTargetBackendFlags(llvm::cl::OptionCategory &category);

} // namespace telar
} // namespace mlir

#endif // TELAR_CODEGEN_TARGETBACKEND_H
