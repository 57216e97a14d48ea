//===- Auth.cpp - Admitting only a job's own processes --------------------===//

#include "Auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

using namespace telar::runtime::comm;

std::string auth::randomBytes(size_t n) {
  std::string bytes(n, '\0');
  size_t filled = 0;
  while (filled < n) {
    ssize_t got = ::getrandom(bytes.data() + filled, n - filled, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      throw std::runtime_error(std::string("no random bytes: ") +
                               std::strerror(errno));
    filled += size_t(got);
  }
  return bytes;
}

std::string auth::hmac(const std::string &key, const std::string &message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // An empty key is a valid HMAC key (no secret: loopback only).
  static const unsigned char kEmpty = 0;
  if (!::HMAC(EVP_sha256(),
              key.empty() ? &kEmpty : reinterpret_cast<const unsigned char *>(
                                          key.data()),
              int(key.size()),
              reinterpret_cast<const unsigned char *>(message.data()),
              message.size(), digest, &length) ||
      length != kDigestBytes)
    throw std::runtime_error("HMAC-SHA256 failed");
  return std::string(reinterpret_cast<const char *>(digest), length);
}

bool auth::digestsEqual(const std::string &a, const std::string &b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string auth::getJobToken() {
  const char *v = std::getenv(kTokenVariable);
  return v ? std::string(v) : std::string();
}

bool auth::isLoopbackHost(const std::string &host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *found = nullptr;
  if (host.empty() || ::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0)
    return false;
  bool loopback = true;
  for (addrinfo *ai = found; ai; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET) {
      auto *a = reinterpret_cast<sockaddr_in *>(ai->ai_addr);
      loopback &= (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    } else if (ai->ai_family == AF_INET6) {
      auto *a = reinterpret_cast<sockaddr_in6 *>(ai->ai_addr);
      loopback &= IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) != 0;
    } else {
      loopback = false;
    }
  }
  ::freeaddrinfo(found);
  return loopback;
}

std::string auth::toHex(const std::string &bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

std::string auth::fromHex(const std::string &hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2)
    return "";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return "";
    bytes.push_back(char(hi * 16 + lo));
  }
  return bytes;
}
