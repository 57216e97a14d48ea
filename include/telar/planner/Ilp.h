//===- Ilp.h - The strategy-choice integer program --------------*- C++ -*-===//
//
// Alpa's intra-operator problem in the abstract: nodes (ops, or groups of
// ops that decide together) each pick one strategy; a strategy has a cost
// and memory; an edge between two nodes costs what its matrix says for the
// pair of strategies chosen (the resharding between them); memory
// constraints bound sums of per-strategy bytes. Solved exactly with COIN-OR
// CBC, or by enumeration for tests. Plain C++ (no MLIR), so the search
// builds the problem and unit tests build random ones.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_PLANNER_ILP_H
#define TELAR_PLANNER_ILP_H

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace telar_planner {

struct IlpProblem {
  struct Node {
    /// Cost of each strategy (already multiplied by how often the node
    /// occurs, for repeated layers).
    std::vector<double> cost;
    /// Strategies the node may not take (a partial plan's constraints);
    /// empty: all allowed.
    std::vector<bool> allowed;
  };
  struct Edge {
    unsigned from = 0, to = 0;
    /// cost[i * |strategies of to| + j]: from takes i and to takes j.
    std::vector<double> cost;
  };
  /// sum over terms of bytes[strategy chosen by node] <= limit.
  struct MemoryConstraint {
    std::vector<std::pair<unsigned, std::vector<double>>> terms;
    double limit = 0;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<MemoryConstraint> memory;
};

struct IlpSolution {
  enum class Status {
    Optimal,    // proven optimal
    TimeLimit,  // the time limit was hit with a feasible solution
    Infeasible, // no choice satisfies the constraints
    NoSolution, // the time limit was hit before any solution was found
    Beaten,     // no choice is cheaper than the cutoff
  };
  Status status = Status::NoSolution;
  std::vector<unsigned> choice; // per node
  double objective = 0;
  /// The best bound CBC proved (== objective when optimal).
  double bound = 0;
  /// The size of the integer program as given to the solver.
  int64_t numVariables = 0, numConstraints = 0;
  double seconds = 0;

  bool hasSolution() const {
    return status == Status::Optimal || status == Status::TimeLimit;
  }
  /// (objective - bound) / objective.
  double getGap() const;
};

/// The objective of `choice` (sum of node and edge costs), and whether it
/// meets the memory constraints and the allowed strategies.
double evaluateChoice(const IlpProblem &problem,
                      const std::vector<unsigned> &choice, bool &feasible);

/// Solves with CBC within `timeLimitSeconds`. Nodes with one strategy and
/// edges whose matrices are constant are folded before the solver sees
/// them; an edge is linearized as a transport between the distinct rows and
/// the distinct columns of its matrix (exact for one-hot choices, so its
/// variables stay continuous).
///
/// `start`, if given, is a choice to start from (used when it is feasible);
/// `cutoff`, if finite, tells the solver that only solutions cheaper than
/// it are of interest (another mesh's plan costs that much): when none is
/// cheaper the result is Infeasible.
IlpSolution solveIlp(const IlpProblem &problem, double timeLimitSeconds,
                     const std::vector<unsigned> *start = nullptr,
                     double cutoff = std::numeric_limits<double>::infinity());

/// Tries every combination (tests only: small problems).
IlpSolution solveBruteForce(const IlpProblem &problem);

} // namespace telar_planner

#endif // TELAR_PLANNER_ILP_H
