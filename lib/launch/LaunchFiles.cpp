//===- LaunchFiles.cpp - The launch/ folder of multi-rank artifacts -------===//
//
// The templates (lib/launch/templates/*.in, embedded by
// cmake/EmbedFiles.cmake) hold `{{name}}` placeholders; a placeholder
// alone on its line takes a multi-line value, each line indented as the
// placeholder is (the YAML command lists). Files without `.in` (the Ray
// launcher) are copied as they are.
//
//===----------------------------------------------------------------------===//

#include "telar/launch/LaunchFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

#include "LaunchTemplates.inc"

using namespace llvm;

namespace mlir::telar {

namespace {

/// The written files: template name -> file name.
struct LaunchFile {
  const char *templateName;
  const char *fileName;
  bool executable;
};
constexpr LaunchFile kLaunchFiles[] = {
    {"mpirun.sh.in", "mpirun.sh", true},
    {"slurm.sbatch.in", "slurm.sbatch", true},
    {"k8s.yaml.in", "k8s.yaml", false},
    {"k8s-mpijob.yaml.in", "k8s-mpijob.yaml", false},
    {"Dockerfile.in", "Dockerfile", false},
    {"ray_launch.py", "ray_launch.py", true},
};

StringRef getTemplate(StringRef name) {
  for (const auto &t : kLaunchTemplates)
    if (name == t.name)
      return StringRef(reinterpret_cast<const char *>(t.data), t.size);
  return {};
}

/// `text` with every `{{name}}` replaced by `values[name]`; "" with `error`
/// naming the placeholder when `values` lacks it.
std::string substitute(StringRef text, const StringMap<std::string> &values,
                       StringRef templateName, std::string &error) {
  std::string out;
  while (!text.empty()) {
    size_t open = text.find("{{");
    if (open == StringRef::npos) {
      out += text;
      break;
    }
    size_t close = text.find("}}", open);
    if (close == StringRef::npos) {
      error = "the launch template " + templateName.str() +
              " has an unclosed '{{'";
      return "";
    }
    StringRef name = text.slice(open + 2, close).trim();
    auto it = values.find(name);
    if (it == values.end()) {
      error = "the launch template " + templateName.str() +
              " names the unknown value '" + name.str() + "'";
      return "";
    }
    StringRef before = text.take_front(open);
    out += before;
    // A placeholder alone on its line: every line of a multi-line value is
    // indented as the placeholder is.
    size_t newline = out.rfind('\n');
    StringRef lineStart = newline == std::string::npos
                              ? StringRef(out)
                              : StringRef(out).drop_front(newline + 1);
    bool alone = lineStart.find_first_not_of(' ') == StringRef::npos;
    StringRef value = it->second;
    if (alone && value.contains('\n')) {
      std::string indent(lineStart.size(), ' ');
      SmallVector<StringRef> lines;
      value.split(lines, '\n');
      for (auto [i, line] : llvm::enumerate(lines))
        out += (i ? "\n" + indent : std::string()) + line.str();
    } else {
      out += value;
    }
    text = text.drop_front(close + 2);
  }
  return out;
}

/// `s` as a YAML double-quoted scalar (JSON's escapes are YAML's).
std::string quoteYaml(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

/// A YAML block sequence of `items`, one per line.
std::string yamlList(ArrayRef<std::string> items) {
  std::string out;
  for (const std::string &item : items)
    out += (out.empty() ? "" : "\n") + ("- " + quoteYaml(item));
  return out;
}

bool matches(StringRef pattern, StringRef text) {
  return Regex(pattern).match(text);
}

/// The DNS label of the model's file stem: "telar-gpt" for gpt.onnx.
std::string defaultJobName(const std::string &modelPath) {
  std::string name = "telar";
  StringRef stem = sys::path::stem(modelPath);
  std::string part;
  for (char c : stem.lower())
    part += isAlnum(c) ? c : '-';
  for (StringRef piece : split(part, '-'))
    if (!piece.empty())
      name += "-" + piece.str();
  // Room for the suffixes of the objects made from it (-mpi-launcher).
  name.resize(std::min<size_t>(name.size(), 40));
  while (name.back() == '-')
    name.pop_back();
  return name;
}

std::string rankCount(int64_t n) {
  return std::to_string(n) + (n == 1 ? " rank" : " ranks");
}

} // namespace

std::vector<std::string> getLaunchFileNames() {
  std::vector<std::string> names;
  for (const LaunchFile &f : kLaunchFiles)
    names.push_back(f.fileName);
  return names;
}

std::string getTensorFileStem(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!isAlnum(c) && c != '.' && c != '_' && c != '-')
      c = '_';
  return out;
}

std::string resolveLaunchOptions(LaunchOptions &o, int64_t worldSize,
                                 const std::string &modelPath) {
  std::string world = "the artifact's " + rankCount(worldSize);
  if (o.nodes < 0 || o.tasksPerNode < 0)
    return o.nodes < 0 ? "--nodes must be at least 1"
                       : "--tasks-per-node must be at least 1";
  if (o.nodes && o.tasksPerNode) {
    if (o.nodes * o.tasksPerNode != worldSize)
      return "--nodes " + std::to_string(o.nodes) + " x --tasks-per-node " +
             std::to_string(o.tasksPerNode) + " is " +
             rankCount(o.nodes * o.tasksPerNode) + ", but the artifact runs "
             "on " + rankCount(worldSize) +
             " (nodes x tasks per node must be its world size)";
  } else if (o.nodes) {
    if (worldSize % o.nodes)
      return "--nodes " + std::to_string(o.nodes) + " does not divide " +
             world + " into equal tasks per node";
    o.tasksPerNode = worldSize / o.nodes;
  } else if (o.tasksPerNode) {
    if (worldSize % o.tasksPerNode)
      return "--tasks-per-node " + std::to_string(o.tasksPerNode) +
             " does not divide " + world + " into whole nodes";
    o.nodes = worldSize / o.tasksPerNode;
  } else {
    o.nodes = 1;
    o.tasksPerNode = worldSize;
  }
  if (o.cpusPerTask < 1)
    return "--cpus-per-task must be at least 1";
  // Slurm's time formats: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
  if (!matches("^([0-9]+(:[0-9][0-9]){0,2}|[0-9]+-[0-9]+(:[0-9][0-9]){0,2})$",
               o.time))
    return "--time '" + o.time + "' is not a Slurm time limit (HH:MM:SS, "
           "MM, D-HH:MM:SS, ...)";
  if (!o.partition.empty() && !matches("^[A-Za-z0-9_.,-]+$", o.partition))
    return "--partition '" + o.partition + "' is not a partition name "
           "(letters, digits, '_', '.', '-'; several separated by ',')";
  if (o.slurmMpi != "pmix" && o.slurmMpi != "pmi2" && o.slurmMpi != "none")
    return "--slurm-mpi '" + o.slurmMpi + "' is none of pmix, pmi2, none";
  if (o.jobName.empty())
    o.jobName = defaultJobName(modelPath);
  else if (o.jobName.size() > 40 ||
           !matches("^[a-z]([-a-z0-9]*[a-z0-9])?$", o.jobName))
    return "--job-name '" + o.jobName + "' is not a DNS label of at most 40 "
           "characters (lower-case letters, digits and '-', starting with a "
           "letter), as Kubernetes names its pods after it";
  if (o.image.empty())
    o.image = o.jobName + ":latest";
  else if (!matches("^[A-Za-z0-9][A-Za-z0-9._/:@-]*$", o.image))
    return "--image '" + o.image + "' is not an image reference "
           "([REGISTRY/]NAME[:TAG][@DIGEST])";
  if (o.k8sNamespace.size() > 63 ||
      !matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", o.k8sNamespace))
    return "--namespace '" + o.k8sNamespace + "' is not a Kubernetes "
           "namespace (a DNS label: lower-case letters, digits and '-')";
  if (o.masterPort < 1 || o.masterPort > 65535)
    return "--master-port must be a TCP port (1 to 65535)";
  return "";
}

bool writeLaunchFiles(const std::string &artifactDir,
                      const ::telar_artifact::Manifest &manifest,
                      const LaunchOptions &o, std::string &error) {
  int64_t worldSize = manifest.worldSize;
  SmallString<256> dir(artifactDir);
  sys::path::append(dir, kLaunchDir);
  if (std::error_code ec = sys::fs::create_directories(dir)) {
    error = "cannot create " + dir.str().str() + ": " + ec.message();
    return false;
  }

  // The command of a rank in a pod: the artifact at /artifact, the inputs
  // and outputs on the volume at /data.
  std::string threads = std::to_string(o.cpusPerTask);
  std::vector<std::string> runArgs = {"/artifact"};
  for (const auto &input : manifest.inputs) {
    runArgs.push_back("--input");
    runArgs.push_back(input.name + "=/data/inputs/" +
                      getTensorFileStem(input.name) + ".npy");
  }
  for (const char *arg : {"--output-dir", "/data/outputs", "--threads"})
    runArgs.push_back(arg);
  runArgs.push_back(threads);
  std::vector<std::string> podCommand = {"telar-run"};
  podCommand.insert(podCommand.end(), runArgs.begin(), runArgs.end());
  std::vector<std::string> launcherCommand = {
      "mpirun", "-np", std::to_string(worldSize), "--bind-to", "none",
      "telar-run"};
  launcherCommand.insert(launcherCommand.end(), runArgs.begin(),
                         runArgs.end());

  // The artifact's files, copied into the image.
  std::string copies = "COPY manifest.json";
  SmallString<256> plan(artifactDir);
  sys::path::append(plan, "plan.json");
  if (sys::fs::exists(plan))
    copies += " plan.json";
  copies += " /artifact/\nCOPY programs/ /artifact/programs/\n"
            "COPY weights/ /artifact/weights/";

  // The secret the Kubernetes Indexed Job's ranks prove to rank 0's
  // rendezvous (TELAR_JOB_TOKEN, through a Secret): 256 random bits, drawn
  // for each artifact written.
  std::random_device random;
  std::string token;
  for (int i = 0; i < 8; ++i)
    token += llvm::utohexstr(uint32_t(random()), /*LowerCase=*/true, 8);

  StringMap<std::string> values;
  values["job_token"] = token;
  values["world_size"] = std::to_string(worldSize);
  values["telar_version"] = TELAR_VERSION;
  values["model"] = manifest.modelPath.empty() ? "a model" : manifest.modelPath;
  values["job_name"] = o.jobName;
  values["nodes"] = std::to_string(o.nodes);
  values["tasks_per_node"] = std::to_string(o.tasksPerNode);
  values["cpus_per_task"] = threads;
  values["worker_cpus"] = std::to_string(o.tasksPerNode * o.cpusPerTask);
  values["time"] = o.time;
  values["partition_line"] =
      o.partition.empty()
          ? "# (no #SBATCH --partition: the cluster's default; telarc "
            "--partition NAME sets one)"
          : "#SBATCH --partition=" + o.partition;
  values["slurm_mpi"] = o.slurmMpi;
  values["image"] = o.image;
  values["namespace"] = o.k8sNamespace;
  values["master_port"] = std::to_string(o.masterPort);
  values["pod_command"] = yamlList(podCommand);
  values["launcher_command"] = yamlList(launcherCommand);
  values["artifact_copy"] = copies;

  for (const LaunchFile &file : kLaunchFiles) {
    StringRef body = getTemplate(file.templateName);
    if (body.empty()) {
      error = std::string("telarc was built without the launch template ") +
              file.templateName;
      return false;
    }
    std::string text = StringRef(file.templateName).ends_with(".in")
                           ? substitute(body, values, file.templateName, error)
                           : body.str();
    if (!error.empty())
      return false;
    SmallString<256> path(dir);
    sys::path::append(path, file.fileName);
    std::error_code ec;
    {
      raw_fd_ostream os(path, ec, sys::fs::OF_Text);
      if (!ec) {
        os << text;
        os.close();
        if (os.has_error())
          ec = os.error();
      }
    }
    if (!ec && file.executable)
      ec = sys::fs::setPermissions(
          path, sys::fs::perms(sys::fs::all_read | sys::fs::all_exe |
                               sys::fs::owner_write));
    if (ec) {
      error = "cannot write " + path.str().str() + ": " + ec.message();
      return false;
    }
  }
  return true;
}

} // namespace mlir::telar
