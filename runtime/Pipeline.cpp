//===- Pipeline.cpp - Run pipelined artifacts (docs/Artifact.md) ----------===//

#include "telar/runtime/Pipeline.h"

#include "Blocks.h"
#include "telar/runtime/FileUtil.h"
#include "telar/runtime/Trace.h"
#include "telar/runtime/Watchdog.h"

#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sys/stat.h>

using namespace telar::runtime;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void checkBox(const Shape &blockShape, const Shape &offsets, const Shape &sizes,
              const char *what) {
  if (offsets.size() != blockShape.size() || sizes.size() != blockShape.size())
    throw Error(std::string(what) + ": a box of " +
                std::to_string(sizes.size()) + " dimensions at " +
                std::to_string(offsets.size()) + " offsets in a block of " +
                std::to_string(blockShape.size()));
  for (size_t d = 0; d < blockShape.size(); ++d)
    if (offsets[d] < 0 || sizes[d] < 0 || offsets[d] + sizes[d] > blockShape[d])
      throw Error(std::string(what) + ": the box " + formatShape(sizes) +
                  " at " + formatShape(offsets) + " is not inside the block " +
                  formatShape(blockShape));
}

/// `label` kept for the life of the process: the watchdog may name the
/// last wait after the pipeline is gone (an error unwound it).
const char *internLabel(const std::string &label) {
  static std::mutex mutex;
  static std::set<std::string> *labels = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  return labels->insert(label).first->c_str();
}

/// The box is the whole block: its bytes are the block's, as they are.
bool isWholeBlock(const Shape &blockShape, const Shape &sizes) {
  return sizes == blockShape;
}

} // namespace

//===----------------------------------------------------------------------===//
// Boxes and microbatches
//===----------------------------------------------------------------------===//

void telar::runtime::packBox(const void *block, const Shape &blockShape,
                             const Shape &offsets, const Shape &sizes,
                             size_t elementSize, void *out) {
  checkBox(blockShape, offsets, sizes, "pack");
  detail::extractBlock(block, blockShape, offsets, sizes, elementSize, out);
}

void telar::runtime::unpackBox(void *block, const Shape &blockShape,
                               const Shape &offsets, const Shape &sizes,
                               size_t elementSize, const void *in) {
  checkBox(blockShape, offsets, sizes, "unpack");
  detail::insertBlock(block, blockShape, offsets, sizes, elementSize, in);
}

Shape telar::runtime::getMicrobatchShape(const Shape &shape, int64_t dim,
                                         int64_t microbatches) {
  if (dim < 0)
    return shape;
  if (dim >= int64_t(shape.size()) || microbatches < 1 ||
      shape[size_t(dim)] % microbatches != 0)
    throw Error("cannot split " + formatShape(shape) + " into " +
                std::to_string(microbatches) + " microbatches along dim " +
                std::to_string(dim));
  Shape part = shape;
  part[size_t(dim)] /= microbatches;
  return part;
}

Tensor telar::runtime::sliceMicrobatch(const Tensor &whole, int64_t dim,
                                       int64_t index, int64_t microbatches) {
  Shape part = getMicrobatchShape(whole.getShape(), dim, microbatches);
  if (index < 0 || index >= microbatches)
    throw Error("no microbatch " + std::to_string(index) + " of " +
                std::to_string(microbatches));
  Tensor t(whole.getDType(), part);
  if (dim < 0) {
    std::memcpy(t.data(), whole.data(), whole.getByteSize());
    return t;
  }
  Shape offsets(part.size(), 0);
  offsets[size_t(dim)] = index * part[size_t(dim)];
  detail::extractBlock(whole.data(), whole.getShape(), offsets, part,
                       dtypeSize(whole.getDType()), t.data());
  return t;
}

