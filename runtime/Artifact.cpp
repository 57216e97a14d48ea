//===- Artifact.cpp - Load and run artifacts (docs/Artifact.md) -----------===//

#include "Blocks.h"
#include "Context.h"
#include "comm/HalfFloat.h"
#include "telar/runtime/FileUtil.h"
#include "telar/artifact/Manifest.h"
#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"
#include "telar/runtime/Safetensors.h"
#include "telar/runtime/Trace.h"
#include "telar/runtime/abi/Core.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <set>
#include <sys/stat.h>

using namespace telar::runtime;

const char *telar::runtime::statusName(int status) {
  switch (status) {
  case TELAR_STATUS_OK:
    return "ok";
  case TELAR_STATUS_OUT_OF_MEMORY:
    return "out of memory";
  case TELAR_STATUS_INVALID_ARGUMENT:
    return "invalid argument";
  case TELAR_STATUS_COMM_ERROR:
    return "communication error";
  case TELAR_STATUS_DEVICE_ERROR:
    return "device error";
  default:
    return "unknown status";
  }
}

//===----------------------------------------------------------------------===//
// Artifact
//===----------------------------------------------------------------------===//

namespace {
/// A weight of an artifact written without weight bytes (telarc
/// --random-weights), filled here: floats uniform in [-0.0346, 0.0346]
/// (standard deviation 0.02, as GPT-2 initializes), integers and booleans
/// zero; the same values for the same name on every load and machine.
std::unique_ptr<char[]> fillRandomly(const WeightSpec &w) {
  size_t bytes = w.byteSize();
  auto data = std::make_unique<char[]>(bytes ? bytes : 1);
  std::memset(data.get(), 0, bytes);
  uint64_t state = 14695981039346656037ull; // FNV-1a of the name: the seed
  for (unsigned char c : w.name)
    state = (state ^ c) * 1099511628211ull;
  auto next = [&state] { // splitmix64, to [-1, 1)
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return float(int64_t(z >> 40) - (int64_t(1) << 23)) / float(1 << 23);
  };
  constexpr float kScale = 0.0346f;
  int64_t n = w.numElements();
  switch (w.dtype) {
  case DType::Float32:
    for (int64_t i = 0; i < n; ++i)
      reinterpret_cast<float *>(data.get())[i] = kScale * next();
    break;
  case DType::Float64:
    for (int64_t i = 0; i < n; ++i)
      reinterpret_cast<double *>(data.get())[i] = kScale * next();
    break;
  case DType::BFloat16:
    for (int64_t i = 0; i < n; ++i)
      reinterpret_cast<uint16_t *>(data.get())[i] =
          comm::detail::floatToBf16(kScale * next());
    break;
  case DType::Float16:
    for (int64_t i = 0; i < n; ++i)
      reinterpret_cast<uint16_t *>(data.get())[i] =
          comm::detail::floatToF16(kScale * next());
    break;
  default:
    break;
  }
  return data;
}
} // namespace

