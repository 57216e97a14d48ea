//===- Pipeline.cpp - Telar's target-independent named pipelines ----------===//

#include "telar/codegen/Pipeline.h"
#include "telar/passes/abi/Passes.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void telar::buildImportCleanupPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void telar::buildProgramPreparationPipeline(OpPassManager &pm) {
  // Transposes of weights first: they make new weights, which the
  // outlining then turns into arguments like the others.
  pm.addPass(createTelarFoldWeightTransposes());
  // Then what depends on constants only: its results may be weights too.
  pm.addPass(createTelarFoldConstants());
  pm.addPass(createTelarOutlineWeights());
}

void telar::buildLowerToLinalgPipeline(OpPassManager &pm) {
  buildProgramPreparationPipeline(pm);
  pm.addPass(createTelarLowerToLinalg());
}

void telar::buildFusedLinalgPipeline(OpPassManager &pm,
                                     bool runtimeCollectives) {
  pm.addPass(createTelarLowerToLinalg());
  // A partitioned program's collectives: runtime calls on the buffers, with
  // the context telar-add-runtime-context gives them. Before CSE, which
  // would merge identical collectives the cost model priced apart.
  TelarLowerCollectivesOptions collectives;
  collectives.runtime = runtimeCollectives;
  pm.addPass(createTelarLowerCollectives(collectives));
  pm.addPass(createCanonicalizerPass());
  // Bias and residual adds into the GEMMs' inits, before fusion merges them
  // into other elementwise work.
  pm.addPass(createTelarFoldAddIntoContractionInit());
  pm.addPass(createTelarFuseElementwise());
  pm.addPass(createCSEPass());
}

void telar::buildBufferizationPipeline(OpPassManager &pm) {
  pm.addPass(createTelarReadOnlyArguments());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

void telar::buildLowerToFusedLinalgPipeline(OpPassManager &pm) {
  buildProgramPreparationPipeline(pm);
  buildFusedLinalgPipeline(pm);
}

void telar::registerTelarPipelines() {
  PassPipelineRegistration<>(
      "telar-prepare-program",
      "Target-independent preparation of a telar program: weights "
      "transposed and constant subgraphs evaluated at compile time, then "
      "weights outlined into @main arguments",
      buildProgramPreparationPipeline);
  PassPipelineRegistration<>(
      "telar-lower-to-fused-linalg",
      "telar-prepare-program, then the translation prefix every target "
      "shares: linalg on tensors, collectives as runtime calls, bias adds "
      "folded into contractions, elementwise chains fused",
      buildLowerToFusedLinalgPipeline);
}
