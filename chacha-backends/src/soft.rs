//! `soft`: the portable backend, plain Rust on `u32`s, no `unsafe`.
//!
//! Runs everywhere and is what every other target falls back to. Blocks are computed
//! word-sliced, [`LANES`] at a time: each state word is an array `[u32; LANES]` holding
//! that word of `LANES` consecutive blocks,
//!
//! ```text
//! x[w] = [ word w of block c, word w of block c+1, word w of block c+2, word w of block c+3 ]
//! ```
//!
//! so the quarter rounds of the four blocks are independent and run side by side (the
//! compiler turns them into the target's baseline vector instructions where it has any).
//! A final group of one block uses a one-lane pass instead: a lone block is a single
//! dependency chain either way, and one lane does a quarter of the work.
#![forbid(unsafe_code)]

use chacha_core::{Block, Kernel, Rounds, State, Variant, inout::InOutBuf};

/// Blocks per word-sliced pass.
pub const LANES: usize = 4;

/// The portable backend; usable on every CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Soft;

impl Soft {
    /// Always `Some`: every CPU runs portable code.
    pub fn detect() -> Option<Self> {
        Some(Soft)
    }
}

impl Kernel for Soft {
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: InOutBuf<'_, '_, u8>, tail: &mut Block) {
        let mut counter = state.counter();
        while buf.len() >= LANES * 64 {
            let (mut head, rest) = buf.split_at(LANES * 64);
            head.xor_in2out(&keystream::<R, V, LANES>(state, counter));
            counter = counter.wrapping_add(LANES as u64);
            buf = rest;
        }
        if !buf.is_empty() {
            // Everything left (fewer than LANES blocks) in one pass; one lane if that's enough.
            let n = buf.len();
            let ks = if n > 64 {
                keystream::<R, V, LANES>(state, counter)
            } else {
                keystream::<R, V, 1>(state, counter)
            };
            buf.xor_in2out(&ks[..n]);
            if !n.is_multiple_of(64) {
                let last = n / 64 * 64;
                tail.copy_from_slice(&ks[last..last + 64]);
            }
        }
    }

    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        let mut counter = state.counter();
        let (groups, rest) = out.as_chunks_mut::<LANES>();
        for group in groups {
            let ks = keystream::<R, V, LANES>(state, counter);
            for (block, ks) in group.iter_mut().zip(ks.chunks_exact(64)) {
                block.copy_from_slice(ks);
            }
            counter = counter.wrapping_add(LANES as u64);
        }
        for block in rest {
            block.copy_from_slice(&keystream::<R, V, 1>(state, counter)[..64]);
            counter = counter.wrapping_add(1);
        }
    }

    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        let mut x = [[0u32; 1]; 16];
        for (i, w) in x.iter_mut().enumerate() {
            w[0] = match i {
                0..4 => chacha_core::CONSTANTS[i],
                4..12 => le_word(&key[4 * (i - 4)..]),
                _ => le_word(&input[4 * (i - 12)..]),
            };
        }
        double_rounds::<R, 1>(&mut x);
        let mut out = [0u8; 32];
        for (bytes, w) in out.chunks_exact_mut(4).zip(x[..4].iter().chain(&x[12..])) {
            bytes.copy_from_slice(&w[0].to_le_bytes());
        }
        out
    }
}

#[inline(always)]
fn le_word(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The keystream of blocks `counter .. counter + N`, as `N * 64` bytes (given as a
/// `LANES * 64` array so that every caller shares one buffer type; lanes past `N` are 0).
#[inline(always)]
fn keystream<R: Rounds, V: Variant, const N: usize>(state: &State<V>, counter: u64) -> [u8; LANES * 64] {
    let words = state.words();
    let mut input = [[0u32; N]; 16];
    for (w, lanes) in input.iter_mut().enumerate() {
        *lanes = [words[w]; N];
    }
    for lane in 0..N {
        let c = counter.wrapping_add(lane as u64);
        input[12][lane] = c as u32;
        if V::COUNTER_WORDS == 2 {
            input[13][lane] = (c >> 32) as u32;
        }
    }
    let mut x = input;
    double_rounds::<R, N>(&mut x);
    let mut out = [0u8; LANES * 64];
    for w in 0..16 {
        for lane in 0..N {
            let v = x[w][lane].wrapping_add(input[w][lane]);
            out[64 * lane + 4 * w..][..4].copy_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// `R::DOUBLE_ROUNDS` column + diagonal rounds on `N` word-sliced blocks.
#[inline(always)]
fn double_rounds<R: Rounds, const N: usize>(x: &mut [[u32; N]; 16]) {
    for _ in 0..R::DOUBLE_ROUNDS {
        quarter_round(x, 0, 4, 8, 12);
        quarter_round(x, 1, 5, 9, 13);
        quarter_round(x, 2, 6, 10, 14);
        quarter_round(x, 3, 7, 11, 15);
        quarter_round(x, 0, 5, 10, 15);
        quarter_round(x, 1, 6, 11, 12);
        quarter_round(x, 2, 7, 8, 13);
        quarter_round(x, 3, 4, 9, 14);
    }
}

/// RFC 8439 §2.1 on words `a, b, c, d` of every lane, one step across all lanes at a time
/// so the lanes stay independent.
#[inline(always)]
fn quarter_round<const N: usize>(x: &mut [[u32; N]; 16], a: usize, b: usize, c: usize, d: usize) {
    let (mut va, mut vb, mut vc, mut vd) = (x[a], x[b], x[c], x[d]);
    for (rot_d, rot_b) in [(16, 12), (8, 7)] {
        for l in 0..N {
            va[l] = va[l].wrapping_add(vb[l]);
        }
        for l in 0..N {
            vd[l] = (vd[l] ^ va[l]).rotate_left(rot_d);
        }
        for l in 0..N {
            vc[l] = vc[l].wrapping_add(vd[l]);
        }
        for l in 0..N {
            vb[l] = (vb[l] ^ vc[l]).rotate_left(rot_b);
        }
    }
    (x[a], x[b], x[c], x[d]) = (va, vb, vc, vd);
}
