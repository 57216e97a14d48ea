//===- JsonCheckTest.cpp - The pass over JSON text before parsing ---------===//

#include "telar/json/JsonCheck.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace telar_json;

namespace {

std::string nested(int depth) {
  return std::string(size_t(depth), '[') + std::string(size_t(depth), ']');
}

TEST(JsonCheck, Depth) {
  EXPECT_FALSE(scanJson("{}").tooDeep);
  EXPECT_FALSE(scanJson(nested(kMaxJsonDepth)).tooDeep);
  EXPECT_TRUE(scanJson(nested(kMaxJsonDepth + 1)).tooDeep);
  EXPECT_FALSE(scanJson(nested(3), 3).tooDeep);
  EXPECT_TRUE(scanJson(nested(4), 3).tooDeep);
  // Depth is nesting, not count: many siblings are fine.
  std::string siblings = "[";
  for (int i = 0; i < 1000; ++i)
    siblings += (i ? "," : "") + nested(10);
  EXPECT_FALSE(scanJson(siblings + "]").tooDeep);
  // Brackets inside strings (escaped quotes included) do not count.
  std::string inString = "[\"" + std::string(100, '[') + "\\\"" +
                         std::string(100, '{') + "\"]";
  EXPECT_FALSE(scanJson(inString).tooDeep);
  EXPECT_EQ(describeTooDeep(), "nests arrays and objects deeper than 64 "
                               "levels (the most Telar reads)");
}

TEST(JsonCheck, DeepTextIsLinear) {
  // Ten million levels: refused at once, in far less than a second.
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(scanJson(nested(10'000'000)).tooDeep);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 1.0);
}

TEST(JsonCheck, DuplicateKeys) {
  EXPECT_FALSE(scanJson(R"({"a": 1, "b": {"a": 2}})").duplicateKey);
  EXPECT_EQ(scanJson(R"({"a": 1, "a": 2})").duplicateKey, "a");
  EXPECT_EQ(scanJson(R"({"levels": [{"x": 1}, {"y": 1, "y": 2}]})")
                .duplicateKey,
            "levels[1].y");
  EXPECT_EQ(scanJson(R"({"m": {"k": [1, [2, 3]], "n": 1, "k": 0}})")
                .duplicateKey,
            "m.k");
  // The first repeated key is the one named.
  EXPECT_EQ(scanJson(R"({"a": {"b": 1, "b": 2}, "a": 3})").duplicateKey,
            "a.b");
  // Values that look like keys are not keys.
  EXPECT_FALSE(scanJson(R"({"a": "a", "b": ["a", "a"]})").duplicateKey);
  EXPECT_FALSE(scanJson(R"(["a", "a"])").duplicateKey);
  // Keys compare decoded: "\u0061" is "a", a surrogate pair one code point.
  EXPECT_EQ(scanJson(R"({"a": 1, "\u0061": 2})").duplicateKey, "a");
  EXPECT_EQ(scanJson(R"({"\ud83d\ude00": 1, "😀": 2})").duplicateKey,
            "😀");
  EXPECT_EQ(scanJson(R"({"a\"b": 1, "a\u0022b": 2})").duplicateKey,
            "a\"b");
  EXPECT_FALSE(scanJson(R"({"a\\": 1, "a": 2})").duplicateKey);
}

TEST(JsonCheck, MalformedTextIsScannedSafely) {
  for (const char *text :
       {"", "{", "}", "]]]", "{\"a", "{\"a\\", "\"\\u12", "{\"\\ud800\": 1",
        "[\"\\u", "{,,,\"a\":1,,\"a\"", "{\"a\" \"a\" \"a\"}"})
    (void)scanJson(text);
  EXPECT_EQ(scanJson("{\"a\":1,\"a\"").duplicateKey, "a");
}

} // namespace
