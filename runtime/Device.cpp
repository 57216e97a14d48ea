//===- Device.cpp - Device drivers and their registry ---------------------===//
//
// The drivers of Device.h by kind. A driver library registers its factory
// when it loads (runtime/cpu/CpuDevice.cpp for "cpu"). The core links no
// driver: a process that did not link one (a tool of the core alone, a
// Python extension) gets it loaded here on first use, from the core's own
// directory.
//
//===----------------------------------------------------------------------===//

#include "telar/runtime/Device.h"
#include "telar/runtime/Runtime.h"

#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace telar::runtime;

Event::~Event() = default;
Queue::~Queue() = default;
DeviceAllocator::~DeviceAllocator() = default;
DeviceWeights::~DeviceWeights() = default;
DeviceKernels::~DeviceKernels() = default;
Device::~Device() = default;

std::unique_ptr<DeviceKernels> Device::loadKernels(const ProgramKernels &) {
  throw Error(std::string("the '") + getKind() +
              "' device runs no GPU kernels");
}

bool Device::matmul(const MatmulCall &, std::string &error) {
  error = std::string("the '") + getKind() +
          "' device runs no GPU library calls";
  return false;
}

const char *telar::runtime::memorySpaceName(MemorySpace space) {
  return space == MemorySpace::Host ? "host" : "device";
}

namespace {
struct Driver {
  DeviceFactory factory;
  std::vector<const void *> programSymbols;
};
struct Registry {
  std::mutex mutex;
  std::map<std::string, Driver> drivers;
};
Registry &registry() {
  // Never destroyed: drivers register from their static initializers,
  // whose order against this library's is not ours to choose.
  static Registry *r = new Registry();
  return *r;
}

DeviceFactory findFactory(const std::string &kind) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.drivers.find(kind);
  return it == r.drivers.end() ? DeviceFactory() : it->second.factory;
}

/// Loads libtelar_runtime_<kind>.so from the directory of this library
/// (else the loader's path), RTLD_GLOBAL: its programs resolve its symbols.
/// Its static initializers register the driver; the reason it failed, or
/// "".
std::string loadDriver(const std::string &kind) {
  std::string name = "libtelar_runtime_" + kind.substr(0, kind.find('-')) + ".so";
  std::string path = name;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&findFactory), &info) &&
      info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      path = self.substr(0, slash + 1) + name;
  }
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    return "";
  const char *why = dlerror();
  if (path != name && dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL))
    return "";
  return why ? why : "unknown error";
}
} // namespace

void telar::runtime::registerDeviceDriver(
    const std::string &kind, DeviceFactory factory,
    std::vector<const void *> programSymbols) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.drivers[kind] = {std::move(factory), std::move(programSymbols)};
}

std::vector<const void *> telar::runtime::getDriverProgramSymbols() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const void *> symbols;
  for (const auto &[kind, driver] : r.drivers)
    symbols.insert(symbols.end(), driver.programSymbols.begin(),
                   driver.programSymbols.end());
  return symbols;
}

std::unique_ptr<Device> telar::runtime::createDevice(const std::string &kind) {
  DeviceFactory factory = findFactory(kind);
  std::string why;
  if (!factory) {
    why = loadDriver(kind);
    factory = findFactory(kind);
  }
  if (!factory)
    throw Error("no device driver of kind '" + kind + "' in this runtime" +
                (why.empty() ? std::string() : " (" + why + ")"));
  std::unique_ptr<Device> device = factory();
  if (!device)
    throw Error("the '" + kind + "' device driver made no device");
  return device;
}