void telar::runtime::insertMicrobatch(Tensor &whole, const Tensor &part,
                                      int64_t dim, int64_t index,
                                      int64_t microbatches) {
  Shape expected = getMicrobatchShape(whole.getShape(), dim, microbatches);
  if (part.getDType() != whole.getDType() || part.getShape() != expected)
    throw Error("microbatch " + std::to_string(index) + ": expected " +
                formatType(whole.getDType(), expected) + ", got " +
                part.typeString());
  if (index < 0 || index >= microbatches)
    throw Error("no microbatch " + std::to_string(index) + " of " +
                std::to_string(microbatches));
  if (dim < 0) {
    std::memcpy(whole.data(), part.data(), part.getByteSize());
    return;
  }
  Shape offsets(expected.size(), 0);
  offsets[size_t(dim)] = index * expected[size_t(dim)];
  detail::insertBlock(whole.data(), whole.getShape(), offsets, expected,
                      dtypeSize(whole.getDType()), part.data());
}

//===----------------------------------------------------------------------===//
// Pipeline
//===----------------------------------------------------------------------===//

/// One of this rank's stages: its artifact and, per microbatch, the local
/// blocks of its inputs (graph inputs sliced once, received values) and of
/// its outputs.
struct Pipeline::Stage {
  int64_t stage = 0;
  std::unique_ptr<Artifact> artifact;
  /// Per stage input: the graph input it is (-1: a received value).
  std::vector<int64_t> graphInput;
  /// [input][microbatch], [output][microbatch].
  std::vector<std::vector<Tensor>> inputs, outputs;
};

Pipeline::~Pipeline() = default;

