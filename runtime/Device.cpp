//===- Device.cpp - Device drivers and their registry ---------------------===//
//
// The drivers of Device.h by kind. A driver library registers its factory
// when it loads (runtime/cpu/CpuDevice.cpp for "cpu").
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Device.h"
#include "telar/runtime/Runtime.h"

#include <map>
#include <mutex>

using namespace telar::runtime;

Event::~Event() = default;
Queue::~Queue() = default;
DeviceAllocator::~DeviceAllocator() = default;
DeviceWeights::~DeviceWeights() = default;
Device::~Device() = default;

const char *telar::runtime::memorySpaceName(MemorySpace space) {
  return space == MemorySpace::Host ? "host" : "device";
}

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceFactory> drivers;
};
Registry &registry() {
  static Registry *r = new Registry(); // never destroyed: drivers register
                                       // from static initializers
  return *r;
}
} // namespace

void telar::runtime::registerDeviceDriver(const std::string &kind,
                                          DeviceFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.drivers[kind] = std::move(factory);
}

std::unique_ptr<Device> telar::runtime::createDevice(const std::string &kind) {
  Registry &r = registry();
  DeviceFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.drivers.find(kind);
    if (it != r.drivers.end())
      factory = it->second;
  }
  if (!factory)
    throw Error("no device driver of kind '" + kind +
                "' in this runtime (drivers: cpu)");
  std::unique_ptr<Device> device = factory();
  if (!device)
    throw Error("the '" + kind + "' device driver made no device");
  return device;
}
