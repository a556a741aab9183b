// The GPU's block-per-row kernels of several ops (-tfm-gpu-configure's
// row kernels, -tfm-gpu-tile-reduction), run through the emulation, give
// the CPU's numbers to the rounding of the sums' order (every element
// within 2e-5 of the CPU's, the last of the six printed digits; a
// statistic folded in twice or read before it is complete is off by far
// more): a layer norm (mean, variance and normalization in one kernel) and
// a softmax (maximum, sum of exponentials and division in one kernel). Rows of 1000
// (dynamic: the stages loop over the row, 256 threads), 37 (64 threads, one
// register each, 27 threads past the end), 300 (256 threads, two registers,
// the second past the end for 212 threads), 768 (256 threads, three
// registers each) and 5 (a warp).
//
// RUN: tfm-opt %s -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.cpu
// RUN: tfm-opt %s -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" -mlir-pass-statistics 2> %t.stats | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu
// RUN: %python %S/../Inputs/compare_printed.py %t.cpu %t.gpu
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// Ten kernels of three ops: the layer norm's mean with its variance and
// normalization, the softmax's maximum with its sum and division.
// STATS:      GPUConfigurePass
// STATS:        (S) 10 reductions
// STATS:        (S) 20 row-kernel-stages
// STATS:      GPUTileReductionPass
// STATS:        (S) 20 fused-stages
// STATS:        (S) 10 kernels
// STATS:      GPULinalgToLoopsPass
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [6, 1000]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [6, 1000]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [5, 37]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [5, 37]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [3, 300]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [3, 300]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [2, 768]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [2, 768]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [4, 5]
// CHECK: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [4, 5]

