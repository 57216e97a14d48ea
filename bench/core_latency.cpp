//===- core_latency.cpp - Round trips of a cache line between two CPUs ----===//
//
// telar-core-latency [--round-trips N] [--samples S] [--cpus A,B]
//
// Two threads, pinned to CPUs A and B (default: the first two CPUs this
// process may run on), pass a counter back and forth through two cache
// lines, N round trips per sample (default 5000), S samples (default 5);
// prints one line of JSON: {"cpus": [A, B], "round_trip_ns": [...],
// "median_ns": M}. What a parallel region's fork and join, and every cache
// line one thread writes and another reads, pay. On a VM it follows where
// the host runs the vCPUs: on the 2-vCPU Zen 4 VMs of this project it reads
// 110-130 ns most of the time, ~50 ns in spells (as SMT siblings of one
// core would) and 0.7-1.2 us in others, lasting seconds; two-thread
// latencies of small models are 1.4-1.8x longer in both kinds of spell
// (bench/cpu_vs_onnxruntime prints it before each process). Exit 2 when
// fewer than two CPUs are available.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace {

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/// Each counter on its own cache line.
struct alignas(64) Line {
  std::atomic<long> value{0};
};

/// Mean nanoseconds of `n` round trips between CPUs a and b. The clock
/// starts only after both threads are pinned and have exchanged round 0: a
/// thread created by a pinned thread starts on its creator's CPU, and until
/// the scheduler lets it run there (up to a time slice, while the creator
/// spins) and it moves itself, no round trip can complete. Timing that start
/// made short samples read 0.5-2 us on a machine whose round trip is 120 ns.
double roundTripNs(int a, int b, long n) {
  Line ping, pong;
  ping.value.store(-1);
  pong.value.store(-1);
  bool pinnedB = true;
  std::thread other([&] {
    pinnedB = pin(b);
    for (long i = 0; i <= n; ++i) {
      while (ping.value.load(std::memory_order_acquire) != i)
        ;
      pong.value.store(i, std::memory_order_release);
    }
  });
  bool pinnedA = pin(a);
  ping.value.store(0, std::memory_order_release);
  while (pong.value.load(std::memory_order_acquire) != 0)
    ;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 1; i <= n; ++i) {
    ping.value.store(i, std::memory_order_release);
    while (pong.value.load(std::memory_order_acquire) != i)
      ;
  }
  auto t1 = std::chrono::steady_clock::now();
  other.join();
  if (!pinnedA || !pinnedB) {
    std::fprintf(stderr, "telar-core-latency: cannot pin to CPUs %d and %d\n",
                 a, b);
    std::exit(2);
  }
  return std::chrono::duration<double, std::nano>(t1 - t0).count() /
         double(n);
}

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "telar-core-latency: %s\nusage: telar-core-latency "
               "[--round-trips N] [--samples S] [--cpus A,B]\n",
               why);
  std::exit(2);
}

long positive(const char *flag, const char *text) {
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!*text || *end || v <= 0)
    usage((std::string(flag) + " wants a positive integer").c_str());
  return v;
}

} // namespace

int main(int argc, char **argv) {
  long roundTrips = 5000, samples = 5;
  int a = -1, b = -1;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char *flag) {
      if (i + 1 >= argc)
        usage((std::string(flag) + " wants a value").c_str());
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--round-trips")) {
      roundTrips = positive("--round-trips", value("--round-trips"));
    } else if (!std::strcmp(argv[i], "--samples")) {
      samples = positive("--samples", value("--samples"));
    } else if (!std::strcmp(argv[i], "--cpus")) {
      const char *text = value("--cpus");
      if (std::sscanf(text, "%d,%d", &a, &b) != 2 || a < 0 || b < 0 ||
          a == b)
        usage("--cpus wants two different CPU numbers A,B");
    } else {
      usage((std::string("unknown argument ") + argv[i]).c_str());
    }
  }
  if (a < 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
      usage("cannot read this process's CPUs");
    for (int c = 0; c < CPU_SETSIZE && b < 0; ++c)
      if (CPU_ISSET(c, &set))
        (a < 0 ? a : b) = c;
    if (b < 0) {
      std::fprintf(stderr, "telar-core-latency: fewer than two CPUs\n");
      return 2;
    }
  }
  std::vector<double> ns;
  for (long s = 0; s < samples; ++s)
    ns.push_back(roundTripNs(a, b, roundTrips));
  std::vector<double> sorted = ns;
  std::sort(sorted.begin(), sorted.end());
  std::printf("{\"cpus\": [%d, %d], \"round_trip_ns\": [", a, b);
  for (size_t i = 0; i < ns.size(); ++i)
    std::printf("%s%.0f", i ? ", " : "", ns[i]);
  std::printf("], \"median_ns\": %.0f}\n", sorted[sorted.size() / 2]);
  return 0;
}
