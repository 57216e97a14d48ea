//===- JsonCheck.h - One linear pass over untrusted JSON text ---*- C++ -*-===//
//
// Plans, profiles, manifests and safetensors headers are data from outside:
// before a parser sees them, one linear pass refuses what the parsers handle
// badly. llvm::json recurses once per level of nesting (40,000 levels
// overflow the stack); nlohmann's parse callbacks cost time and memory per
// level; and both keep one of an object's repeated keys silently.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_JSON_JSONCHECK_H
#define TELAR_JSON_JSONCHECK_H

#include <optional>
#include <string>
#include <string_view>

namespace telar_json {

/// The deepest nesting of arrays and objects Telar reads. Its own files
/// nest at most 6 levels (a plan's stages[i].shardings.v.dims[d]).
constexpr int kMaxJsonDepth = 64;

/// What one pass over JSON text found.
struct JsonScan {
  /// Arrays and objects nest deeper than the limit (the pass stopped there).
  bool tooDeep = false;
  /// The first key an object repeats, as a path: "levels[0].latency"
  /// (keys compared after their escapes are decoded).
  std::optional<std::string> duplicateKey;
};

/// One pass over `text`, linear in its size; it needs no valid JSON (run it
/// before parsing; report a duplicate key only once the text parsed).
JsonScan scanJson(std::string_view text, int maxDepth = kMaxJsonDepth);

/// "nests arrays and objects deeper than 64 levels (the most Telar reads)".
std::string describeTooDeep(int maxDepth = kMaxJsonDepth);

} // namespace telar_json

#endif // TELAR_JSON_JSONCHECK_H