std::unique_ptr<Pipeline>
Pipeline::open(const std::string &directory,
               std::shared_ptr<comm::Communicator> world) {
  std::string dir = directory;
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  auto isDirectory = [](const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  };
  if (!isDirectory(dir))
    throw Error("artifact directory '" + dir + "' does not exist");
  std::string manifestPath = dir + "/" + telar_artifact::kManifestFileName;
  if (!detail::isRegularFile(manifestPath))
    throw Error("'" + dir +
                "' is not a Telar artifact: it has no "
                "manifest.json");
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->directory = dir;
  p->manifest = artifact::parseManifest(detail::readFile(manifestPath), manifestPath);
  const Manifest &m = p->manifest;
  if (!m.isPipelined())
    throw Error("artifact '" + dir +
                "' is not pipelined (its manifest has "
                "no 'pipeline')");
  const PipelineSpec &spec = *m.pipeline;
  const int64_t S = spec.getNumStages(), M = spec.microbatches;

  int64_t ranks = world ? world->getSize() : 1;
  if (ranks != m.worldSize)
    throw Error("artifact '" + dir + "' is a pipeline of " + std::to_string(S) +
                " stages on " + std::to_string(m.worldSize) +
                " ranks, not on " + std::to_string(ranks) + " (start " +
                std::to_string(m.worldSize) + " ranks: telar-run -n " +
                std::to_string(m.worldSize) + ", mpirun -np " +
                std::to_string(m.worldSize) + " or srun -n " +
                std::to_string(m.worldSize) + ")");
  p->world = world ? world
                   : std::shared_ptr<comm::Communicator>(
                         comm::createLocalCommunicator());
  p->rank = p->world->getRank();
  p->position = spec.getPositionOfRank(p->rank);
  for (int64_t s = p->position; s < S; s += spec.getNumPositions())
    p->myStages.push_back(s);

  // Every stage's manifest, also those of other ranks: every rank refuses
  // an incomplete artifact.
  for (int64_t s = 0; s < S; ++s) {
    const PipelineStageSpec &st = spec.stages[size_t(s)];
    std::string stageDir = dir + "/" + st.directory;
    if (!isDirectory(stageDir))
      throw Error("artifact '" + dir + "' is incomplete: the directory '" +
                  st.directory + "' of stage " + std::to_string(s) +
                  " is missing");
    // A stage loads its own weights from inside its directory: the
    // directory itself must lie inside the pipeline's, symlinks followed.
    detail::resolveInside(dir, st.directory,
                          "directory of stage " + std::to_string(s));
    std::string path = stageDir + "/" + telar_artifact::kManifestFileName;
    if (!detail::isRegularFile(path))
      throw Error("artifact '" + dir + "' is incomplete: stage " +
                  std::to_string(s) + " ('" + st.directory +
                  "') has no manifest.json");
    Manifest sm = artifact::parseManifest(detail::readFile(path), path);
    if (sm.isPipelined())
      throw Error(path + ": a stage cannot be pipelined itself");
    if (sm.worldSize != st.numRanks)
      throw Error(path + ": stage " + std::to_string(s) + " runs on " +
                  std::to_string(sm.worldSize) +
                  " ranks but the pipeline gives it " +
                  std::to_string(st.numRanks) + " (" + manifestPath + ")");
    p->stageManifests.push_back(std::move(sm));
  }
  auto stagePath = [&](int64_t s) {
    return dir + "/" + spec.stages[size_t(s)].directory + "/" +
           telar_artifact::kManifestFileName;
  };
  auto find = [](const std::vector<TensorSpec> &specs,
                 const std::string &name) -> const TensorSpec * {
    for (const TensorSpec &t : specs)
      if (t.name == name)
        return &t;
    return nullptr;
  };

  // Each stage input: a graph input at microbatch shape, or the value of
  // exactly one transfer to the stage.
  for (int64_t s = 0; s < S; ++s) {
    const Manifest &sm = p->stageManifests[size_t(s)];
    for (const TensorSpec &in : sm.inputs) {
      const TensorSpec *graph = find(m.inputs, in.name);
      int64_t transfers = 0;
      for (const PipelineTransferSpec &t : spec.transfers)
        transfers += t.toStage == s && t.name == in.name;
      if (graph) {
        const PipelineTensorSpec &g =
            spec.inputs[size_t(graph - m.inputs.data())];
        Shape expected = getMicrobatchShape(graph->shape, g.microbatchDim, M);
        if (in.dtype != graph->dtype || in.shape != expected)
          throw Error(stagePath(s) + ": input '" + in.name + "' is " +
                      in.typeString() + " but graph input '" + in.name +
                      "' split into " + std::to_string(M) +
                      " microbatches is " + formatType(graph->dtype, expected));
        if (transfers)
          throw Error(stagePath(s) + ": input '" + in.name +
                      "' is a graph input, and a transfer brings it too");
        continue;
      }
      if (transfers != 1)
        throw Error(stagePath(s) + ": input '" + in.name + "' of stage " +
                    std::to_string(s) + " is no graph input and " +
                    (transfers ? "several transfers bring it"
                               : "no transfer brings it"));
    }
  }
  // Each transfer: an output of its sender stage, an input of its
  // receiver, the same dtype and shape; boxes inside the local blocks,
  // every receiver's block covered.
  for (size_t t = 0; t < spec.transfers.size(); ++t) {
    const PipelineTransferSpec &x = spec.transfers[t];
    std::string what = manifestPath + ": pipeline.transfers[" +
                       std::to_string(t) + "] ('" + x.name + "', stage " +
                       std::to_string(x.fromStage) + " -> " +
                       std::to_string(x.toStage) + ")";
    const Manifest &from = p->stageManifests[size_t(x.fromStage)];
    const Manifest &to = p->stageManifests[size_t(x.toStage)];
    const TensorSpec *out = find(from.outputs, x.name);
    const TensorSpec *in = find(to.inputs, x.name);
    if (!out)
      throw Error(what + ": stage " + std::to_string(x.fromStage) +
                  " has no output '" + x.name + "'");
    if (!in)
      throw Error(what + ": stage " + std::to_string(x.toStage) +
                  " has no input '" + x.name + "'");
    for (const TensorSpec *side : {out, in})
      if (side->dtype != x.dtype || side->shape != x.shape)
        throw Error(
            what + " is " + formatType(x.dtype, x.shape) + " but stage " +
            std::to_string(side == out ? x.fromStage : x.toStage) + "'s " +
            (side == out ? "output" : "input") + " is " + side->typeString());
    p->transferOutput.push_back(size_t(out - from.outputs.data()));
    p->transferInput.push_back(size_t(in - to.inputs.data()));
    Shape fromBlock = from.getLocalShape(*out), toBlock = to.getLocalShape(*in);
    std::map<int64_t, int64_t> covered;
    for (size_t i = 0; i < x.messages.size(); ++i) {
      const PipelineMessageSpec &msg = x.messages[i];
      for (size_t d = 0; d < x.shape.size(); ++d) {
        if (msg.fromOffsets[d] + msg.sizes[d] > fromBlock[d])
          throw Error(
              what + ": message " + std::to_string(i) + "'s box " +
              formatShape(msg.sizes) + " at " + formatShape(msg.fromOffsets) +
              " is not inside the sender's block " + formatShape(fromBlock));
        if (msg.toOffsets[d] + msg.sizes[d] > toBlock[d])
          throw Error(
              what + ": message " + std::to_string(i) + "'s box " +
              formatShape(msg.sizes) + " at " + formatShape(msg.toOffsets) +
              " is not inside the receiver's block " + formatShape(toBlock));
      }
      covered[msg.toRank] += msg.numElements();
    }
    const PipelineStageSpec &receiver = spec.stages[size_t(x.toStage)];
    for (int64_t r = receiver.firstRank;
         r < receiver.firstRank + receiver.numRanks; ++r)
      if (covered[r] != numElements(toBlock))
        throw Error(what + ": rank " + std::to_string(r) + " receives " +
                    std::to_string(covered[r]) + " elements of its block " +
                    formatShape(toBlock) + " (" +
                    std::to_string(numElements(toBlock)) + ")");
  }
  // Each graph output: an output of its stage at microbatch shape.
  for (size_t o = 0; o < m.outputs.size(); ++o) {
    const PipelineTensorSpec &g = spec.outputs[o];
    const TensorSpec *out =
        find(p->stageManifests[size_t(g.stage)].outputs, g.name);
    if (!out)
      throw Error(stagePath(g.stage) + ": stage " + std::to_string(g.stage) +
                  " has no output '" + g.name +
                  "' (the pipeline's graph output)");
    Shape expected = getMicrobatchShape(m.outputs[o].shape, g.microbatchDim, M);
    if (out->dtype != m.outputs[o].dtype || out->shape != expected)
      throw Error(stagePath(g.stage) + ": output '" + g.name + "' is " +
                  out->typeString() + " but graph output '" + g.name +
                  "' split into " + std::to_string(M) + " microbatches is " +
                  formatType(m.outputs[o].dtype, expected));
  }
  // This runtime runs inference only.
  for (const PipelineStepSpec &step : p->getSteps())
    if (step.op == PipelineStepSpec::Op::Backward ||
        step.op == PipelineStepSpec::Op::Optimizer)
      throw Error(manifestPath + ": rank " + std::to_string(p->rank) +
                  "'s schedule has " +
                  telar_sharding::getPipelineStepKindName(step.op) +
                  " steps (training), which this runtime does not run");

  // What the watchdog names while this rank waits.
  for (int64_t s = 0; s < S; ++s)
    p->stageLabels.push_back(internLabel("stage " + std::to_string(s)));
  for (const PipelineStepSpec &step : p->getSteps()) {
    std::string label;
    if (step.op == PipelineStepSpec::Op::Send)
      label = "send of stage " + std::to_string(step.stage) + "'s microbatch " +
              std::to_string(step.microbatch) + " to";
    else if (step.op == PipelineStepSpec::Op::Recv)
      label =
          "recv of stage " +
          std::to_string(spec.transfers[size_t(step.transfers[0])].fromStage) +
          "'s microbatch " + std::to_string(step.microbatch) + " from";
    p->waitLabels.push_back(internLabel(label));
  }
  p->stages.resize(size_t(S));
  return p;
}

