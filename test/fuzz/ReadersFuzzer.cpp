//===- ReadersFuzzer.cpp - libFuzzer target for the file readers ----------===//
//
// The readers of files Telar takes from its users and from artifacts, fed
// arbitrary bytes: manifest.json (telar_artifact::parseManifest), .npy
// images (telar::runtime::parseNpy), safetensors images
// (SafetensorsFile::parse), hardware profiles
// (telar_planner::parseProfileJson), plans (telar_sharding::parsePlanJson)
// and ONNX TensorProto inputs (telar::runtime::parseTensorProto). The first
// byte picks the reader. A reader's Error (or its error message) is its
// answer to a bad file; a crash, a sanitizer report, a hang or memory beyond
// libFuzzer's -rss_limit_mb is a finding.
// bench/fuzz-readers.sh builds and runs it (AddressSanitizer and
// UndefinedBehaviorSanitizer).
//
//===----------------------------------------------------------------------===//

#include "telar/artifact/Manifest.h"
#include "telar/planner/Profile.h"
#include "telar/runtime/Npy.h"
#include "telar/runtime/Safetensors.h"
#include "telar/runtime/TensorProto.h"
#include "telar/sharding/Plan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *bytes = reinterpret_cast<const char *>(data) + 1;
  size_t length = size - 1;
  try {
    switch (data[0] % 6) {
    case 0:
      telar_artifact::parseManifest(std::string_view(bytes, length), "m.json");
      break;
    case 1:
      telar::runtime::parseNpy(bytes, length, "x.npy");
      break;
    case 2:
      telar::runtime::SafetensorsFile::parse(bytes, length, "w.safetensors");
      break;
    case 3: {
      std::string error;
      telar_planner::parseProfileJson(std::string(bytes, length), error);
      break;
    }
    case 4: {
      std::string error;
      std::vector<std::string> warnings;
      telar_sharding::parsePlanJson(std::string_view(bytes, length),
                                    std::nullopt, error, warnings);
      break;
    }
    case 5:
      telar::runtime::parseTensorProto(std::string(bytes, length), "x.pb");
      break;
    }
  } catch (const telar_artifact::Error &) {
    // The reader's answer to a bad file.
  }
  return 0;
}
