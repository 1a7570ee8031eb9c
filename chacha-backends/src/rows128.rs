//! The output side of the 128-bit backends (`sse2`, `neon`, `simd128`), written once.
//!
//! Their kernels all hand back a block's keystream as `Rows`, four 16-byte vectors (row `r`
//! = bytes `16r .. 16r + 16`), and all write it the same way: XORed from input to output
//! straight out of the registers for whole blocks, through `tail` for a partial last block,
//! stored as it is for raw keystream. Only the vector type, the feature attributes and the
//! two 16-byte primitives differ, so each module instantiates `rows128!` with its
//! attributes, next to its own `Rows` type and these two functions:
//!
//! ```text
//!   unsafe fn xor16(inp: *const u8, out: *mut u8, ks: Row)   // out[..16] = inp[..16] ^ ks
//!   fn store16(out: &mut [u8; 16], v: Row)                    // out = v
//! ```

/// Defines `finish`, `xor_blocks`, `store_blocks`, `xor_block`, `xor_partial` and
/// `store_block` in the invoking module, each with the attributes given (e.g.
/// `#[inline] #[target_feature(enable = "sse2")]`), on that module's `Rows`, `xor16` and
/// `store16` (see the module docs).
macro_rules! rows128 {
    ($(#[$attr:meta])*) => {
        /// XORs the blocks of `ks` into the whole blocks of `blocks` (as many as both have),
        /// and the block after those into the partial block `partial` (its whole keystream
        /// going to `tail`) if `partial` is not empty.
        $(#[$attr])*
        fn finish(ks: &[Rows], blocks: InOutBuf<'_, '_, u8>, partial: InOutBuf<'_, '_, u8>, tail: &mut Block) {
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
                // SAFETY: block b < buf.len() / 64 lies inside `buf`, whose input and output
                // are buf.len() bytes each and equal or disjoint (an InOutBuf guarantees both).
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

        /// XORs a block of keystream into 64 bytes: `out[..64] = inp[..64] ^ ks`.
        ///
        /// # Safety
        /// `inp` is valid for reading and `out` for writing 64 bytes, and the two ranges
        /// are equal or disjoint.
        $(#[$attr])*
        unsafe fn xor_block(inp: *const u8, out: *mut u8, ks: &Rows) {
            for (r, &k) in ks.iter().enumerate() {
                // SAFETY: row r < 4 lies in the 64 bytes the caller vouches for.
                unsafe { xor16(inp.wrapping_add(16 * r), out.wrapping_add(16 * r), k) };
            }
        }

        /// The partial last block: its whole keystream to `tail`, its first
        /// `partial.len() < 64` bytes XORed, 16 at a time from the registers and the last
        /// `len % 16` from `tail`.
        $(#[$attr])*
        fn xor_partial(ks: &Rows, partial: InOutBuf<'_, '_, u8>, tail: &mut Block) {
            store_block(tail, ks);
            let len = partial.len();
            let rows = len / 16;
            let (in_rows, mut bytes) = partial.split_at(rows * 16);
            let (inp, out) = in_rows.into_raw();
            for (r, &k) in ks.iter().enumerate().take(rows) {
                // SAFETY: row r < len / 16 lies in `in_rows` (16·rows bytes in and out, equal
                // or disjoint: split from an InOutBuf).
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