void Pipeline::load() {
  // One group per position, ranks in world order (as the stage's mesh
  // numbers them).
  {
    comm::WaitScope wait("split (forming the stages' groups)", "the world");
    group = std::shared_ptr<comm::Communicator>(
        world->split(int(position), int(rank)));
  }
  const PipelineSpec &spec = getSpec();
  for (int64_t s : myStages) {
    auto stage = std::make_unique<Stage>();
    stage->stage = s;
    stage->artifact = Artifact::load(
        directory + "/" + spec.stages[size_t(s)].directory, "", group);
    const Manifest &sm = stage->artifact->getManifest();
    for (const TensorSpec &in : sm.inputs) {
      int64_t g = -1;
      for (size_t i = 0; i < manifest.inputs.size(); ++i)
        if (manifest.inputs[i].name == in.name)
          g = int64_t(i);
      stage->graphInput.push_back(g);
      std::vector<Tensor> blocks;
      for (int64_t mb = 0; mb < spec.microbatches; ++mb)
        blocks.emplace_back(in.dtype, sm.getLocalShape(in));
      stage->inputs.push_back(std::move(blocks));
    }
    for (int64_t mb = 0; mb < spec.microbatches; ++mb) {
      std::vector<Tensor> outs = stage->artifact->allocateOutputs();
      stage->outputs.resize(outs.size());
      for (size_t o = 0; o < outs.size(); ++o)
        stage->outputs[o].push_back(std::move(outs[o]));
    }
    stages[size_t(s)] = std::move(stage);
  }
}

