//===- Ilp.cpp - The strategy-choice integer program with CBC -------------===//
//
// One binary per (node, strategy) with a choose-one row per node; an edge
// becomes continuous transport variables between the distinct rows and the
// distinct columns of its matrix: with one-hot choices on both sides, the
// marginal rows admit exactly the product of the two choices, so the
// variables need not be integers and the program stays small (strategies
// that produce the same sharding share a row of the matrix). Costs are
// scaled to microseconds and bytes to MiB so CBC's tolerances, made for
// numbers near 1, do not round choices away.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Ilp.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

namespace telar_planner {
namespace {

constexpr double kCostScale = 1e6;          // seconds -> microseconds
constexpr double kBytesScale = 1.0 / (1 << 20); // bytes -> MiB

bool isAllowed(const IlpProblem::Node &node, unsigned s) {
  return node.allowed.empty() || node.allowed[s];
}

/// Groups equal vectors: `classOf[i]` for each, `members[c]` for each class.
void groupEqual(const std::vector<std::vector<double>> &vectors,
                std::vector<unsigned> &classOf,
                std::vector<std::vector<unsigned>> &members) {
  std::map<std::vector<double>, unsigned> ids;
  classOf.resize(vectors.size());
  for (unsigned i = 0; i < vectors.size(); ++i) {
    auto [it, inserted] = ids.insert({vectors[i], unsigned(members.size())});
    if (inserted)
      members.emplace_back();
    classOf[i] = it->second;
    members[it->second].push_back(i);
  }
}

/// A sparse linear program in rows, converted to CBC's columns at the end.
struct Program {
  std::vector<double> objective, lower, upper;
  std::vector<bool> integer;
  std::vector<std::vector<std::pair<int, double>>> rows;
  std::vector<double> rowLower, rowUpper;

