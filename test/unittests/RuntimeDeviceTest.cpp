//===- RuntimeDeviceTest.cpp - The runtime's Device interface ------------===//
//
// The CPU device through the Device interface (Device.h): memory, copies
// both ways, its queue's order, events, weights used in place or as
// writable copies; and a context's device as programs see it (Abi.h). The
// CUDA emulator's device memory, its caching allocator and weights, and
// what the GPU launch ABI says without kernels.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Abi.h"
#include "telar/runtime/Device.h"
#include "telar/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

using namespace telar::runtime;

TEST(RuntimeDevice, CpuDeviceAllocatesInHostMemory) {
  std::unique_ptr<Device> device = createDevice("cpu");
  EXPECT_STREQ(device->getKind(), "cpu");
  EXPECT_EQ(device->getMemorySpace(), MemorySpace::Host);
  DeviceAllocator &allocator = device->getAllocator();
  std::string error;
  void *p = allocator.allocate(64, 1000, error);
  ASSERT_NE(p, nullptr) << error;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(allocator.getCurrentBytes(), 1000u);
  allocator.setMemoryLimit(1500);
  EXPECT_EQ(allocator.allocate(64, 1000, error), nullptr);
  EXPECT_NE(error.find("the context's memory limit is 1500 bytes"),
            std::string::npos)
      << error;
  allocator.deallocate(p);
  EXPECT_EQ(allocator.getCurrentBytes(), 0u);
  EXPECT_EQ(allocator.getPeakBytes(), 1000u);
  // What a failed run leaves behind goes with freeLiveBlocks.
  ASSERT_NE(allocator.allocate(64, 100, error), nullptr);
  allocator.freeLiveBlocks();
  EXPECT_EQ(allocator.getCurrentBytes(), 0u);
}

TEST(RuntimeDevice, CopiesBothWays) {
  std::unique_ptr<Device> device = createDevice("cpu");
  std::string error;
  std::vector<float> host(256), back(256, -1.0f);
  std::iota(host.begin(), host.end(), 0.5f);
  size_t bytes = host.size() * sizeof(float);
  void *a = device->getAllocator().allocate(64, bytes, error);
  void *b = device->getAllocator().allocate(64, bytes, error);
  ASSERT_TRUE(a && b) << error;
  device->copy(a, MemorySpace::Device, host.data(), MemorySpace::Host, bytes);
  device->copy(b, MemorySpace::Device, a, MemorySpace::Device, bytes);
  device->copy(back.data(), MemorySpace::Host, b, MemorySpace::Device, bytes);
  device->getQueue().synchronize();
  EXPECT_EQ(back, host);
  device->getAllocator().deallocate(a);
  device->getAllocator().deallocate(b);
}

TEST(RuntimeDevice, QueueRunsInOrderAndEventsComplete) {
  std::unique_ptr<Device> device = createDevice("cpu");
  Queue &queue = device->getQueue();
  EXPECT_EQ(queue.getNativeHandle(), nullptr);
  std::vector<int> order;
  for (int i = 0; i < 4; ++i)
    queue.enqueue([&order, i] { order.push_back(i); });
  std::unique_ptr<Event> event = queue.recordEvent();
  queue.enqueue([&order] { order.push_back(4); });
  // Work after waitEvent follows the event's work.
  queue.waitEvent(*event);
  queue.enqueue([&order] { order.push_back(5); });
  event->wait();
  EXPECT_TRUE(event->isComplete());
  queue.synchronize();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // An error of enqueued work surfaces from the call that runs it.
  EXPECT_THROW(queue.enqueue([] { throw Error("boom"); }), Error);
}

