//===- ShardingTest.cpp - Meshes, shardings and their block math ----------===//

#include "telar/sharding/core/Sharding.h"
#include "telar/sharding/core/DeviceLimit.h"

#include <gtest/gtest.h>

#include <set>

using namespace telar_sharding;

namespace {

Mesh makeMesh(std::vector<std::string> names, std::vector<int64_t> sizes) {
  return Mesh{std::move(names), std::move(sizes)};
}

TEST(Sharding, ReductionNames) {
  for (ReductionKind kind : {ReductionKind::Sum, ReductionKind::Max,
                             ReductionKind::Min, ReductionKind::Prod})
    EXPECT_EQ(parseReductionName(getReductionName(kind)), kind);
  EXPECT_STREQ(getReductionName(ReductionKind::Sum), "sum");
  EXPECT_STREQ(getReductionName(ReductionKind::Max), "max");
  EXPECT_FALSE(parseReductionName("mean").has_value());
  EXPECT_FALSE(parseReductionName("Sum").has_value());
}

TEST(Sharding, MeshCoordinates) {
  Mesh mesh = makeMesh({"data", "model"}, {2, 3});
  EXPECT_EQ(mesh.getNumDevices(), 6);
  EXPECT_EQ(mesh.getNumAxes(), 2);
  // Row-major: the first axis is the most significant.
  EXPECT_EQ(mesh.getCoordinates(0), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(mesh.getCoordinates(1), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(mesh.getCoordinates(3), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(mesh.getCoordinates(5), (std::vector<int64_t>{1, 2}));
  for (int64_t r = 0; r < 6; ++r)
    EXPECT_EQ(mesh.getRank(mesh.getCoordinates(r)), r);
  EXPECT_EQ(mesh.getAxisIndex("model"), 1);
  EXPECT_FALSE(mesh.getAxisIndex("pipe").has_value());
  EXPECT_EQ(mesh.str(), "data=2,model=3");

  Mesh cube = makeMesh({"a", "b", "c"}, {2, 3, 4});
  EXPECT_EQ(cube.getCoordinates(1 * 12 + 2 * 4 + 3),
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(cube.getRank({1, 0, 2}), 14);

  Mesh none;
  EXPECT_EQ(none.getNumDevices(), 1);
  EXPECT_TRUE(none.getCoordinates(0).empty());
  EXPECT_EQ(none.str(), "");
}

TEST(Sharding, ParseMeshSpec) {
  std::string error;
  auto mesh = parseMeshSpec("data=2,model=4", error);
  ASSERT_TRUE(mesh) << error;
  EXPECT_EQ(*mesh, makeMesh({"data", "model"}, {2, 4}));
  EXPECT_EQ(parseMeshSpec(mesh->str(), error), mesh);
  auto spaced = parseMeshSpec(" data = 2, model=4 ", error);
  ASSERT_TRUE(spaced) << error;
  EXPECT_EQ(*spaced, *mesh);
  auto one = parseMeshSpec("x_1=1", error);
  ASSERT_TRUE(one) << error;
  EXPECT_EQ(one->axisSizes, (std::vector<int64_t>{1}));

  auto expectError = [](std::string_view spec, std::string_view what) {
    std::string error;
    EXPECT_FALSE(parseMeshSpec(spec, error).has_value()) << spec;
    EXPECT_NE(error.find(what), std::string::npos) << spec << ": " << error;
  };
  expectError("", "empty mesh spec");
  expectError("data", "'data' is not of the form name=size");
  expectError("data=2,", "is not of the form name=size");
  expectError("data=2,data=4", "mesh axis 'data' is repeated");
  expectError("data=0", "has size 0 (must be at least 1)");
  expectError("data=-1", "invalid size '-1'");
  expectError("data=2x", "invalid size '2x'");
  expectError("data=", "invalid size ''");
  expectError("data=99999999999999999999", "invalid size");
  expectError("=2", "invalid mesh axis name ''");
  expectError("2d=2", "invalid mesh axis name '2d'");
  expectError("da ta=2", "invalid mesh axis name 'da ta'");
  expectError("data=2 2", "invalid size '2 2'");
}

// No cluster has more than kMaxDevices devices; products must not wrap
// (2^32 * 2^32 is 0 in 64 bits).
TEST(Sharding, ParseMeshSpecDeviceLimit) {
  std::string error;
  EXPECT_TRUE(parseMeshSpec("data=65536", error)) << error;
  EXPECT_TRUE(parseMeshSpec("data=256,model=256", error)) << error;

  auto expectError = [](std::string_view spec, std::string_view what) {
    std::string error;
    EXPECT_FALSE(parseMeshSpec(spec, error).has_value()) << spec;
    EXPECT_NE(error.find(what), std::string::npos) << spec << ": " << error;
  };
  expectError("data=65537",
              "the mesh has 65537 devices, more than the 65536 Telar supports");
  expectError("data=256,model=257", "has 65792 devices");
  expectError("data=1099511627776", "has 1099511627776 devices");
  expectError("a=1048576,b=2", "has 2097152 devices");
  expectError("a=4294967296,b=4294967296",
              "the mesh has more than 2^63 devices, more than the 65536");
  expectError("a=4294967296,b=4294967296,c=3", "more than 2^63 devices");

  // At most 16 axes (the 17th is refused as it is read).
  std::string sixteen, seventeen;
  for (int i = 0; i < 17; ++i)
    (i < 16 ? sixteen : seventeen) += "a" + std::to_string(i) + "=1,";
  sixteen.pop_back();
  EXPECT_TRUE(parseMeshSpec(sixteen, error)) << error;
  expectError(sixteen + "," + seventeen.substr(0, seventeen.size() - 1),
              "the mesh has more than 16 axes, the most Telar supports");
  EXPECT_FALSE(checkNumDevices(std::vector<int64_t>(17, 1), error));
  EXPECT_EQ(error, "the mesh has 17 axes, more than the 16 Telar supports");

  EXPECT_TRUE(checkNumDevices({}, error));
  EXPECT_TRUE(checkNumDevices({kMaxDevices}, error));
  EXPECT_FALSE(checkNumDevices({kMaxDevices, 2}, error));
  EXPECT_FALSE(checkNumDevices({int64_t(1) << 62, 4}, error));
}

TEST(Sharding, Queries) {
  Sharding s{{{1}, {}, {0, 2}}, {}};
  EXPECT_EQ(s.getRank(), 3);
  EXPECT_FALSE(s.isReplicated());
  EXPECT_FALSE(s.isPartial());
  EXPECT_EQ(s.getSplitAxes(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(s.getDimOfAxis(0), 2);
  EXPECT_EQ(s.getDimOfAxis(1), 0);
  EXPECT_EQ(s.getDimOfAxis(3), -1);

  Sharding r = Sharding::getReplicated(2);
  EXPECT_EQ(r.getRank(), 2);
  EXPECT_TRUE(r.isReplicated());
  Sharding p{{{}, {}}, {{0, ReductionKind::Max}}};
  EXPECT_FALSE(p.isReplicated());
  EXPECT_TRUE(p.isPartial());
  EXPECT_EQ(p.getPartialKind(0), ReductionKind::Max);
  EXPECT_FALSE(p.getPartialKind(1).has_value());
  EXPECT_NE(p, r);
  EXPECT_EQ(p, (Sharding{{{}, {}}, {{0, ReductionKind::Max}}}));
  EXPECT_NE(p, (Sharding{{{}, {}}, {{0, ReductionKind::Sum}}}));
  EXPECT_EQ(getAxesSize(makeMesh({"a", "b"}, {2, 3}), {1, 0}), 6);
  EXPECT_EQ(getAxesSize(makeMesh({"a", "b"}, {2, 3}), {}), 1);
}

TEST(Sharding, Verify) {
  Mesh mesh = makeMesh({"data", "model"}, {2, 4});
  EXPECT_EQ(verifySharding(Sharding{{{0}, {1}}, {}}, mesh, {8, 16}), "");
  EXPECT_EQ(verifySharding(Sharding{{{0, 1}, {}}, {}}, mesh, {8, 5}), "");
  EXPECT_EQ(verifySharding(
                Sharding{{{}, {}},
                         {{0, ReductionKind::Max}, {1, ReductionKind::Max}}},
                mesh, {3, 5}),
            "");
  EXPECT_EQ(verifySharding(Sharding::getReplicated(0), mesh, {}), "");
  EXPECT_EQ(verifySharding(Sharding{{{1}}, {}}, mesh, {0}), "");

  EXPECT_EQ(verifySharding(Sharding{{{}, {1}}, {}}, mesh, {8, 6}),
            "dimension 1 (size 6) is not divisible by 4, the size of axes "
            "'model'");
  EXPECT_EQ(verifySharding(Sharding{{{0, 1}, {}}, {}}, mesh, {12, 6}),
            "dimension 0 (size 12) is not divisible by 8, the size of axes "
            "'data', 'model'");
  EXPECT_EQ(verifySharding(Sharding{{{0}, {}}, {}}, mesh, {8, 6, 2}),
            "sharding has 2 dimensions but the tensor has rank 3");
  EXPECT_EQ(verifySharding(Sharding{{{0}, {0}}, {}}, mesh, {8, 8}),
            "mesh axis 'data' is used twice");
  EXPECT_EQ(verifySharding(Sharding{{{0, 0}, {}}, {}}, mesh, {8, 8}),
            "mesh axis 'data' is used twice");
  EXPECT_EQ(verifySharding(Sharding{{{1}, {}}, {{1, ReductionKind::Sum}}}, mesh,
                           {8, 8}),
            "mesh axis 'model' is used twice");
  EXPECT_EQ(verifySharding(Sharding{{{2}, {}}, {}}, mesh, {8, 8}),
            "axis 2 is not in the mesh (2 axes)");
  EXPECT_EQ(verifySharding(Sharding{{{}, {}}, {{-1, ReductionKind::Sum}}}, mesh,
                           {8, 8}),
            "axis -1 is not in the mesh (2 axes)");
  EXPECT_EQ(verifySharding(
                Sharding{{{}, {}},
                         {{1, ReductionKind::Sum}, {0, ReductionKind::Sum}}},
                mesh, {8, 8}),
            "partial axes are not in ascending order");
  EXPECT_EQ(verifySharding(
                Sharding{{{}, {}},
                         {{0, ReductionKind::Sum}, {1, ReductionKind::Max}}},
                mesh, {8, 8}),
            "partial axes 'data' (sum) and 'model' (max) have different "
            "reductions, which do not commute");
  EXPECT_EQ(verifySharding(Sharding{{{}, {}}, {}}, mesh, {8, -1}),
            "dimension 1 has negative size -1");
}

TEST(Sharding, LocalShapeAndOffsets) {
  Mesh mesh = makeMesh({"data", "model"}, {2, 3});
  // Dimension 0 split by [model, data]: block = c_model * 2 + c_data.
  Sharding s{{{1, 0}, {}, {}}, {}};
  std::vector<int64_t> shape{12, 5, 1};
  ASSERT_EQ(verifySharding(s, mesh, shape), "");
  EXPECT_EQ(getLocalShape(shape, s, mesh), (std::vector<int64_t>{2, 5, 1}));
  // rank 1 = data 0, model 1 -> block 2.
  EXPECT_EQ(getBlockOffsets(shape, s, mesh, 1),
            (std::vector<int64_t>{4, 0, 0}));
  // rank 3 = data 1, model 0 -> block 1.
  EXPECT_EQ(getBlockOffsets(shape, s, mesh, 3),
            (std::vector<int64_t>{2, 0, 0}));
  // rank 5 = data 1, model 2 -> block 5.
  EXPECT_EQ(getBlockOffsets(shape, s, mesh, 5),
            (std::vector<int64_t>{10, 0, 0}));

  // Two dims, and a partial axis that does not move blocks.
  Sharding t{{{0}, {}, {}}, {{1, ReductionKind::Sum}}};
  std::vector<int64_t> shape2{4, 6, 3};
  EXPECT_EQ(getLocalShape(shape2, t, mesh), (std::vector<int64_t>{2, 6, 3}));
  for (int64_t rank = 0; rank < 6; ++rank)
    EXPECT_EQ(getBlockOffsets(shape2, t, mesh, rank),
              (std::vector<int64_t>{2 * (rank / 3), 0, 0}));
  Sharding u{{{0}, {1}, {}}, {}};
  EXPECT_EQ(getBlockOffsets(shape2, u, mesh, 5),
            (std::vector<int64_t>{2, 4, 0}));

  // Every block of every device tiles the tensor exactly once.
  Mesh cube = makeMesh({"a", "b", "c"}, {2, 3, 2});
  Sharding v{{{2, 0}, {}, {1}}, {}};
  std::vector<int64_t> shape3{8, 2, 6};
  auto local = getLocalShape(shape3, v, cube);
  EXPECT_EQ(local, (std::vector<int64_t>{2, 2, 2}));
  std::set<std::vector<int64_t>> seen;
  for (int64_t rank = 0; rank < cube.getNumDevices(); ++rank) {
    auto offsets = getBlockOffsets(shape3, v, cube, rank);
    for (size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(offsets[d] % local[d], 0);
      EXPECT_LT(offsets[d], shape3[d]);
    }
    seen.insert(offsets);
  }
  EXPECT_EQ(seen.size(), size_t(4 * 1 * 3));
}

TEST(Sharding, Format) {
  Mesh mesh = makeMesh({"data", "model"}, {2, 2});
  EXPECT_EQ(formatSharding(Sharding{{{0}, {}}, {}}, mesh), "[[\"data\"], []]");
  EXPECT_EQ(formatSharding(Sharding{{{1, 0}}, {}}, mesh),
            "[[\"model\", \"data\"]]");
  EXPECT_EQ(formatSharding(Sharding::getReplicated(0), mesh), "[]");
  EXPECT_EQ(formatSharding(Sharding{{{}, {}}, {{1, ReductionKind::Sum}}}, mesh),
            "{\"dims\": [[], []], \"partial\": {\"model\": \"sum\"}}");
  EXPECT_EQ(
      formatSharding(
          Sharding{{{}}, {{0, ReductionKind::Max}, {1, ReductionKind::Min}}},
          mesh),
      "{\"dims\": [[]], \"partial\": {\"data\": \"max\", \"model\": "
      "\"min\"}}");
  Mesh odd = makeMesh({"a\"b"}, {2});
  EXPECT_EQ(formatSharding(Sharding{{{0}}, {}}, odd), "[[\"a\\\"b\"]]");
  EXPECT_EQ(formatSharding(Sharding{{{3}}, {}}, odd), "[[\"<axis 3>\"]]");
}

} // namespace
