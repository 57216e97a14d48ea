//===- LaunchFiles.h - The launch/ folder of multi-rank artifacts -*- C++ -*-===//
//
// Every multi-rank artifact (world_size > 1) gets out/launch/ with what each
// cluster launcher needs to start its ranks (docs/Launch.md): mpirun.sh,
// slurm.sbatch, k8s.yaml (headless Service + Indexed Job), k8s-mpijob.yaml
// (Kubeflow MPIJob), Dockerfile and ray_launch.py. The files are the
// templates of lib/launch/templates/, embedded at build time, with the
// artifact's world size, inputs and the user's choices (telarc's launch
// flags) filled in.
//
//===----------------------------------------------------------------------===//
#ifndef TELAR_LAUNCH_LAUNCHFILES_H
#define TELAR_LAUNCH_LAUNCHFILES_H

#include "telar/artifact/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::telar {

/// The user's choices for the launch files (telarc's flags). 0 or empty:
/// not given (defaults below).
struct LaunchOptions {
  /// Machines and ranks per machine (Slurm nodes and tasks per node, MPIJob
  /// workers and slots per worker); their product is the world size. Neither
  /// given: one node running every rank; one given: the other from the world
  /// size.
  int64_t nodes = 0;
  int64_t tasksPerNode = 0;
  /// CPUs per rank (Slurm --cpus-per-task, the pods' CPU request, telar-run
  /// --threads).
  int64_t cpusPerTask = 1;
  /// Slurm: the time limit (Slurm's formats: MM, HH:MM:SS, D-HH, ...), the
  /// partition (none: the cluster's default), srun's --mpi plugin (pmix,
  /// pmi2, or none: ranks meet through telar's TCP rendezvous).
  std::string time = "01:00:00";
  std::string partition;
  std::string slurmMpi = "pmix";
  /// The Slurm job and Kubernetes object name (a DNS label); empty:
  /// "telar-<model file stem>".
  std::string jobName;
  /// Kubernetes: the image the pods run (empty: "<job name>:latest"), the
  /// namespace, the rendezvous port rank 0 serves.
  std::string image;
  std::string k8sNamespace = "default";
  int64_t masterPort = 29500;
};

/// The launch folder of an artifact and the files it holds.
inline constexpr char kLaunchDir[] = "launch";
std::vector<std::string> getLaunchFileNames();

/// `options` completed for an artifact of `worldSize` ranks compiled from
/// `modelPath` (nodes and tasks per node, job name, image); "" on success,
/// else the error naming the flag (nodes x tasks per node != world size, a
/// time Slurm does not take, a name Kubernetes refuses, ...).
std::string resolveLaunchOptions(LaunchOptions &options, int64_t worldSize,
                                 const std::string &modelPath);

/// Writes `artifactDir`/launch/ for the artifact `manifest` describes (a
/// multi-rank one). `options` as resolveLaunchOptions completes them. False
/// with `error` set when a file cannot be written.
bool writeLaunchFiles(const std::string &artifactDir,
                      const ::telar_artifact::Manifest &manifest,
                      const LaunchOptions &options, std::string &error);

/// The name telar-run gives the file of tensor `name` (characters outside
/// [A-Za-z0-9._-] become '_'), as the pods' input and output paths use it.
std::string getTensorFileStem(const std::string &name);

} // namespace mlir::telar

#endif // TELAR_LAUNCH_LAUNCHFILES_H
