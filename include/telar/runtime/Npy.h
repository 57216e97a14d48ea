//===- Npy.h - numpy .npy files ---------------------------------*- C++ -*-===//
//
// Reads format versions 1, 2 and 3 (little- or big-endian data, C or Fortran
// order; the result is always a C-order tensor in native byte order) and
// writes version 1 (version 2 when the header needs it), C order, little
// endian, with the header padded so the data starts 64-byte aligned.
//
// dtypes: those of the artifact format; bool is '|b1'. numpy has no
// bfloat16, so bfloat16 is written as two-byte void ('|V2', what ml_dtypes
// arrays save as) and read from '|V2' / '<V2'.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_RUNTIME_NPY_H
#define TELAR_RUNTIME_NPY_H

#include "telar/runtime/Runtime.h"

#include <utility>

namespace telar::runtime {

/// Reads a .npy file; throws Error naming the file when it cannot be read
/// or is not a valid .npy of a supported dtype.
Tensor readNpy(const std::string &path);
/// Parses a .npy image; `origin` names it in errors.
Tensor parseNpy(const void *bytes, size_t size, const std::string &origin);

/// The dtype and shape of the tensor in a .npy file, from its header (the
/// file's size checked against them); throws Error as readNpy does.
std::pair<DType, Shape> readNpyType(const std::string &path);
/// The block at `offsets` of shape `block` of the tensor in a .npy file (a
/// rank's part of a global input), reading only the block's bytes when the
/// file is in C order (the whole file when in Fortran order). Throws Error
/// when the file is not a valid .npy or the block is not inside its
/// tensor.
Tensor readNpyBlock(const std::string &path, const Shape &offsets,
                    const Shape &block);

/// Writes a dense C-order buffer as a .npy file; throws Error on I/O errors.
void writeNpy(const std::string &path, DType dtype, const Shape &shape,
              const void *data);
/// The .npy image of a dense C-order buffer.
std::string serializeNpy(DType dtype, const Shape &shape, const void *data);

/// The numpy descr written for `dtype` ("<f4", "|b1", ...).
const char *npyDescr(DType dtype);

} // namespace telar::runtime

#endif // TELAR_RUNTIME_NPY_H
