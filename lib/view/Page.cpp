//===- Page.cpp - Telar's self-contained HTML pages -----------------------===//
//
// Page.h. The page's parts (page/page.html, view.css, view.js) are embedded
// by cmake/EmbedFiles.cmake; the data goes into a JSON script element,
// with "</" escaped so that no string in it ends the element.
//
//===----------------------------------------------------------------------===//

#include "telar/view/Page.h"

#include "PageFiles.inc"

#include <cstring>
#include <stdexcept>

namespace {

std::string embedded(const char *name) {
  for (const auto &file : kPageFiles)
    if (std::strcmp(file.name, name) == 0)
      return std::string(reinterpret_cast<const char *>(file.data), file.size);
  throw std::logic_error(std::string("page file not embedded: ") + name);
}

std::string escapeHtml(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// Replaces every `{{name}}` of `text` with `value`.
void fill(std::string &text, const std::string &name,
          const std::string &value) {
  std::string key = "{{" + name + "}}";
  for (size_t at = text.find(key); at != std::string::npos;
       at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
}

} // namespace

std::string telar_view::renderPage(const std::string &title,
                                   const std::string &dataJson) {
  std::string data;
  data.reserve(dataJson.size());
  for (size_t i = 0; i < dataJson.size(); ++i) {
    if (dataJson[i] == '<' && i + 1 < dataJson.size() && dataJson[i + 1] == '/')
      data += "<\\";
    else
      data += dataJson[i];
  }
  std::string page = embedded("page.html");
  // The data last: nothing in it is taken for a placeholder.
  fill(page, "title", escapeHtml(title));
  fill(page, "style", embedded("view.css"));
  fill(page, "script", embedded("view.js"));
  fill(page, "data", data);
  return page;
}
