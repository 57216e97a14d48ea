//===- TelarExtension.cpp - telar._telar, the Python package's core -------===//
//
// The nanobind extension under python/telar: telarc's driver in process
// (telar/driver/Telarc.h), with what it prints captured so that the Python
// side raises errors carrying telarc's own message, and the runtime's
// Artifact (telar/runtime/Runtime.h) running a single-rank program on numpy
// arrays. Everything else (flags from keywords, several ranks, --bench)
// is Python (python/telar).
//
//===----------------------------------------------------------------------===//

#include "telar/driver/Telarc.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/abi/CpuKernels.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace nb = nanobind;
namespace rt = telar::runtime;

namespace {

/// Standard output and error of the whole process (file descriptors 1 and
/// 2: telarc, LLVM and the tools it starts write there) sent to temporary
/// files until finish().
class CapturedOutput {
public:
  CapturedOutput() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int i = 0; i < 2; ++i) {
      files[i] = std::tmpfile();
      saved[i] = files[i] ? dup(i + 1) : -1;
      if (saved[i] < 0 || dup2(fileno(files[i]), i + 1) < 0) {
        std::string why = std::strerror(errno);
        restore();
        throw std::runtime_error("cannot capture telarc's output: " + why);
      }
    }
  }
  ~CapturedOutput() { restore(); }

  /// What was written to standard output and error, in that order.
  std::pair<std::string, std::string> finish() {
    std::fflush(stdout);
    std::fflush(stderr);
    std::string text[2];
    for (int i = 0; i < 2; ++i) {
      if (!files[i])
        continue;
      std::rewind(files[i]);
      char buffer[4096];
      size_t n;
      while ((n = std::fread(buffer, 1, sizeof(buffer), files[i])) > 0)
        text[i].append(buffer, n);
    }
    restore();
    return {text[0], text[1]};
  }

private:
  void restore() {
    for (int i = 0; i < 2; ++i) {
      if (saved[i] >= 0) {
        dup2(saved[i], i + 1);
        close(saved[i]);
        saved[i] = -1;
      }
      if (files[i]) {
        std::fclose(files[i]);
        files[i] = nullptr;
      }
    }
  }

  FILE *files[2] = {nullptr, nullptr};
  int saved[2] = {-1, -1};
};

/// telarc's flags are LLVM's global options: one compilation at a time.
std::mutex telarcMutex;

/// Runs telarc on `args` (without the program name): its exit status and
/// what it printed to standard output and error.
std::tuple<int, std::string, std::string>
runTelarc(const std::vector<std::string> &args) {
  std::vector<std::string> argvStrings = {"telarc"};
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &arg : argvStrings)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(telarcMutex);
  CapturedOutput captured;
  int status = mlir::telar::driver::runTelarc(int(argv.size()) - 1,
                                              argv.data());
  auto [out, err] = captured.finish();
  return {status, std::move(out), std::move(err)};
}

std::vector<std::tuple<std::string, std::string, std::string, std::string>>
getTelarcFlags() {
  std::lock_guard<std::mutex> lock(telarcMutex);
  std::vector<std::tuple<std::string, std::string, std::string, std::string>>
      flags;
  for (const mlir::telar::driver::TelarcFlag &flag :
       mlir::telar::driver::getTelarcFlags())
    flags.emplace_back(flag.name, flag.kind, flag.value, flag.help);
  return flags;
}

//===----------------------------------------------------------------------===//
// Programs on numpy arrays
//===----------------------------------------------------------------------===//

/// The DLPack type of an artifact dtype; false for bfloat16, which numpy
/// lacks.
bool toDLPack(rt::DType dtype, nb::dlpack::dtype &out) {
  using rt::DType;
  switch (dtype) {
  case DType::Float32: out = nb::dtype<float>(); return true;
  case DType::Float64: out = nb::dtype<double>(); return true;
  case DType::Float16:
    out = {uint8_t(nb::dlpack::dtype_code::Float), 16, 1};
    return true;
  case DType::BFloat16: return false;
  case DType::Int8: out = nb::dtype<int8_t>(); return true;
  case DType::Int16: out = nb::dtype<int16_t>(); return true;
  case DType::Int32: out = nb::dtype<int32_t>(); return true;
  case DType::Int64: out = nb::dtype<int64_t>(); return true;
  case DType::UInt8: out = nb::dtype<uint8_t>(); return true;
  case DType::UInt16: out = nb::dtype<uint16_t>(); return true;
  case DType::UInt32: out = nb::dtype<uint32_t>(); return true;
  case DType::UInt64: out = nb::dtype<uint64_t>(); return true;
  case DType::Bool: out = nb::dtype<bool>(); return true;
  }
  return false;
}

nb::dlpack::dtype dlpackType(const rt::TensorSpec &spec) {
  nb::dlpack::dtype type;
  if (!toDLPack(spec.dtype, type))
    throw rt::Error("'" + spec.name + "' is " + spec.typeString() +
                    ": numpy has no bfloat16; run it with telar-run");
  return type;
}

