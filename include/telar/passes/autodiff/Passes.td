//===- Passes.td - Telar autodiff passes -------------------*- tablegen -*-===//

#ifndef TELAR_PASSES_AUTODIFF_PASSES_TD
#define TELAR_PASSES_AUTODIFF_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes of passes/autodiff (library TelarAutodiffPasses): a forward
// program with a loss made into a training step.

def TelarBuildTrainingStep : Pass<"telar-build-training-step", "ModuleOp"> {
  let summary = "Make @main a training step: forward, backward (reverse-mode "
                "autodiff through each op's VJP) and the optimizer update";
  let description = [{
    `@main` computes a scalar loss (its output `loss=NAME`) from the
    trainable parameters, its `telar.variable` ops (the importer makes every
    floating-point initializer one under `telarc --train`). The pass appends
    to it, as ordinary telar ops, so that completion, the planner and the
    partitioner see one program:

    * the backward pass: from the loss's seed 1, each op between the
      variables and the loss, last first, builds the gradients of its
      operands through its `GradientOpInterface` (one file per op family in
      passes/autodiff); gradients of a value used several times are added.
      The gradient of variable `P` is named `P@grad` (`telar.result_names`),
      for plans. An op on the path without a VJP is an error naming it.
    * gradient accumulation (`microbatches` K > 1): every input gets a
      leading dimension of K (input `x : T` becomes `x : [K, T...]`, one
      microbatch per row), the forward is cloned once per microbatch (the
      variables shared), and each clone's backward (seed 1/K) is emitted
      right after its forward, so only one microbatch's activations are
      live at a time; the gradients are summed and the loss is the mean of
      the microbatches' losses (PyTorch's accumulation of loss/K).
    * global-norm gradient clipping (`grad-clip`, PyTorch's
      `clip_grad_norm_`): every gradient times min(1, clip / (norm + 1e-6)).
    * the optimizer update, with PyTorch's semantics: `sgd` (momentum
      buffer `P@momentum`, coupled weight decay) or `adamw` (state `P@m`,
      `P@v`; decoupled weight decay; bias correction from the step number).
      Optimizer state is more `telar.variable`s, zero initially.

    The function then takes two runtime scalars after its inputs, `@lr`
    (the learning rate, so a schedule can change it per step) and, for
    adamw, `@step` (the 1-based step number), both `f32`; it returns the
    loss, then the new value of every parameter and state variable, named
    `<variable>@new` and marked `telar.updates = "<variable>"`. The model's
    other outputs are dropped. A parameter the loss does not depend on is
    left alone (as PyTorch leaves a parameter whose gradient is None). The
    module records the loss, the optimizer and its hyper-parameters in
    `telar.training`.

    ```mlir
    // before: y = x * w, loss = sum(y)
    %w = telar.variable "w" dense_resource<w> : tensor<4xf32>
    // after, sgd: w@new = w - lr * (dloss/dw)
    func.func @main(%x: ..., %lr: tensor<f32> {telar.name = "@lr"})
        -> (tensor<f32>, tensor<4xf32> {telar.updates = "w"})
    ```
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"loss\"",
           "The output of @main that is the loss (a floating-point scalar)">,
    Option<"optimizer", "optimizer", "std::string", "\"adamw\"",
           "sgd or adamw">,
    Option<"learningRate", "lr", "double", "-1.0",
           "The learning rate (the default of @lr; default: 0.01 for sgd, "
           "1e-3 for adamw)">,
    Option<"momentum", "momentum", "double", "0.0", "sgd's momentum">,
    Option<"weightDecay", "weight-decay", "double", "-1.0",
           "Weight decay (default: 0 for sgd, coupled; 0.01 for adamw, "
           "decoupled)">,
    Option<"beta1", "beta1", "double", "0.9", "adamw's first beta">,
    Option<"beta2", "beta2", "double", "0.999", "adamw's second beta">,
    Option<"epsilon", "eps", "double", "1e-8", "adamw's epsilon">,
    Option<"gradClip", "grad-clip", "double", "0.0",
           "Clip the gradients' global L2 norm to this (0: no clipping)">,
    Option<"microbatches", "microbatches", "int64_t", "1",
           "Accumulate the gradients of this many microbatches per step "
           "(each input gets a leading dimension of this size)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // TELAR_PASSES_AUTODIFF_PASSES_TD