TEST(RuntimeDevice, WeightsInPlaceOrWritable) {
  std::unique_ptr<Device> device = createDevice("cpu");
  std::vector<float> mapping(64);
  std::iota(mapping.begin(), mapping.end(), 1.0f);
  std::vector<HostSpan> weights = {{mapping.data(), 16 * sizeof(float)},
                                   {mapping.data() + 16, 48 * sizeof(float)}};
  std::vector<HostSpan> mappings = {{mapping.data(), 64 * sizeof(float)}};

  // Read-only: the CPU uses the host values in place.
  std::unique_ptr<DeviceWeights> fixed =
      device->loadWeights(weights, mappings, /*writable=*/false);
  ASSERT_EQ(fixed->size(), 2u);
  EXPECT_FALSE(fixed->isWritable());
  EXPECT_EQ(fixed->getData(0), mapping.data());
  EXPECT_EQ(fixed->getData(1), mapping.data() + 16);
  EXPECT_NE(fixed->getBinding(), nullptr); // packed for the GEMM on use

  // Writable: private copies, whose updates leave the mapping alone.
  std::unique_ptr<DeviceWeights> own =
      device->loadWeights(weights, mappings, /*writable=*/true);
  ASSERT_EQ(own->size(), 2u);
  EXPECT_TRUE(own->isWritable());
  EXPECT_EQ(own->getBinding(), nullptr); // nothing packed ahead of time
  auto *w1 = static_cast<float *>(own->getData(1));
  EXPECT_NE(static_cast<void *>(w1), mapping.data() + 16);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w1) % 64, 0u);
  EXPECT_EQ(std::memcmp(w1, mapping.data() + 16, 48 * sizeof(float)), 0);
  w1[0] = -1.0f;
  EXPECT_EQ(mapping[16], 17.0f);

  // A run binds the weights' derived state and puts the old one back.
  const void *previous = device->setWeightsBinding(fixed->getBinding());
  EXPECT_EQ(previous, nullptr);
  EXPECT_EQ(device->setWeightsBinding(previous), fixed->getBinding());
}

TEST(RuntimeDevice, ContextHoldsItsDevice) {
  Context context;
  EXPECT_STREQ(context.getDevice().getKind(), "cpu");
  TelarContext *ctx = context.get();
  EXPECT_EQ(telarrt_context_memory_space(ctx), TELAR_MEMORY_HOST);
  TelarQueue *queue = telarrt_context_queue(ctx);
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(telarrt_queue_native_handle(queue), nullptr);
  // Programs' allocations are the device's.
  void *p = telarrt_alloc(ctx, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(context.getDevice().getAllocator().getCurrentBytes(), 100u);
  EXPECT_EQ(context.getCurrentBytes(), 100u);
  telarrt_free(ctx, p);
  EXPECT_EQ(context.getCurrentBytes(), 0u);

  Context other(createDevice("cpu"));
  EXPECT_NE(&other.getDevice(), &context.getDevice());
  EXPECT_THROW(createDevice("tpu"), Error);
  try {
    createDevice("tpu");
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no device driver of kind 'tpu'"),
              std::string::npos)
        << e.what();
  }
}

TEST(RuntimeDevice, CudaEmulatorHasDeviceMemory) {
  std::unique_ptr<Device> device = createDevice("cuda-emulator");
  EXPECT_STREQ(device->getKind(), "cuda-emulator");
  EXPECT_EQ(device->getMemorySpace(), MemorySpace::Device);
  DeviceAllocator &allocator = device->getAllocator();
  std::string error;
  // Freed blocks are kept for reuse (a GPU's free would wait for it).
  void *big = allocator.allocate(64, 100000, error);
  ASSERT_NE(big, nullptr) << error;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 256, 0u);
  EXPECT_EQ(allocator.getCurrentBytes(), 100000u);
  allocator.deallocate(big);
  EXPECT_EQ(allocator.getCurrentBytes(), 0u);
  EXPECT_GE(allocator.getCachedBytes(), 100000u);
  EXPECT_EQ(allocator.allocate(64, 100000, error), big); // reused
  allocator.setMemoryLimit(150000);
  EXPECT_EQ(allocator.allocate(64, 100000, error), nullptr);
  EXPECT_NE(error.find("the context's memory limit is 150000 bytes"),
            std::string::npos)
      << error;
  EXPECT_EQ(allocator.allocate(512, 16, error), nullptr); // > 256
  allocator.freeLiveBlocks();
  EXPECT_EQ(allocator.getCurrentBytes(), 0u);
  EXPECT_EQ(allocator.getPeakBytes(), 100000u);
  allocator.releaseCachedMemory();
  EXPECT_EQ(allocator.getCachedBytes(), 0u);

  // Weights are uploaded to device memory of their own: not the host's.
  std::vector<float> w(64);
  std::iota(w.begin(), w.end(), 1.0f);
  std::unique_ptr<DeviceWeights> weights =
      device->loadWeights({{w.data(), w.size() * sizeof(float)}}, {}, false);
  ASSERT_EQ(weights->size(), 1u);
  EXPECT_NE(weights->getData(0), static_cast<void *>(w.data()));
  std::vector<float> back(64);
  device->copy(back.data(), MemorySpace::Host, weights->getData(0),
               MemorySpace::Device, back.size() * sizeof(float));
  device->getQueue().synchronize();
  EXPECT_EQ(back, w);

  // Kernels come only from an artifact's emulation library.
  EXPECT_THROW(device->loadKernels({"dir", {{"m", "f"}}, ""}), Error);
  EXPECT_THROW(createDevice("cpu")->loadKernels({"dir", {}, ""}), Error);
}