using HostArray = nb::ndarray<nb::device::cpu>;
using NumpyArray = nb::ndarray<nb::numpy>;

nb::dict describe(const rt::TensorSpec &spec) {
  nb::dict d;
  d["name"] = spec.name;
  d["dtype"] = std::string(rt::dtypeName(spec.dtype));
  d["shape"] = nb::cast(std::vector<int64_t>(spec.shape.begin(),
                                             spec.shape.end()));
  return d;
}

/// One program of a single-rank artifact, loaded once and run on numpy
/// arrays in this process.
class Program {
public:
  Program(const std::string &directory, const std::string &program,
          bool emulate) {
    artifact = rt::Artifact::load(directory, program, nullptr, emulate);
    if (artifact->getManifest().isTraining())
      throw rt::Error("'" + directory +
                      "' is a training artifact (telarc --train): it runs "
                      "with telar-run --train");
  }

  nb::list inputs() const {
    nb::list specs;
    for (const rt::TensorSpec &spec : artifact->getManifest().inputs)
      specs.append(describe(spec));
    return specs;
  }
  nb::list outputs() const {
    nb::list specs;
    for (const rt::TensorSpec &spec : artifact->getManifest().outputs)
      specs.append(describe(spec));
    return specs;
  }
  size_t peakBytes() const {
    return artifact->getContext().getPeakBytes();
  }

  /// Runs once on `arrays` (manifest order, C-contiguous, of the manifest's
  /// dtypes and shapes: the Python side converts) and returns the outputs.
  nb::list run(const std::vector<HostArray> &arrays) {
    const rt::Manifest &m = artifact->getManifest();
    if (arrays.size() != m.inputs.size())
      throw rt::Error("the program takes " + std::to_string(m.inputs.size()) +
                      " inputs, " + std::to_string(arrays.size()) + " given");
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < arrays.size(); ++i) {
      const rt::TensorSpec &spec = m.inputs[i];
      const HostArray &a = arrays[i];
      rt::Shape shape(a.shape_ptr(), a.shape_ptr() + a.ndim());
      if (a.dtype() != dlpackType(spec) || shape != spec.shape)
        throw rt::Error("input '" + spec.name + "' must be " +
                        spec.typeString() + ", got " +
                        rt::formatShape(shape));
      // The Python side passes C-contiguous arrays; checked all the same.
      int64_t stride = 1;
      for (size_t d = a.ndim(); d-- > 0;) {
        if (a.shape(d) > 1 && a.stride(d) != stride)
          throw rt::Error("input '" + spec.name + "' is not C-contiguous");
        stride *= a.shape(d);
      }
      rt::Tensor &t = inputs.emplace_back(spec.dtype, spec.shape);
      if (t.getByteSize())
        std::memcpy(t.data(), a.data(), t.getByteSize());
    }
    std::vector<rt::Tensor> outputs = artifact->allocateOutputs();
    {
      nb::gil_scoped_release release;
      artifact->run(inputs, outputs);
    }
    nb::list result;
    for (size_t i = 0; i < outputs.size(); ++i) {
      nb::dlpack::dtype type = dlpackType(m.outputs[i]);
      auto *owned = new rt::Tensor(std::move(outputs[i]));
      nb::capsule owner(owned, [](void *p) noexcept {
        delete static_cast<rt::Tensor *>(p);
      });
      std::vector<size_t> shape(owned->getShape().begin(),
                                owned->getShape().end());
      result.append(NumpyArray(owned->data(), shape.size(), shape.data(),
                               owner, /*strides=*/nullptr, type));
    }
    return result;
  }

private:
  std::unique_ptr<rt::Artifact> artifact;
};

} // namespace

NB_MODULE(_telar, m) {
  m.doc() = "Telar's compiler driver and runtime (use the telar package)";
  nb::exception<rt::Error>(m, "Error");

  m.def("version", &mlir::telar::driver::getTelarcVersion,
        "The version telarc --version prints.");
  m.def("telarc", &runTelarc, nb::arg("args"),
        "Runs telarc on args in this process: (exit status, stdout, "
        "stderr).");
  m.def("telarc_flags", &getTelarcFlags,
        "telarc's flags: (name, kind: bool|value|list, value name, help).");
  m.def(
      "set_threads", [](int threads) { telarrt_set_num_threads(threads); },
      nb::arg("threads"),
      "Threads for the runtime's parallel loops and BLAS in this process.");

  nb::class_<Program>(m, "Program")
      .def(nb::init<const std::string &, const std::string &, bool>(),
           nb::arg("directory"), nb::arg("program") = "",
           nb::arg("emulate") = false)
      .def_prop_ro("inputs", &Program::inputs)
      .def_prop_ro("outputs", &Program::outputs)
      .def_prop_ro("peak_bytes", &Program::peakBytes)
      .def("run", &Program::run, nb::arg("arrays"));
}
