//===- FileUtil.h - Whole-file I/O with clear errors ------------*- C++ -*-===//

#ifndef TELAR_RUNTIME_FILEUTIL_H
#define TELAR_RUNTIME_FILEUTIL_H

#include <string>

namespace telar::runtime::detail {

/// The contents of `path`; throws Error("cannot read 'path': reason").
std::string readFile(const std::string &path);
/// Writes `bytes` to `path` (replacing it); throws Error on failure.
void writeFile(const std::string &path, const std::string &bytes);
/// Whether `path` names an existing regular file (following symlinks).
bool isRegularFile(const std::string &path);

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_FILEUTIL_H
