//! The output cursor of the SIMD backends (`avx2`, `avx512`, and `sse2`, `neon`, `simd128`
//! through `rows128!`): the one place that holds a request's raw pointers and their
//! invariant and checks bounds. The ISA modules keep only their loads and stores, each an
//! intrinsic on a pointer handed out after its check.
//!
//! - [`Cursor`]: the request, `len` bytes XORed from `inp` into `out` (`XOR`) or raw
//!   keystream into `out`. Built safely from an `XorBuf` or `&mut [Block]`; `Copy`, and
//!   three words ([`Cursor::into_parts`]) where an entry point keeps it in registers.
//! - [`Blocks`]: `N` whole blocks, by index ([`Cursor::blocks_at`], any order: `avx2`'s
//!   transpose yields block `j` beside `j + 4`) or in order ([`Cursor::next`]: `avx512`,
//!   `rows128!`). `inp::<BYTES>(at)` / `out::<BYTES>(at)` check bytes `at .. at + BYTES`;
//!   at constant offsets the `assert!` folds away.
//! - [`Partial`]: the partial last block's 1–63 bytes (`XOR` only), in [`Span`] pieces
//!   split by the bits of its length, or through byte masks.
//! - [`Tail`]: the caller's block that takes a partial block's keystream (`avx2`).
//!
//! Each group of methods is compiled where a backend uses it: `cfg(chacha_uses = "…")`,
//! which `build.rs` sets from each backend's list of what it uses.
//!
//! [`Cursor`]: crate::cursor::Cursor
//! [`Cursor::into_parts`]: crate::cursor::Cursor::into_parts
//! [`Cursor::blocks_at`]: crate::cursor::Cursor::blocks_at
//! [`Cursor::next`]: crate::cursor::Cursor::next
//! [`Blocks`]: crate::cursor::Blocks
//! [`Partial`]: crate::cursor::Partial
//! [`Span`]: crate::cursor::Span
//! [`Tail`]: crate::cursor::Tail

use core::marker::PhantomData;

#[cfg(any(chacha_uses = "raw_keystream", chacha_uses = "partial_tail"))]
use chacha_core::Block;
use chacha_core::{BLOCK_LEN, XorBuf};

/// Where a request's keystream goes.
///
/// Invariant (established by `Cursor::xor` and `Cursor::fill`, relied on by every
/// window): `out` is valid for writing `len` bytes (and for reading them: it comes from a
/// `&mut`) and, if `XOR`, `inp` for reading them, the two the same or not overlapping
/// (`XorBuf` guarantees it). Raw keystream (`!XOR`)
/// has `len` a multiple of 64 and never reads `inp`.
#[derive(Clone, Copy)]
pub(crate) struct Cursor<'a, const XOR: bool> {
    inp: *const u8,
    out: *mut u8,
    len: usize,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<'a> Cursor<'a, true> {
    /// The cursor over a fused-XOR request, for as long as both buffers are borrowed.
    #[inline(always)]
    pub(crate) fn xor(buf: XorBuf<'a, 'a>) -> Self {
        let len = buf.len();
        let (inp, out) = buf.into_raw();
        Cursor { inp, out, len, _buf: PhantomData }
    }
}

/// `avx2` and `avx512`: raw keystream, and the cursor as three words.
#[cfg(chacha_uses = "raw_keystream")]
impl<'a> Cursor<'a, false> {
    /// The cursor over a raw-keystream request.
    #[inline(always)]
    pub(crate) fn fill(out: &'a mut [Block]) -> Self {
        let len = size_of_val(out);
        Cursor { inp: core::ptr::null(), out: out.as_mut_ptr().cast(), len, _buf: PhantomData }
    }
}

