//===- IlpTest.cpp - The strategy-choice integer program ------------------===//
//
// CBC's optimum equals the brute-force optimum on random small problems
// (chains, trees and graphs with cycles; with and without memory limits
// and forbidden strategies), and its answers on hand-made cases.
//
//===----------------------------------------------------------------------===//

#include "telar/planner/Ilp.h"

#include "gtest/gtest.h"

#include <random>

using namespace telar_planner;

namespace {

IlpProblem randomProblem(std::mt19937 &rng, unsigned numNodes,
                         unsigned maxStrategies, bool withMemory,
                         bool withForbidden) {
  IlpProblem p;
  std::uniform_int_distribution<unsigned> strategies(1, maxStrategies);
  std::uniform_real_distribution<double> cost(0, 10);
  // Costs drawn from few values so that ties and equal rows occur.
  std::uniform_int_distribution<int> coarse(0, 4);
  for (unsigned n = 0; n < numNodes; ++n) {
    IlpProblem::Node node;
    unsigned k = strategies(rng);
    for (unsigned s = 0; s < k; ++s)
      node.cost.push_back(coarse(rng) == 0 ? 0 : cost(rng));
    if (withForbidden && k > 1) {
      node.allowed.assign(k, true);
      node.allowed[rng() % k] = false;
    }
    p.nodes.push_back(node);
  }
  for (unsigned n = 1; n < numNodes; ++n) {
    unsigned edges = 1 + rng() % 2;
    for (unsigned e = 0; e < edges; ++e) {
      IlpProblem::Edge edge;
      edge.from = rng() % n;
      edge.to = n;
      size_t size =
          p.nodes[edge.from].cost.size() * p.nodes[edge.to].cost.size();
      for (size_t i = 0; i < size; ++i)
        edge.cost.push_back(double(coarse(rng)));
      p.edges.push_back(edge);
    }
  }
  if (withMemory) {
    std::uniform_real_distribution<double> bytes(0, 100);
    IlpProblem::MemoryConstraint m;
    double minimum = 0;
    for (unsigned n = 0; n < numNodes; ++n) {
      std::vector<double> b;
      for (size_t s = 0; s < p.nodes[n].cost.size(); ++s)
        b.push_back(bytes(rng));
      minimum += *std::min_element(b.begin(), b.end());
      m.terms.push_back({n, b});
    }
    m.limit = minimum * 1.3 + 1;
    p.memory.push_back(m);
  }
  return p;
}

TEST(IlpTest, MatchesBruteForceOnRandomProblems) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    unsigned nodes = 1 + trial % 8;
    IlpProblem p = randomProblem(rng, nodes, 1 + trial % 5, trial % 3 == 1,
                                 trial % 4 == 3);
    IlpSolution brute = solveBruteForce(p);
    IlpSolution ilp = solveIlp(p, 10);
    ASSERT_EQ(brute.hasSolution(), ilp.hasSolution()) << "trial " << trial;
    if (!brute.hasSolution()) {
      EXPECT_EQ(ilp.status, IlpSolution::Status::Infeasible);
      continue;
    }
    EXPECT_EQ(ilp.status, IlpSolution::Status::Optimal) << "trial " << trial;
    EXPECT_NEAR(ilp.objective, brute.objective, 1e-6) << "trial " << trial;
    bool feasible = false;
    EXPECT_NEAR(evaluateChoice(p, ilp.choice, feasible), ilp.objective, 1e-9);
    EXPECT_TRUE(feasible) << "trial " << trial;
  }
}

// Two matmuls: each picks "column" (0) or "row" (1). Column then row needs
// no resharding between them; any other pair pays. The memory limit rules
// out the cheapest compute strategy of the first node.
TEST(IlpTest, HandMadeChainAndMemory) {
  IlpProblem p;
  p.nodes.push_back({{1, 3}, {}});
  p.nodes.push_back({{2, 1}, {}});
  p.edges.push_back({0, 1, {5, 0, 5, 5}});
  IlpSolution s = solveIlp(p, 10);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.choice, (std::vector<unsigned>{0, 1}));
  EXPECT_DOUBLE_EQ(s.objective, 2);
  EXPECT_GT(s.numVariables, 0);
  EXPECT_GT(s.numConstraints, 0);

  p.memory.push_back({{{0, {10, 1}}}, 5});
  s = solveIlp(p, 10);
  ASSERT_EQ(s.status, IlpSolution::Status::Optimal);
  EXPECT_EQ(s.choice, (std::vector<unsigned>{1, 1}));
  EXPECT_DOUBLE_EQ(s.objective, 3 + 1 + 5);

  p.memory.back().limit = 0.5;
  EXPECT_EQ(solveIlp(p, 10).status, IlpSolution::Status::Infeasible);
  EXPECT_EQ(solveBruteForce(p).status, IlpSolution::Status::Infeasible);
}

} // namespace
