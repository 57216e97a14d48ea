//===- Optimizers.h - The optimizers' updates as telar ops ------*- C++ -*-===//
//
// One parameter's update, with PyTorch's semantics (torch.optim.SGD with
// dampening 0 and no Nesterov; torch.optim.AdamW), built by
// telar-build-training-step after the backward pass.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PASSES_AUTODIFF_OPTIMIZERS_H
#define TELAR_PASSES_AUTODIFF_OPTIMIZERS_H

#include "GradientBuilder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <utility>

namespace mlir::telar::autodiff {

struct OptimizerOptions {
  /// "sgd" or "adamw".
  std::string kind = "adamw";
  double momentum = 0, weightDecay = 0;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
};

/// The names of the state `options` keeps per parameter ("momentum" for
/// sgd with momentum, "m" and "v" for adamw).
SmallVector<StringRef> getOptimizerState(const OptimizerOptions &options);

/// Builds the new value of `param` (gradient `grad`) and of its state:
/// `state` holds the current values of getOptimizerState's entries, in
/// order; `lr` and `step` are the f32 scalars of the step (`step` null
/// unless adamw). Returns the new parameter, then the new states.
SmallVector<Value> buildOptimizerUpdate(GradientBuilder &g,
                                        const OptimizerOptions &options,
                                        Value param, Value grad,
                                        ArrayRef<Value> state, Value lr,
                                        Value step);

} // namespace mlir::telar::autodiff

#endif // TELAR_PASSES_AUTODIFF_OPTIMIZERS_H