#[cfg(chacha_uses = "cursor_parts")]
impl<const XOR: bool> Cursor<'_, XOR> {
    /// The cursor as three words: passed as arguments, they stay in registers, where the
    /// Rust ABI passes a struct of three words through memory (DECISIONS.md, § Shared by
    /// the x86 backends).
    #[inline(always)]
    pub(crate) fn into_parts(self) -> (*const u8, *mut u8, usize) {
        (self.inp, self.out, self.len)
    }

    /// The cursor back from [`Cursor::into_parts`].
    /// # Safety
    /// The parts come from `into_parts` of a `Cursor` with the same `XOR` whose buffer is
    /// still borrowed for the new one's lifetime.
    #[inline(always)]
    pub(crate) unsafe fn from_parts(inp: *const u8, out: *mut u8, len: usize) -> Self {
        Cursor { inp, out, len, _buf: PhantomData }
    }
}

#[cfg(chacha_uses = "block_count")]
impl<const XOR: bool> Cursor<'_, XOR> {
    /// Blocks left, a partial last block counted as one.
    #[inline(always)]
    pub(crate) fn blocks(&self) -> usize {
        self.len.div_ceil(BLOCK_LEN)
    }
}

/// By index (`avx2`, `rows128!`).
#[cfg(chacha_uses = "blocks_by_index")]
impl<'a, const XOR: bool> Cursor<'a, XOR> {
    /// Whole blocks.
    #[inline(always)]
    pub(crate) fn whole(&self) -> usize {
        self.len / BLOCK_LEN
    }

    /// Blocks `base .. base + N`, if all are whole: one bounds check per `N` blocks. For
    /// `N > 1` one compare with a loop invariant, `base <= whole - N`; for one block
    /// `base < whole` (DECISIONS.md, § The output cursor).
    #[inline(always)]
    pub(crate) fn blocks_at<const N: usize>(&self, base: usize) -> Option<Blocks<'a, XOR, N>> {
        let whole = self.whole();
        let fits = if N == 1 { base < whole } else { whole >= N && base <= whole - N };
        fits.then(|| Blocks {
            inp: self.inp.wrapping_add(BLOCK_LEN * base),
            out: self.out.wrapping_add(BLOCK_LEN * base),
            _buf: PhantomData,
        })
    }
}

/// In order (`avx512`, `rows128!`).
#[cfg(any(chacha_uses = "walk", chacha_uses = "sets_in_order"))]
impl<'a, const XOR: bool> Cursor<'a, XOR> {
    /// The next `N` blocks, if all are whole; the cursor moves past them.
    #[cfg(chacha_uses = "sets_in_order")]
    #[inline(always)]
    pub(crate) fn next<const N: usize>(&mut self) -> Option<Blocks<'a, XOR, N>> {
        if self.len >= N * BLOCK_LEN {
            let set = Blocks { inp: self.inp, out: self.out, _buf: PhantomData };
            self.inp = self.inp.wrapping_add(N * BLOCK_LEN);
            self.out = self.out.wrapping_add(N * BLOCK_LEN);
            self.len -= N * BLOCK_LEN;
            Some(set)
        } else {
            None
        }
    }

    /// The partial block when it is all that is left (`0 < len < 64`, `XOR`); the cursor
    /// is then empty.
    #[cfg(chacha_uses = "walk")]
    #[inline(always)]
    pub(crate) fn last(&mut self) -> Option<Partial<'a>> {
        if !XOR || self.len == 0 || self.len >= BLOCK_LEN {
            return None;
        }
        let len = core::mem::take(&mut self.len);
        Some(Partial { inp: self.inp, out: self.out, len, _buf: PhantomData })
    }
}

#[cfg(chacha_uses = "walk")]
impl<const XOR: bool> Cursor<'_, XOR> {
    /// Bytes left.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether no byte is left.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The 128-bit backends split a request as they go (whole blocks, a partial last one).
#[cfg(chacha_uses = "rows128")]
impl Cursor<'_, true> {
    /// Bytes `..mid` and bytes `mid..`: two cursors over disjoint parts of this one's.
    ///
    /// # Panics
    /// If `mid > self.len()`.
    #[inline(always)]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        assert!(mid <= self.len, "a split past the end");
        let rest = Cursor {
            inp: self.inp.wrapping_add(mid),
            out: self.out.wrapping_add(mid),
            len: self.len - mid,
            _buf: PhantomData,
        };
        (Cursor { len: mid, ..self }, rest)
    }
}

