//===- Artifact.cpp - Compile a telar module into an artifact directory ---===//

#include "telar/codegen/Artifact.h"
#include "telar/codegen/Codegen.h"
#include "telar/codegen/Pipeline.h"
#include "telar/dialects/Telar/ShapeInference.h"
#include "telar/dialects/Telar/TelarOps.h"
#include "telar/passes/lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

#ifndef TELAR_VERSION
#define TELAR_VERSION "0.0.0"
#endif

using namespace mlir;

namespace {

struct TensorInfo {
  std::string name;
  RankedTensorType type;
};

struct WeightInfo {
  std::string name;
  RankedTensorType type;
  ArrayRef<char> data;
};

int64_t byteSize(RankedTensorType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

llvm::json::Array shapeJson(RankedTensorType type) {
  llvm::json::Array shape;
  for (int64_t d : type.getShape())
    shape.push_back(d);
  return shape;
}

/// Writes `weights` as one safetensors file, each tensor's data aligned to
/// 64 bytes (the header is padded with spaces, as the format allows).
LogicalResult writeSafetensors(StringRef path, ArrayRef<WeightInfo> weights,
                               std::string &error) {
  llvm::json::Object header;
  header["__metadata__"] = llvm::json::Object{{"format", "telar"}};
  SmallVector<uint64_t> offsets;
  uint64_t offset = 0;
  for (const WeightInfo &w : weights) {
    offset = llvm::alignTo(offset, 64);
    uint64_t end = offset + w.data.size();
    header[w.name] = llvm::json::Object{
        {"dtype", telar::safetensorsDtype(w.type.getElementType())},
        {"shape", shapeJson(w.type)},
        {"data_offsets", llvm::json::Array{offset, end}}};
    offsets.push_back(offset);
    offset = end;
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  while ((8 + text.size()) % 64 != 0)
    text.push_back(' ');

  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return failure();
  }
  uint64_t headerSize = text.size();
  char sizeBytes[8];
  for (int i = 0; i < 8; ++i)
    sizeBytes[i] = static_cast<char>((headerSize >> (8 * i)) & 0xff);
  out.os().write(sizeBytes, 8);
  out.os() << text;
  uint64_t written = 0;
  for (auto [w, begin] : llvm::zip(weights, offsets)) {
    out.os().write_zeros(begin - written);
    out.os().write(w.data.data(), w.data.size());
    written = begin + w.data.size();
  }
  if (out.os().has_error()) {
    error = "cannot write " + path.str();
    return failure();
  }
  out.keep();
  return success();
}

/// The largest set of intermediate tensors alive at once when the graph's
/// ops run one by one in program order: what an unfused execution needs
/// for intermediates at least (inputs, weights and outputs are the caller's
/// buffers and are not counted; reshapes are views and add nothing). Fusion
/// can go below it. Reported next to the runtime's measured peak.
int64_t largestLiveSetBytes(func::FuncOp main) {
  Block &body = main.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = i;
  llvm::DenseSet<Value> returned;
  for (Value v : body.getTerminator()->getOperands())
    returned.insert(v);
  // Bytes that become live at each op and that die after it.
  SmallVector<int64_t> born(body.getOperations().size() + 1, 0);
  SmallVector<int64_t> dies(body.getOperations().size() + 1, 0);
  for (Operation &op : body) {
    if (isa<telar::ConstantOp, telar::ReshapeOp, telar::SqueezeOp,
            telar::UnsqueezeOp>(op))
      continue;
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape() || returned.contains(result))
        continue;
      unsigned last = position[&op];
      // Uses through views keep the tensor alive.
      SmallVector<Value> worklist = {result};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          last = std::max(last, position[top]);
          if (isa<telar::ReshapeOp, telar::SqueezeOp, telar::UnsqueezeOp>(
                  user))
            worklist.append(user->result_begin(), user->result_end());
        }
      }
      born[position[&op]] += byteSize(type);
      dies[last] += byteSize(type);
    }
  }
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < born.size(); ++i) {
    live += born[i];
    peak = std::max(peak, live);
    live -= dies[i];
  }
  return peak;
}

std::string hashFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "";
  llvm::SHA256 sha;
  sha.update(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

llvm::json::Array tensorsJson(ArrayRef<TensorInfo> tensors) {
  llvm::json::Array list;
  for (const TensorInfo &t : tensors)
    list.push_back(llvm::json::Object{
        {"name", t.name},
        {"dtype", telar::numpyDtypeName(t.type.getElementType())},
        {"shape", shapeJson(t.type)}});
  return list;
}

/// Runs the stages, reporting each to the caller's callbacks.
class StageRunner {
public:
  StageRunner(const telar::CpuArtifactOptions &options, int count)
      : options(options), count(count) {}
  template <typename Fn> LogicalResult run(StringRef name, Fn &&fn) {
    if (options.onStageBegin)
      options.onStageBegin(name, ++index, count);
    auto start = std::chrono::steady_clock::now();
    LogicalResult result = fn();
    std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    if (options.onStageEnd)
      options.onStageEnd(name, took.count());
    return result;
  }

private:
  const telar::CpuArtifactOptions &options;
  int count;
  int index = 0;
};

} // namespace

