//===- ThreadBinding.cpp - One CPU for each of the kernels' threads -------===//
//
// telarrt_bind_threads and telarrt_unbind_threads (abi/CpuKernels.h,
// "Settings"). Why pin at all: libomp leaves its threads to the OS, and an
// OS may keep two of them on one CPU while another CPU idles. The kernel of
// the 2-vCPU VMs this project runs on (Firecracker's, with
// `sched_vcpu_pack`, which packs runnable threads onto fewer vCPUs) does so
// in episodes of hundreds of parallel regions, and at times for a whole
// process: every fork and join then waits for the scheduler to switch
// threads (~45 us instead of ~1 us). A 2-layer BERT ran 0.88 ms instead of
// 0.19 for a whole process that way; a 20 us model's p90 was 5.7x its
// p50. Pinned threads cannot be packed. Compiled with -fopenmp, linked
// against libomp.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/abi/CpuKernels.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <pthread.h>
#include <sched.h>

extern "C" {
// libomp (declared here rather than through omp.h, which would be GCC's).
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_in_parallel(void);
}

namespace {

/// The CPUs this process may run on, in order: the calling thread's
/// affinity the first time it is asked (before any pinning narrows it).
struct ProcessCpus {
  cpu_set_t mask;
  std::vector<int> cpus;
};

const ProcessCpus &processCpus() {
  static const ProcessCpus all = [] {
    ProcessCpus p;
    CPU_ZERO(&p.mask);
    if (sched_getaffinity(0, sizeof(p.mask), &p.mask) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &p.mask))
          p.cpus.push_back(c);
    return p;
  }();
  return all;
}

std::mutex bindingMutex;
/// The CPUs the threads were pinned to (thread i on bound[i]); empty when
/// they are not pinned.
std::vector<int> bound;

/// An OpenMP affinity setting in the environment: the user placed the
/// threads, and libomp applies it.
bool userPlacesThreads() {
  for (const char *name : {"OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY",
                           "GOMP_CPU_AFFINITY"}) {
    const char *value = std::getenv(name);
    if (value && *value)
      return true;
  }
  return false;
}

bool pinCallingThread(const cpu_set_t &mask) {
  return pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0;
}

/// Gives `threads` threads of the team the process's CPUs back.
void unpinTeam(int threads) {
  const cpu_set_t &mask = processCpus().mask;
#pragma omp parallel num_threads(threads)
  pinCallingThread(mask);
  bound.clear();
}

} // namespace

extern "C" {

int telarrt_bind_threads(int first_slot) {
  std::lock_guard<std::mutex> lock(bindingMutex);
  const ProcessCpus &p = processCpus();
  int threads = std::max(1, omp_get_max_threads());
  int n = int(p.cpus.size());
  if (omp_in_parallel() || threads < 2 || threads > n || userPlacesThreads())
    return 0;
  int start = 0;
  if (first_slot >= 0) {
    start = first_slot % n;
  } else {
    int now = sched_getcpu();
    auto it = std::find(p.cpus.begin(), p.cpus.end(), now);
    start = it == p.cpus.end() ? 0 : int(it - p.cpus.begin());
  }
  std::vector<int> want(threads);
  for (int i = 0; i < threads; ++i)
    want[i] = p.cpus[(start + i) % n];
  // Each thread of the team pins itself: libomp keeps the same threads
  // (its hot team) for the regions that follow, the kernels' and the
  // generated code's alike.
  int pinned = 0;
#pragma omp parallel num_threads(threads) reduction(+ : pinned)
  {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(want[omp_get_thread_num()], &one);
    pinned += pinCallingThread(one) ? 1 : 0;
  }
  if (pinned != threads) {
    unpinTeam(threads);
    return -1;
  }
  bound = want;
  return threads;
}

void telarrt_unbind_threads(void) {
  std::lock_guard<std::mutex> lock(bindingMutex);
  if (bound.empty() || omp_in_parallel())
    return;
  // Every thread the team may have now (it can have grown since).
  unpinTeam(std::max<int>(int(bound.size()), omp_get_max_threads()));
}

int telarrt_bound_thread_cpus(int *cpus, int capacity) {
  std::lock_guard<std::mutex> lock(bindingMutex);
  for (int i = 0; i < int(bound.size()) && i < capacity; ++i)
    cpus[i] = bound[i];
  return int(bound.size());
}

} // extern "C"