#[cfg(chacha_uses = "partial_tail")]
impl<'a, const XOR: bool> Cursor<'a, XOR> {
    /// The partial block after the whole ones, if `XOR` and there is one.
    #[inline(always)]
    pub(crate) fn partial(&self) -> Option<Partial<'a>> {
        let len = self.len % BLOCK_LEN;
        let at = self.len - len;
        (XOR && len != 0).then(|| Partial {
            inp: self.inp.wrapping_add(at),
            out: self.out.wrapping_add(at),
            len,
            _buf: PhantomData,
        })
    }
}

/// `N` whole blocks: `64 N` bytes writable at `out` and, if `XOR`, readable at `inp` (the
/// same or not overlapping). Made only by [`Cursor`] (checked against its invariant) and
/// `Tail::window`.
#[derive(Clone, Copy)]
pub(crate) struct Blocks<'a, const XOR: bool, const N: usize> {
    inp: *const u8,
    out: *mut u8,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<const XOR: bool, const N: usize> Blocks<'_, XOR, N> {
    /// Input bytes `at .. at + BYTES`: readable.
    #[inline(always)]
    pub(crate) fn inp<const BYTES: usize>(self, at: usize) -> *const u8 {
        assert!(XOR && BYTES <= BLOCK_LEN * N && at <= BLOCK_LEN * N - BYTES, "bytes past the window");
        self.inp.wrapping_add(at)
    }

    /// Output bytes `at .. at + BYTES`: writable, read (if at all) before through
    /// [`Blocks::inp`] only.
    #[inline(always)]
    pub(crate) fn out<const BYTES: usize>(self, at: usize) -> *mut u8 {
        assert!(BYTES <= BLOCK_LEN * N && at <= BLOCK_LEN * N - BYTES, "bytes past the window");
        self.out.wrapping_add(at)
    }
}

/// The stitched AEADs (`avx2` on x86_64, `neon`): the seal absorbs its ciphertext after
/// writing it.
#[cfg(chacha_uses = "stitched")]
impl<const N: usize> Blocks<'_, true, N> {
    /// Output bytes `at .. at + BYTES`, read back after they were written: readable (the
    /// cursor's invariant).
    #[inline(always)]
    pub(crate) fn written<const BYTES: usize>(self, at: usize) -> *const u8 {
        assert!(BYTES <= BLOCK_LEN * N && at <= BLOCK_LEN * N - BYTES, "bytes past the window");
        self.out.wrapping_add(at).cast_const()
    }
}

/// The partial last block of an XOR request: `len` (1..=63) bytes readable at `inp` and
/// writable at `out`, the same or not overlapping. Made only by [`Cursor`].
#[derive(Clone, Copy)]
pub(crate) struct Partial<'a> {
    inp: *const u8,
    out: *mut u8,
    len: usize,
    _buf: PhantomData<&'a mut [u8]>,
}

#[cfg(chacha_uses = "partial_masked")]
impl Partial<'_> {
    /// The block's start, for byte-masked loads and stores: only the first
    /// [`len`](Partial::len) bytes at either pointer are inside the request.
    #[inline(always)]
    pub(crate) fn masked(self) -> (*const u8, *mut u8) {
        (self.inp, self.out)
    }
}

#[cfg(chacha_uses = "walk")]
impl Partial<'_> {
    /// Its length, 1..=63.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(chacha_uses = "rows128")]
pub(crate) use spans::Span;

/// Pieces of a request checked when handed out (`avx2`'s partial block, `rows128!`).
#[cfg(chacha_uses = "partial_spans")]
mod spans {
    use super::{BLOCK_LEN, Partial, PhantomData};

