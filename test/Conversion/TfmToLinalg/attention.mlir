// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// GQA: 8 query heads over 2 K/V heads are regrouped [B, 2, 4, Tq, D]; K is
// read with (b, n, j, d), so no repeated K/V is materialized.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>
// CHECK-LABEL: func @attention_gqa_causal_padding
// CHECK-SAME: (%[[QA:.*]]: tensor<?x8x?x64xf32>, %[[KA:.*]]: tensor<?x2x?x64xf32>, %[[VA:.*]]: tensor<?x2x?x64xf32>, %[[LEN:.*]]: tensor<?xi32>)
// CHECK-NOT: tfm.
// CHECK: %[[TQ:[^ ]*]] = tensor.dim %[[QA]], %c2 :
// CHECK: %[[TK:[^ ]*]] = tensor.dim %[[KA]], %c2{{[_0-9]*}} :
// CHECK: %[[QG:.*]] = tensor.expand_shape %[[QA]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} into tensor<?x2x4x?x64xf32>
// CHECK: %[[SC:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QG]], %[[KA]] :
// Scale and mask: -inf unless j < lengths[b] and j <= i + (Tk - Tq).
// CHECK: %[[OFF:.*]] = arith.subi %[[TK]], %[[TQ]] : index
// CHECK: linalg.generic {{.*}} ins(%[[SC]], %[[LEN]] : tensor<?x2x4x?x?xf32>, tensor<?xi32>)
// CHECK-NEXT: ^bb0(%{{[^:]*}}: f32, %[[L:[^:]*]]: i32, %{{[^:]*}}: f32):
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[I:.*]] = linalg.index 3 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 4 : index
// CHECK-NEXT: %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK-NEXT: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[LI]] : index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]] : index
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[INLEN]], %[[CAUSAL]] : i1
// CHECK-NEXT: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.select %[[VIS]], %{{.*}}, %[[NEGINF]] : f32
// Row max, exp (0 where the max is -inf), sum, P.V, normalization.
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.cmpf one
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[S]]]{{.*}} ins(%{{.*}}, %[[VA]] :
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x4x?x64xf32> into tensor<?x8x?x64xf32>
func.func @attention_gqa_causal_padding(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %l: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%l : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// Sliding window: j <= i + off and i + off - j < window (4), with
// off = Tk - Tq = 7 - 5; ALiBi slope per head times |i + off - j|, bias.
// CHECK-LABEL: func @attention_window_alibi_bias
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 1, 4, 5, 7] : tensor<2x4x5x7xf32> into tensor<2x1x4x5x7xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[TK:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[TQ:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.subi %[[TK]], %[[TQ]] : index
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%{{[^:]*}}: f32, %{{[^:]*}}: f32, %[[SLOPE:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK: arith.addf
// CHECK-NEXT: %[[I:.*]] = linalg.index 3 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 4 : index
// CHECK-NEXT: %[[APOS:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: %[[AD:.*]] = arith.subi %[[APOS]], %[[J]] : index
// CHECK-NEXT: %[[ADI:.*]] = arith.index_cast %[[AD]] : index to i64
// CHECK-NEXT: %[[ADF:.*]] = arith.sitofp %[[ADI]] : i64 to f32
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[ADF]] : f32
// CHECK-NEXT: %[[PEN:.*]] = arith.mulf %[[SLOPE]], %[[ABS]] : f32
// CHECK-NEXT: arith.subf %{{.*}}, %[[PEN]] : f32
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]] : index
// CHECK-NEXT: %[[DIST:.*]] = arith.subi %[[POS]], %[[J]] : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[INWIN:.*]] = arith.cmpi slt, %[[DIST]], %[[W]] : index
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[CAUSAL]], %[[INWIN]] : i1
// CHECK-NEXT: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.select %[[VIS]], %{{.*}}, %[[NEGINF]] : f32
func.func @attention_window_alibi_bias(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x8xf32>, %v: tensor<2x1x7x8xf32>, %s: tensor<4xf32>, %b: tensor<2x4x5x7xf32>) -> tensor<2x4x5x8xf32> {
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<4xf32>) bias(%b : tensor<2x4x5x7xf32>) {mask = #tfm.mask<sliding_window>, window = 4 : i64, scale = 0.5} : tensor<2x4x5x8xf32>, tensor<2x1x7x8xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

// With offsets, query i of sequence b sits at key position offsets[b] + i:
// the offsets are an input of the mask generic, read with the map (b), and
// take the place of Tk - Tq.
// CHECK-DAG: #[[S5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[B5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0)>
// CHECK-LABEL: func @attention_offsets
// CHECK-SAME: (%{{[^:]*}}: tensor<?x4x?x16xf32>, %{{[^:]*}}: tensor<?x2x?x16xf32>, %{{[^:]*}}: tensor<?x2x?x16xf32>, %[[OFFS:[^:]*]]: tensor<?xi64>)
// CHECK: %[[SC:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic {indexing_maps = [#[[S5]], #[[B5]], #[[S5]]]{{.*}} ins(%[[SC]], %[[OFFS]] : tensor<?x2x2x?x?xf32>, tensor<?xi64>)
// CHECK-NEXT: ^bb0(%[[IN:[^:]*]]: f32, %[[O:[^:]*]]: i64, %{{[^:]*}}: f32):
// CHECK-NEXT: %[[OFF:.*]] = arith.index_cast %[[O]] : i64 to index
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[SS:.*]] = arith.mulf %[[IN]], %[[SCALE]] : f32
// CHECK-NEXT: %[[I:.*]] = linalg.index 3 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 4 : index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]] : index
// CHECK-NEXT: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.select %[[CAUSAL]], %[[SS]], %[[NEGINF]] : f32
// CHECK: math.exp
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x2x?x16xf32> into tensor<?x4x?x16xf32>
func.func @attention_offsets(%q: tensor<?x4x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>, %off: tensor<?xi64>) -> tensor<?x4x?x16xf32> {
  %o = tfm.attention %q, %k, %v offsets(%off : tensor<?xi64>) {mask = #tfm.mask<causal>, scale = 0.25} : tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// cache_append: one scf.for over the sequences of the cache, carrying the
// cache. Sequence b's offset is clamped into [0, C]; its row count to
// [0, min(C - offset, T)]; its first n rows of the update go to
// [b, 2, 1, 0, offset, 0] of the [B, 3, 2, 4, C, 16] cache (the index dims
// are unit sizes, dropped by a rank-reducing insert).
// CHECK-LABEL: func @cache_append
// CHECK-SAME: (%[[U:[^:]*]]: tensor<?x4x?x16xf32>, %[[C:[^:]*]]: tensor<?x3x2x4x?x16xf32>, %[[OFFS:[^:]*]]: tensor<?xi32>, %[[LENS:[^:]*]]: tensor<?xi32>)
// CHECK: %[[BS:.*]] = tensor.dim %[[C]], %c0 : tensor<?x3x2x4x?x16xf32>
// CHECK: %[[CAP:.*]] = tensor.dim %[[C]], %c4 : tensor<?x3x2x4x?x16xf32>
// CHECK: %[[ROWS:.*]] = tensor.dim %[[U]], %c2 : tensor<?x4x?x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[R:.*]] = scf.for %[[SEQ:.*]] = %[[ZERO]] to %[[BS]] step %[[ONE]] iter_args(%[[ACC:.*]] = %[[C]]) -> (tensor<?x3x2x4x?x16xf32>) {
// CHECK-NEXT: %[[O:.*]] = tensor.extract %[[OFFS]][%[[SEQ]]] : tensor<?xi32>
// CHECK-NEXT: %[[OI:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK-NEXT: %[[OLO:.*]] = arith.maxsi %[[OI]], %[[ZERO]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.minsi %[[OLO]], %[[CAP]] : index
// CHECK-NEXT: %[[ROOM:.*]] = arith.subi %[[CAP]], %[[OFF]] : index
// CHECK-NEXT: %[[L:.*]] = tensor.extract %[[LENS]][%[[SEQ]]] : tensor<?xi32>
// CHECK-NEXT: %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK-NEXT: %[[MAXN:.*]] = arith.minsi %[[ROOM]], %[[ROWS]] : index
// CHECK-NEXT: %[[NLO:.*]] = arith.maxsi %[[LI]], %[[ZERO]] : index
// CHECK-NEXT: %[[N:.*]] = arith.minsi %[[NLO]], %[[MAXN]] : index
// CHECK-NEXT: %[[NEW:.*]] = tensor.extract_slice %[[U]][%[[SEQ]], 0, 0, 0] [1, 4, %[[N]], 16] [1, 1, 1, 1] : tensor<?x4x?x16xf32> to tensor<1x4x?x16xf32>
// CHECK-NEXT: %[[INS:.*]] = tensor.insert_slice %[[NEW]] into %[[ACC]][%[[SEQ]], 2, 1, 0, %[[OFF]], 0] [1, 1, 1, 4, %[[N]], 16] [1, 1, 1, 1, 1, 1] : tensor<1x4x?x16xf32> into tensor<?x3x2x4x?x16xf32>
// CHECK-NEXT: scf.yield %[[INS]] : tensor<?x3x2x4x?x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @cache_append(%u: tensor<?x4x?x16xf32>, %c: tensor<?x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) -> tensor<?x3x2x4x?x16xf32> {
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 2, 1>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  return %r : tensor<?x3x2x4x?x16xf32>
}

// -----

// A bf16 cache (-tfm-narrow-kv-cache): each sequence's f32 rows are
// rounded (arith.truncf) into a bf16 tile, which the insert writes.
// CHECK-LABEL: func @cache_append_bf16
// CHECK: scf.for {{.*}} -> (tensor<?x4x?x16xbf16>) {
// CHECK: %[[NEW:.*]] = tensor.extract_slice %{{.*}} : tensor<?x4x?x16xf32> to tensor<1x4x?x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[NEW]] : tensor<1x4x?x16xf32>) outs(%{{.*}} : tensor<1x4x?x16xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.insert_slice %[[R]] into %{{.*}} : tensor<1x4x?x16xbf16> into tensor<?x4x?x16xbf16>
func.func @cache_append_bf16(%u: tensor<?x4x?x16xf32>, %c: tensor<?x4x?x16xbf16>, %off: tensor<?xi32>, %len: tensor<?xi32>) -> tensor<?x4x?x16xbf16> {
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xbf16>
  return %r : tensor<?x4x?x16xbf16>
}

// -----

// Without 'index', static shapes: the bounds are constants (B = 2, C = 32,
// T = 3) and the slice goes to [b, 0, offset, 0] of the [B, H, C, D] cache.
// CHECK-LABEL: func @cache_append_static
// CHECK-SAME: (%[[U:[^:]*]]: tensor<2x4x3x16xf32>, %[[C:[^:]*]]: tensor<2x4x32x16xf32>, %[[OFFS:[^:]*]]: tensor<2xi64>, %[[LENS:[^:]*]]: tensor<2xi32>)
// CHECK-DAG: %[[B:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[CAP:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[T:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[SEQ:.*]] = %{{.*}} to %[[B]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (tensor<2x4x32x16xf32>) {
// CHECK-NEXT: %[[O:.*]] = tensor.extract %[[OFFS]][%[[SEQ]]] : tensor<2xi64>
// CHECK-NEXT: %[[OI:.*]] = arith.index_cast %[[O]] : i64 to index
// CHECK-NEXT: %[[OLO:.*]] = arith.maxsi %[[OI]], %{{.*}} : index
// CHECK-NEXT: %[[OFF:.*]] = arith.minsi %[[OLO]], %[[CAP]] : index
// CHECK-NEXT: %[[ROOM:.*]] = arith.subi %[[CAP]], %[[OFF]] : index
// CHECK: %[[MAXN:.*]] = arith.minsi %[[ROOM]], %[[T]] : index
// CHECK: %[[N:.*]] = arith.minsi %{{.*}}, %[[MAXN]] : index
// CHECK-NEXT: %[[NEW:.*]] = tensor.extract_slice %[[U]][%[[SEQ]], 0, 0, 0] [1, 4, %[[N]], 16] [1, 1, 1, 1] : tensor<2x4x3x16xf32> to tensor<1x4x?x16xf32>
// CHECK-NEXT: tensor.insert_slice %[[NEW]] into %[[ACC]][%[[SEQ]], 0, %[[OFF]], 0] [1, 4, %[[N]], 16] [1, 1, 1, 1] : tensor<1x4x?x16xf32> into tensor<2x4x32x16xf32>
func.func @cache_append_static(%u: tensor<2x4x3x16xf32>, %c: tensor<2x4x32x16xf32>, %off: tensor<2xi64>, %len: tensor<2xi32>) -> tensor<2x4x32x16xf32> {
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<2x4x3x16xf32>, tensor<2xi64>, tensor<2xi32> -> tensor<2x4x32x16xf32>
  return %r : tensor<2x4x32x16xf32>
}

// -----

// CHECK-LABEL: func @softmax_axis1
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG]] : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.select
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
func.func @softmax_axis1(%x: tensor<?x5x3xf32>) -> tensor<?x5x3xf32> {
  %y = tfm.softmax %x {axis = 1 : i64} : tensor<?x5x3xf32>
  return %y : tensor<?x5x3xf32>
}

