//! The output side of the 128-bit backends (`sse2`, `neon`, `simd128`), written once: each
//! module's kernels give a block's keystream as `Rows`, four 16-byte vectors (row `r` =
//! bytes `16r .. 16r + 16`), and `rows128!` writes them through the output cursor
//! (`cursor.rs`) — XORed for whole blocks, through `tail` for a partial one, raw for
//! `fill` — on the module's own `Rows`, `fn xor16(s: Span<'_, 16>, ks)` (the span's
//! output = its input ^ `ks`) and `fn store16(out: &mut [u8; 16], v)`, with the attributes
//! it is given.

/// Defines the output helpers below (and HChaCha's `subkey`), each with the attributes
/// given (module docs).
macro_rules! rows128 {
    ($(#[$attr:meta])*) => {
        /// XORs `ks` into the whole `blocks`, and the next block into a non-empty `partial`.
        $(#[$attr])*
        fn finish(
            ks: &[Rows],
            blocks: Cursor<'_, true>,
            partial: Cursor<'_, true>,
            tail: &mut Block,
        ) {
            let whole = blocks.len() / BLOCK_LEN;
            xor_blocks(ks, blocks);
            if let Some(rows) = ks.get(whole).filter(|_| !partial.is_empty()) {
                xor_partial(rows, partial, tail);
            }
        }

        /// XORs the blocks of `ks` into the whole blocks of `buf`, as many as both have.
        $(#[$attr])*
        fn xor_blocks(ks: &[Rows], cur: Cursor<'_, true>) {
            for (b, rows) in ks.iter().enumerate().take(cur.whole()) {
                if let Some(block) = cur.blocks_at::<1>(b) {
                    xor_block(block, rows);
                }
            }
        }

        /// Stores the first `out.len()` blocks of `ks` into `out`.
        $(#[$attr])*
        fn store_blocks(out: &mut [Block], ks: &[Rows]) {
            for (block, rows) in out.iter_mut().zip(ks) {
                store_block(block, rows);
            }
        }

        /// The block's output = its input ^ `ks`.
        $(#[$attr])*
        fn xor_block(block: Blocks<'_, true, 1>, ks: &Rows) {
            for (r, &k) in ks.iter().enumerate() {
                xor16(block.span::<16>(16 * r), k);
            }
        }

        /// The partial last block: keystream to `tail`, whole rows as `xor16` pieces, the
        /// rest from `tail`.
        $(#[$attr])*
        fn xor_partial(ks: &Rows, mut partial: Cursor<'_, true>, tail: &mut Block) {
            store_block(tail, ks);
            let Some(p) = partial.last() else { return };
            if let Some((at, s)) = p.piece::<32>() {
                xor16(s.at::<16>(0), ks[at / 16]);
                xor16(s.at::<16>(16), ks[at / 16 + 1]);
            }
            if let Some((at, s)) = p.piece::<16>() {
                xor16(s, ks[at / 16]);
            }
            let rows = p.len() & !15;
            p.xor_from(rows, &tail[rows..p.len()]);
        }

        /// Stores a block's four rows into `out`.
        $(#[$attr])*
        fn store_block(out: &mut Block, ks: &Rows) {
            for (chunk, &k) in out.chunks_exact_mut(16).zip(ks) {
                store16(chunk.try_into().expect("16 bytes"), k);
            }
        }

        /// HChaCha's subkey from its block's rows after the rounds: rows 0 and 3.
        $(#[$attr])*
        fn subkey(x: &Rows) -> [u8; 32] {
            let mut out = [0u8; 32];
            let (lo, hi) = out.split_at_mut(16);
            store16(lo.try_into().expect("16 bytes"), x[0]);
            store16(hi.try_into().expect("16 bytes"), x[3]);
            out
        }
    };
}

pub(crate) use rows128;
