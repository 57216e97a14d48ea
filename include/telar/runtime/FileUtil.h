//===- FileUtil.h - Whole-file I/O with clear errors ------------*- C++ -*-===//

//
// The runtime's file reading and writing, which refuse FIFOs and devices
// (artifact files are data: untrusted); telar-run uses them for its own
// files too (checkpoints).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_FILEUTIL_H
#define TELAR_RUNTIME_FILEUTIL_H

#include <string>

namespace telar::runtime::detail {

/// The contents of `path`; throws Error("cannot read 'path': reason"),
/// also when it is not a regular file (openRegularFile).
std::string readFile(const std::string &path);
/// A descriptor of `path` open for reading, refused with Error("cannot read
/// 'path': not a regular file (a FIFO)") unless it is a regular file
/// (following symlinks): a FIFO would block the open until a writer comes,
/// a device could be read forever.
int openRegularFile(const std::string &path);
/// `path` relative to the artifact directory `dir`, resolved (symlinks
/// followed); throws Error naming `what` ("weights file") unless it exists
/// and lies inside `dir` resolved.
std::string resolveInside(const std::string &dir, const std::string &path,
                          const std::string &what);
/// Writes `bytes` to `path` (replacing it); throws Error on failure.
void writeFile(const std::string &path, const std::string &bytes);
/// Whether `path` names an existing regular file (following symlinks).
bool isRegularFile(const std::string &path);

} // namespace telar::runtime::detail

#endif // TELAR_RUNTIME_FILEUTIL_H