namespace {
/// The names of an element type in the manifest (numpy's) and in
/// safetensors; empty when the artifact cannot carry the type.
std::pair<std::string, std::string> dtypeNames(Type t) {
  if (t.isF32()) return {"float32", "F32"};
  if (t.isF64()) return {"float64", "F64"};
  if (t.isF16()) return {"float16", "F16"};
  if (t.isBF16()) return {"bfloat16", "BF16"};
  if (t.isInteger(1)) return {"bool", "BOOL"};
  if (auto it = dyn_cast<IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (w != 8 && w != 16 && w != 32 && w != 64)
      return {};
    std::string bits = std::to_string(w);
    if (it.isUnsigned())
      return {"uint" + bits, "U" + bits};
    return {"int" + bits, "I" + bits};
  }
  return {};
}
} // namespace

std::string telar::numpyDtypeName(Type t) { return dtypeNames(t).first; }

std::string telar::safetensorsDtype(Type t) { return dtypeNames(t).second; }

LogicalResult telar::compileCpuArtifact(ModuleOp module,
                                        const CpuArtifactOptions &options,
                                        std::string &error) {
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main || main.isExternal()) {
    error = "the module has no @main function";
    return failure();
  }
  FunctionType fnType = main.getFunctionType();

  // The interface, read before lowering changes types (ui8 -> i8).
  SmallVector<TensorInfo> inputs, outputs;
  auto checkType = [&](Type type, const std::string &what,
                       RankedTensorType &ranked) -> LogicalResult {
    ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape()) {
      error = what + " has the dynamic type " + toString(type) +
              "; give static shapes with --input-shape NAME=DxD...";
      return failure();
    }
    if (numpyDtypeName(ranked.getElementType()).empty()) {
      error = what + " has the element type " +
              toString(ranked.getElementType()) +
              ", which the CPU target does not support";
      return failure();
    }
    return success();
  };
  for (unsigned i = 0; i < fnType.getNumInputs(); ++i) {
    auto name = main.getArgAttrOfType<StringAttr>(i, "telar.name");
    TensorInfo info{name ? name.str() : "input" + std::to_string(i), {}};
    if (failed(checkType(fnType.getInput(i), "input '" + info.name + "'",
                         info.type)))
      return failure();
    inputs.push_back(info);
  }
  auto outputNames = main->getAttrOfType<ArrayAttr>("telar.output_names");
  for (unsigned i = 0; i < fnType.getNumResults(); ++i) {
    TensorInfo info{"output" + std::to_string(i), {}};
    if (outputNames && i < outputNames.size())
      if (auto s = dyn_cast<StringAttr>(outputNames[i]))
        info.name = s.str();
    if (failed(checkType(fnType.getResult(i), "output '" + info.name + "'",
                         info.type)))
      return failure();
    outputs.push_back(info);
  }

  StageRunner stages(options, 5);
  SmallVector<WeightInfo> weights;
  SmallVector<SmallVector<int64_t>> bufferShapes;
  for (const TensorInfo &t : inputs)
    bufferShapes.emplace_back(t.type.getShape());

  // Stage 1: weights become arguments; their blobs go to safetensors.
  SmallString<256> dir(options.outputDir);
  SmallString<256> programsDir(dir), weightsDir(dir);
  llvm::sys::path::append(programsDir, "programs");
  llvm::sys::path::append(weightsDir, "weights");
  for (StringRef d : {programsDir.str(), weightsDir.str()})
    if (std::error_code ec = llvm::sys::fs::create_directories(d)) {
      error = "cannot create " + d.str() + ": " + ec.message();
      return failure();
    }
  if (failed(stages.run("writing weights", [&]() -> LogicalResult {
        {
          PassManager pm(module.getContext());
          pm.addPass(createTelarFoldWeightTransposes());
          if (failed(pm.run(module)))
            return failure();
        }
        // Blobs by resource name, read before the constants disappear.
        llvm::StringMap<ArrayRef<char>> blobs;
        bool elided = false;
        main.walk([&](telar::ConstantOp op) {
          auto res = dyn_cast<DenseResourceElementsAttr>(op.getValue());
          if (!res)
            return;
          AsmResourceBlob *blob = res.getRawHandle().getBlob();
          if (!blob) {
            elided = true;
            return;
          }
          blobs[res.getRawHandle().getKey()] = blob->getData();
        });
        if (elided) {
          error = "the model's weights were elided; compile the model itself";
          return failure();
        }
        PassManager pm(module.getContext());
        pm.addPass(createTelarOutlineWeights());
        if (failed(pm.run(module)))
          return failure();
        for (unsigned i = inputs.size(); i < main.getNumArguments(); ++i) {
          auto name = main.getArgAttrOfType<StringAttr>(i, "telar.weight");
          auto type = cast<RankedTensorType>(main.getArgument(i).getType());
          WeightInfo w{name.str(), type, blobs.lookup(name.getValue())};
          if (static_cast<int64_t>(w.data.size()) != byteSize(type)) {
            error = "weight '" + w.name + "' holds " +
                    std::to_string(w.data.size()) + " bytes, its type " +
                    toString(type) + " needs " +
                    std::to_string(byteSize(type));
            return failure();
          }
          if (safetensorsDtype(type.getElementType()).empty()) {
            error = "weight '" + w.name + "' has the element type " +
                    toString(type.getElementType()) +
                    ", which the CPU target does not support";
            return failure();
          }
          weights.push_back(w);
          bufferShapes.emplace_back(type.getShape());
        }
        SmallString<256> path(weightsDir);
        llvm::sys::path::append(path, "weights.safetensors");
        return writeSafetensors(path, weights, error);
      })))
    return failure();
  for (const TensorInfo &t : outputs)
    bufferShapes.emplace_back(t.type.getShape());
  int64_t liveSetBytes = largestLiveSetBytes(main);

  // Stage 2: telar -> linalg -> buffers -> loops -> LLVM dialect.
  if (failed(stages.run("lowering to LLVM", [&]() -> LogicalResult {
        PassManager pm(module.getContext());
        CpuPipelineOptions pipeline;
        pipeline.libraryCalls = options.libraryCalls;
        pipeline.parallel = options.parallel;
        buildCpuTranslationPipeline(pm, pipeline);
        return pm.run(module);
      })))
    return failure();

  // Stage 3: LLVM IR, O3 for the target CPU, object code.
  SmallString<256> objectPath(programsDir), libraryPath(programsDir);
  llvm::sys::path::append(objectPath, "main.o");
  llvm::sys::path::append(libraryPath, "main.so");
  FailureOr<CpuTarget> target = resolveCpuTarget(options.cpu, error);
  if (failed(target))
    return failure();
  if (failed(stages.run("generating native code", [&] {
        return emitObjectFile(module, bufferShapes, *target, objectPath, error);
      })))
    return failure();

  // Stage 4: the shared library.
  if (failed(stages.run("linking", [&] {
        LogicalResult linked =
            linkSharedLibrary(objectPath, libraryPath, error);
        llvm::sys::fs::remove(objectPath);
        return linked;
      })))
    return failure();

  // Stage 5: the manifest, last, so that a directory with a manifest is a
  // complete artifact.
  return stages.run("writing manifest", [&]() -> LogicalResult {
    llvm::json::Array weightList;
    for (const WeightInfo &w : weights)
      weightList.push_back(llvm::json::Object{
          {"name", w.name},
          {"dtype", numpyDtypeName(w.type.getElementType())},
          {"shape", shapeJson(w.type)},
          {"file", "weights/weights.safetensors"}});
    llvm::json::Object manifest{
        {"format", "telar-artifact"},
        {"format_version", kArtifactFormatVersion},
        {"telar_version", TELAR_VERSION},
        {"model",
         llvm::json::Object{
             {"path", llvm::sys::path::filename(options.modelPath).str()},
             {"sha256", options.modelPath.empty()
                            ? std::string()
                            : hashFile(options.modelPath)}}},
        {"target", llvm::json::Object{{"kind", "cpu"},
                                      {"triple", target->triple},
                                      {"cpu", target->cpu},
                                      {"features", target->features}}},
        {"programs", llvm::json::Array{llvm::json::Object{
                         {"name", "main"},
                         {"library", "programs/main.so"},
                         {"entry", "telar_main_entry"}}}},
        {"memory",
         llvm::json::Object{{"largest_live_set_bytes", liveSetBytes}}},
        {"inputs", tensorsJson(inputs)},
        {"outputs", tensorsJson(outputs)},
        {"weights", std::move(weightList)}};
    SmallString<256> path(dir);
    llvm::sys::path::append(path, "manifest.json");
    std::error_code ec;
    llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error = "cannot write " + path.str().str() + ": " + ec.message();
      return failure();
    }
    out.os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
             << "\n";
    out.keep();
    return success();
  });
}
