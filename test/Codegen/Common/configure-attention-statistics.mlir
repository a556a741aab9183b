// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152' -tfm-configure-attention -tfm-tile-sram -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COST
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152' -tfm-configure-attention=untiled-max-keys=0 -tfm-tile-sram -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL
// Nested on func.func, where MLIR runs copies of the passes on several
// threads: the copies' counts add up.
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256},func.func(tfm-configure-attention,tfm-tile-sram))' -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED
// A second run finds every op configured (the untiled ones included) and
// counts nothing; the pipeline view shows both instances, the list view
// sums them.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152' -tfm-configure-attention -tfm-tile-sram -tfm-configure-attention -tfm-tile-sram -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152' -tfm-configure-attention -tfm-tile-sram -tfm-configure-attention -tfm-tile-sram -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SUM
// Without the flag, no report.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152' -tfm-configure-attention -tfm-tile-sram -o /dev/null 2>&1 | count 0
// The names and descriptions printed here are those of Passes.td, as the
// generated reference shows them.
// RUN: FileCheck %s --check-prefix=DOC --input-file=%tfm_src/docs/reference/Passes/TfmCodegenCommonPasses.md

// The counters of -tfm-configure-attention and -tfm-tile-sram over three
// attention ops (the cases of tile-sram-cost-model.mlir): with the default
// untiled-max-keys=256 the dynamic Tk is configured and tiled (behind a
// branch on Tk), Tk = 128 is kept untiled and Tk = 512 is tiled; without
// the cost model all three are tiled.

// COST-LABEL: Pass statistics report
// COST-NEXT: ===---
// COST-NEXT: {{^}}SetTargetPass
// COST-NEXT: {{^}}ConfigureAttentionPass
// COST-NEXT: {{^  }}(S) 2 configured   - tfm.attention ops given tiles
// COST-NEXT: {{^  }}(S) 0 flash        - tfm.attention ops given the tensor-core kernel
// COST-NEXT: {{^  }}(S) 1 kept-untiled - tfm.attention ops left untiled (static Tk <= untiled-max-keys, or no tile fits a GPU block)
// COST-NEXT: {{^}}TileSramPass
// COST-NEXT: {{^  }}(S) 2 tiled - tfm.attention ops tiled
// COST-NOT: (S)

// ALL-LABEL: Pass statistics report
// ALL-NEXT: ===---
// ALL: {{^  }}ConfigureAttentionPass
// ALL-NEXT: (S) 3 configured
// ALL-NEXT: (S) 0 flash
// ALL-NEXT: (S) 0 kept-untiled
// ALL: {{^  }}TileSramPass
// ALL-NEXT: (S) 3 tiled - tfm.attention ops tiled
// ALL-NOT: (S)

// NESTED-LABEL: Pass statistics report
// NESTED-NEXT: ===---
// NESTED-NEXT: {{^}}SetTargetPass
// NESTED-NEXT: {{^}}'func.func' Pipeline
// NESTED-NEXT: {{^  }}ConfigureAttentionPass
// NESTED-NEXT: (S) 2 configured
// NESTED-NEXT: (S) 0 flash
// NESTED-NEXT: (S) 1 kept-untiled
// NESTED-NEXT: {{^  }}TileSramPass
// NESTED-NEXT: (S) 2 tiled
// NESTED-NOT: (S)

// TWICE-LABEL: Pass statistics report
// TWICE-NEXT: ===---
// TWICE-NEXT: {{^}}SetTargetPass
// TWICE-NEXT: {{^}}ConfigureAttentionPass
// TWICE-NEXT: (S) 2 configured
// TWICE-NEXT: (S) 0 flash
// TWICE-NEXT: (S) 1 kept-untiled
// TWICE-NEXT: {{^}}TileSramPass
// TWICE-NEXT: (S) 2 tiled
// TWICE-NEXT: {{^}}ConfigureAttentionPass
// TWICE-NEXT: (S) 0 configured
// TWICE-NEXT: (S) 0 flash
// TWICE-NEXT: (S) 0 kept-untiled
// TWICE-NEXT: {{^}}TileSramPass
// TWICE-NEXT: (S) 0 tiled
// TWICE-NOT: (S)

// SUM-LABEL: Pass statistics report
// SUM-NEXT: ===---
// SUM: {{^  }}ConfigureAttentionPass
// SUM-NEXT: (S) 2 configured
// SUM-NEXT: (S) 0 flash
// SUM-NEXT: (S) 1 kept-untiled
// SUM: {{^  }}TileSramPass
// SUM-NEXT: (S) 2 tiled
// SUM-NOT: TileSramPass

// DOC: ### `-tfm-configure-attention`
// DOC: #### Statistics
// DOC: configured   : tfm.attention ops given tiles
// DOC-NEXT: flash        : tfm.attention ops given the tensor-core kernel
// DOC-NEXT: kept-untiled : tfm.attention ops left untiled (static Tk <= untiled-max-keys, or no tile fits a GPU block)
// DOC: ### `-tfm-tile-sram`
// DOC: #### Statistics
// DOC: tiled : tfm.attention ops tiled

func.func @dynamic_keys(%q: tensor<?x4x?x32xf32>, %k: tensor<?x4x?x32xf32>, %v: tensor<?x4x?x32xf32>) -> tensor<?x4x?x32xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32> -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}

func.func @short_static(%q: tensor<?x4x128x32xf32>, %k: tensor<?x4x128x32xf32>, %v: tensor<?x4x128x32xf32>) -> tensor<?x4x128x32xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x128x32xf32>, tensor<?x4x128x32xf32>, tensor<?x4x128x32xf32> -> tensor<?x4x128x32xf32>
  return %o : tensor<?x4x128x32xf32>
}

func.func @long_static(%q: tensor<?x4x512x32xf32>, %k: tensor<?x4x512x32xf32>, %v: tensor<?x4x512x32xf32>) -> tensor<?x4x512x32xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x512x32xf32>, tensor<?x4x512x32xf32>, tensor<?x4x512x32xf32> -> tensor<?x4x512x32xf32>
  return %o : tensor<?x4x512x32xf32>
}