Pipeline::Stage &Pipeline::getStage(int64_t stage) const {
  if (stage < 0 || size_t(stage) >= stages.size() || !stages[size_t(stage)])
    throw Error("stage " + std::to_string(stage) + " is not loaded on rank " +
                std::to_string(rank));
  return *stages[size_t(stage)];
}

Artifact &Pipeline::getStageArtifact(int64_t stage) const {
  return *getStage(stage).artifact;
}

std::string Pipeline::describeStep(const PipelineStepSpec &step) const {
  const PipelineSpec &spec = getSpec();
  std::string mb = std::to_string(step.microbatch);
  if (step.op == PipelineStepSpec::Op::Forward ||
      step.op == PipelineStepSpec::Op::Backward)
    return std::string(telar_sharding::getPipelineStepKindName(step.op)) + " of stage " +
           std::to_string(step.stage) + " on microbatch " + mb;
  bool isSend = step.op == PipelineStepSpec::Op::Send;
  std::set<int64_t> peers;
  int64_t peerStage = -1;
  for (int64_t t : step.transfers) {
    const PipelineTransferSpec &x = spec.transfers[size_t(t)];
    peerStage = isSend ? x.toStage : x.fromStage;
    for (const PipelineMessageSpec &msg : x.messages)
      if ((isSend ? msg.fromRank : msg.toRank) == rank)
        peers.insert(isSend ? msg.toRank : msg.fromRank);
  }
  std::string ranks;
  size_t k = 0;
  for (int64_t r : peers)
    ranks += (k++ == 0            ? ""
              : k == peers.size() ? " and "
                                  : ", ") +
             std::to_string(r);
  std::string values;
  for (int64_t t : step.transfers)
    values +=
        (values.empty() ? "'" : ", '") + spec.transfers[size_t(t)].name + "'";
  if (isSend)
    return "send of stage " + std::to_string(step.stage) + "'s microbatch " +
           mb + " (" + values + ") to stage " + std::to_string(peerStage) +
           " on rank" + (peers.size() == 1 ? " " : "s ") + ranks;
  return "recv of stage " + std::to_string(peerStage) + "'s microbatch " + mb +
         " (" + values + ") for stage " + std::to_string(step.stage) +
         " from rank" + (peers.size() == 1 ? " " : "s ") + ranks;
}

void Pipeline::setMemoryLimit(size_t bytes) {
  for (int64_t s : myStages)
    getStageArtifact(s).getContext().setMemoryLimit(bytes);
}

size_t Pipeline::getPeakBytes() const {
  size_t peak = 0;
  for (int64_t s : myStages)
    peak += getStageArtifact(s).getContext().getPeakBytes();
  return peak;
}

void Pipeline::resetPeakBytes() {
  for (int64_t s : myStages)
    getStageArtifact(s).getContext().resetPeakBytes();
}

size_t Pipeline::getWeightsBytes() const {
  size_t bytes = 0;
  for (int64_t s : myStages)
    bytes += getStageArtifact(s).getWeightsBytes();
  return bytes;
}

size_t Pipeline::getPrepackedBytes() const {
  size_t bytes = 0;
  for (int64_t s : myStages)
    bytes += getStageArtifact(s).getPrepackedBytes();
  return bytes;
}

