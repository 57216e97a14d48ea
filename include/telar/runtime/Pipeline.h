//===- Pipeline.h - Run pipelined artifacts ---------------------*- C++ -*-===//
//
// The executor of a pipelined artifact (manifest version 4, docs/Artifact.md
// "Pipelined artifacts"): each world rank loads its stage(s) -- complete
// artifacts in sub-directories -- on a split of the world (one group per
// position), and follows its list of the manifest's schedule table step by
// step: `forward` runs a stage program on one microbatch (graph inputs
// sliced along their microbatch dimension, then to the rank's block; the
// values of earlier stages from what was received), `send` and `recv` move
// the boxes of the listed transfers between the ranks' local blocks with
// point-to-point messages on the world communicator (tag = transfer *
// microbatches + microbatch; a message to this rank itself is a copy).
// The graph outputs are gathered within their stage, concatenated over the
// microbatches and sent to world rank 0.
//
// Plain C++17, like the rest of the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_PIPELINE_H
#define TELAR_RUNTIME_PIPELINE_H

#include "telar/runtime/Comm.h"
#include "telar/runtime/Runtime.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace telar::runtime {

//===----------------------------------------------------------------------===//
// Boxes and microbatches
//===----------------------------------------------------------------------===//

/// Copies the box of shape `sizes` at `offsets` of the dense row-major
/// tensor `block` (of shape `blockShape`, elements of `elementSize` bytes)
/// into the dense `out` (pack), or the dense `in` into that box (unpack).
/// Throws Error when the box is not inside the block.
void packBox(const void *block, const Shape &blockShape, const Shape &offsets,
             const Shape &sizes, size_t elementSize, void *out);
void unpackBox(void *block, const Shape &blockShape, const Shape &offsets,
               const Shape &sizes, size_t elementSize, const void *in);

/// The shape of one of `microbatches` microbatches of a tensor of `shape`
/// split along `dim` (-1: not split, `shape` itself). Throws Error when the
/// dimension does not divide evenly.
Shape getMicrobatchShape(const Shape &shape, int64_t dim, int64_t microbatches);
/// Microbatch `index` of `microbatches` of `whole` along `dim` (-1: a copy
/// of the whole).
Tensor sliceMicrobatch(const Tensor &whole, int64_t dim, int64_t index,
                       int64_t microbatches);
/// Writes `part` as microbatch `index` of `whole` along `dim` (-1: `part`
/// is the whole).
void insertMicrobatch(Tensor &whole, const Tensor &part, int64_t dim,
                      int64_t index, int64_t microbatches);

//===----------------------------------------------------------------------===//
// The executor
//===----------------------------------------------------------------------===//

/// What one run of the schedule took on this rank.
struct PipelineStats {
  /// Seconds in the stage programs (forward steps).
  double busySeconds = 0;
  /// Seconds in send and recv steps (waiting for the peer, packing and
  /// copying included).
  double waitSeconds = 0;
  /// Seconds from the run's start to this rank's last step.
  double wallSeconds = 0;
  int64_t forwardSteps = 0;
  /// Point-to-point messages and bytes this rank sent (copies to itself
  /// not included).
  int64_t messagesSent = 0;
  int64_t bytesSent = 0;
};

/// A pipelined artifact, as world rank `world->getRank()`.
class Pipeline {
public:
  /// Reads and checks the pipelined artifact in `directory` as a rank of
  /// `world` (null: one process): the manifest (parseManifest checks the
  /// pipeline itself), that the world has its world size, that every
  /// stage directory exists and holds a manifest whose world size is the
  /// stage's number of ranks, and every stage against the pipeline: each
  /// of its inputs a graph input at microbatch shape or the value of one
  /// transfer to it, each transfer's and graph output's value one of its
  /// outputs with the same dtype and shape, each message's box inside the
  /// sender's and the receiver's local blocks, each receiver's block
  /// covered. Not collective, nothing loaded yet (see load()).
  static std::unique_ptr<Pipeline>
  open(const std::string &directory,
       std::shared_ptr<comm::Communicator> world = nullptr);
  ~Pipeline();

  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;

  /// Collective over the world (every rank calls it, after open): splits
  /// the world into one group per position (color = position, key = rank)
  /// and loads this rank's stages on its group (Artifact::load: their
  /// libraries and weights checked).
  void load();

