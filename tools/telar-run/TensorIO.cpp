//===- TensorIO.cpp - telar-run's inputs and outputs ----------------------===//
//
// TensorIO.h: input files checked against the manifest (each rank reads
// its block), output files and summaries.
//
//===----------------------------------------------------------------------===//

#include "TensorIO.h"

#include "telar/runtime/Npy.h"
#include "telar/runtime/TensorProto.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>

using namespace telar::runtime;
using namespace telar::tools::run;

namespace {

std::string lowercaseExtension(const std::string &path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

/// An output's file name: characters outside [A-Za-z0-9._-] become '_'.
std::string sanitize(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-')
      c = '_';
  return s;
}

std::string formatValue(DType dtype, const void *data, int64_t i) {
  char buffer[64];
  switch (dtype) {
  case DType::Bool:
    return static_cast<const uint8_t *>(data)[i] ? "true" : "false";
  case DType::Int64:
    std::snprintf(buffer, sizeof(buffer), "%" PRId64,
                  static_cast<const int64_t *>(data)[i]);
    return buffer;
  case DType::UInt64:
    std::snprintf(buffer, sizeof(buffer), "%" PRIu64,
                  static_cast<const uint64_t *>(data)[i]);
    return buffer;
  default:
    std::snprintf(buffer, sizeof(buffer), "%g",
                  elementAsDouble(dtype, data, i));
    return buffer;
  }
}

/// "float32[2,3] = [1, 2, 3, 4, 5, 6]", the first few values only.
std::string summarize(const Tensor &t) {
  constexpr int64_t kShown = 8;
  int64_t n = t.getNumElements();
  std::string s = t.typeString() + " = [";
  for (int64_t i = 0; i < std::min(n, kShown); ++i)
    s += (i ? ", " : "") + formatValue(t.getDType(), t.data(), i);
  if (n > kShown)
    s += ", ... (" + std::to_string(n) + " values)";
  return s + "]";
}

} // namespace

std::string telar::tools::run::listTensors(const std::vector<TensorSpec> &specs) {
  if (specs.empty())
    return "none";
  std::string s;
  for (const TensorSpec &t : specs)
    s += (s.empty() ? "" : ", ") + t.name + " " + t.typeString();
  return s;
}

std::vector<Tensor>
telar::tools::run::readInputs(const Options &o, const Manifest &m,
                              const Artifact *artifact) {
  auto isInput = [&](const std::string &name) {
    return std::any_of(m.inputs.begin(), m.inputs.end(),
                       [&](const TensorSpec &s) { return s.name == name; });
  };
  std::map<std::string, std::string> files;
  for (auto [name, file] : o.inputs) {
    // The argument was split at its first '='; an input name may contain
    // '=' itself: take the first split whose left side names an input.
    std::string raw = name + "=" + file;
    for (size_t eq = raw.find('='); eq != std::string::npos;
         eq = raw.find('=', eq + 1))
      if (isInput(raw.substr(0, eq))) {
        name = raw.substr(0, eq);
        file = raw.substr(eq + 1);
        break;
      }
    if (!isInput(name))
      throw Error("unknown input '" + name +
                  "' (the model's inputs are: " + listTensors(m.inputs) + ")");
    if (!files.emplace(name, file).second)
      throw Error("input '" + name + "' is given more than once");
  }
  std::vector<std::string> missing;
  for (const TensorSpec &s : m.inputs)
    if (!files.count(s.name))
      missing.push_back("'" + s.name + "'");
  if (!missing.empty()) {
    std::string names;
    for (const std::string &n : missing)
      names += (names.empty() ? "" : ", ") + n;
    throw Error(std::string("missing input") +
                (missing.size() > 1 ? "s " : " ") + names +
                " (expected inputs: " + listTensors(m.inputs) +
                "; pass each as --input NAME=FILE)");
  }

  std::vector<Tensor> inputs;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const TensorSpec &s = m.inputs[i];
    const std::string &file = files[s.name];
    std::string ext = lowercaseExtension(file);
    if (ext != ".npy" && ext != ".pb")
      throw Error("input '" + s.name + "': cannot tell the format of '" + file +
                  "' (expected a .npy or .pb file)");
    auto check = [&](DType dtype, const Shape &shape) {
      if (dtype != s.dtype || shape != s.shape)
        throw Error("input '" + s.name + "': expected " + s.typeString() +
                    ", got " + formatType(dtype, shape) + " from " + file);
    };
    try {
      if (ext == ".npy" && s.isSharded() && artifact) {
        auto [dtype, shape] = readNpyType(file);
        check(dtype, shape);
        inputs.push_back(readNpyBlock(file,
                                      m.getBlockOffsets(s, artifact->getRank()),
                                      artifact->getLocalShape(s)));
        continue;
      }
      Tensor t = ext == ".npy" ? readNpy(file) : readTensorProto(file);
      check(t.getDType(), t.getShape());
      inputs.push_back(s.isSharded() && artifact ? artifact->sliceInput(i, t)
                                                 : std::move(t));
    } catch (const Error &e) {
      std::string what = e.what();
      if (what.rfind("input '" + s.name + "': ", 0) == 0)
        throw;
      throw Error("input '" + s.name + "': " + what);
    }
  }
  return inputs;
}

std::vector<std::string>
telar::tools::run::prepareOutputFiles(const Options &o, int rank,
                                      const Manifest &m) {
  // Output files (rank 0 writes them): distinct names, a directory that
  // exists.
  std::vector<std::string> paths;
  if (o.outputDir.empty())
    return paths;
  std::map<std::string, std::string> taken;
  for (const TensorSpec &s : m.outputs) {
    std::string file = sanitize(s.name) + "." + o.format;
    auto [it, fresh] = taken.emplace(file, s.name);
    if (!fresh)
      throw Error("outputs '" + it->second + "' and '" + s.name +
                  "' would both be written to " + file);
    paths.push_back((std::filesystem::path(o.outputDir) / file).string());
  }
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec || !std::filesystem::is_directory(o.outputDir))
      throw Error("cannot create output directory '" + o.outputDir + "'" +
                  (ec ? ": " + ec.message() : ""));
  }
  return paths;
}

void telar::tools::run::writeOutputs(const Options &o,
                                     const std::vector<std::string> &paths,
                                     const Manifest &m,
                                     const std::vector<Tensor> &global) {
  for (size_t i = 0; i < global.size(); ++i) {
    const TensorSpec &s = m.outputs[i];
    if (!paths.empty()) {
      if (o.format == "pb")
        writeTensorProto(paths[i], s.name, s.dtype, s.shape, global[i].data());
      else
        writeNpy(paths[i], s.dtype, s.shape, global[i].data());
      if (!o.quiet)
        std::printf("output '%s': %s -> %s\n", s.name.c_str(),
                    s.typeString().c_str(), paths[i].c_str());
    } else if (!o.quiet) {
      std::printf("output '%s': %s\n", s.name.c_str(),
                  summarize(global[i]).c_str());
    }
  }
}
