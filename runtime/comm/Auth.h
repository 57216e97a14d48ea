//===- Auth.h - Admitting only a job's own processes ------------*- C++ -*-===//
//
// Internal to the runtime: what the rendezvous store (TcpStore.h) and the
// liveness channel (Watchdog.cpp) use so that a process that reaches their
// ports but does not know the job's secret can neither read nor write
// anything: a challenge-response over the secret (HMAC-SHA256 of fresh
// random nonces, OpenSSL's libcrypto), the secret itself never sent. The
// rendezvous's secret is TELAR_JOB_TOKEN (the launchers set a fresh one per
// job); the liveness channel's is drawn by rank 0 and sent over the job's
// own (already authenticated) transport.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_COMM_AUTH_H
#define TELAR_RUNTIME_COMM_AUTH_H

#include <cstddef>
#include <string>

namespace telar::runtime::comm::auth {

/// Bytes of a nonce and of a digest.
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kDigestBytes = 32;

/// The variable holding the job's secret.
inline constexpr char kTokenVariable[] = "TELAR_JOB_TOKEN";

/// `n` bytes from the kernel's random source (getrandom); throws
/// std::runtime_error when it has none.
std::string randomBytes(size_t n);

/// HMAC-SHA256 of `message` under `key`: kDigestBytes bytes.
std::string hmac(const std::string &key, const std::string &message);

/// Whether two digests are equal, in time independent of where they
/// differ.
bool digestsEqual(const std::string &a, const std::string &b);

/// TELAR_JOB_TOKEN ("" when unset or empty).
std::string getJobToken();

/// Whether `host` (a name or a numeric address) resolves to loopback
/// addresses only ("localhost", 127.0.0.1, ::1); false when it does not
/// resolve.
bool isLoopbackHost(const std::string &host);

/// Lower-case hex of `bytes`, and back ("" for text that is not hex of an
/// even length).
std::string toHex(const std::string &bytes);
std::string fromHex(const std::string &hex);

} // namespace telar::runtime::comm::auth

#endif // TELAR_RUNTIME_COMM_AUTH_H
