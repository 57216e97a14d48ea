//===- LaunchFilesTest.cpp - Unit tests of the launch files ---------------===//
//
// resolveLaunchOptions' defaults and errors, and writeLaunchFiles on a
// manifest whose input names need quoting and renaming: the Kubernetes
// files stay valid YAML (read back with LLVM's YAML parser) holding the
// names as they are, and every template placeholder is filled.
//
//===----------------------------------------------------------------------===//

#include "telar/launch/LaunchFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <gtest/gtest.h>

#include <functional>

namespace {

namespace mt = mlir::telar;

std::string readFile(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

TEST(LaunchFiles, Defaults) {
  mt::LaunchOptions o;
  EXPECT_EQ(mt::resolveLaunchOptions(o, 8, "models/My Model.v2.onnx"), "");
  EXPECT_EQ(o.nodes, 1);
  EXPECT_EQ(o.tasksPerNode, 8);
  EXPECT_EQ(o.jobName, "telar-my-model-v2");
  EXPECT_EQ(o.image, "telar-my-model-v2:latest");

  mt::LaunchOptions two;
  two.nodes = 2;
  EXPECT_EQ(mt::resolveLaunchOptions(two, 8, "m.onnx"), "");
  EXPECT_EQ(two.tasksPerNode, 4);
  mt::LaunchOptions perNode;
  perNode.tasksPerNode = 2;
  EXPECT_EQ(mt::resolveLaunchOptions(perNode, 8, "m.onnx"), "");
  EXPECT_EQ(perNode.nodes, 4);

  // A long model name is cut to leave room for the objects' suffixes.
  mt::LaunchOptions longName;
  EXPECT_EQ(mt::resolveLaunchOptions(
                longName, 2, std::string(80, 'a') + ".onnx"),
            "");
  EXPECT_LE(longName.jobName.size(), 40u);
}

TEST(LaunchFiles, Errors) {
  auto error = [](auto edit) {
    mt::LaunchOptions o;
    edit(o);
    return mt::resolveLaunchOptions(o, 4, "m.onnx");
  };
  EXPECT_NE(error([](auto &o) { o.nodes = 3; }).find("--nodes 3 does not divide"),
            std::string::npos);
  EXPECT_NE(error([](auto &o) {
              o.nodes = 2;
              o.tasksPerNode = 1;
            }).find("is 2 ranks, but the artifact runs on 4 ranks"),
            std::string::npos);
  for (const char *time : {"1:00:00", "30", "2-12", "2-12:00:00", "10:00"})
    EXPECT_EQ(error([&](auto &o) { o.time = time; }), "") << time;
  for (const char *time : {"1h", "", "1:2", "-1", "1:00:00:00"})
    EXPECT_NE(error([&](auto &o) { o.time = time; }), "") << time;
  EXPECT_NE(error([](auto &o) { o.jobName = "-bad"; }), "");
  EXPECT_NE(error([](auto &o) { o.jobName = std::string(41, 'a'); }), "");
  EXPECT_NE(error([](auto &o) { o.image = "a b"; }), "");
  EXPECT_NE(error([](auto &o) { o.k8sNamespace = "ns."; }), "");
  EXPECT_NE(error([](auto &o) { o.slurmMpi = "openmpi"; }), "");
  EXPECT_NE(error([](auto &o) { o.masterPort = 0; }), "");
}

/// The Job's container command of k8s.yaml, read with LLVM's YAML parser.
std::vector<std::string> readJobCommand(const std::string &text) {
  llvm::SourceMgr sm;
  llvm::yaml::Stream stream(text, sm);
  std::vector<std::string> command;
  int documents = 0;
  for (llvm::yaml::Document &doc : stream) {
    ++documents;
    auto *root = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(doc.getRoot());
    if (!root)
      continue;
    // Walk spec.template.spec.containers[0].command of the Job.
    std::function<void(llvm::yaml::Node *, std::vector<std::string>)> walk =
        [&](llvm::yaml::Node *node, std::vector<std::string> path) {
          if (auto *map = llvm::dyn_cast<llvm::yaml::MappingNode>(node)) {
            for (llvm::yaml::KeyValueNode &kv : *map) {
              llvm::SmallString<32> storage;
              auto *key = llvm::cast<llvm::yaml::ScalarNode>(kv.getKey());
              std::vector<std::string> sub = path;
              sub.push_back(key->getValue(storage).str());
              walk(kv.getValue(), sub);
            }
          } else if (auto *seq = llvm::dyn_cast<llvm::yaml::SequenceNode>(node)) {
            for (llvm::yaml::Node &item : *seq) {
              if (path.size() && path.back() == "command") {
                llvm::SmallString<32> storage;
                command.push_back(llvm::cast<llvm::yaml::ScalarNode>(&item)
                                      ->getValue(storage)
                                      .str());
              } else {
                walk(&item, path);
              }
            }
          }
        };
    walk(root, {});
  }
  // The Secret (the job's token), the Service, the Job.
  EXPECT_EQ(documents, 3);
  return command;
}

TEST(LaunchFiles, WritesEveryFileWithQuotedNames) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("telar-launch", dir));
  ::telar_artifact::Manifest m;
  m.modelPath = "m.onnx";
  m.worldSize = 2;
  m.mesh = telar_sharding::Mesh{{"data"}, {2}};
  m.inputs = {{"ids:0", ::telar_artifact::DType::Int64, {2, 4}},
              {"a\"b\\c", ::telar_artifact::DType::Float32, {2}}};
  mt::LaunchOptions o;
  ASSERT_EQ(mt::resolveLaunchOptions(o, 2, m.modelPath), "");
  std::string error;
  ASSERT_TRUE(mt::writeLaunchFiles(dir.str().str(), m, o, error)) << error;

  for (const std::string &name : mt::getLaunchFileNames()) {
    std::string text = readFile(dir + "/launch/" + name);
    EXPECT_FALSE(text.empty()) << name;
    if (name != "ray_launch.py")
      EXPECT_EQ(text.find("{{"), std::string::npos) << name;
  }
  std::vector<std::string> command =
      readJobCommand(readFile(dir + "/launch/k8s.yaml"));
  std::vector<std::string> expected = {
      "telar-run",  "/artifact",
      "--input",    "ids:0=/data/inputs/ids_0.npy",
      "--input",    "a\"b\\c=/data/inputs/a_b_c.npy",
      "--output-dir", "/data/outputs",
      "--threads",  "1"};
  EXPECT_EQ(command, expected);
  EXPECT_EQ(mt::getTensorFileStem("a/b:c.d-e_f"), "a_b_c.d-e_f");

  // mpirun.sh is executable, the YAML is not.
  EXPECT_TRUE(llvm::sys::fs::can_execute(dir + "/launch/mpirun.sh"));
  EXPECT_FALSE(llvm::sys::fs::can_execute(dir + "/launch/k8s.yaml"));
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
