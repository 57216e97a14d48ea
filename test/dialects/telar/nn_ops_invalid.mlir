// RUN: telar-opt %s -split-input-file -verify-diagnostics

func.func @gelu_approximate(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "erf"}}
  %y = telar.gelu %x {approximate = "erf"} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @lp_norm_p(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{p must be 1 or 2, got 3}}
  %y = telar.lp_norm %x {p = 3 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{layer_norm: axis 2 is out of range for input 'tensor<2x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.layer_norm %x, %g {axis = 2 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x8xf32>, %g: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{layer_norm: scale 'tensor<4xf32>' does not broadcast to the input shape [2, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.layer_norm %x, %g : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @layer_norm_bias_type(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf16>) -> tensor<2x8xf32> {
  // expected-error @+2 {{layer_norm: bias 'tensor<8xf16>' must have the element type of input 'tensor<2x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.layer_norm %x, %g, %b : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @rms_norm_scalar(%x: tensor<f32>, %g: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{rms_norm: input must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rms_norm %x, %g : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %y : tensor<f32>
}

// -----

func.func @batch_norm_channels(%x: tensor<1x8x4xf32>, %s: tensor<8xf32>, %m: tensor<4xf32>) -> tensor<1x8x4xf32> {
  // expected-error @+2 {{batch_norm: mean must have shape [8] (one per channel), got 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.batch_norm %x, %s, %s, %m, %s : (tensor<1x8x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x8x4xf32>
  return %y : tensor<1x8x4xf32>
}

// -----

func.func @instance_norm_rank(%x: tensor<2x8xf32>, %s: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{instance_norm: input must have rank >= 3 (N x C x D1 x ...), got 'tensor<2x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.instance_norm %x, %s, %s : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @group_norm_groups(%x: tensor<1x8x4xf32>, %s: tensor<8xf32>) -> tensor<1x8x4xf32> {
  // expected-error @+2 {{group_norm: 8 channels do not divide into 3 groups}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.group_norm %x, %s, %s {num_groups = 3 : i64} : (tensor<1x8x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4xf32>
  return %y : tensor<1x8x4xf32>
}

// -----

func.func @group_norm_zero_groups(%x: tensor<1x8x4xf32>, %s: tensor<8xf32>) -> tensor<1x8x4xf32> {
  // expected-error @+2 {{group_norm: num_groups must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.group_norm %x, %s, %s {num_groups = 0 : i64} : (tensor<1x8x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4xf32>
  return %y : tensor<1x8x4xf32>
}

// -----

func.func @mean_variance_norm_repeated(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+2 {{mean_variance_norm: axis -1 is listed twice in [3, -1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.mean_variance_norm %x {axes = array<i64: 3, -1>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @mean_variance_norm_range(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+2 {{mean_variance_norm: axis 2 is out of range for input 'tensor<1x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.mean_variance_norm %x {axes = array<i64: 2>} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

func.func @lrn_size(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+2 {{lrn: size must be positive, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.lrn %x {size = -1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{matmul: contracted dimensions differ: lhs 'tensor<2x3xf32>' has 3, rhs 'tensor<4x5xf32>' has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+2 {{matmul: batch dimensions [2] of lhs 'tensor<2x3x4xf32>' and [3] of rhs 'tensor<3x4x5xf32>' do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}

// -----

func.func @matmul_element_type(%a: tensor<2x3xf32>, %b: tensor<3x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+2 {{matmul: rhs 'tensor<3x5xf16>' must have the element type of lhs 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf16>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{matmul: operands must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

func.func @matmul_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.matmul %a, %b : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

func.func @einsum_label(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{einsum: a label is one letter, got 'ij'}}
  %y = telar.einsum %x {equation = #telar.einsum<[ij] -> [i]>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @einsum_no_input(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected '['}}
  %y = telar.einsum %x {equation = #telar.einsum< -> [i]>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @einsum_operands(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{einsum: equation "ij,jk->i" has 2 input terms but the op has 1 inputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.einsum %x {equation = #telar.einsum<[i, j], [j, k] -> [i]>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @einsum_rank(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{einsum: term "ijk" has 3 letters but input 0 'tensor<2x3xf32>' has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.einsum %x {equation = #telar.einsum<[i, j, k] -> [i]>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @einsum_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{einsum: letter 'j' has size 3 and 4 (input 1 'tensor<4x5xf32>')}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.einsum %a, %b {equation = #telar.einsum<[i, j], [j, k] -> [i, k]>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

func.func @einsum_output_letter(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{einsum: output label 'k' appears in no input}}
  %y = telar.einsum %x {equation = #telar.einsum<[i, j] -> [i, k]>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @einsum_output_twice(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{einsum: output label 'i' appears twice}}
  %y = telar.einsum %x {equation = #telar.einsum<[i, j] -> [i, i]>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

func.func @einsum_element_type(%a: tensor<2x3xf32>, %b: tensor<3xf16>) -> tensor<2xf32> {
  // expected-error @+2 {{einsum: input 1 'tensor<3xf16>' must have the element type of input 0 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %c = telar.einsum %a, %b {equation = #telar.einsum<[i, j], [j] -> [i]>} : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

func.func @conv_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: weight 'tensor<4x3x3xf32>' must have rank 4 like the input 'tensor<1x3x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: input 'tensor<1x3x8x8xf32>' has 3 channels but weight 'tensor<4x2x3x3xf32>' with group 1 expects 2 x 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_group_output(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  // expected-error @+2 {{conv: 3 output channels of weight 'tensor<3x2x3x3xf32>' do not divide into 2 groups}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  return %y : tensor<1x3x6x6xf32>
}

// -----

func.func @conv_attr_lengths(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: 2 spatial axes need 2 strides, 2 dilations and 4 pads, got strides [1], dilations [1, 1], pads [0, 0, 0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: strides and dilations must be positive, got strides [0, 1], dilations [1, 1]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: pads must not be negative, got [0, -1, 0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_window(%x: tensor<1x3x2x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error @+2 {{conv: spatial axis 0 of input 'tensor<1x3x2x8xf32>' is too small for kernel 3 with dilation 1 and pads 0, 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x2x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %y : tensor<1x4x1x6xf32>
}

// -----

func.func @conv_huge_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: spatial axis 0 of input 'tensor<1x3x8x8xf32>' with kernel 3, dilation 9223372036854775807 and pads 0, 0 overflows}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 9223372036854775807, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv: bias must have shape [4] (one per output channel), got 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_input_rank(%x: tensor<3x8xf32>, %w: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{conv: input must have rank >= 3 (N x C x D1 x ...), got 'tensor<3x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<3x8xf32>, tensor<4x3xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x8x4x4xf32>, %w: tensor<6x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{conv_transpose: input 'tensor<1x8x4x4xf32>' has 8 channels but weight 'tensor<6x4x2x2xf32>' has 6}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x4x4xf32>, tensor<6x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{conv_transpose: output_padding must hold 2 non-negative values, got [0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_transpose_size(%x: tensor<1x8x1xf32>, %w: tensor<8x4x1xf32>) -> tensor<1x4x1xf32> {
  // expected-error @+2 {{conv_transpose: spatial axis 0 of input 'tensor<1x8x1xf32>' with kernel 1, stride 1, dilation 1, output_padding 0 and pads 1, 0 gives no valid output size}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 1, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>} : (tensor<1x8x1xf32>, tensor<8x4x1xf32>) -> tensor<1x4x1xf32>
  return %y : tensor<1x4x1xf32>
}

// -----

func.func @conv_transpose_group(%x: tensor<1x6x4xf32>, %w: tensor<6x4x2xf32>) -> tensor<1x16x5xf32> {
  // expected-error @+2 {{conv_transpose: 6 input channels do not divide into 4 groups}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>, group = 4 : i64} : (tensor<1x6x4xf32>, tensor<6x4x2xf32>) -> tensor<1x16x5xf32>
  return %y : tensor<1x16x5xf32>
}

// -----

func.func @resize_sizes_rank(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{resize: sizes [8, 8] has 2 values but the input 'tensor<1x8x4x4xf32>' has rank 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 8, 8>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_sizes_positive(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+2 {{resize: sizes must be positive, got [1, 8, 0, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 0, 8>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_scales_count(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{needs one scale per input axis (4), got 2}}
  %y = telar.resize %x {scales = array<f32: 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_scale_positive(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{scales must be positive and finite, got -2}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, -2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_mode(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{mode must be "nearest", "linear" or "cubic", got "bilinear"}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>, mode = "bilinear"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_coordinate_mode(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{unknown coordinate_transformation_mode "corner"}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>, coordinate_transformation_mode = "corner"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_crop(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{coordinate_transformation_mode "tf_crop_and_resize" needs an roi, which telar.resize does not carry}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>, coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @resize_nearest_mode(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{unknown nearest_mode "round"}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>, nearest_mode = "round"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+2 {{depth_to_space: 6 channels of input 'tensor<1x6x2x2xf32>' do not divide by blocksize^2 = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @depth_to_space_mode(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{depth_to_space: mode must be "DCR" or "CRD", got "RCD"}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.depth_to_space %x {blocksize = 2 : i64, mode = "RCD"} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @depth_to_space_huge_block(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{depth_to_space: blocksize 4294967296 is too large}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.depth_to_space %x {blocksize = 4294967296 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @space_to_depth_rank(%x: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+2 {{space_to_depth: input must be a rank-4 tensor (N x C x H x W), got 'tensor<2x4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

func.func @space_to_depth_spatial(%x: tensor<1x2x4x5xf32>) -> tensor<1x8x2x2xf32> {
  // expected-error @+2 {{space_to_depth: spatial sizes of input 'tensor<1x2x4x5xf32>' must be multiples of blocksize 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x5xf32>) -> tensor<1x8x2x2xf32>
  return %y : tensor<1x8x2x2xf32>
}

// -----

func.func @space_to_depth_block(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{space_to_depth: blocksize must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.space_to_depth %x {blocksize = 0 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @rotary_rank3_heads(%x: tensor<2x8x64xf32>, %c: tensor<2x8x4xf32>) -> tensor<2x8x64xf32> {
  // expected-error @+2 {{rotary_embedding: a rank-3 input 'tensor<2x8x64xf32>' [batch, seq, hidden] needs num_heads > 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c : (tensor<2x8x64xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

func.func @rotary_rank(%x: tensor<8x64xf32>, %c: tensor<8x32xf32>) -> tensor<8x64xf32> {
  // expected-error @+2 {{rotary_embedding: input must be [batch, heads, seq, head_size] or [batch, seq, hidden], got 'tensor<8x64xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c : (tensor<8x64xf32>, tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

func.func @rotary_cache_shape(%x: tensor<2x4x8x16xf32>, %c: tensor<2x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: without position_ids the caches must be [batch, seq, rotary_dim / 2] = [2, 8, 8], got 'tensor<2x8x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c : (tensor<2x4x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_partial_cache(%x: tensor<2x4x8x16xf32>, %c: tensor<2x8x10xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: without position_ids the caches must be [batch, seq, C] = [2, 8, C] with rotary_dim / 2 = 4 <= C <= head_size / 2 = 8, got 'tensor<2x8x10xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c {rotary_embedding_dim = 8 : i64} : (tensor<2x4x8x16xf32>, tensor<2x8x10xf32>, tensor<2x8x10xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_partial_positions(%x: tensor<2x4x8x16xf32>, %c: tensor<64x3xf32>, %p: tensor<2x8xi64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: with position_ids the caches must be [max_position, C] with rotary_dim / 2 = 4 <= C <= head_size / 2 = 8, got 'tensor<64x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c, %p {rotary_embedding_dim = 8 : i64} : (tensor<2x4x8x16xf32>, tensor<64x3xf32>, tensor<64x3xf32>, tensor<2x8xi64>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_sin_cos(%x: tensor<2x4x8x16xf32>, %c: tensor<2x8x8xf32>, %s: tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: cos_cache 'tensor<2x8x8xf32>' and sin_cache 'tensor<1x8x8xf32>' must have the same shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %s : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<1x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_odd_dim(%x: tensor<2x4x8x16xf32>, %c: tensor<2x8x2xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: the rotary dimension 5 must be even and at most the head size 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c {rotary_embedding_dim = 5 : i64} : (tensor<2x4x8x16xf32>, tensor<2x8x2xf32>, tensor<2x8x2xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_positions(%x: tensor<2x4x8x16xf32>, %c: tensor<64x8xf32>, %p: tensor<2x7xi64>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: position_ids 'tensor<2x7xi64>' must be [batch, seq] of input 'tensor<2x4x8x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c, %p : (tensor<2x4x8x16xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<2x7xi64>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @rotary_heads(%x: tensor<2x4x8x16xf32>, %c: tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+2 {{rotary_embedding: num_heads = 3 disagrees with input 'tensor<2x4x8x16xf32>' [batch, heads, seq, head_size]}}
  // expected-error @+1 {{failed to infer returned types}}
  %y = telar.rotary_embedding %x, %c, %c {num_heads = 3 : i64} : (tensor<2x4x8x16xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8x16xf32>
  return %y : tensor<2x4x8x16xf32>
}

// -----

func.func @resize_result(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error @+1 {{sizes [1, 8, 8, 8] must equal the result shape [1, 8, 8, 4]}}
  %y = telar.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, sizes = array<i64: 1, 8, 8, 8>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}