comm::AxisSetStats Pipeline::getCollectiveStats() const {
  comm::AxisSetStats total;
  for (int64_t s : myStages)
    if (comm::MeshCommunicator *mesh =
            getStageArtifact(s).getMeshCommunicator()) {
      comm::AxisSetStats st = mesh->getTotalStats();
      total.calls += st.calls;
      total.seconds += st.seconds;
      total.bytesSent += st.bytesSent;
    }
  return total;
}

void Pipeline::resetCollectiveStats() {
  for (int64_t s : myStages)
    if (comm::MeshCommunicator *mesh =
            getStageArtifact(s).getMeshCommunicator())
      mesh->resetStats();
}

void Pipeline::setInputs(const std::vector<Tensor> &inputs) {
  const PipelineSpec &spec = getSpec();
  if (inputs.size() != manifest.inputs.size())
    throw Error("artifact '" + directory + "' takes " +
                std::to_string(manifest.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &s = manifest.inputs[i];
    if (inputs[i].getDType() != s.dtype || inputs[i].getShape() != s.shape)
      throw Error("input '" + s.name + "': expected " + s.typeString() +
                  ", got " + inputs[i].typeString());
  }
  for (int64_t s : myStages) {
    Stage &stage = getStage(s);
    for (size_t i = 0; i < stage.graphInput.size(); ++i) {
      int64_t g = stage.graphInput[i];
      if (g < 0)
        continue;
      for (int64_t mb = 0; mb < spec.microbatches; ++mb)
        stage.inputs[i][size_t(mb)] = stage.artifact->sliceInput(
            i, sliceMicrobatch(inputs[size_t(g)],
                               spec.inputs[size_t(g)].microbatchDim, mb,
                               spec.microbatches));
    }
  }
  inputsSet = true;
}

void *Pipeline::scratchBuffer(size_t bytes) {
  if (scratch.size() < bytes)
    scratch.resize(bytes);
  return scratch.data();
}

namespace {
/// Records a message's span for a trace (Trace.h): paired across ranks by
/// (sender, receiver, tag) and its count on them.
void traceMessage(const char *kind, int64_t from, int64_t to, int tag,
                  int64_t sequence, size_t bytes, const std::string &label,
                  Clock::time_point begin) {
  trace::Span span;
  span.category = kind;
  span.peer = int(std::strcmp(kind, "send") == 0 ? to : from);
  span.name = label + " rank " + std::to_string(span.peer);
  span.args = "\"from\": " + std::to_string(from) +
              ", \"to\": " + std::to_string(to) +
              ", \"tag\": " + std::to_string(tag) +
              ", \"bytes\": " + std::to_string(bytes);
  span.match = std::to_string(from) + ">" + std::to_string(to) + "#" +
               std::to_string(tag);
  span.sequence = sequence;
  trace::record(std::move(span), begin, Clock::now());
}
} // namespace

void Pipeline::sendMessage(int64_t t, const PipelineMessageSpec &msg,
                           int64_t mb, size_t index, PipelineStats &stats) {
  const PipelineSpec &spec = getSpec();
  const PipelineTransferSpec &x = spec.transfers[size_t(t)];
  const Tensor &block =
      getStage(x.fromStage).outputs[transferOutput[size_t(t)]][size_t(mb)];
  size_t element = dtypeSize(x.dtype);
  size_t bytes = size_t(msg.numElements()) * element;
  if (msg.toRank == rank) {
    // To this rank itself (stages of one position): a copy.
    Tensor &dest =
        getStage(x.toStage).inputs[transferInput[size_t(t)]][size_t(mb)];
    void *tmp = scratchBuffer(bytes);
    packBox(block.data(), block.getShape(), msg.fromOffsets, msg.sizes, element,
            tmp);
    unpackBox(dest.data(), dest.getShape(), msg.toOffsets, msg.sizes, element,
              tmp);
    return;
  }
  const void *data = block.data();
  if (!isWholeBlock(block.getShape(), msg.sizes)) {
    void *tmp = scratchBuffer(bytes);
    packBox(block.data(), block.getShape(), msg.fromOffsets, msg.sizes, element,
            tmp);
    data = tmp;
  }
  int tag = int(t * spec.microbatches + mb);
  int64_t sequence = messageCounts[{rank, msg.toRank, tag}]++;
  Clock::time_point begin = Clock::now();
  {
    comm::WaitScope wait(waitLabels[index], "", int(msg.toRank));
    world->send(data, int64_t(bytes), comm::DataType::I8, int(msg.toRank),
                tag);
  }
  if (trace::enabled())
    traceMessage("send", rank, msg.toRank, tag, sequence, bytes,
                 waitLabels[index], begin);
  stats.messagesSent += 1;
  stats.bytesSent += int64_t(bytes);
}

void Pipeline::recvMessage(int64_t t, const PipelineMessageSpec &msg,
                           int64_t mb, size_t index) {
  const PipelineSpec &spec = getSpec();
  const PipelineTransferSpec &x = spec.transfers[size_t(t)];
  Tensor &block =
      getStage(x.toStage).inputs[transferInput[size_t(t)]][size_t(mb)];
  size_t element = dtypeSize(x.dtype);
  size_t bytes = size_t(msg.numElements()) * element;
  bool whole = isWholeBlock(block.getShape(), msg.sizes);
  void *data = whole ? block.data() : scratchBuffer(bytes);
  int tag = int(t * spec.microbatches + mb);
  int64_t sequence = messageCounts[{msg.fromRank, rank, tag}]++;
  Clock::time_point begin = Clock::now();
  {
    comm::WaitScope wait(waitLabels[index], "", int(msg.fromRank));
    world->recv(data, int64_t(bytes), comm::DataType::I8, int(msg.fromRank),
                tag);
  }
  if (trace::enabled())
    traceMessage("recv", msg.fromRank, rank, tag, sequence, bytes,
                 waitLabels[index], begin);
  if (!whole)
    unpackBox(block.data(), block.getShape(), msg.toOffsets, msg.sizes, element,
              data);
}

void Pipeline::send(const PipelineStepSpec &step, size_t index,
                    PipelineStats &stats) {
  const PipelineSpec &spec = getSpec();
  for (int64_t t : step.transfers) {
    const PipelineTransferSpec &x = spec.transfers[size_t(t)];
    bool within = isWithinPosition(x);
    for (const PipelineMessageSpec &msg : x.messages)
      // Within a position the others' messages wait for the exchange of the
      // recv step.
      if (msg.fromRank == rank && (msg.toRank == rank || !within))
        sendMessage(t, msg, step.microbatch, index, stats);
  }
}

void Pipeline::recv(const PipelineStepSpec &step, size_t index,
                    PipelineStats &stats) {
  const PipelineSpec &spec = getSpec();
  for (int64_t t : step.transfers) {
    const PipelineTransferSpec &x = spec.transfers[size_t(t)];
    bool within = isWithinPosition(x);
    // Messages from this rank itself were copied by its send step. Between
    // two stages of one position, where every rank both sends and
    // receives, all the messages go here in their order (sender, then
    // receiver), which no blocking send can deadlock.
    for (const PipelineMessageSpec &msg : x.messages) {
      if (msg.fromRank == msg.toRank)
        continue;
      if (msg.toRank == rank)
        recvMessage(t, msg, step.microbatch, index);
      else if (within && msg.fromRank == rank)
        sendMessage(t, msg, step.microbatch, index, stats);
    }
  }
}

bool Pipeline::isWithinPosition(const PipelineTransferSpec &x) const {
  const PipelineSpec &spec = getSpec();
  return spec.getPosition(x.fromStage) == spec.getPosition(x.toStage);
}

PipelineStats Pipeline::run(const StepObserver &observer) {
  if (!inputsSet)
    throw Error("pipeline '" + directory + "': run before setInputs");
  PipelineStats stats;
  Clock::time_point start = Clock::now();
  const std::vector<PipelineStepSpec> &steps = getSteps();
  for (size_t i = 0; i < steps.size(); ++i) {
    const PipelineStepSpec &step = steps[i];
    Clock::time_point begin = Clock::now();
    switch (step.op) {
    case PipelineStepSpec::Op::Forward: {
      Stage &stage = getStage(step.stage);
      std::vector<const void *> in;
      std::vector<void *> out;
      for (std::vector<Tensor> &blocks : stage.inputs)
        in.push_back(blocks[size_t(step.microbatch)].data());
      for (std::vector<Tensor> &blocks : stage.outputs)
        out.push_back(blocks[size_t(step.microbatch)].data());
      stage.artifact->run(in, out);
      double seconds = since(begin);
      stats.busySeconds += seconds;
      stats.forwardSteps += 1;
      break;
    }
    case PipelineStepSpec::Op::Send:
      send(step, i, stats);
      stats.waitSeconds += since(begin);
      break;
    case PipelineStepSpec::Op::Recv:
      recv(step, i, stats);
      stats.waitSeconds += since(begin);
      break;
    case PipelineStepSpec::Op::Backward:
    case PipelineStepSpec::Op::Optimizer:
      // Refused by open().
      throw Error(std::string(telar_sharding::getPipelineStepKindName(
                      step.op)) +
                  " steps are not supported");
    }
    if (trace::enabled())
      trace::record("pipeline",
                    std::string(telar_sharding::getPipelineStepKindName(
                        step.op)) +
                        " stage " + std::to_string(step.stage) + " mb " +
                        std::to_string(step.microbatch),
                    begin, Clock::now(),
                    "\"stage\": " + std::to_string(step.stage) +
                        ", \"microbatch\": " +
                        std::to_string(step.microbatch) + ", \"step\": " +
                        std::to_string(i));
    if (observer)
      observer(i, step, since(begin));
  }
  stats.wallSeconds = since(start);
  return stats;
}

std::vector<Tensor> Pipeline::gatherOutputs() {
  const PipelineSpec &spec = getSpec();
  const int64_t M = spec.microbatches;
  const int tagBase = int(int64_t(spec.transfers.size()) * M);
  // Within each of this rank's stages: the whole of each microbatch on the
  // stage's first rank, concatenated there.
  std::vector<Tensor> assembled(manifest.outputs.size());
  for (size_t o = 0; o < manifest.outputs.size(); ++o) {
    const PipelineTensorSpec &g = spec.outputs[o];
    if (spec.getPosition(g.stage) != position)
      continue;
    Stage &stage = getStage(g.stage);
    const Manifest &sm = stage.artifact->getManifest();
    size_t index = 0;
    while (sm.outputs[index].name != g.name)
      ++index;
    bool first = rank == spec.stages[size_t(g.stage)].firstRank;
    Tensor whole;
    if (first)
      whole = Tensor(manifest.outputs[o].dtype, manifest.outputs[o].shape);
    int64_t parts = g.microbatchDim < 0 ? 1 : M;
    for (int64_t mb = 0; mb < parts; ++mb) {
      Tensor part;
      {
        comm::WaitScope wait("gather of the outputs",
                             stageLabels[size_t(g.stage)]);
        part = stage.artifact->gatherOutput(index,
                                            stage.outputs[index][size_t(mb)]);
      }
      if (first)
        insertMicrobatch(whole, part, g.microbatchDim, mb, M);
    }
    if (first)
      assembled[o] = std::move(whole);
  }
  // The stages' first ranks to world rank 0, in output order.
  for (size_t o = 0; o < manifest.outputs.size(); ++o) {
    int64_t owner = spec.stages[size_t(spec.outputs[o].stage)].firstRank;
    if (owner == 0)
      continue;
    int tag = tagBase + int(o);
    if (rank == owner) {
      comm::WaitScope wait("send of the outputs to", "", 0);
      world->send(assembled[o].data(), int64_t(assembled[o].getByteSize()),
                  comm::DataType::I8, 0, tag);
    } else if (rank == 0) {
      assembled[o] =
          Tensor(manifest.outputs[o].dtype, manifest.outputs[o].shape);
      comm::WaitScope wait("recv of the outputs from", "", int(owner));
      world->recv(assembled[o].data(), int64_t(assembled[o].getByteSize()),
                  comm::DataType::I8, int(owner), tag);
    }
  }
  if (rank != 0)
    return {};
  return assembled;
}
