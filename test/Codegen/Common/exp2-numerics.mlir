// RUN: tfm-opt %s -tfm-lower-to-llvm | %mlir_runner | FileCheck %s
// RUN: tfm-opt %s -tfm-approximate-math -tfm-lower-to-llvm | %mlir_runner | FileCheck %s

// Accuracy of -tfm-approximate-math's f32 exp2 (the tiled attention's
// softmax), vector<16xf32> and scalar, against f64 exp2 (libm) on 16384
// points of [-126, 128): the largest relative error, times 1e7, must stay
// below 2 (the polynomial's bound is 1.4e-7, vreduceps/vscalefps's 8.4e-8).
// Then the edges: -inf and anything at or below -150 give exactly 0 (a
// masked score), 0 and integers give exact powers of two, >= 128 gives
// +inf, NaN stays NaN.
//
// The first RUN compiles for the host: on an AVX-512 CPU the vectors take
// the vreduceps/vscalefps expansion, elsewhere the polynomial with its
// clamps. The second expands exp2 before the target is set (a module
// without a CPU target), so every host checks the polynomial too.

func.func @max_rel_err_vector() -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f64
  // 254 / 16384: x = -126 + (16 i + lane) * step covers [-126, 128).
  %step = arith.constant 0.0155029296875 : f32
  %step16 = arith.constant 0.248046875 : f32
  %lo = arith.constant -126.0 : f32
  %iota = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]> : vector<16xf32>
  %stepv = vector.broadcast %step : f32 to vector<16xf32>
  %lanes = arith.mulf %iota, %stepv : vector<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %off = arith.mulf %fi, %step16 : f32
    %x0 = arith.addf %lo, %off : f32
    %xb = vector.broadcast %x0 : f32 to vector<16xf32>
    %x = arith.addf %xb, %lanes : vector<16xf32>
    %y = math.exp2 %x : vector<16xf32>
    %x64 = arith.extf %x : vector<16xf32> to vector<16xf64>
    %y64 = arith.extf %y : vector<16xf32> to vector<16xf64>
    %ref = math.exp2 %x64 : vector<16xf64>
    %d = arith.subf %y64, %ref : vector<16xf64>
    %q = arith.divf %d, %ref : vector<16xf64>
    %a = math.absf %q : vector<16xf64>
    %mx = vector.reduction <maxnumf>, %a : vector<16xf64> into f64
    %m2 = arith.maxnumf %m, %mx : f64
    scf.yield %m2 : f64
  }
  return %r : f64
}

func.func @max_rel_err_scalar() -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16384 : index
  %zero = arith.constant 0.0 : f64
  %step = arith.constant 0.0155029296875 : f32
  %lo = arith.constant -126.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %off = arith.mulf %fi, %step : f32
    %x = arith.addf %lo, %off : f32
    %y = math.exp2 %x : f32
    %x64 = arith.extf %x : f32 to f64
    %y64 = arith.extf %y : f32 to f64
    %ref = math.exp2 %x64 : f64
    %d = arith.subf %y64, %ref : f64
    %q = arith.divf %d, %ref : f64
    %a = math.absf %q : f64
    %m2 = arith.maxnumf %m, %a : f64
    scf.yield %m2 : f64
  }
  return %r : f64
}

// Not folded: math.exp2 of a constant would be folded with libm's exp2f.
func.func @exp2_of(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp2 %x : vector<16xf32>
  return %y : vector<16xf32>
}

func.func @main() {
  %scale = arith.constant 1.0e7 : f64
  %ev = call @max_rel_err_vector() : () -> f64
  %es = call @max_rel_err_scalar() : () -> f64
  %two = arith.constant 2.0 : f64
  %evs = arith.mulf %ev, %scale : f64
  %ess = arith.mulf %es, %scale : f64
  %okv2 = arith.cmpf olt, %evs, %two : f64
  %oks2 = arith.cmpf olt, %ess, %two : f64
  // CHECK: vector ok: 1
  vector.print str "vector ok: "
  vector.print %okv2 : i1
  // CHECK: scalar ok: 1
  vector.print str "scalar ok: "
  vector.print %oks2 : i1
  %edges = arith.constant dense<[0xFF800000, -1000.0, -150.0, 0.0, 10.0, -3.0, 128.0, 1000.0, 0x7F800000, 0x7FC00000, 0.5, -0.5, 127.0, -126.0, 1.0, -1.0]> : vector<16xf32>
  %ee = call @exp2_of(%edges) : (vector<16xf32>) -> vector<16xf32>
  // CHECK: ( 0, 0, 0, 1, 1024, 0.125, inf, inf, inf, nan, 1.41421, 0.707107, 1.70141e+38, 1.17549e-38, 2, 0.5 )
  vector.print %ee : vector<16xf32>
  return
}