    /// `BYTES` bytes of an XOR request: readable at [`Span::inp`] and writable at
    /// [`Span::out`], the same or not overlapping.
    #[derive(Clone, Copy)]
    pub(crate) struct Span<'a, const BYTES: usize> {
        pub(super) inp: *const u8,
        pub(super) out: *mut u8,
        pub(super) _buf: PhantomData<&'a mut [u8]>,
    }

    impl<const BYTES: usize> Span<'_, BYTES> {
        /// `BYTES` readable bytes.
        #[inline(always)]
        pub(crate) fn inp(self) -> *const u8 {
            self.inp
        }

        /// `BYTES` writable bytes, the same as or not overlapping [`Span::inp`]'s.
        #[inline(always)]
        pub(crate) fn out(self) -> *mut u8 {
            self.out
        }
    }

    impl<'a> Partial<'a> {
        /// The `S`-byte piece of the block's split by the bits of its length (`S` a power
        /// of two below 64; the pieces of all `S` cover the block once), if bit `S` is
        /// set: its offset and its bytes.
        #[inline(always)]
        pub(crate) fn piece<const S: usize>(self) -> Option<(usize, Span<'a, S>)> {
            const { assert!(S.is_power_of_two() && S < BLOCK_LEN) };
            (self.len & S != 0).then(|| {
                // The bits of `len` above `S`, so `at + S <= len < 64`: known bits that
                // LLVM sees too (`at + S <= 64 - S`): slicing a block at `at` needs no check.
                let at = self.len & !(2 * S - 1) & (BLOCK_LEN - 1);
                debug_assert!(at + S <= self.len);
                let (inp, out) = (self.inp.wrapping_add(at), self.out.wrapping_add(at));
                (at, Span { inp, out, _buf: PhantomData })
            })
        }
    }
}

/// `rows128!`: 16-byte rows of whole blocks, and the bytes after a partial block's rows.
#[cfg(chacha_uses = "rows128")]
impl<'a, const N: usize> Blocks<'a, true, N> {
    /// Bytes `at .. at + BYTES`, input and output.
    #[inline(always)]
    pub(crate) fn span<const BYTES: usize>(self, at: usize) -> Span<'a, BYTES> {
        Span { inp: self.inp::<BYTES>(at), out: self.out::<BYTES>(at), _buf: PhantomData }
    }
}

#[cfg(chacha_uses = "rows128")]
impl<'a, const BYTES: usize> Span<'a, BYTES> {
    /// Bytes `at .. at + PART` of the span.
    #[inline(always)]
    pub(crate) fn at<const PART: usize>(self, at: usize) -> Span<'a, PART> {
        assert!(PART <= BYTES && at <= BYTES - PART, "bytes past the span");
        Span { inp: self.inp.wrapping_add(at), out: self.out.wrapping_add(at), _buf: PhantomData }
    }
}

#[cfg(chacha_uses = "rows128")]
impl Partial<'_> {
    /// Bytes `at ..` of the output = their input ^ `keystream` (`len - at` bytes).
    #[inline(always)]
    pub(crate) fn xor_from(self, at: usize, keystream: &[u8]) {
        assert!(at <= self.len && keystream.len() == self.len - at, "bytes past the partial block");
        for (i, &k) in keystream.iter().enumerate() {
            // SAFETY: byte `at + i` is inside the partial block (`at + i < len`, above):
            // readable at `inp` (the type's invariant).
            let byte = unsafe { self.inp.wrapping_add(at + i).read() };
            // SAFETY: and writable at `out`, the same byte or one that no read here
            // overlaps (the type's invariant).
            unsafe { self.out.wrapping_add(at + i).write(byte ^ k) };
        }
    }
}

/// The caller's block that takes a partial block's keystream (`avx2`): one word and
/// `Copy`, so that it rides in a cursor passed by value.
#[cfg(chacha_uses = "partial_tail")]
#[derive(Clone, Copy)]
pub(crate) struct Tail<'a> {
    block: *mut u8,
    _buf: PhantomData<&'a mut Block>,
}

#[cfg(chacha_uses = "partial_tail")]
impl<'a> Tail<'a> {
    #[inline(always)]
    pub(crate) fn new(block: &'a mut Block) -> Self {
        Tail { block: block.as_mut_ptr(), _buf: PhantomData }
    }

    /// The block as a window of one block that reads no input.
    #[inline(always)]
    pub(crate) fn window(self) -> Blocks<'a, false, 1> {
        Blocks { inp: core::ptr::null(), out: self.block, _buf: PhantomData }
    }
}