// -----

// CHECK-LABEL: func @heads
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 4, 16] : tensor<?x?x64xf32> into tensor<?x?x4x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x?x4x16xf32>) outs(%{{.*}} : tensor<?x4x?x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x4x?x16xf32>) outs(%{{.*}} : tensor<?x?x4x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<?x?x4x16xf32> into tensor<?x?x64xf32>
func.func @heads(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %s = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %m = tfm.merge_heads %s : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %m : tensor<?x?x64xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x?x4xf32>) outs(%{{.*}} : tensor<4x2x?xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x?x4xf32>) -> tensor<4x2x?xf32> {
  %y = tfm.transpose %x [2, 0, 1] : (tensor<2x?x4xf32>) -> tensor<4x2x?xf32>
  return %y : tensor<4x2x?xf32>
}

// -----

// CHECK-LABEL: func @unfused_mask
// CHECK-SAME: (%[[S:[^:]*]]: tensor<?x2x?x?xf32>, %{{[^:]*}}: tensor<?x2x?x?xi1>, %[[ML:[^:]*]]: tensor<?xi32>
// make_mask: blocked = !(j < len && j <= i + off), off = Tk - Tq.
// CHECK: %[[MTQ:[^ ]*]] = tensor.dim %[[S]], %c2 :
// CHECK: %[[MTK:[^ ]*]] = tensor.dim %[[S]], %c3 :
// CHECK-NEXT: %[[MOFF:.*]] = arith.subi %[[MTK]], %[[MTQ]] : index
// CHECK: linalg.generic {{.*}} ins(%[[ML]] : tensor<?xi32>) outs(%{{.*}} : tensor<?x2x?x?xi1>)
// CHECK-NEXT: ^bb0(%[[MLEN:[^:]*]]: i32, %{{[^:]*}}: i1):
// CHECK-NEXT: %[[MI:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[MJ:.*]] = linalg.index 3 : index
// CHECK-NEXT: %[[MLI:.*]] = arith.index_cast %[[MLEN]] : i32 to index
// CHECK-NEXT: %[[MINLEN:.*]] = arith.cmpi slt, %[[MJ]], %[[MLI]] : index
// CHECK-NEXT: %[[MPOS:.*]] = arith.addi %[[MI]], %[[MOFF]] : index
// CHECK-NEXT: %[[MCAUSAL:.*]] = arith.cmpi sle, %[[MJ]], %[[MPOS]] : index
// CHECK-NEXT: %[[MVIS:.*]] = arith.andi %[[MINLEN]], %[[MCAUSAL]] : i1
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: arith.xori %[[MVIS]], %[[TRUE]] : i1
// masked_fill
// CHECK: linalg.generic
// CHECK: arith.constant -1.000000e+09 : f32
// CHECK: arith.select
// alibi_bias: -slope[h] * |i + off - j|
// CHECK: math.absf
// CHECK: arith.negf
// repeat_kv: broadcast then collapse.
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<?x2x?x8xf32>) outs(%{{.*}} : tensor<?x2x3x?x8xf32>) dimensions = [2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x3x?x8xf32> into tensor<?x6x?x8xf32>
func.func @unfused_mask(%s: tensor<?x2x?x?xf32>, %m1: tensor<?x2x?x?xi1>, %l: tensor<?xi32>, %slopes: tensor<2xf32>, %kv: tensor<?x2x?x8xf32>) -> (tensor<?x2x?x?xi1>, tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>, tensor<?x6x?x8xf32>) {
  %m = tfm.make_mask %s key_lengths(%l : tensor<?xi32>) <causal> : tensor<?x2x?x?xf32> -> tensor<?x2x?x?xi1>
  %f = tfm.masked_fill %s, %m1 {value = -1.0e9 : f64} : tensor<?x2x?x?xf32>, tensor<?x2x?x?xi1>
  %a = tfm.alibi_bias %s, %slopes : (tensor<?x2x?x?xf32>, tensor<2xf32>) -> tensor<?x2x?x?xf32>
  %r = tfm.repeat_kv %kv {repeats = 3 : i64} : (tensor<?x2x?x8xf32>) -> tensor<?x6x?x8xf32>
  return %m, %f, %a, %r : tensor<?x2x?x?xi1>, tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>, tensor<?x6x?x8xf32>
}
