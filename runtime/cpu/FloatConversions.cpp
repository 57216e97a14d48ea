//===- FloatConversions.cpp - Conversions LLVM leaves to a library --------===//
//
// On CPUs without AVX-512 BF16 (the AMD EPYC machines CI runs on, among
// others) LLVM lowers a float -> bfloat16 truncation to a call of
// compiler-rt's __truncsfbf2. Programs link no compiler-rt and GCC 12's
// libgcc has no such function, so the CPU device exports it, with
// compiler-rt's semantics (round to nearest even, NaNs kept NaN and quiet):
// the collectives' own conversion (comm/HalfFloat.h).
//
//===----------------------------------------------------------------------===//

#include "../comm/HalfFloat.h"

#include <immintrin.h>

/// The x86-64 psABI returns a bfloat16 in the low 16 bits of xmm0, as it
/// returns a __m128; GCC 12 has no __bf16 arithmetic type to say it with.
extern "C" __attribute__((visibility("default"))) __m128
__truncsfbf2(float x) {
  return _mm_castsi128_ps(
      _mm_cvtsi32_si128(telar::runtime::comm::detail::floatToBf16(x)));
}
