//! The output side of the 128-bit backends (`sse2`, `neon`, `simd128`), written once: each
//! module's kernels give a block's keystream as `Rows`, four 16-byte vectors (row `r` =
//! bytes `16r .. 16r + 16`), and `rows128!` writes them — XORed for whole blocks, through
//! `tail` for a partial one, raw for `fill` — on the module's own `Rows`,
//! `unsafe fn xor16(inp, out, ks)` (`out[..16] = inp[..16] ^ ks`) and
//! `fn store16(out: &mut [u8; 16], v)`, with the attributes it is given.

/// Defines the six output helpers below, each with the attributes given (module docs).
macro_rules! rows128 {
    ($(#[$attr:meta])*) => {
        /// XORs `ks` into the whole `blocks`, and the next block into a non-empty `partial`.
        $(#[$attr])*
        fn finish(
            ks: &[Rows],
            blocks: InOutBuf<'_, '_, u8>,
            partial: InOutBuf<'_, '_, u8>,
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
        fn xor_blocks(ks: &[Rows], buf: InOutBuf<'_, '_, u8>) {
            let whole = buf.len() / BLOCK_LEN;
            let (inp, out) = buf.into_raw();
            for (b, rows) in ks.iter().enumerate().take(whole) {
                let at = b * BLOCK_LEN;
                // SAFETY: block b < buf.len() / 64 lies inside `buf` (an InOutBuf: equal or disjoint).
                unsafe { xor_block(inp.wrapping_add(at), out.wrapping_add(at), rows) };
            }
        }

        /// Stores the first `out.len()` blocks of `ks` into `out`.
        $(#[$attr])*
        fn store_blocks(out: &mut [Block], ks: &[Rows]) {
            for (block, rows) in out.iter_mut().zip(ks) {
                store_block(block, rows);
            }
        }

        /// `out[..64] = inp[..64] ^ ks`.
        /// # Safety
        /// `inp` valid for reading and `out` for writing 64 bytes, the two equal or disjoint.
        $(#[$attr])*
        unsafe fn xor_block(inp: *const u8, out: *mut u8, ks: &Rows) {
            for (r, &k) in ks.iter().enumerate() {
                // SAFETY: row r < 4 lies in the 64 bytes the caller vouches for.
                unsafe { xor16(inp.wrapping_add(16 * r), out.wrapping_add(16 * r), k) };
            }
        }

        /// The partial last block: keystream to `tail`, 16 bytes at a time, the rest from `tail`.
        $(#[$attr])*
        fn xor_partial(ks: &Rows, partial: InOutBuf<'_, '_, u8>, tail: &mut Block) {
            store_block(tail, ks);
            let len = partial.len();
            let rows = len / 16;
            let (in_rows, mut bytes) = partial.split_at(rows * 16);
            let (inp, out) = in_rows.into_raw();
            for (r, &k) in ks.iter().enumerate().take(rows) {
                // SAFETY: row r < len / 16 lies in `in_rows` (split from an InOutBuf, as above).
                unsafe { xor16(inp.wrapping_add(16 * r), out.wrapping_add(16 * r), k) };
            }
            bytes.xor_in2out(&tail[rows * 16..len]);
        }

        /// Stores a block's four rows into `out`.
        $(#[$attr])*
        fn store_block(out: &mut Block, ks: &Rows) {
            for (chunk, &k) in out.chunks_exact_mut(16).zip(ks) {
                store16(chunk.try_into().expect("16 bytes"), k);
            }
        }
    };
}

pub(crate) use rows128;
