;; The range test of int-range.ts over whole words: for each run of 32 Int32 values at
;; byte 0 of the memory, the word whose bit b is set when value b lies in [lo, lo + span]
;; (one unsigned comparison of value - lo, wrapping as in the JavaScript loop), stored at
;; `out` onwards; returns how many bits were set. Four values per instruction (SIMD):
;; subtract, compare unsigned, and take each lane's top bit.
(module
  (import "env" "memory" (memory 1))
  (func (export "range") (param $words i32) (param $lo i32) (param $span i32) (param $out i32) (result i32)
    (local $p i32) (local $end i32) (local $word i32) (local $passing i32) (local $vlo v128) (local $vspan v128)
    (local.set $vlo (i32x4.splat (local.get $lo)))
    (local.set $vspan (i32x4.splat (local.get $span)))
    (local.set $end (i32.shl (local.get $words) (i32.const 7)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $word
          (i32.or
            (i32.or
              (i32.or
                (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=0 (local.get $p)) (local.get $vlo)) (local.get $vspan)))
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=16 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 4)))
              (i32.or
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=32 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 8))
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=48 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 12))))
            (i32.or
              (i32.or
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=64 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 16))
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=80 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 20)))
              (i32.or
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=96 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 24))
                (i32.shl (i32x4.bitmask (i32x4.le_u (i32x4.sub (v128.load offset=112 (local.get $p)) (local.get $vlo)) (local.get $vspan))) (i32.const 28))))))
        (i32.store (local.get $out) (local.get $word))
        (local.set $passing (i32.add (local.get $passing) (i32.popcnt (local.get $word))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $p (i32.add (local.get $p) (i32.const 128)))
        (br $next)))
    (local.get $passing)))