module {
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // 6 rows of 1000 (dynamic length): x[i, j] = ((7 i + 3 j) mod 11) - 5, g[j] = (j mod 3) + 1.
  %e_1000 = tensor.empty() : tensor<6x1000xf32>
  %xs_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e_1000 : tensor<6x1000xf32>) {
  ^bb0(%out_1000: f32):
    %i_1000 = linalg.index 0 : index
    %j_1000 = linalg.index 1 : index
    %ia_1000 = arith.muli %i_1000, %c7 : index
    %jb_1000 = arith.muli %j_1000, %c3 : index
    %s_1000 = arith.addi %ia_1000, %jb_1000 : index
    %q_1000 = arith.remui %s_1000, %c11 : index
    %d_1000 = arith.subi %q_1000, %c5 : index
    %di_1000 = arith.index_cast %d_1000 : index to i64
    %f_1000 = arith.sitofp %di_1000 : i64 to f32
    linalg.yield %f_1000 : f32
  } -> tensor<6x1000xf32>
  %ge_1000 = tensor.empty() : tensor<1000xf32>
  %gs_1000 = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]} outs(%ge_1000 : tensor<1000xf32>) {
  ^bb0(%out_1000: f32):
    %j_1000 = linalg.index 0 : index
    %q_1000 = arith.remui %j_1000, %c3 : index
    %qi_1000 = arith.index_cast %q_1000 : index to i64
    %f_1000 = arith.sitofp %qi_1000 : i64 to f32
    %g1_1000 = arith.addf %f_1000, %one : f32
    linalg.yield %g1_1000 : f32
  } -> tensor<1000xf32>
  %x_1000 = tensor.cast %xs_1000 : tensor<6x1000xf32> to tensor<6x?xf32>
  %g_1000 = tensor.cast %gs_1000 : tensor<1000xf32> to tensor<?xf32>
  %dim_1000 = tensor.dim %x_1000, %c1 : tensor<6x?xf32>
  %dimi_1000 = arith.index_cast %dim_1000 : index to i64
  %nf_1000 = arith.sitofp %dimi_1000 : i64 to f32
  %rows_1000 = tensor.empty() : tensor<6xf32>
  %i0_1000 = linalg.fill ins(%zero : f32) outs(%rows_1000 : tensor<6xf32>) -> tensor<6xf32>

  // Layer norm: y = (x - mean) / sqrt(var + 1) * g.
  %sum_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_1000 : tensor<6x?xf32>) outs(%i0_1000 : tensor<6xf32>) {
  ^bb0(%in_1000: f32, %o_1000: f32):
    %a_1000 = arith.addf %o_1000, %in_1000 : f32
    linalg.yield %a_1000 : f32
  } -> tensor<6xf32>
  %var_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_1000, %sum_1000 : tensor<6x?xf32>, tensor<6xf32>) outs(%i0_1000 : tensor<6xf32>) {
  ^bb0(%in_1000: f32, %sm_1000: f32, %o_1000: f32):
    %m_1000 = arith.divf %sm_1000, %nf_1000 : f32
    %d_1000 = arith.subf %in_1000, %m_1000 : f32
    %d2_1000 = arith.mulf %d_1000, %d_1000 : f32
    %a_1000 = arith.addf %o_1000, %d2_1000 : f32
    linalg.yield %a_1000 : f32
  } -> tensor<6xf32>
  %ye_1000 = tensor.empty(%dim_1000) : tensor<6x?xf32>
  %y_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_1000, %sum_1000, %var_1000, %g_1000 : tensor<6x?xf32>, tensor<6xf32>, tensor<6xf32>, tensor<?xf32>) outs(%ye_1000 : tensor<6x?xf32>) {
  ^bb0(%in_1000: f32, %sm_1000: f32, %v_1000: f32, %gj_1000: f32, %o_1000: f32):
    %m_1000 = arith.divf %sm_1000, %nf_1000 : f32
    %vm_1000 = arith.divf %v_1000, %nf_1000 : f32
    %ve_1000 = arith.addf %vm_1000, %one : f32
    %sd_1000 = math.sqrt %ve_1000 : f32
    %d_1000 = arith.subf %in_1000, %m_1000 : f32
    %q_1000 = arith.divf %d_1000, %sd_1000 : f32
    %w_1000 = arith.mulf %q_1000, %gj_1000 : f32
    linalg.yield %w_1000 : f32
  } -> tensor<6x?xf32>
  %yu_1000 = tensor.cast %y_1000 : tensor<6x?xf32> to tensor<*xf32>
  call @printMemrefF32(%yu_1000) : (tensor<*xf32>) -> ()

  // Softmax: max, sum of exp(x - max), division.
  %i1_1000 = linalg.fill ins(%ninf : f32) outs(%rows_1000 : tensor<6xf32>) -> tensor<6xf32>
  %max_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_1000 : tensor<6x?xf32>) outs(%i1_1000 : tensor<6xf32>) {
  ^bb0(%in_1000: f32, %o_1000: f32):
    %a_1000 = arith.maximumf %in_1000, %o_1000 : f32
    linalg.yield %a_1000 : f32
  } -> tensor<6xf32>
  %den_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_1000, %max_1000 : tensor<6x?xf32>, tensor<6xf32>) outs(%i0_1000 : tensor<6xf32>) {
  ^bb0(%in_1000: f32, %m_1000: f32, %o_1000: f32):
    %d_1000 = arith.subf %in_1000, %m_1000 : f32
    %ex_1000 = math.exp %d_1000 : f32
    %a_1000 = arith.addf %o_1000, %ex_1000 : f32
    linalg.yield %a_1000 : f32
  } -> tensor<6xf32>
  %pe_1000 = tensor.empty(%dim_1000) : tensor<6x?xf32>
  %p_1000 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_1000, %max_1000, %den_1000 : tensor<6x?xf32>, tensor<6xf32>, tensor<6xf32>) outs(%pe_1000 : tensor<6x?xf32>) {
  ^bb0(%in_1000: f32, %m_1000: f32, %sm_1000: f32, %o_1000: f32):
    %d_1000 = arith.subf %in_1000, %m_1000 : f32
    %ex_1000 = math.exp %d_1000 : f32
    %q_1000 = arith.divf %ex_1000, %sm_1000 : f32
    linalg.yield %q_1000 : f32
  } -> tensor<6x?xf32>
  %pu_1000 = tensor.cast %p_1000 : tensor<6x?xf32> to tensor<*xf32>
  call @printMemrefF32(%pu_1000) : (tensor<*xf32>) -> ()


  // 5 rows of 37: x[i, j] = ((7 i + 3 j) mod 11) - 5, g[j] = (j mod 3) + 1.
  %e_37 = tensor.empty() : tensor<5x37xf32>
  %xs_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e_37 : tensor<5x37xf32>) {
  ^bb0(%out_37: f32):
    %i_37 = linalg.index 0 : index
    %j_37 = linalg.index 1 : index
    %ia_37 = arith.muli %i_37, %c7 : index
    %jb_37 = arith.muli %j_37, %c3 : index
    %s_37 = arith.addi %ia_37, %jb_37 : index
    %q_37 = arith.remui %s_37, %c11 : index
    %d_37 = arith.subi %q_37, %c5 : index
    %di_37 = arith.index_cast %d_37 : index to i64
    %f_37 = arith.sitofp %di_37 : i64 to f32
    linalg.yield %f_37 : f32
  } -> tensor<5x37xf32>
  %ge_37 = tensor.empty() : tensor<37xf32>
  %gs_37 = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]} outs(%ge_37 : tensor<37xf32>) {
  ^bb0(%out_37: f32):
    %j_37 = linalg.index 0 : index
    %q_37 = arith.remui %j_37, %c3 : index
    %qi_37 = arith.index_cast %q_37 : index to i64
    %f_37 = arith.sitofp %qi_37 : i64 to f32
    %g1_37 = arith.addf %f_37, %one : f32
    linalg.yield %g1_37 : f32
  } -> tensor<37xf32>
  %x_37 = tensor.cast %xs_37 : tensor<5x37xf32> to tensor<5x37xf32>
  %g_37 = tensor.cast %gs_37 : tensor<37xf32> to tensor<37xf32>
  %dim_37 = tensor.dim %x_37, %c1 : tensor<5x37xf32>
  %dimi_37 = arith.index_cast %dim_37 : index to i64
  %nf_37 = arith.sitofp %dimi_37 : i64 to f32
  %rows_37 = tensor.empty() : tensor<5xf32>
  %i0_37 = linalg.fill ins(%zero : f32) outs(%rows_37 : tensor<5xf32>) -> tensor<5xf32>

  // Layer norm: y = (x - mean) / sqrt(var + 1) * g.
  %sum_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_37 : tensor<5x37xf32>) outs(%i0_37 : tensor<5xf32>) {
  ^bb0(%in_37: f32, %o_37: f32):
    %a_37 = arith.addf %o_37, %in_37 : f32
    linalg.yield %a_37 : f32
  } -> tensor<5xf32>
  %var_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_37, %sum_37 : tensor<5x37xf32>, tensor<5xf32>) outs(%i0_37 : tensor<5xf32>) {
  ^bb0(%in_37: f32, %sm_37: f32, %o_37: f32):
    %m_37 = arith.divf %sm_37, %nf_37 : f32
    %d_37 = arith.subf %in_37, %m_37 : f32
    %d2_37 = arith.mulf %d_37, %d_37 : f32
    %a_37 = arith.addf %o_37, %d2_37 : f32
    linalg.yield %a_37 : f32
  } -> tensor<5xf32>
  %ye_37 = tensor.empty() : tensor<5x37xf32>
  %y_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_37, %sum_37, %var_37, %g_37 : tensor<5x37xf32>, tensor<5xf32>, tensor<5xf32>, tensor<37xf32>) outs(%ye_37 : tensor<5x37xf32>) {
  ^bb0(%in_37: f32, %sm_37: f32, %v_37: f32, %gj_37: f32, %o_37: f32):
    %m_37 = arith.divf %sm_37, %nf_37 : f32
    %vm_37 = arith.divf %v_37, %nf_37 : f32
    %ve_37 = arith.addf %vm_37, %one : f32
    %sd_37 = math.sqrt %ve_37 : f32
    %d_37 = arith.subf %in_37, %m_37 : f32
    %q_37 = arith.divf %d_37, %sd_37 : f32
    %w_37 = arith.mulf %q_37, %gj_37 : f32
    linalg.yield %w_37 : f32
  } -> tensor<5x37xf32>
  %yu_37 = tensor.cast %y_37 : tensor<5x37xf32> to tensor<*xf32>
  call @printMemrefF32(%yu_37) : (tensor<*xf32>) -> ()

  // Softmax: max, sum of exp(x - max), division.
  %i1_37 = linalg.fill ins(%ninf : f32) outs(%rows_37 : tensor<5xf32>) -> tensor<5xf32>
  %max_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_37 : tensor<5x37xf32>) outs(%i1_37 : tensor<5xf32>) {
  ^bb0(%in_37: f32, %o_37: f32):
    %a_37 = arith.maximumf %in_37, %o_37 : f32
    linalg.yield %a_37 : f32
  } -> tensor<5xf32>
  %den_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_37, %max_37 : tensor<5x37xf32>, tensor<5xf32>) outs(%i0_37 : tensor<5xf32>) {
  ^bb0(%in_37: f32, %m_37: f32, %o_37: f32):
    %d_37 = arith.subf %in_37, %m_37 : f32
    %ex_37 = math.exp %d_37 : f32
    %a_37 = arith.addf %o_37, %ex_37 : f32
    linalg.yield %a_37 : f32
  } -> tensor<5xf32>
  %pe_37 = tensor.empty() : tensor<5x37xf32>
  %p_37 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_37, %max_37, %den_37 : tensor<5x37xf32>, tensor<5xf32>, tensor<5xf32>) outs(%pe_37 : tensor<5x37xf32>) {
  ^bb0(%in_37: f32, %m_37: f32, %sm_37: f32, %o_37: f32):
    %d_37 = arith.subf %in_37, %m_37 : f32
    %ex_37 = math.exp %d_37 : f32
    %q_37 = arith.divf %ex_37, %sm_37 : f32
    linalg.yield %q_37 : f32
  } -> tensor<5x37xf32>
  %pu_37 = tensor.cast %p_37 : tensor<5x37xf32> to tensor<*xf32>
  call @printMemrefF32(%pu_37) : (tensor<*xf32>) -> ()


  // 3 rows of 300: x[i, j] = ((7 i + 3 j) mod 11) - 5, g[j] = (j mod 3) + 1.
  %e_300 = tensor.empty() : tensor<3x300xf32>
  %xs_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e_300 : tensor<3x300xf32>) {
  ^bb0(%out_300: f32):
    %i_300 = linalg.index 0 : index
    %j_300 = linalg.index 1 : index
    %ia_300 = arith.muli %i_300, %c7 : index
    %jb_300 = arith.muli %j_300, %c3 : index
    %s_300 = arith.addi %ia_300, %jb_300 : index
    %q_300 = arith.remui %s_300, %c11 : index
    %d_300 = arith.subi %q_300, %c5 : index
    %di_300 = arith.index_cast %d_300 : index to i64
    %f_300 = arith.sitofp %di_300 : i64 to f32
    linalg.yield %f_300 : f32
  } -> tensor<3x300xf32>
  %ge_300 = tensor.empty() : tensor<300xf32>
  %gs_300 = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]} outs(%ge_300 : tensor<300xf32>) {
  ^bb0(%out_300: f32):
    %j_300 = linalg.index 0 : index
    %q_300 = arith.remui %j_300, %c3 : index
    %qi_300 = arith.index_cast %q_300 : index to i64
    %f_300 = arith.sitofp %qi_300 : i64 to f32
    %g1_300 = arith.addf %f_300, %one : f32
    linalg.yield %g1_300 : f32
  } -> tensor<300xf32>
  %x_300 = tensor.cast %xs_300 : tensor<3x300xf32> to tensor<3x300xf32>
  %g_300 = tensor.cast %gs_300 : tensor<300xf32> to tensor<300xf32>
  %dim_300 = tensor.dim %x_300, %c1 : tensor<3x300xf32>
  %dimi_300 = arith.index_cast %dim_300 : index to i64
  %nf_300 = arith.sitofp %dimi_300 : i64 to f32
  %rows_300 = tensor.empty() : tensor<3xf32>
  %i0_300 = linalg.fill ins(%zero : f32) outs(%rows_300 : tensor<3xf32>) -> tensor<3xf32>

  // Layer norm: y = (x - mean) / sqrt(var + 1) * g.
  %sum_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_300 : tensor<3x300xf32>) outs(%i0_300 : tensor<3xf32>) {
  ^bb0(%in_300: f32, %o_300: f32):
    %a_300 = arith.addf %o_300, %in_300 : f32
    linalg.yield %a_300 : f32
  } -> tensor<3xf32>
  %var_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_300, %sum_300 : tensor<3x300xf32>, tensor<3xf32>) outs(%i0_300 : tensor<3xf32>) {
  ^bb0(%in_300: f32, %sm_300: f32, %o_300: f32):
    %m_300 = arith.divf %sm_300, %nf_300 : f32
    %d_300 = arith.subf %in_300, %m_300 : f32
    %d2_300 = arith.mulf %d_300, %d_300 : f32
    %a_300 = arith.addf %o_300, %d2_300 : f32
    linalg.yield %a_300 : f32
  } -> tensor<3xf32>
  %ye_300 = tensor.empty() : tensor<3x300xf32>
  %y_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_300, %sum_300, %var_300, %g_300 : tensor<3x300xf32>, tensor<3xf32>, tensor<3xf32>, tensor<300xf32>) outs(%ye_300 : tensor<3x300xf32>) {
  ^bb0(%in_300: f32, %sm_300: f32, %v_300: f32, %gj_300: f32, %o_300: f32):
    %m_300 = arith.divf %sm_300, %nf_300 : f32
    %vm_300 = arith.divf %v_300, %nf_300 : f32
    %ve_300 = arith.addf %vm_300, %one : f32
    %sd_300 = math.sqrt %ve_300 : f32
    %d_300 = arith.subf %in_300, %m_300 : f32
    %q_300 = arith.divf %d_300, %sd_300 : f32
    %w_300 = arith.mulf %q_300, %gj_300 : f32
    linalg.yield %w_300 : f32
  } -> tensor<3x300xf32>
  %yu_300 = tensor.cast %y_300 : tensor<3x300xf32> to tensor<*xf32>
  call @printMemrefF32(%yu_300) : (tensor<*xf32>) -> ()

  // Softmax: max, sum of exp(x - max), division.
  %i1_300 = linalg.fill ins(%ninf : f32) outs(%rows_300 : tensor<3xf32>) -> tensor<3xf32>
  %max_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_300 : tensor<3x300xf32>) outs(%i1_300 : tensor<3xf32>) {
  ^bb0(%in_300: f32, %o_300: f32):
    %a_300 = arith.maximumf %in_300, %o_300 : f32
    linalg.yield %a_300 : f32
  } -> tensor<3xf32>
  %den_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_300, %max_300 : tensor<3x300xf32>, tensor<3xf32>) outs(%i0_300 : tensor<3xf32>) {
  ^bb0(%in_300: f32, %m_300: f32, %o_300: f32):
    %d_300 = arith.subf %in_300, %m_300 : f32
    %ex_300 = math.exp %d_300 : f32
    %a_300 = arith.addf %o_300, %ex_300 : f32
    linalg.yield %a_300 : f32
  } -> tensor<3xf32>
  %pe_300 = tensor.empty() : tensor<3x300xf32>
  %p_300 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_300, %max_300, %den_300 : tensor<3x300xf32>, tensor<3xf32>, tensor<3xf32>) outs(%pe_300 : tensor<3x300xf32>) {
  ^bb0(%in_300: f32, %m_300: f32, %sm_300: f32, %o_300: f32):
    %d_300 = arith.subf %in_300, %m_300 : f32
    %ex_300 = math.exp %d_300 : f32
    %q_300 = arith.divf %ex_300, %sm_300 : f32
    linalg.yield %q_300 : f32
  } -> tensor<3x300xf32>
  %pu_300 = tensor.cast %p_300 : tensor<3x300xf32> to tensor<*xf32>
  call @printMemrefF32(%pu_300) : (tensor<*xf32>) -> ()


  // 2 rows of 768: x[i, j] = ((7 i + 3 j) mod 11) - 5, g[j] = (j mod 3) + 1.
  %e_768 = tensor.empty() : tensor<2x768xf32>
  %xs_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e_768 : tensor<2x768xf32>) {
  ^bb0(%out_768: f32):
    %i_768 = linalg.index 0 : index
    %j_768 = linalg.index 1 : index
    %ia_768 = arith.muli %i_768, %c7 : index
    %jb_768 = arith.muli %j_768, %c3 : index
    %s_768 = arith.addi %ia_768, %jb_768 : index
    %q_768 = arith.remui %s_768, %c11 : index
    %d_768 = arith.subi %q_768, %c5 : index
    %di_768 = arith.index_cast %d_768 : index to i64
    %f_768 = arith.sitofp %di_768 : i64 to f32
    linalg.yield %f_768 : f32
  } -> tensor<2x768xf32>
  %ge_768 = tensor.empty() : tensor<768xf32>
  %gs_768 = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]} outs(%ge_768 : tensor<768xf32>) {
  ^bb0(%out_768: f32):
    %j_768 = linalg.index 0 : index
    %q_768 = arith.remui %j_768, %c3 : index
    %qi_768 = arith.index_cast %q_768 : index to i64
    %f_768 = arith.sitofp %qi_768 : i64 to f32
    %g1_768 = arith.addf %f_768, %one : f32
    linalg.yield %g1_768 : f32
  } -> tensor<768xf32>
  %x_768 = tensor.cast %xs_768 : tensor<2x768xf32> to tensor<2x768xf32>
  %g_768 = tensor.cast %gs_768 : tensor<768xf32> to tensor<768xf32>
  %dim_768 = tensor.dim %x_768, %c1 : tensor<2x768xf32>
  %dimi_768 = arith.index_cast %dim_768 : index to i64
  %nf_768 = arith.sitofp %dimi_768 : i64 to f32
  %rows_768 = tensor.empty() : tensor<2xf32>
  %i0_768 = linalg.fill ins(%zero : f32) outs(%rows_768 : tensor<2xf32>) -> tensor<2xf32>

  // Layer norm: y = (x - mean) / sqrt(var + 1) * g.
  %sum_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_768 : tensor<2x768xf32>) outs(%i0_768 : tensor<2xf32>) {
  ^bb0(%in_768: f32, %o_768: f32):
    %a_768 = arith.addf %o_768, %in_768 : f32
    linalg.yield %a_768 : f32
  } -> tensor<2xf32>
  %var_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_768, %sum_768 : tensor<2x768xf32>, tensor<2xf32>) outs(%i0_768 : tensor<2xf32>) {
  ^bb0(%in_768: f32, %sm_768: f32, %o_768: f32):
    %m_768 = arith.divf %sm_768, %nf_768 : f32
    %d_768 = arith.subf %in_768, %m_768 : f32
    %d2_768 = arith.mulf %d_768, %d_768 : f32
    %a_768 = arith.addf %o_768, %d2_768 : f32
    linalg.yield %a_768 : f32
  } -> tensor<2xf32>
  %ye_768 = tensor.empty() : tensor<2x768xf32>
  %y_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_768, %sum_768, %var_768, %g_768 : tensor<2x768xf32>, tensor<2xf32>, tensor<2xf32>, tensor<768xf32>) outs(%ye_768 : tensor<2x768xf32>) {
  ^bb0(%in_768: f32, %sm_768: f32, %v_768: f32, %gj_768: f32, %o_768: f32):
    %m_768 = arith.divf %sm_768, %nf_768 : f32
    %vm_768 = arith.divf %v_768, %nf_768 : f32
    %ve_768 = arith.addf %vm_768, %one : f32
    %sd_768 = math.sqrt %ve_768 : f32
    %d_768 = arith.subf %in_768, %m_768 : f32
    %q_768 = arith.divf %d_768, %sd_768 : f32
    %w_768 = arith.mulf %q_768, %gj_768 : f32
    linalg.yield %w_768 : f32
  } -> tensor<2x768xf32>
  %yu_768 = tensor.cast %y_768 : tensor<2x768xf32> to tensor<*xf32>
  call @printMemrefF32(%yu_768) : (tensor<*xf32>) -> ()

  // Softmax: max, sum of exp(x - max), division.
  %i1_768 = linalg.fill ins(%ninf : f32) outs(%rows_768 : tensor<2xf32>) -> tensor<2xf32>
  %max_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_768 : tensor<2x768xf32>) outs(%i1_768 : tensor<2xf32>) {
  ^bb0(%in_768: f32, %o_768: f32):
    %a_768 = arith.maximumf %in_768, %o_768 : f32
    linalg.yield %a_768 : f32
  } -> tensor<2xf32>
  %den_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_768, %max_768 : tensor<2x768xf32>, tensor<2xf32>) outs(%i0_768 : tensor<2xf32>) {
  ^bb0(%in_768: f32, %m_768: f32, %o_768: f32):
    %d_768 = arith.subf %in_768, %m_768 : f32
    %ex_768 = math.exp %d_768 : f32
    %a_768 = arith.addf %o_768, %ex_768 : f32
    linalg.yield %a_768 : f32
  } -> tensor<2xf32>
  %pe_768 = tensor.empty() : tensor<2x768xf32>
  %p_768 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_768, %max_768, %den_768 : tensor<2x768xf32>, tensor<2xf32>, tensor<2xf32>) outs(%pe_768 : tensor<2x768xf32>) {
  ^bb0(%in_768: f32, %m_768: f32, %sm_768: f32, %o_768: f32):
    %d_768 = arith.subf %in_768, %m_768 : f32
    %ex_768 = math.exp %d_768 : f32
    %q_768 = arith.divf %ex_768, %sm_768 : f32
    linalg.yield %q_768 : f32
  } -> tensor<2x768xf32>
  %pu_768 = tensor.cast %p_768 : tensor<2x768xf32> to tensor<*xf32>
  call @printMemrefF32(%pu_768) : (tensor<*xf32>) -> ()


  // 4 rows of 5: x[i, j] = ((7 i + 3 j) mod 11) - 5, g[j] = (j mod 3) + 1.
  %e_5 = tensor.empty() : tensor<4x5xf32>
  %xs_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e_5 : tensor<4x5xf32>) {
  ^bb0(%out_5: f32):
    %i_5 = linalg.index 0 : index
    %j_5 = linalg.index 1 : index
    %ia_5 = arith.muli %i_5, %c7 : index
    %jb_5 = arith.muli %j_5, %c3 : index
    %s_5 = arith.addi %ia_5, %jb_5 : index
    %q_5 = arith.remui %s_5, %c11 : index
    %d_5 = arith.subi %q_5, %c5 : index
    %di_5 = arith.index_cast %d_5 : index to i64
    %f_5 = arith.sitofp %di_5 : i64 to f32
    linalg.yield %f_5 : f32
  } -> tensor<4x5xf32>
  %ge_5 = tensor.empty() : tensor<5xf32>
  %gs_5 = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]} outs(%ge_5 : tensor<5xf32>) {
  ^bb0(%out_5: f32):
    %j_5 = linalg.index 0 : index
    %q_5 = arith.remui %j_5, %c3 : index
    %qi_5 = arith.index_cast %q_5 : index to i64
    %f_5 = arith.sitofp %qi_5 : i64 to f32
    %g1_5 = arith.addf %f_5, %one : f32
    linalg.yield %g1_5 : f32
  } -> tensor<5xf32>
  %x_5 = tensor.cast %xs_5 : tensor<4x5xf32> to tensor<4x5xf32>
  %g_5 = tensor.cast %gs_5 : tensor<5xf32> to tensor<5xf32>
  %dim_5 = tensor.dim %x_5, %c1 : tensor<4x5xf32>
  %dimi_5 = arith.index_cast %dim_5 : index to i64
  %nf_5 = arith.sitofp %dimi_5 : i64 to f32
  %rows_5 = tensor.empty() : tensor<4xf32>
  %i0_5 = linalg.fill ins(%zero : f32) outs(%rows_5 : tensor<4xf32>) -> tensor<4xf32>

  // Layer norm: y = (x - mean) / sqrt(var + 1) * g.
  %sum_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_5 : tensor<4x5xf32>) outs(%i0_5 : tensor<4xf32>) {
  ^bb0(%in_5: f32, %o_5: f32):
    %a_5 = arith.addf %o_5, %in_5 : f32
    linalg.yield %a_5 : f32
  } -> tensor<4xf32>
  %var_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_5, %sum_5 : tensor<4x5xf32>, tensor<4xf32>) outs(%i0_5 : tensor<4xf32>) {
  ^bb0(%in_5: f32, %sm_5: f32, %o_5: f32):
    %m_5 = arith.divf %sm_5, %nf_5 : f32
    %d_5 = arith.subf %in_5, %m_5 : f32
    %d2_5 = arith.mulf %d_5, %d_5 : f32
    %a_5 = arith.addf %o_5, %d2_5 : f32
    linalg.yield %a_5 : f32
  } -> tensor<4xf32>
  %ye_5 = tensor.empty() : tensor<4x5xf32>
  %y_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_5, %sum_5, %var_5, %g_5 : tensor<4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>) outs(%ye_5 : tensor<4x5xf32>) {
  ^bb0(%in_5: f32, %sm_5: f32, %v_5: f32, %gj_5: f32, %o_5: f32):
    %m_5 = arith.divf %sm_5, %nf_5 : f32
    %vm_5 = arith.divf %v_5, %nf_5 : f32
    %ve_5 = arith.addf %vm_5, %one : f32
    %sd_5 = math.sqrt %ve_5 : f32
    %d_5 = arith.subf %in_5, %m_5 : f32
    %q_5 = arith.divf %d_5, %sd_5 : f32
    %w_5 = arith.mulf %q_5, %gj_5 : f32
    linalg.yield %w_5 : f32
  } -> tensor<4x5xf32>
  %yu_5 = tensor.cast %y_5 : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%yu_5) : (tensor<*xf32>) -> ()

  // Softmax: max, sum of exp(x - max), division.
  %i1_5 = linalg.fill ins(%ninf : f32) outs(%rows_5 : tensor<4xf32>) -> tensor<4xf32>
  %max_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_5 : tensor<4x5xf32>) outs(%i1_5 : tensor<4xf32>) {
  ^bb0(%in_5: f32, %o_5: f32):
    %a_5 = arith.maximumf %in_5, %o_5 : f32
    linalg.yield %a_5 : f32
  } -> tensor<4xf32>
  %den_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x_5, %max_5 : tensor<4x5xf32>, tensor<4xf32>) outs(%i0_5 : tensor<4xf32>) {
  ^bb0(%in_5: f32, %m_5: f32, %o_5: f32):
    %d_5 = arith.subf %in_5, %m_5 : f32
    %ex_5 = math.exp %d_5 : f32
    %a_5 = arith.addf %o_5, %ex_5 : f32
    linalg.yield %a_5 : f32
  } -> tensor<4xf32>
  %pe_5 = tensor.empty() : tensor<4x5xf32>
  %p_5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x_5, %max_5, %den_5 : tensor<4x5xf32>, tensor<4xf32>, tensor<4xf32>) outs(%pe_5 : tensor<4x5xf32>) {
  ^bb0(%in_5: f32, %m_5: f32, %sm_5: f32, %o_5: f32):
    %d_5 = arith.subf %in_5, %m_5 : f32
    %ex_5 = math.exp %d_5 : f32
    %q_5 = arith.divf %ex_5, %sm_5 : f32
    linalg.yield %q_5 : f32
  } -> tensor<4x5xf32>
  %pu_5 = tensor.cast %p_5 : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%pu_5) : (tensor<*xf32>) -> ()
  return
}
}
