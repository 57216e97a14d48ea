//===- FileUtil.cpp - Whole-file I/O with clear errors --------------------===//

#include "FileUtil.h"
#include "telar/runtime/Runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

using namespace telar::runtime;

std::string detail::readFile(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("cannot read '" + path + "': is a directory");
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw Error("cannot read '" + path + "': " + std::strerror(errno));
  std::string bytes;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    bytes.append(buffer, n);
  bool failed = std::ferror(f);
  int err = errno;
  std::fclose(f);
  if (failed)
    throw Error("cannot read '" + path + "': " + std::strerror(err));
  return bytes;
}

void detail::writeFile(const std::string &path, const std::string &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw Error("cannot write '" + path + "': " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok)
    throw Error("cannot write '" + path + "': " + std::strerror(err));
}

bool detail::isRegularFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
