//===- Tensor.cpp - Element types and dense tensors -----------------------===//

#include "telar/runtime/Runtime.h"

#include <cstdlib>
#include <cstring>
#include <limits>

using namespace telar::runtime;

namespace {
float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000 | (mant << 13); // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal: normalise the mantissa.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400) == 0);
    bits =
        sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T> T load(const void *data, int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char *>(data) + index * sizeof(T),
              sizeof(T));
  return v;
}
} // namespace

void Tensor::Free::operator()(void *p) const { std::free(p); }

Tensor::Tensor(DType dtype, Shape shape)
    : dtype(dtype), shape(std::move(shape)) {
  uint64_t total = dtypeSize(dtype);
  for (int64_t d : this->shape) {
    if (d < 0)
      throw Error("negative dimension in tensor shape " +
                  formatShape(this->shape));
    if (__builtin_mul_overflow(total, static_cast<uint64_t>(d), &total) ||
        total > (uint64_t(1) << 62))
      throw Error("tensor shape " + formatShape(this->shape) + " is too large");
  }
  bytes = total;
  // aligned_alloc needs a multiple of the alignment; keep at least one
  // block so that empty tensors still have a valid, distinct pointer.
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0)
    rounded = 64;
  void *p = std::aligned_alloc(64, rounded);
  if (!p)
    throw Error("out of memory allocating a " + typeString() + " tensor (" +
                std::to_string(bytes) + " bytes)");
  std::memset(p, 0, rounded);
  storage.reset(p);
}

double telar::runtime::elementAsDouble(DType dtype, const void *data,
                                       int64_t index) {
  switch (dtype) {
  case DType::Float32:
    return load<float>(data, index);
  case DType::Float64:
    return load<double>(data, index);
  case DType::Float16:
    return halfToFloat(load<uint16_t>(data, index));
  case DType::BFloat16: {
    uint32_t bits = static_cast<uint32_t>(load<uint16_t>(data, index)) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::Int8:
    return load<int8_t>(data, index);
  case DType::Int16:
    return load<int16_t>(data, index);
  case DType::Int32:
    return load<int32_t>(data, index);
  case DType::Int64:
    return static_cast<double>(load<int64_t>(data, index));
  case DType::UInt8:
    return load<uint8_t>(data, index);
  case DType::UInt16:
    return load<uint16_t>(data, index);
  case DType::UInt32:
    return load<uint32_t>(data, index);
  case DType::UInt64:
    return static_cast<double>(load<uint64_t>(data, index));
  case DType::Bool:
    return load<uint8_t>(data, index) != 0;
  }
  return std::numeric_limits<double>::quiet_NaN();
}