void telar::runtime::exposeRuntimeSymbols() {
  // dlopen(RTLD_NOLOAD | RTLD_GLOBAL) on an already loaded library promotes
  // it to the global scope, where a program's undefined symbols are looked
  // up. A no-op when the executable links these libraries directly. The
  // core's, and those of the device drivers (the CPU's kernels, libomp).
  std::vector<const void *> symbols = getDriverProgramSymbols();
  symbols.push_back(reinterpret_cast<const void *>(&telarrt_alloc));
  for (const void *symbol : symbols) {
    Dl_info info;
    if (dladdr(symbol, &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
}

std::unique_ptr<Artifact>
Artifact::load(const std::string &directory, const std::string &programName,
               std::shared_ptr<comm::Communicator> world, bool emulate) {
  std::string dir = directory;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    throw Error("artifact directory '" + dir + "' does not exist");
  if (!S_ISDIR(st.st_mode))
    throw Error("'" + dir + "' is not an artifact directory");
  std::string manifestPath = dir + "/" + telar_artifact::kManifestFileName;
  if (!detail::isRegularFile(manifestPath))
    throw Error("'" + dir +
                "' is not a Telar artifact: it has no "
                "manifest.json");

  std::unique_ptr<Artifact> artifact(new Artifact());
  artifact->directory = dir;
  artifact->manifest =
      artifact::parseManifest(detail::readFile(manifestPath), manifestPath);
  const Manifest &m = artifact->manifest;
  if (m.isPipelined())
    throw Error("artifact '" + dir + "' is pipelined (" +
                std::to_string(m.pipeline->getNumStages()) +
                " stages, format version " + std::to_string(m.formatVersion) +
                "): it runs as a Pipeline (telar/runtime/Pipeline.h), each "
                "stage an artifact of its own");
  const ProgramSpec &program = m.selectProgram(programName, manifestPath);
  artifact->program = &program - m.programs.data();
  // The device of the manifest's target kind (older manifests name none:
  // the CPU's); a GPU program runs on that GPU, or on its emulator (the
  // same device with host memory, the kernels compiled for the host) when
  // asked.
  std::string deviceKind = m.targetKind.empty() ? "cpu" : m.targetKind;
  if (emulate && !program.isGpuProgram())
    throw Error("--emulate runs a GPU artifact's kernels on the CPU; "
                "artifact '" + dir + "' is for the CPU");
  if (deviceKind != "cpu" && !program.isGpuProgram())
    throw Error("artifact '" + dir + "' is for a " + deviceKind +
                " GPU, but its program '" + program.name +
                "' has no kernels (an older telarc's emulated program?): "
                "compile it again");
  if (emulate) {
    if (program.emulationLibrary.empty())
      throw Error("artifact '" + dir + "' has no CPU emulation of its " +
                  deviceKind + " kernels: compile it with telarc --target " +
                  deviceKind + " --emulation");
    deviceKind += "-emulator";
  }
  artifact->weights = m.weightsOf(program);

  // The world: as many ranks as the manifest says.
  int64_t ranks = world ? world->getSize() : 1;
  if (ranks != m.worldSize) {
    if (!m.hasMesh())
      throw Error("artifact '" + dir +
                  "' runs on a single device (its manifest has no mesh), "
                  "not on " +
                  std::to_string(ranks) + " ranks");
    throw Error("artifact '" + dir + "' runs on " +
                std::to_string(m.worldSize) + " ranks (mesh " +
                m.mesh.str() + "), not on " +
                std::to_string(ranks) + " (start " +
                std::to_string(m.worldSize) + " ranks: telar-run -n " +
                std::to_string(m.worldSize) + ", mpirun -np " +
                std::to_string(m.worldSize) + " or srun -n " +
                std::to_string(m.worldSize) + ")");
  }
  artifact->rank = world ? world->getRank() : 0;
  artifact->world = world;
  auto fileOf = [&](const std::string &file) {
    return telar_artifact::expandRankPath(file, artifact->rank);
  };

  // Every file the program needs must exist before anything is mapped or
  // loaded.
  if (!detail::isRegularFile(dir + "/" + program.library))
    throw Error("artifact '" + dir + "' is incomplete: program library '" +
                program.library + "' (program '" + program.name +
                "') is missing");
  auto isFile = [](const std::string &file) {
    return file != telar_artifact::kRandomWeightsFile;
  };
  for (const std::string &file : program.weightFiles)
    if (isFile(file) && !detail::isRegularFile(dir + "/" + fileOf(file)))
      throw Error("artifact '" + dir + "' is incomplete: weights file '" +
                  fileOf(file) + "' is missing");
  if (!program.emulationLibrary.empty() && emulate &&
      !detail::isRegularFile(dir + "/" + program.emulationLibrary))
    throw Error("artifact '" + dir + "' is incomplete: emulation library '" +
                program.emulationLibrary + "' (program '" + program.name +
                "') is missing");
  // ... and lie inside the artifact, symlinks followed.
  detail::resolveInside(dir, program.library, "program library");
  if (program.isGpuProgram())
    detail::resolveInside(dir, program.kernelDirectory, "kernel directory");
  if (!program.emulationLibrary.empty() && emulate)
    detail::resolveInside(dir, program.emulationLibrary, "emulation library");
  for (const std::string &file : program.weightFiles)
    if (isFile(file))
      detail::resolveInside(dir, fileOf(file), "weights file");

  // Map each of the program's weight files once and check its weights.
  std::map<std::string, SafetensorsFile *> files;
  for (const WeightSpec *w : artifact->weights) {
    if (!isFile(w->file)) {
      artifact->randomWeights.push_back(fillRandomly(*w));
      artifact->weightSpans.push_back(
          {artifact->randomWeights.back().get(), w->byteSize()});
      continue;
    }
    SafetensorsFile *&file = files[w->file];
    if (!file) {
      artifact->weightFiles.push_back(
          SafetensorsFile::open(dir + "/" + fileOf(w->file)));
      file = artifact->weightFiles.back().get();
      // Read-only and unchanged while mapped (the device may derive
      // copies of its weights once: the CPU's packed GEMM operands).
      if (file->getMapping())
        artifact->mappingSpans.push_back(
            {file->getMapping(), file->getMappingSize()});
    }
    const SafetensorsTensor *t = file->find(w->name);
    std::string where = "weights file '" + file->getPath() + "': ";
    if (!t)
      throw Error(where + "no tensor '" + w->name +
                  "' (named by manifest.json)");
    if (t->dtype != w->dtype || t->shape != w->shape)
      throw Error(where + "tensor '" + w->name + "' is " + t->dtypeCode +
                  formatShape(t->shape) + " but manifest.json says " +
                  w->typeString());
    artifact->weightSpans.push_back({t->data, w->byteSize()});
  }
  std::unique_ptr<Device> device;
  try {
    device = createDevice(deviceKind);
  } catch (const Error &e) {
    if (deviceKind == "cpu")
      throw;
    throw Error("artifact '" + dir + "' is for a " + m.targetKind +
                " GPU (" + m.targetChip + "), which this process cannot use: " +
                e.what());
  }
  artifact->context = std::make_unique<Context>(std::move(device));
  // Uploaded to (for the CPU: used in place by) the context's device.
  artifact->deviceWeights = artifact->context->getDevice().loadWeights(
      artifact->weightSpans, artifact->mappingSpans, /*writable=*/false);
  if (m.hasMesh()) {
    std::shared_ptr<comm::Communicator> meshWorld = world;
    if (!meshWorld)
      meshWorld = comm::createLocalCommunicator();
    artifact->mesh = std::make_shared<comm::MeshCommunicator>(
        meshWorld, m.mesh.axisNames, m.mesh.axisSizes);
    artifact->context->setMeshCommunicator(artifact->mesh);
  }

  if (program.isGpuProgram()) {
    ProgramKernels kernels;
    kernels.directory = dir + "/" + program.kernelDirectory;
    for (const artifact::KernelSpec &k : program.kernels)
      kernels.kernels.push_back({k.module, k.function});
    if (!program.emulationLibrary.empty())
      kernels.emulationLibrary = dir + "/" + program.emulationLibrary;
    artifact->deviceKernels =
        artifact->context->getDevice().loadKernels(kernels);
  }

  exposeRuntimeSymbols();
  std::string library = dir + "/" + program.library;
  // dlopen searches the library path for names without a slash; dir always
  // contributes one, but make relative paths explicit anyway.
  if (library.front() != '/' && library.compare(0, 2, "./") != 0)
    library = "./" + library;
  artifact->programHandle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!artifact->programHandle) {
    const char *why = dlerror();
    throw Error("cannot load program library '" + program.library +
                "' of artifact '" + dir +
                "': " + (why ? why : "unknown error"));
  }
  dlerror();
  void *entry = dlsym(artifact->programHandle, program.entry.c_str());
  if (!entry)
    throw Error("program library '" + program.library + "' of artifact '" +
                dir + "' does not export the entry point '" + program.entry +
                "'");
  artifact->entry = reinterpret_cast<TelarEntryFn>(entry);
  return artifact;
}

Artifact::~Artifact() {
  if (programHandle)
    dlclose(programHandle);
  deviceKernels.reset();
  // The device's weights (the CPU's packed copies) go before the mappings.
  deviceWeights.reset();
}

void Artifact::makeWeightsWritable() {
  if (deviceWeights->isWritable())
    return;
  deviceWeights = context->getDevice().loadWeights(weightSpans, mappingSpans,
                                                   /*writable=*/true);
}

size_t Artifact::getWeightsBytes() const {
  size_t bytes = 0;
  for (const WeightSpec *w : weights)
    bytes += w->byteSize();
  return bytes;
}

std::vector<Tensor> Artifact::allocateOutputs() const {
  std::vector<Tensor> outputs;
  for (const TensorSpec &o : manifest.outputs)
    outputs.emplace_back(o.dtype, getLocalShape(o));
  return outputs;
}

Tensor Artifact::sliceInput(size_t index, const Tensor &global) const {
  if (index >= manifest.inputs.size())
    throw Error("artifact '" + directory + "' has no input " +
                std::to_string(index));
  const TensorSpec &s = manifest.inputs[index];
  if (global.getDType() != s.dtype || global.getShape() != s.shape)
    throw Error("input '" + s.name + "': expected " + s.typeString() +
                ", got " + global.typeString());
  if (!s.isSharded()) {
    Tensor copy(s.dtype, s.shape);
    std::memcpy(copy.data(), global.data(), global.getByteSize());
    return copy;
  }
  Tensor local(s.dtype, getLocalShape(s));
  detail::extractBlock(global.data(), s.shape,
                       manifest.getBlockOffsets(s, rank), local.getShape(),
                       dtypeSize(s.dtype), local.data());
  return local;
}

std::vector<Tensor>
Artifact::gatherOutputs(const std::vector<Tensor> &local) const {
  if (local.size() != manifest.outputs.size())
    throw Error("artifact '" + directory + "' has " +
                std::to_string(manifest.outputs.size()) + " outputs, got " +
                std::to_string(local.size()));
  for (size_t i = 0; i < local.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    if (local[i].getDType() != s.dtype ||
        local[i].getShape() != getLocalShape(s))
      throw Error("output '" + s.name + "': expected this rank's block " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  local[i].typeString());
  }
  std::vector<Tensor> global;
  for (size_t i = 0; i < local.size(); ++i) {
    Tensor whole = gatherOutput(i, local[i]);
    if (rank == 0)
      global.push_back(std::move(whole));
  }
  return global;
}

Tensor Artifact::gatherOutput(size_t index, const Tensor &local) const {
  if (index >= manifest.outputs.size())
    throw Error("artifact '" + directory + "' has no output " +
                std::to_string(index));
  const TensorSpec &s = manifest.outputs[index];
  if (local.getDType() != s.dtype || local.getShape() != getLocalShape(s))
    throw Error("output '" + s.name + "': expected this rank's block " +
                formatType(s.dtype, getLocalShape(s)) + ", got " +
                local.typeString());
  int64_t ranks = manifest.worldSize;
  if (!s.isSharded() || !world || ranks == 1) {
    // Replicated (every rank holds the whole), or one rank.
    if (rank != 0)
      return Tensor();
    Tensor whole(s.dtype, s.shape);
    if (!s.isSharded())
      std::memcpy(whole.data(), local.data(), whole.getByteSize());
    else
      detail::insertBlock(whole.data(), s.shape, manifest.getBlockOffsets(s, 0),
                          local.getShape(), dtypeSize(s.dtype), local.data());
    return whole;
  }
  size_t bytes = local.getByteSize();
  std::unique_ptr<unsigned char[]> all;
  if (rank == 0)
    all.reset(new unsigned char[std::max<size_t>(1, bytes * ranks)]);
  world->gather(local.data(), all.get(), int64_t(bytes), comm::DataType::I8, 0);
  if (rank != 0)
    return Tensor();
  Tensor whole(s.dtype, s.shape);
  for (int64_t r = 0; r < ranks; ++r)
    detail::insertBlock(whole.data(), s.shape, manifest.getBlockOffsets(s, r),
                        local.getShape(), dtypeSize(s.dtype),
                        all.get() + r * bytes);
  return whole;
}

void Artifact::run(Context &ctx, const std::vector<const void *> &inputs,
                   const std::vector<void *> &outputs) const {
  if (inputs.size() != manifest.inputs.size() ||
      outputs.size() != manifest.outputs.size())
    throw Error("artifact '" + directory + "' takes " +
                std::to_string(manifest.inputs.size()) + " inputs and " +
                std::to_string(manifest.outputs.size()) + " outputs, got " +
                std::to_string(inputs.size()) + " and " +
                std::to_string(outputs.size()));
  Device &device = ctx.getDevice();
  if (std::strcmp(device.getKind(), context->getDevice().getKind()) != 0)
    throw Error("artifact '" + directory + "' holds its weights on a '" +
                context->getDevice().getKind() +
                "' device and cannot run on a context of a '" +
                device.getKind() + "' device");
  // The program only reads inputs (and, unless writable, weights); the ABI
  // has no const.
  std::vector<void *> buffers;
  buffers.reserve(inputs.size() + deviceWeights->size() + outputs.size());
  for (const void *p : inputs)
    buffers.push_back(const_cast<void *>(p));
  for (size_t i = 0; i < deviceWeights->size(); ++i)
    buffers.push_back(deviceWeights->getData(i));
  for (void *p : outputs)
    buffers.push_back(p);

  TelarContext *c = ctx.get();
  telarrt_context_clear_error(c);
  const void *saved = device.setWeightsBinding(deviceWeights->getBinding());
  // A context without a mesh of its own uses the artifact's for the run.
  comm::MeshCommunicator *savedMesh = c->mesh;
  if (!c->mesh)
    c->mesh = mesh.get();
  // A GPU program launches its kernels, loaded on the artifact's device.
  const DeviceKernels *savedKernels = c->kernels;
  c->kernels = deviceKernels.get();
  // The entry point is host code that runs (on the CPU) or enqueues (on a
  // GPU) the program's work on the device's queue; the run ends when the
  // queue is done.
  int status = TELAR_STATUS_OK;
  Queue &queue = device.getQueue();
  trace::Scope span("program", [&] {
    return std::make_pair(getProgram().name,
                          "\"artifact\": " + trace::quote(directory));
  });
  try {
    queue.enqueue([&] { status = entry(c, buffers.data()); });
    if (status == TELAR_STATUS_OK)
      queue.synchronize();
  } catch (...) {
    device.setWeightsBinding(saved);
    c->mesh = savedMesh;
    c->kernels = savedKernels;
    throw;
  }
  device.setWeightsBinding(saved);
  c->mesh = savedMesh;
  c->kernels = savedKernels;
  if (status == TELAR_STATUS_OK)
    return;
  // The program returned at its first failure, before its frees.
  telarrt_context_free_live_blocks(c);
  std::string message = telarrt_context_error(c);
  if (message.empty())
    message = "no message in the context";
  throw RunError(status, "program '" + getProgram().name + "' of artifact '" +
                             directory + "' failed (status " +
                             std::to_string(status) + ", " +
                             statusName(status) + "): " + message);
}

void Artifact::run(Context &ctx, const std::vector<Tensor> &inputs,
                   std::vector<Tensor> &outputs) const {
  auto check = [&](const char *kind, const std::vector<TensorSpec> &specs,
                   size_t count) {
    if (count != specs.size())
      throw Error("artifact '" + directory + "' takes " +
                  std::to_string(specs.size()) + " " + kind + "s, got " +
                  std::to_string(count));
  };
  check("input", manifest.inputs, inputs.size());
  check("output", manifest.outputs, outputs.size());
  std::vector<const void *> in;
  std::vector<void *> out;
  // Multi-rank: the buffers are this rank's blocks.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &s = manifest.inputs[i];
    if (inputs[i].getDType() != s.dtype ||
        inputs[i].getShape() != getLocalShape(s))
      throw Error("input '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  inputs[i].typeString());
    in.push_back(inputs[i].data());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorSpec &s = manifest.outputs[i];
    if (outputs[i].getDType() != s.dtype ||
        outputs[i].getShape() != getLocalShape(s))
      throw Error("output '" + s.name + "': expected " +
                  formatType(s.dtype, getLocalShape(s)) + ", got " +
                  outputs[i].typeString());
    out.push_back(outputs[i].data());
  }
  Device &device = ctx.getDevice();
  if (device.getMemorySpace() == MemorySpace::Host) {
    run(ctx, in, out);
    return;
  }
  // A device with memory of its own (a GPU): the tensors (host memory) are
  // staged through buffers of the device's allocator.
  StagedBuffers staging(device);
  std::vector<const void *> deviceIn;
  std::vector<void *> deviceOut;
  for (size_t i = 0; i < inputs.size(); ++i)
    deviceIn.push_back(staging.upload(inputs[i].data(),
                                      inputs[i].getByteSize(),
                                      manifest.inputs[i].name));
  for (size_t i = 0; i < outputs.size(); ++i)
    deviceOut.push_back(staging.allocate(outputs[i].getByteSize(),
                                         manifest.outputs[i].name));
  run(ctx, deviceIn, deviceOut);
  for (size_t i = 0; i < outputs.size(); ++i)
    staging.download(outputs[i].data(), deviceOut[i],
                     outputs[i].getByteSize());
  device.getQueue().synchronize();
}

//===----------------------------------------------------------------------===//
// StagedBuffers
//===----------------------------------------------------------------------===//

StagedBuffers::~StagedBuffers() {
  for (void *p : blocks)
    device.getAllocator().deallocate(p);
}

void *StagedBuffers::allocate(size_t bytes, const std::string &name) {
  std::string error;
  void *p = device.getAllocator().allocate(64, bytes, error);
  if (!p)
    throw RunError(TELAR_STATUS_OUT_OF_MEMORY,
                   "cannot stage '" + name + "' in the " + device.getKind() +
                       " device's memory: " + error);
  blocks.push_back(p);
  total += bytes;
  return p;
}

void *StagedBuffers::upload(const void *host, size_t bytes,
                            const std::string &name) {
  void *p = allocate(bytes, name);
  device.copy(p, device.getMemorySpace(), host, MemorySpace::Host, bytes);
  return p;
}

void StagedBuffers::download(void *host, const void *buffer, size_t bytes) {
  device.copy(host, MemorySpace::Host, buffer, device.getMemorySpace(), bytes);
}
