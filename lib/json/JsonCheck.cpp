//===- JsonCheck.cpp - One linear pass over untrusted JSON text -----------===//

#include "telar/json/JsonCheck.h"

#include <cstdint>
#include <unordered_set>
#include <vector>

using namespace telar_json;

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

class Scanner {
public:
  Scanner(std::string_view text, int maxDepth)
      : text(text), maxDepth(maxDepth) {}

  JsonScan run() {
    JsonScan result;
    while (pos < text.size()) {
      char c = text[pos];
      switch (c) {
      case '{':
      case '[':
        if (int(stack.size()) >= maxDepth) {
          result.tooDeep = true;
          return result;
        }
        stack.push_back({c == '{'});
        ++pos;
        break;
      case '}':
      case ']':
        if (!stack.empty())
          stack.pop_back();
        ++pos;
        break;
      case ',':
        if (!stack.empty()) {
          Frame &top = stack.back();
          top.expectKey = top.isObject;
          ++top.index;
        }
        ++pos;
        break;
      case '"': {
        bool isKey = !stack.empty() && stack.back().expectKey;
        if (!isKey || result.duplicateKey) {
          skipString();
          break;
        }
        Frame &top = stack.back();
        top.expectKey = false;
        top.key = readString();
        if (!top.keys.insert(top.key).second)
          result.duplicateKey = path();
        break;
      }
      default:
        ++pos;
        break;
      }
    }
    return result;
  }

private:
  struct Frame {
    bool isObject;
    bool expectKey = isObject;
    size_t index = 0;             // arrays: the current element
    std::string key;              // objects: the current key
    std::unordered_set<std::string> keys;
  };

  /// "a.b[2].c": built only for the one key reported.
  std::string path() const {
    std::string out;
    for (const Frame &f : stack) {
      if (f.isObject)
        out += (out.empty() ? "" : ".") + f.key;
      else
        out += "[" + std::to_string(f.index) + "]";
    }
    return out;
  }

  void skipString() {
    for (++pos; pos < text.size() && text[pos] != '"'; ++pos)
      if (text[pos] == '\\')
        ++pos;
    ++pos;
  }

  /// The string at `pos` with its escapes decoded (malformed ones kept as
  /// they are: the parser rejects them).
  std::string readString() {
    std::string out;
    for (++pos; pos < text.size() && text[pos] != '"'; ++pos) {
      char c = text[pos];
      if (c != '\\' || pos + 1 >= text.size()) {
        out += c;
        continue;
      }
      char e = text[++pos];
      switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::optional<uint32_t> cp = readHex4(pos + 1);
        if (!cp) {
          out += "\\u";
          break;
        }
        pos += 4;
        // A high surrogate followed by an escaped low one: one code point.
        if (*cp >= 0xd800 && *cp < 0xdc00 && pos + 2 < text.size() &&
            text[pos + 1] == '\\' && text[pos + 2] == 'u')
          if (std::optional<uint32_t> low = readHex4(pos + 3);
              low && *low >= 0xdc00 && *low < 0xe000) {
            cp = 0x10000 + ((*cp - 0xd800) << 10) + (*low - 0xdc00);
            pos += 6;
          }
        appendUtf8(out, *cp);
        break;
      }
      default: // '"', '\\', '/' and malformed escapes
        out += e;
        break;
      }
    }
    ++pos;
    return out;
  }

  std::optional<uint32_t> readHex4(size_t at) const {
    if (at + 4 > text.size())
      return std::nullopt;
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) {
      int h = hexValue(text[at + i]);
      if (h < 0)
        return std::nullopt;
      v = v * 16 + uint32_t(h);
    }
    return v;
  }

  std::string_view text;
  int maxDepth;
  size_t pos = 0;
  std::vector<Frame> stack;
};

} // namespace

JsonScan telar_json::scanJson(std::string_view text, int maxDepth) {
  return Scanner(text, maxDepth).run();
}

std::string telar_json::describeTooDeep(int maxDepth) {
  return "nests arrays and objects deeper than " + std::to_string(maxDepth) +
         " levels (the most Telar reads)";
}
