//===- HalfFloat.h - float16 / bfloat16 <-> float32 -------------*- C++ -*-===//
//
// Internal to the runtime: the conversions collectives use to reduce
// float16 and bfloat16 values in float32 (widening is exact; narrowing
// rounds to nearest even, keeps infinities and NaNs, overflows to
// infinity and produces float16 subnormals).
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_COMM_HALFFLOAT_H
#define TELAR_RUNTIME_COMM_HALFFLOAT_H

#include <cstdint>
#include <cstring>

namespace telar::runtime::comm::detail {

inline uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float bitsFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

inline float bf16ToFloat(uint16_t h) { return bitsFloat(uint32_t(h) << 16); }

inline uint16_t floatToBf16(float f) {
  uint32_t b = floatBits(f);
  if ((b & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet and a NaN
    return uint16_t((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return uint16_t(b >> 16);
}

inline float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f)
    return bitsFloat(sign | 0x7f800000 | (mant << 13));
  if (exp != 0)
    return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24, exact in float32.
  float v = float(mant) * bitsFloat(0x33800000); // 2^-24
  return sign ? -v : v;
}

inline uint16_t floatToF16(float f) {
  uint32_t b = floatBits(f);
  uint16_t sign = uint16_t((b >> 16) & 0x8000);
  uint32_t abs = b & 0x7fffffff;
  if (abs > 0x7f800000) // NaN
    return uint16_t(sign | 0x7e00 | ((abs >> 13) & 0x3ff));
  if (abs >= 0x477ff000) // rounds to >= 65520: infinity
    return uint16_t(sign | 0x7c00);
  if (abs < 0x38800000) { // below 2^-14: a float16 subnormal (or zero)
    // Round abs * 2^24 to an integer, nearest even: the subnormal's bits.
    float scaled = bitsFloat(abs) * bitsFloat(0x4b800000); // 2^24
    // Adding 2^23 rounds to an integer (nearest even) in float32.
    float rounded = (scaled + 8388608.0f) - 8388608.0f;
    return uint16_t(sign | uint16_t(rounded));
  }
  // Normal: rebias the exponent and round the mantissa to 10 bits.
  uint32_t mant = abs + 0xfff + ((abs >> 13) & 1);
  return uint16_t(sign | ((mant - 0x38000000) >> 13));
}

} // namespace telar::runtime::comm::detail

#endif // TELAR_RUNTIME_COMM_HALFFLOAT_H
