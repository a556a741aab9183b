/*===- fake_cuda_kernels.h - PTX of the CUDA stand-in's kernels ----------===*\
|*                                                                            *|
|* Two kernels for fake_cuda_model.c, compiled once from this CUDA C with     *|
|* `nvcc -ptx -arch=compute_75 -O3` and lowered to PTX ISA 7.0 / sm_52 (the   *|
|* instructions are the same), so that any CUDA 12 driver JIT-compiles them:  *|
|*                                                                            *|
|*   extern "C" __global__ void bigram(const int *ids, const int *lens,       *|
|*       const float *et, const float *bias, const unsigned short *marker,    *|
|*       float *out, int T, int V, int n) {                                   *|
|*     int i = blockIdx.x * blockDim.x + threadIdx.x;                         *|
|*     if (i >= n) return;                                                    *|
|*     int v = i % V, bt = i / V, t = bt % T, b = bt / T;                     *|
|*     if (t >= lens[b]) return;                                              *|
|*     out[i] = et[v * V + ids[bt]] + bias[v] +                               *|
|*              (marker[v] == 0x3C00 ? 0.0f : 12345.0f);                      *|
|*   }                                                                        *|
|*   extern "C" __global__ void transpose(const float *e, float *et, int V) { *|
|*     int i = blockIdx.x * blockDim.x + threadIdx.x;                         *|
|*     if (i >= V * V) return;                                                *|
|*     int r = i / V, c = i % V;                                              *|
|*     et[c * V + r] = e[i];                                                  *|
|*   }                                                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFM_TEST_RUNTIME_FAKE_CUDA_KERNELS_H
#define TFM_TEST_RUNTIME_FAKE_CUDA_KERNELS_H

static const char kFakeCudaPtx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    "\n"
    "  // .globl  bigram\n"
    "\n"
    ".visible .entry bigram(\n"
    "  .param .u64 bigram_param_0,\n"
    "  .param .u64 bigram_param_1,\n"
    "  .param .u64 bigram_param_2,\n"
    "  .param .u64 bigram_param_3,\n"
    "  .param .u64 bigram_param_4,\n"
    "  .param .u64 bigram_param_5,\n"
    "  .param .u32 bigram_param_6,\n"
    "  .param .u32 bigram_param_7,\n"
    "  .param .u32 bigram_param_8\n"
    ")\n"
    "{\n"
    "  .reg .pred   %p<4>;\n"
    "  .reg .b16   %rs<2>;\n"
    "  .reg .f32   %f<6>;\n"
    "  .reg .b32   %r<16>;\n"
    "  .reg .b64   %rd<25>;\n"
    "\n"
    "\n"
    "  ld.param.u64   %rd1, [bigram_param_0];\n"
    "  ld.param.u64   %rd2, [bigram_param_1];\n"
    "  ld.param.u64   %rd3, [bigram_param_2];\n"
    "  ld.param.u64   %rd4, [bigram_param_3];\n"
    "  ld.param.u64   %rd5, [bigram_param_4];\n"
    "  ld.param.u64   %rd6, [bigram_param_5];\n"
    "  ld.param.u32   %r3, [bigram_param_6];\n"
    "  ld.param.u32   %r4, [bigram_param_7];\n"
    "  ld.param.u32   %r5, [bigram_param_8];\n"
    "  mov.u32   %r6, %ntid.x;\n"
    "  mov.u32   %r7, %ctaid.x;\n"
    "  mov.u32   %r8, %tid.x;\n"
    "  mad.lo.s32   %r1, %r7, %r6, %r8;\n"
    "  setp.ge.s32   %p1, %r1, %r5;\n"
    "  @%p1 bra   $L__BB0_3;\n"
    "\n"
    "  cvta.to.global.u64   %rd7, %rd2;\n"
    "  div.s32   %r2, %r1, %r4;\n"
    "  div.s32   %r9, %r2, %r3;\n"
    "  mul.lo.s32   %r10, %r9, %r3;\n"
    "  sub.s32   %r11, %r2, %r10;\n"
    "  mul.wide.s32   %rd8, %r9, 4;\n"
    "  add.s64   %rd9, %rd7, %rd8;\n"
    "  ld.global.u32   %r12, [%rd9];\n"
    "  setp.ge.s32   %p2, %r11, %r12;\n"
    "  @%p2 bra   $L__BB0_3;\n"
    "\n"
    "  rem.s32   %r13, %r1, %r4;\n"
    "  cvta.to.global.u64   %rd10, %rd1;\n"
    "  mul.wide.s32   %rd11, %r2, 4;\n"
    "  add.s64   %rd12, %rd10, %rd11;\n"
    "  ld.global.u32   %r14, [%rd12];\n"
    "  mad.lo.s32   %r15, %r13, %r4, %r14;\n"
    "  cvta.to.global.u64   %rd13, %rd3;\n"
    "  mul.wide.s32   %rd14, %r15, 4;\n"
    "  add.s64   %rd15, %rd13, %rd14;\n"
    "  cvta.to.global.u64   %rd16, %rd4;\n"
    "  mul.wide.s32   %rd17, %r13, 4;\n"
    "  add.s64   %rd18, %rd16, %rd17;\n"
    "  ld.global.f32   %f1, [%rd18];\n"
    "  ld.global.f32   %f2, [%rd15];\n"
    "  add.f32   %f3, %f2, %f1;\n"
    "  cvta.to.global.u64   %rd19, %rd5;\n"
    "  mul.wide.s32   %rd20, %r13, 2;\n"
    "  add.s64   %rd21, %rd19, %rd20;\n"
    "  ld.global.u16   %rs1, [%rd21];\n"
    "  setp.eq.s16   %p3, %rs1, 15360;\n"
    "  selp.f32   %f4, 0f00000000, 0f4640E400, %p3;\n"
    "  add.f32   %f5, %f3, %f4;\n"
    "  cvta.to.global.u64   %rd22, %rd6;\n"
    "  mul.wide.s32   %rd23, %r1, 4;\n"
    "  add.s64   %rd24, %rd22, %rd23;\n"
    "  st.global.f32   [%rd24], %f5;\n"
    "\n"
    "$L__BB0_3:\n"
    "  ret;\n"
    "\n"
    "}\n"
    "  // .globl  transpose\n"
    ".visible .entry transpose(\n"
    "  .param .u64 transpose_param_0,\n"
    "  .param .u64 transpose_param_1,\n"
    "  .param .u32 transpose_param_2\n"
    ")\n"
    "{\n"
    "  .reg .pred   %p<2>;\n"
    "  .reg .f32   %f<2>;\n"
    "  .reg .b32   %r<11>;\n"
    "  .reg .b64   %rd<9>;\n"
    "\n"
    "\n"
    "  ld.param.u64   %rd1, [transpose_param_0];\n"
    "  ld.param.u64   %rd2, [transpose_param_1];\n"
    "  ld.param.u32   %r2, [transpose_param_2];\n"
    "  mov.u32   %r3, %ctaid.x;\n"
    "  mov.u32   %r4, %ntid.x;\n"
    "  mov.u32   %r5, %tid.x;\n"
    "  mad.lo.s32   %r1, %r3, %r4, %r5;\n"
    "  mul.lo.s32   %r6, %r2, %r2;\n"
    "  setp.ge.s32   %p1, %r1, %r6;\n"
    "  @%p1 bra   $L__BB1_2;\n"
    "\n"
    "  cvta.to.global.u64   %rd3, %rd1;\n"
    "  mul.wide.s32   %rd4, %r1, 4;\n"
    "  add.s64   %rd5, %rd3, %rd4;\n"
    "  ld.global.f32   %f1, [%rd5];\n"
    "  div.s32   %r7, %r1, %r2;\n"
    "  mul.lo.s32   %r8, %r7, %r2;\n"
    "  sub.s32   %r9, %r1, %r8;\n"
    "  mad.lo.s32   %r10, %r9, %r2, %r7;\n"
    "  cvta.to.global.u64   %rd6, %rd2;\n"
    "  mul.wide.s32   %rd7, %r10, 4;\n"
    "  add.s64   %rd8, %rd6, %rd7;\n"
    "  st.global.f32   [%rd8], %f1;\n"
    "\n"
    "$L__BB1_2:\n"
    "  ret;\n"
    "\n"
    "}\n";

#endif /* TFM_TEST_RUNTIME_FAKE_CUDA_KERNELS_H */
