//===- FloatConversions.cpp - Conversions LLVM leaves to a library --------===//
//
// On CPUs without AVX-512 BF16 (the AMD EPYC machines CI runs on, among
// others) LLVM lowers a float -> bfloat16 truncation to a call of
// compiler-rt's __truncsfbf2. Programs link no compiler-rt and GCC 12's
// libgcc has no such function, so the CPU device exports it, with
// compiler-rt's semantics: round to nearest even, NaNs kept NaN (quiet).
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>

#include <cstdint>
#include <cstring>

/// The x86-64 psABI returns a bfloat16 in the low 16 bits of xmm0, as it
/// returns a __m128; GCC 12 has no __bf16 arithmetic type to say it with.
extern "C" __attribute__((visibility("default"))) __m128
__truncsfbf2(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  uint32_t bits = (u & 0x7fffffffu) > 0x7f800000u
                      ? (u >> 16) | 0x40u // NaN: keep the sign, make it quiet
                      : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return _mm_castsi128_ps(_mm_cvtsi32_si128(static_cast<int>(bits)));
}
