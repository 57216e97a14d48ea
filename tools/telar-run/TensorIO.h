//===- TensorIO.h - telar-run's inputs and outputs --------------*- C++ -*-===//
//
// The tensors telar-run reads (--input files, .npy or ONNX TensorProto .pb,
// checked against the manifest, each rank reading its block) and writes
// (--output-dir files, or a summary of each output).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_TOOLS_TELAR_RUN_TENSORIO_H
#define TELAR_TOOLS_TELAR_RUN_TENSORIO_H

#include "Options.h"

#include "telar/runtime/Runtime.h"

#include <string>
#include <vector>

namespace telar::tools::run {

/// "x float32[2,3], flags int64[3]" ("none" when empty).
std::string listTensors(const std::vector<runtime::TensorSpec> &specs);

/// Reads and checks the inputs of manifest `m`, in manifest order: this
/// rank's blocks of them (a .npy file is read only where the block lies);
/// whole tensors without an artifact (a pipeline's graph inputs, never
/// sharded). runtime::Error naming the input when one is missing, unknown,
/// given twice, of another type or shape, or unreadable.
std::vector<runtime::Tensor> readInputs(const Options &o,
                                        const runtime::Manifest &m,
                                        const runtime::Artifact *artifact);

/// The --output-dir file of each output of `m` (none without
/// --output-dir); rank 0 (`rank`) creates the directory. runtime::Error
/// when two outputs would share a file or the directory cannot be made.
std::vector<std::string> prepareOutputFiles(const Options &o, int rank,
                                            const runtime::Manifest &m);

/// On rank 0: writes the whole outputs to `paths` (when there are any) or
/// prints a summary of each (unless --quiet).
void writeOutputs(const Options &o, const std::vector<std::string> &paths,
                  const runtime::Manifest &m,
                  const std::vector<runtime::Tensor> &global);

} // namespace telar::tools::run

#endif // TELAR_TOOLS_TELAR_RUN_TENSORIO_H