TEST(RuntimeDevice, GpuLaunchNeedsKernels) {
  // A context whose run lent it no kernels: the launch fails with why.
  Context context(createDevice("cuda-emulator"));
  int64_t slots[1] = {0};
  EXPECT_EQ(telarrt_gpu_launch(context.get(), 0, 1, 1, 1, 1, 1, 1, slots, 1),
            TELAR_STATUS_DEVICE_ERROR);
  EXPECT_NE(context.getError().find("a context without GPU kernels"),
            std::string::npos)
      << context.getError();
  // Uploads go to the device's memory.
  context.clearError();
  float value = 2.5f, back = 0;
  void *p = telarrt_alloc(context.get(), sizeof(float));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(telarrt_gpu_upload(context.get(), p, &value, sizeof(float)),
            TELAR_STATUS_OK);
  context.getDevice().copy(&back, MemorySpace::Host, p, MemorySpace::Device,
                           sizeof(float));
  EXPECT_EQ(back, 2.5f);
  telarrt_free(context.get(), p);
}

TEST(RuntimeDevice, GpuMatmulOnTheEmulator) {
  // c[p] = a[p] . b[p] for two batches, a read through a transposed layout
  // (column-contiguous, row stride 1) and b row-major; then accumulated.
  Context context(createDevice("cuda-emulator"));
  const int64_t batch = 2, m = 3, n = 4, k = 5;
  std::vector<float> a(batch * m * k), b(batch * k * n), c(batch * m * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(int(i % 7) - 3) / 4;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(int(i % 5) - 2) / 2;
  // a[p](i, kk) at a[p * m * k + kk * m + i].
  auto aAt = [&](int64_t p, int64_t i, int64_t kk) {
    return a[p * m * k + kk * m + i];
  };
  std::vector<float> expect(c.size());
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += aAt(p, i, kk) * b[p * k * n + kk * n + j];
        expect[p * m * n + i * n + j] = sum;
      }
  auto *da = static_cast<float *>(telarrt_alloc(context.get(), a.size() * 4));
  auto *db = static_cast<float *>(telarrt_alloc(context.get(), b.size() * 4));
  auto *dc = static_cast<float *>(telarrt_alloc(context.get(), c.size() * 4));
  ASSERT_TRUE(da && db && dc);
  ASSERT_EQ(telarrt_gpu_upload(context.get(), da, a.data(), a.size() * 4), 0);
  ASSERT_EQ(telarrt_gpu_upload(context.get(), db, b.data(), b.size() * 4), 0);
  auto run = [&](int64_t flags) {
    return telarrt_gpu_matmul_f32(context.get(), da, db, dc, batch, m, n, k,
                                  m * k, 1, m, k * n, n, 1, m * n, n, 1,
                                  flags);
  };
  ASSERT_EQ(run(0), TELAR_STATUS_OK) << context.getError();
  context.getDevice().copy(c.data(), MemorySpace::Host, dc,
                           MemorySpace::Device, c.size() * 4);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], expect[i], 1e-5) << i;
  ASSERT_EQ(run(TELAR_GPU_ACCUMULATE), TELAR_STATUS_OK) << context.getError();
  context.getDevice().copy(c.data(), MemorySpace::Host, dc,
                           MemorySpace::Device, c.size() * 4);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], 2 * expect[i], 1e-5) << i;

  // TF32 is a GPU's rounding: the emulator computes in fp32 all the same.
  ASSERT_EQ(run(TELAR_GPU_TF32), TELAR_STATUS_OK) << context.getError();
  context.getDevice().copy(c.data(), MemorySpace::Host, dc,
                           MemorySpace::Device, c.size() * 4);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], expect[i], 1e-5) << i;
  // bfloat16 operands (these values are exact in bfloat16), summed in f32.
  auto toBf16 = [](const std::vector<float> &x) {
    std::vector<uint16_t> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &x[i], sizeof(bits));
      h[i] = uint16_t(bits >> 16);
    }
    return h;
  };
  std::vector<uint16_t> ha = toBf16(a), hb = toBf16(b);
  void *ha16 = telarrt_alloc(context.get(), ha.size() * 2);
  void *hb16 = telarrt_alloc(context.get(), hb.size() * 2);
  ASSERT_TRUE(ha16 && hb16);
  ASSERT_EQ(telarrt_gpu_upload(context.get(), ha16, ha.data(), ha.size() * 2),
            0);
  ASSERT_EQ(telarrt_gpu_upload(context.get(), hb16, hb.data(), hb.size() * 2),
            0);
  ASSERT_EQ(telarrt_gpu_matmul_f32(context.get(), ha16, hb16, dc, batch, m, n,
                                   k, m * k, 1, m, k * n, n, 1, m * n, n, 1,
                                   TELAR_GPU_BF16),
            TELAR_STATUS_OK)
      << context.getError();
  context.getDevice().copy(c.data(), MemorySpace::Host, dc,
                           MemorySpace::Device, c.size() * 4);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], expect[i], 1e-5) << i;
  telarrt_free(context.get(), ha16);
  telarrt_free(context.get(), hb16);
  // A bias in the epilogue: bias[j] added to every row of each product.
  std::vector<float> bias(n);
  for (int64_t j = 0; j < n; ++j)
    bias[j] = float(j) - 1.5f;
  auto *dbias = static_cast<float *>(telarrt_alloc(context.get(), n * 4));
  ASSERT_NE(dbias, nullptr);
  ASSERT_EQ(telarrt_gpu_upload(context.get(), dbias, bias.data(), n * 4), 0);
  ASSERT_EQ(telarrt_gpu_matmul_bias_f32(context.get(), da, db, dc, dbias,
                                        batch, m, n, k, m * k, 1, m, k * n,
                                        n, 1, m * n, n, 1, 0),
            TELAR_STATUS_OK)
      << context.getError();
  context.getDevice().copy(c.data(), MemorySpace::Host, dc,
                           MemorySpace::Device, c.size() * 4);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], expect[i] + bias[i % n], 1e-5) << i;
  telarrt_free(context.get(), dbias);
  // Unknown flags are refused.
  EXPECT_EQ(run(8), TELAR_STATUS_INVALID_ARGUMENT);
  context.clearError();

  // A layout the GEMM cannot take (a strided along both dimensions) is
  // refused with the call's shape; the CPU device runs no library calls.
  EXPECT_EQ(telarrt_gpu_matmul_f32(context.get(), da, db, dc, 1, m, n, k, 0,
                                   2 * k, 2, 0, n, 1, 0, n, 1, 0),
            TELAR_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(context.getError().find("a layout the GEMM does not take"),
            std::string::npos)
      << context.getError();
  context.clearError();
  Context cpu(createDevice("cpu"));
  EXPECT_EQ(telarrt_gpu_matmul_f32(cpu.get(), a.data(), b.data(), c.data(), 1,
                                   m, n, k, 0, k, 1, 0, n, 1, 0, n, 1, 0),
            TELAR_STATUS_DEVICE_ERROR);
  EXPECT_NE(cpu.getError().find("runs no GPU library calls"),
            std::string::npos)
      << cpu.getError();
  telarrt_free(context.get(), da);
  telarrt_free(context.get(), db);
  telarrt_free(context.get(), dc);
}

TEST(RuntimeDevice, TimedEventsWithoutADeviceClock) {
  // The CPU and the CUDA emulator keep no device clock: timed events are
  // plain events, and telar-run --bench prints no device time for them.
  for (const char *kind : {"cpu", "cuda-emulator"}) {
    std::unique_ptr<Device> device = createDevice(kind);
    Queue &queue = device->getQueue();
    std::unique_ptr<Event> start = queue.recordTimedEvent();
    std::unique_ptr<Event> end = queue.recordTimedEvent();
    end->wait();
    EXPECT_TRUE(end->isComplete()) << kind;
    EXPECT_FALSE(end->millisecondsSince(*start).has_value()) << kind;
  }
}
