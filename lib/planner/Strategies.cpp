//===- Strategies.cpp - Enumerating an op's sharding strategies -----------===//

#include "telar/planner/Strategies.h"
#include "telar/sharding/Completion.h"

#include <set>

using namespace mlir;
using namespace mlir::telar;
using namespace mlir::telar::planner;
using telar_sharding::Mesh;
using telar_sharding::Sharding;

namespace {

/// The reduction a split factor of this kind leaves pending (mean leaves
/// sums, as in completion), as an int for comparison; -1 for parallel.
int partialClass(FactorKind kind) {
  switch (kind) {
  case FactorKind::Sum:
  case FactorKind::Mean: return 0;
  case FactorKind::Max: return 1;
  case FactorKind::Min: return 2;
  default: return -1;
  }
}

} // namespace

std::vector<Strategy>
mlir::telar::planner::enumerateStrategies(ShardingRuleAttr rule,
                                          const Mesh &mesh,
                                          ArrayRef<bool> whole) {
  int64_t numFactors = rule.getNumFactors();
  unsigned numTensors =
      rule.getOperandMappings().size() + rule.getResultMappings().size();
  unsigned numOperands = rule.getOperandMappings().size();
  std::vector<int64_t> candidates; // factors that may take axes
  for (int64_t f = 0; f < numFactors; ++f) {
    int64_t size = rule.getFactorSizes()[f];
    if (size > 1 && isSplittableFactor(rule.getKind(f)) &&
        !(f < int64_t(whole.size()) && whole[f]))
      candidates.push_back(f);
  }
  int64_t numAxes = mesh.getNumAxes();
  std::vector<Strategy> out;
  // Strategies already found, by their shardings (as text: Sharding has no
  // order).
  std::set<std::string> seen;
  // choice[a]: index into candidates + 1, or 0 for none; counted like an
  // odometer, so the all-none (replicated) assignment comes first.
  std::vector<size_t> choice(numAxes, 0);
  while (true) {
    std::vector<std::vector<int64_t>> factorAxes(numFactors);
    for (int64_t a = 0; a < numAxes; ++a)
      if (choice[a])
        factorAxes[candidates[choice[a] - 1]].push_back(a);
    bool ok = true;
    int kind = -1;
    for (int64_t f = 0; f < numFactors && ok; ++f) {
      if (factorAxes[f].empty())
        continue;
      if (rule.getFactorSizes()[f] % getAxesSize(mesh, factorAxes[f]) != 0)
        ok = false;
      int k = partialClass(rule.getKind(f));
      if (k >= 0) {
        if (kind >= 0 && kind != k)
          ok = false;
        kind = k;
      }
    }
    Strategy s;
    if (ok) {
      for (unsigned t = 0; t < numTensors && ok; ++t) {
        int64_t invalid = -1;
        Sharding sharding = deriveTensorSharding(rule, mesh, t, factorAxes,
                                                 invalid);
        if (invalid >= 0)
          ok = false;
        (t < numOperands ? s.operands : s.results).push_back(sharding);
      }
    }
    // Completion reads the assignment back from the results.
    if (ok) {
      std::map<int64_t, std::vector<int64_t>> read;
      for (unsigned r = 0; r < s.results.size(); ++r)
        for (auto &[f, axes] :
             extractFactorAxes(rule, mesh, numOperands + r, s.results[r]))
          read.insert({f, axes});
      for (int64_t f = 0; f < numFactors && ok; ++f) {
        auto it = read.find(f);
        if (factorAxes[f].empty() ? (it != read.end() && !it->second.empty())
                                  : (it == read.end() ||
                                     it->second != factorAxes[f]))
          ok = false;
      }
    }
    if (ok) {
      std::string key;
      for (const Sharding &t : s.operands)
        key += telar_sharding::formatSharding(t, mesh) + ";";
      for (const Sharding &t : s.results)
        key += telar_sharding::formatSharding(t, mesh) + ";";
      if (seen.insert(key).second) {
        s.factorAxes = std::move(factorAxes);
        out.push_back(std::move(s));
      }
    }
    int64_t a = numAxes;
    while (a > 0 && ++choice[a - 1] > candidates.size())
      choice[--a] = 0;
    if (a == 0)
      break;
  }
  return out;
}

std::vector<Sharding>
mlir::telar::planner::enumerateShardings(ArrayRef<int64_t> shape,
                                         const Mesh &mesh) {
  int64_t rank = shape.size(), numAxes = mesh.getNumAxes();
  std::vector<Sharding> out;
  // choice[a]: the dimension + 1 axis a splits, or 0.
  std::vector<int64_t> choice(numAxes, 0);
  while (true) {
    Sharding s = Sharding::getReplicated(rank);
    for (int64_t a = 0; a < numAxes; ++a)
      if (choice[a])
        s.dims[choice[a] - 1].push_back(a);
    bool ok = true;
    for (int64_t d = 0; d < rank && ok; ++d)
      if (!s.dims[d].empty() &&
          (shape[d] <= 0 || shape[d] % getAxesSize(mesh, s.dims[d]) != 0))
        ok = false;
    if (ok)
      out.push_back(std::move(s));
    int64_t a = numAxes;
    while (a > 0 && ++choice[a - 1] > rank)
      choice[--a] = 0;
    if (a == 0)
      break;
  }
  return out;
}