  const std::string &getDirectory() const { return directory; }
  /// The pipelined manifest (graph inputs and outputs at the full batch).
  const Manifest &getManifest() const { return manifest; }
  const PipelineSpec &getSpec() const { return *manifest.pipeline; }
  int64_t getRank() const { return rank; }
  int64_t getWorldSize() const { return manifest.worldSize; }
  /// This rank's position and its stages (ascending).
  int64_t getPosition() const { return position; }
  const std::vector<int64_t> &getStages() const { return myStages; }
  /// Any stage's manifest (read by open).
  const Manifest &getStageManifest(int64_t stage) const {
    return stageManifests[size_t(stage)];
  }
  /// One of this rank's stages, loaded (after load()).
  Artifact &getStageArtifact(int64_t stage) const;
  /// This rank's steps (its list of the schedule table).
  const std::vector<PipelineStepSpec> &getSteps() const {
    return getSpec().scheduleTable[size_t(rank)];
  }
  /// "forward of stage 1 on microbatch 2", "send of stage 0's microbatch 1
  /// to rank 2 and 3", "recv of stage 0's microbatch 1 from rank 0".
  std::string describeStep(const PipelineStepSpec &step) const;

  /// The memory limit of every stage's context; the peaks, summed over this
  /// rank's stages.
  void setMemoryLimit(size_t bytes);
  size_t getPeakBytes() const;
  void resetPeakBytes();
  size_t getWeightsBytes() const;
  size_t getPrepackedBytes() const;
  /// The collectives of this rank's stages since the last reset (all axis
  /// sets of their meshes together).
  comm::AxisSetStats getCollectiveStats() const;
  void resetCollectiveStats();

  /// The whole graph inputs (the manifest's order, dtypes and shapes;
  /// Error otherwise): each of this rank's stages gets its block of each
  /// microbatch of those it takes, once, for every run.
  void setInputs(const std::vector<Tensor> &inputs);

  /// Called after each step with its index in getSteps() and its seconds.
  using StepObserver =
      std::function<void(size_t index, const PipelineStepSpec &, double)>;
  /// Runs this rank's steps once (after setInputs). A stage program that
  /// fails throws RunError; a transfer that fails, comm::CommError.
  PipelineStats run(const StepObserver &observer = nullptr);

  /// The last run's graph outputs: on world rank 0 the whole tensors (the
  /// manifest's order), elsewhere an empty vector. Collective over the
  /// world.
  std::vector<Tensor> gatherOutputs();

private:
  Pipeline() = default;
  struct Stage;
  Stage &getStage(int64_t stage) const;
  /// Sends (or copies) / receives this rank's messages of `step`; between
  /// two stages of one position, the recv step exchanges them all.
  void send(const PipelineStepSpec &step, size_t index, PipelineStats &stats);
  void recv(const PipelineStepSpec &step, size_t index, PipelineStats &stats);
  void sendMessage(int64_t transfer, const PipelineMessageSpec &msg,
                   int64_t microbatch, size_t index, PipelineStats &stats);
  void recvMessage(int64_t transfer, const PipelineMessageSpec &msg,
                   int64_t microbatch, size_t index);
  bool isWithinPosition(const PipelineTransferSpec &transfer) const;
  void *scratchBuffer(size_t bytes);

  std::string directory;
  Manifest manifest;
  std::vector<Manifest> stageManifests;
  std::shared_ptr<comm::Communicator> world;
  std::shared_ptr<comm::Communicator> group;
  int64_t rank = 0;
  int64_t position = 0;
  std::vector<int64_t> myStages;
  std::vector<std::unique_ptr<Stage>> stages; // per stage (null: not ours)
  /// Per transfer: the index of its value among the sender stage's outputs
  /// and among the receiver stage's inputs.
  std::vector<size_t> transferOutput, transferInput;
  /// Per step of this rank: what the watchdog says it waits in; per
  /// stage, its name (kept for the life of the process).
  std::vector<const char *> waitLabels;
  std::vector<const char *> stageLabels;
  std::vector<unsigned char> scratch;
  /// Messages sent and received per (sender, receiver, tag), ever: the
  /// sender's n-th is the receiver's n-th (a trace pairs them, Trace.h).
  std::map<std::tuple<int64_t, int64_t, int>, int64_t> messageCounts;
  bool inputsSet = false;
};

} // namespace telar::runtime

#endif // TELAR_RUNTIME_PIPELINE_H
