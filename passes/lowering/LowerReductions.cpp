//===- LowerReductions.cpp - telar ops to linalg ---------------------------===//

#include "LoweringUtils.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/Lowering.h"

using namespace mlir;
using namespace mlir::telar;

namespace {
} // namespace

void telar::populateReductionLoweringPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}
