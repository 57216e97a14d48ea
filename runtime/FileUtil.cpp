//===- FileUtil.cpp - Whole-file I/O with clear errors --------------------===//

#include "telar/runtime/FileUtil.h"
#include "telar/runtime/Runtime.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace telar::runtime;

namespace {
const char *describeFileType(mode_t mode) {
  if (S_ISDIR(mode))
    return "is a directory";
  if (S_ISFIFO(mode))
    return "not a regular file (a FIFO)";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "not a regular file (a device)";
  if (S_ISSOCK(mode))
    return "not a regular file (a socket)";
  return "not a regular file";
}
} // namespace

int detail::openRegularFile(const std::string &path) {
  // O_NONBLOCK: open() of a FIFO returns at once instead of waiting for a
  // writer; it is cleared again for the regular file that passed.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error("cannot read '" + path + "': " + std::strerror(errno));
  // A directory opens too: fstat tells it, as any other file type.
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw Error("cannot read '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("cannot read '" + path + "': " + describeFileType(st.st_mode));
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string detail::readFile(const std::string &path) {
  int fd = openRegularFile(path);
  FILE *f = ::fdopen(fd, "rb");
  if (!f) {
    int err = errno;
    ::close(fd);
    throw Error("cannot read '" + path + "': " + std::strerror(err));
  }
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

std::string detail::resolveInside(const std::string &dir,
                                  const std::string &path,
                                  const std::string &what) {
  // The manifest reader refuses '..' and absolute paths by their text; a
  // symlink can still lead elsewhere, so compare the resolved paths.
  char buffer[PATH_MAX];
  if (!::realpath(dir.c_str(), buffer))
    throw Error("cannot resolve artifact directory '" + dir +
                "': " + std::strerror(errno));
  std::string root = buffer;
  std::string full = dir + "/" + path;
  if (!::realpath(full.c_str(), buffer))
    throw Error("artifact '" + dir + "' is incomplete: " + what + " '" +
                path + "' is missing (" + std::strerror(errno) + ")");
  std::string resolved = buffer;
  bool inside = root == "/" || resolved == root ||
                resolved.compare(0, root.size() + 1, root + "/") == 0;
  if (!inside)
    throw Error("artifact '" + dir + "': " + what + " '" + path +
                "' resolves to '" + resolved +
                "', outside the artifact directory");
  return resolved;
}