  int addColumn(double cost, double lo, double hi, bool isInteger) {
    objective.push_back(cost);
    lower.push_back(lo);
    upper.push_back(hi);
    integer.push_back(isInteger);
    return int(objective.size()) - 1;
  }
  void addRow(std::vector<std::pair<int, double>> row, double lo, double hi) {
    rows.push_back(std::move(row));
    rowLower.push_back(lo);
    rowUpper.push_back(hi);
  }
};

} // namespace

double IlpSolution::getGap() const {
  if (objective == 0)
    return 0;
  return std::max(0.0, (objective - bound) / std::abs(objective));
}

double evaluateChoice(const IlpProblem &problem,
                      const std::vector<unsigned> &choice, bool &feasible) {
  feasible = choice.size() == problem.nodes.size();
  if (!feasible)
    return 0;
  double total = 0;
  for (unsigned n = 0; n < problem.nodes.size(); ++n) {
    const IlpProblem::Node &node = problem.nodes[n];
    if (choice[n] >= node.cost.size() || !isAllowed(node, choice[n])) {
      feasible = false;
      return 0;
    }
    total += node.cost[choice[n]];
  }
  for (const IlpProblem::Edge &e : problem.edges) {
    size_t cols = problem.nodes[e.to].cost.size();
    total += e.cost[choice[e.from] * cols + choice[e.to]];
  }
  for (const IlpProblem::MemoryConstraint &m : problem.memory) {
    double bytes = 0;
    for (const auto &[n, perStrategy] : m.terms)
      bytes += perStrategy[choice[n]];
    // The same relative slack the solver is given.
    if (bytes > m.limit * (1 + 1e-9))
      feasible = false;
  }
  return total;
}

/// A first solution for the solver to improve on: nodes in order, each
/// taking its cheapest strategy given the nodes before it (node and edge
/// costs); when that breaks a memory limit, each taking the strategy with
/// the fewest bytes instead (ties by cost). Empty when neither is feasible.
static std::vector<unsigned> getGreedyChoice(const IlpProblem &problem) {
  size_t numNodes = problem.nodes.size();
  std::vector<std::vector<const IlpProblem::Edge *>> in(numNodes), out(numNodes);
  for (const IlpProblem::Edge &e : problem.edges) {
    in[e.to].push_back(&e);
    out[e.from].push_back(&e);
  }
  std::vector<double> bytes;
  auto attempt = [&](bool byMemory) {
    std::vector<unsigned> choice(numNodes, 0);
    for (unsigned n = 0; n < numNodes; ++n) {
      const IlpProblem::Node &node = problem.nodes[n];
      bytes.assign(node.cost.size(), 0);
      if (byMemory)
        for (const IlpProblem::MemoryConstraint &m : problem.memory)
          for (const auto &[t, b] : m.terms)
            if (t == n)
              for (size_t s = 0; s < b.size(); ++s)
                bytes[s] = std::max(bytes[s], b[s]);
      double best = std::numeric_limits<double>::infinity(), bestBytes = 0;
      for (unsigned s = 0; s < node.cost.size(); ++s) {
        if (!isAllowed(node, s))
          continue;
        double cost = node.cost[s];
        for (const IlpProblem::Edge *e : in[n])
          if (e->from < n)
            cost += e->cost[choice[e->from] * node.cost.size() + s];
        for (const IlpProblem::Edge *e : out[n])
          if (e->to < n)
            cost += e->cost[s * problem.nodes[e->to].cost.size() +
                            choice[e->to]];
        bool better = byMemory ? (bytes[s] < bestBytes ||
                                  (bytes[s] == bestBytes && cost < best))
                               : cost < best;
        if (better || best == std::numeric_limits<double>::infinity()) {
          best = cost;
          bestBytes = bytes[s];
          choice[n] = s;
        }
      }
    }
    return choice;
  };
  for (bool byMemory : {false, true}) {
    std::vector<unsigned> choice = attempt(byMemory);
    bool feasible = false;
    evaluateChoice(problem, choice, feasible);
    if (feasible)
      return choice;
  }
  return {};
}

IlpSolution solveBruteForce(const IlpProblem &problem) {
  auto start = std::chrono::steady_clock::now();
  IlpSolution best;
  best.status = IlpSolution::Status::Infeasible;
  std::vector<unsigned> choice(problem.nodes.size(), 0);
  for (const IlpProblem::Node &node : problem.nodes)
    if (node.cost.empty())
      return best;
  while (true) {
    bool feasible = false;
    double cost = evaluateChoice(problem, choice, feasible);
    if (feasible && (!best.hasSolution() || cost < best.objective)) {
      best.status = IlpSolution::Status::Optimal;
      best.objective = best.bound = cost;
      best.choice = choice;
    }
    // The next combination, the last node fastest.
    size_t n = choice.size();
    while (n > 0 && ++choice[n - 1] == problem.nodes[n - 1].cost.size())
      choice[--n] = 0;
    if (n == 0)
      break;
  }
  best.seconds = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  return best;
}

IlpSolution solveIlp(const IlpProblem &problem, double timeLimitSeconds,
                     const std::vector<unsigned> *start, double cutoff) {
  auto startTime = std::chrono::steady_clock::now();
  IlpSolution solution;
  size_t numNodes = problem.nodes.size();

  // Nodes with a single allowed strategy are fixed; the rest get binaries.
  std::vector<int> fixed(numNodes, -1);
  std::vector<std::vector<int>> column(numNodes);
  for (unsigned n = 0; n < numNodes; ++n) {
    const IlpProblem::Node &node = problem.nodes[n];
    std::vector<unsigned> allowed;
    for (unsigned s = 0; s < node.cost.size(); ++s)
      if (isAllowed(node, s))
        allowed.push_back(s);
    if (allowed.empty()) {
      solution.status = IlpSolution::Status::Infeasible;
      return solution;
    }
    if (allowed.size() == 1)
      fixed[n] = int(allowed[0]);
  }

  // Node costs, with the edges that depend on one side only folded in.
  std::vector<std::vector<double>> nodeCost(numNodes);
  for (unsigned n = 0; n < numNodes; ++n)
    nodeCost[n] = problem.nodes[n].cost;
  double constant = 0;
  struct Transport {
    unsigned from, to;
    std::vector<std::vector<unsigned>> rows, cols; // strategy classes
    std::vector<double> cost;                      // rows x cols
  };
  std::vector<Transport> transports;
  for (const IlpProblem::Edge &e : problem.edges) {
    size_t numFrom = problem.nodes[e.from].cost.size();
    size_t numTo = problem.nodes[e.to].cost.size();
    auto at = [&](size_t i, size_t j) { return e.cost[i * numTo + j]; };
    if (fixed[e.from] >= 0 && fixed[e.to] >= 0) {
      constant += at(fixed[e.from], fixed[e.to]);
      continue;
    }
    if (fixed[e.from] >= 0) {
      for (size_t j = 0; j < numTo; ++j)
        nodeCost[e.to][j] += at(fixed[e.from], j);
      continue;
    }
    if (fixed[e.to] >= 0) {
      for (size_t i = 0; i < numFrom; ++i)
        nodeCost[e.from][i] += at(i, fixed[e.to]);
      continue;
    }
    std::vector<std::vector<double>> rowVectors(numFrom), colVectors(numTo);
    for (size_t i = 0; i < numFrom; ++i)
      for (size_t j = 0; j < numTo; ++j) {
        rowVectors[i].push_back(at(i, j));
        colVectors[j].push_back(at(i, j));
      }
    Transport t{e.from, e.to, {}, {}, {}};
    std::vector<unsigned> rowOf, colOf;
    groupEqual(rowVectors, rowOf, t.rows);
    groupEqual(colVectors, colOf, t.cols);
    // A matrix whose rows are all equal depends on the column only (and
    // the other way round): a cost of one node.
    if (t.rows.size() == 1) {
      for (size_t j = 0; j < numTo; ++j)
        nodeCost[e.to][j] += at(0, j);
      continue;
    }
    if (t.cols.size() == 1) {
      for (size_t i = 0; i < numFrom; ++i)
        nodeCost[e.from][i] += at(i, 0);
      continue;
    }
    for (const auto &r : t.rows)
      for (const auto &c : t.cols)
        t.cost.push_back(at(r[0], c[0]));
    transports.push_back(std::move(t));
  }

  Program p;
  std::vector<double> startValues;
  for (unsigned n = 0; n < numNodes; ++n) {
    if (fixed[n] >= 0) {
      constant += nodeCost[n][fixed[n]];
      continue;
    }
    const IlpProblem::Node &node = problem.nodes[n];
    std::vector<std::pair<int, double>> chooseOne;
    for (unsigned s = 0; s < node.cost.size(); ++s) {
      int c = p.addColumn(nodeCost[n][s] * kCostScale, 0,
                          isAllowed(node, s) ? 1 : 0, true);
      column[n].push_back(c);
      chooseOne.push_back({c, 1});
    }
    p.addRow(std::move(chooseOne), 1, 1);
  }
  for (const Transport &t : transports) {
    std::vector<std::vector<std::pair<int, double>>> rowSums(t.rows.size()),
        colSums(t.cols.size());
    for (size_t r = 0; r < t.rows.size(); ++r)
      for (size_t c = 0; c < t.cols.size(); ++c) {
        int v = p.addColumn(t.cost[r * t.cols.size() + c] * kCostScale, 0, 1,
                            false);
        rowSums[r].push_back({v, 1});
        colSums[c].push_back({v, 1});
      }
    for (size_t r = 0; r < t.rows.size(); ++r) {
      for (unsigned s : t.rows[r])
        rowSums[r].push_back({column[t.from][s], -1});
      p.addRow(std::move(rowSums[r]), 0, 0);
    }
    for (size_t c = 0; c < t.cols.size(); ++c) {
      for (unsigned s : t.cols[c])
        colSums[c].push_back({column[t.to][s], -1});
      p.addRow(std::move(colSums[c]), 0, 0);
    }
  }
  for (const IlpProblem::MemoryConstraint &m : problem.memory) {
    double limit = m.limit;
    std::map<int, double> row;
    for (const auto &[n, bytes] : m.terms) {
      if (fixed[n] >= 0) {
        limit -= bytes[fixed[n]];
        continue;
      }
      for (unsigned s = 0; s < bytes.size(); ++s)
        if (bytes[s] != 0)
          row[column[n][s]] += bytes[s] * kBytesScale;
    }
    if (limit < -1e-9 * std::abs(m.limit)) {
      // The fixed nodes alone exceed the limit.
      solution.status = IlpSolution::Status::Infeasible;
      return solution;
    }
    if (row.empty())
      continue;
    p.addRow(std::vector<std::pair<int, double>>(row.begin(), row.end()),
             -1e30, limit * kBytesScale * (1 + 1e-9));
  }

  solution.numVariables = int64_t(p.objective.size());
  solution.numConstraints = int64_t(p.rows.size());

  std::vector<unsigned> choice(numNodes, 0);
  for (unsigned n = 0; n < numNodes; ++n)
    if (fixed[n] >= 0)
      choice[n] = unsigned(fixed[n]);

  if (p.objective.empty()) {
    bool feasible = false;
    solution.objective = solution.bound =
        evaluateChoice(problem, choice, feasible);
    solution.status = feasible ? IlpSolution::Status::Optimal
                               : IlpSolution::Status::Infeasible;
    solution.choice = choice;
    return solution;
  }

  // Rows to CBC's compressed columns.
  size_t numCols = p.objective.size();
  std::vector<std::vector<std::pair<int, double>>> cols(numCols);
  for (size_t r = 0; r < p.rows.size(); ++r)
    for (auto [c, v] : p.rows[r])
      cols[c].push_back({int(r), v});
  std::vector<int> colStart{0}, index;
  std::vector<double> value;
  for (const auto &col : cols) {
    for (auto [r, v] : col) {
      index.push_back(r);
      value.push_back(v);
    }
    colStart.push_back(int(index.size()));
  }

  Cbc_Model *model = Cbc_newModel();
  Cbc_loadProblem(model, int(numCols), int(p.rows.size()), colStart.data(),
                  index.data(), value.data(), p.lower.data(), p.upper.data(),
                  p.objective.data(), p.rowLower.data(), p.rowUpper.data());
  for (size_t c = 0; c < numCols; ++c)
    if (p.integer[c])
      Cbc_setInteger(model, int(c));
  Cbc_setLogLevel(model, 0);
  Cbc_setMaximumSeconds(model, std::max(0.01, timeLimitSeconds));
  Cbc_setAllowableFractionGap(model, 1e-9);
  // Single-threaded and deterministic.
  Cbc_setParameter(model, "threads", "1");
  // CBC 2.10's preprocessing crashes in CglPreProcess::postProcess on
  // some of these programs (with a cutoff); they need none.
  Cbc_setParameter(model, "preprocess", "off");
  std::vector<unsigned> greedy;
  if (!start || start->size() != numNodes) {
    greedy = getGreedyChoice(problem);
    start = &greedy;
  }
  if (start->size() == numNodes) {
    bool feasible = false;
    evaluateChoice(problem, *start, feasible);
    if (feasible) {
      std::vector<int> columns;
      std::vector<double> values;
      for (unsigned n = 0; n < numNodes; ++n)
        for (unsigned s = 0; s < column[n].size(); ++s) {
          columns.push_back(column[n][s]);
          values.push_back(s == (*start)[n] ? 1 : 0);
        }
      Cbc_setMIPStartI(model, int(columns.size()), columns.data(),
                       values.data());
    }
  }
  if (std::isfinite(cutoff))
    Cbc_setCutoff(model, (cutoff - constant) * kCostScale);
  Cbc_solve(model);

  const double *x = Cbc_getColSolution(model);
  bool haveSolution = x && Cbc_bestSolution(model) != nullptr;
  if (haveSolution) {
    const double *best = Cbc_bestSolution(model);
    for (unsigned n = 0; n < numNodes; ++n) {
      if (fixed[n] >= 0)
        continue;
      unsigned pick = 0;
      double most = -1;
      for (unsigned s = 0; s < column[n].size(); ++s)
        if (best[column[n][s]] > most) {
          most = best[column[n][s]];
          pick = s;
        }
      choice[n] = pick;
    }
    bool feasible = false;
    solution.objective = evaluateChoice(problem, choice, feasible);
    solution.choice = choice;
    solution.bound = std::min(
        solution.objective,
        Cbc_getBestPossibleObjValue(model) / kCostScale + constant);
    solution.status = Cbc_isProvenOptimal(model)
                          ? IlpSolution::Status::Optimal
                          : IlpSolution::Status::TimeLimit;
    if (solution.status == IlpSolution::Status::Optimal)
      solution.bound = solution.objective;
    if (!feasible)
      solution.status = IlpSolution::Status::NoSolution;
  } else {
    if (Cbc_isSecondsLimitReached(model))
      solution.status = IlpSolution::Status::NoSolution;
    else if (std::isfinite(cutoff))
      solution.status = IlpSolution::Status::Beaten;
    else
      solution.status = IlpSolution::Status::Infeasible;
  }
  Cbc_deleteModel(model);
  solution.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - startTime)
                         .count();
  return solution;
}

} // namespace telar_planner
