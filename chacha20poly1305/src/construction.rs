//! The RFC 8439 §2.8 construction over a ChaCha state and a kernel: seal and open.
//!
//! - **Key and keystream in one call for short messages.** Block 0 is the Poly1305 key;
//!   up to 7 blocks of message follow ([`SHORT_BLOCKS`]). One
//!   [`fill`](chacha_core::Kernel::fill) computes them all side by side, one dependent
//!   chain instead of two (on `avx512`, 2–8 blocks cost about what one does). The
//!   keystream stays on the stack (wiped with `zeroize`); an open MACs the ciphertext,
//!   checks the tag and only then XORs. The XOR goes in 16-byte chunks and the Poly1305
//!   steps run the portable step without the kernel dispatch, so that no load on the
//!   path waits for a store it cannot be forwarded from (what those stalls cost:
//!   `chacha-backends/DECISIONS.md` § The fronts: the AEAD's short messages).
//! - **Sealing 9 to 12 blocks**: the key and the first 7 blocks from one `fill` too, the
//!   rest from one `xor`, then the MAC: two calls where the one-pass path makes three (the
//!   key block, 8 blocks, then 1–4), each a dependent chain ([`seal_medium`]).
//! - **One pass for the rest**: [`State::aead_message`] hands the message to the kernel,
//!   which encrypts and authenticates each piece while it is in L1 (or in registers).
//! - **Nothing unauthenticated leaves.** Opening in place past the short path decrypts in
//!   the same pass and, if the tag is wrong, XORs the keystream in again: the caller gets
//!   its ciphertext back, as the published crate leaves it. Opening buffer-to-buffer
//!   authenticates first and writes the output only then, so a wrong tag leaves the
//!   output untouched, as there.
//!   Tags are compared in constant time.

use aead::{Error, array::Array, consts::U16, inout::InOutBuf};
use chacha_core::{
    Aead, AeadDirection, AeadMac, BLOCK_LEN, Block, Ietf, Rounds, State, XorBuf,
    poly1305::{MAC_BLOCK_LEN, MacBlock, Portable, TAG_LEN},
    wipe_keystream as wipe,
};

/// Below this many Poly1305 blocks every kernel's `poly1305_blocks` is the portable step
/// (the SIMD ones start at 32 blocks: `MIN_BLOCKS` in their `poly1305` modules), which the
/// AEAD then runs inline: no call and no dispatch on the latency path of a short message.
const INLINE_MAC_BLOCKS: usize = 16;

/// Absorbs `data` padded (`pad16`) into `mac`: below [`INLINE_MAC_BLOCKS`] blocks with the
/// portable step inlined here, above with the kernel's.
#[inline(always)]
fn absorb<K: Aead>(mac: &mut AeadMac, kernel: K, data: &[u8]) {
    if data.len() < INLINE_MAC_BLOCKS * MAC_BLOCK_LEN {
        mac.absorb_padded(Portable, data);
    } else {
        mac.absorb_padded(kernel, data);
    }
}

/// Blocks of a message of `len` bytes, or `Error` past the RFC's limit: with block 0 for
/// the key, a state at block 0 has `2^32 − 1` blocks for the message.
fn message_blocks(state: &State<Ietf>, len: usize) -> Result<usize, Error> {
    let blocks = len.div_ceil(BLOCK_LEN);
    if (blocks as u128) < state.blocks_left() { Ok(blocks) } else { Err(Error) }
}

/// Blocks of keystream the short path takes from one [`fill`](Kernel::fill): block 0 for
/// the key and up to 7 of message (448 bytes). On `avx512` 8 blocks are two interleaved
/// `zmm` row chains, about one block's latency; past this the bulk path's key block and
/// one-pass kernel are two chains one after the other. 8 rather than the kernels'
/// `batch_blocks` (4) was faster from 193 to 448 bytes on every backend
/// (`chacha-backends/DECISIONS.md` § The fronts: the AEAD's short messages).
const SHORT_BLOCKS: usize = 8;

/// Block 0 alone: the Poly1305 key of a message the bulk path encrypts.
#[inline(always)]
fn key_block<R: Rounds, K: Aead>(kernel: K, state: &mut State<Ietf>) -> AeadMac {
    let mut block0 = [[0u8; BLOCK_LEN]];
    state.fill::<R, K>(kernel, &mut block0).expect("block 0 is in every stream");
    let mac = AeadMac::new(&block0[0]);
    wipe(&mut block0);
    mac
}

/// XORs the keystream of a short message (`keystream`: blocks 1 ..= 7, the message's
/// first) into `buf`, and returns the last 1–15 output bytes padded with zeros to a block
/// (all zeros when there are none): the ciphertext's last Poly1305 block when sealing.
///
/// 16 bytes at a time, each chunk read whole before it is written (`InOutBuf::xor_in2out`
/// on the whole buffer is a loop the compiler cannot vectorise in place, since it cannot
/// rule out a partial overlap: byte by byte, and a later 8-byte load of those bytes waits
/// for the stores to reach the cache instead of being forwarded). The last 1–15 bytes go
/// through a block on the stack, so the seal's MAC need not read them back.
#[inline(always)]
fn xor_short(keystream: &[Block], buf: InOutBuf<'_, '_, u8>) -> MacBlock {
    let keystream = keystream.as_flattened();
    let (chunks, mut tail) = buf.into_chunks::<U16>();
    let whole = chunks.len() * MAC_BLOCK_LEN;
    let (ks_chunks, _) = keystream[..whole].as_chunks::<MAC_BLOCK_LEN>();
    for (mut chunk, ks) in chunks.into_iter().zip(ks_chunks) {
        chunk.xor_in2out(&Array(*ks));
    }
    let len = tail.len();
    let mut last = [0u8; MAC_BLOCK_LEN];
    if len > 0 {
        last[..len].copy_from_slice(tail.get_in());
        // The keystream past the message (the rest of its last block) is masked off.
        let ks = &keystream[whole..][..MAC_BLOCK_LEN];
        for (i, (byte, ks)) in last.iter_mut().zip(ks).enumerate() {
            *byte ^= if i < len { *ks } else { 0 };
        }
        tail.get_out().copy_from_slice(&last[..len]);
    }
    last
}

/// `rest` (fewer than 16 bytes) padded with zeros to a block, assembled in registers from
/// byte loads: a copy into a zeroed block and 8-byte loads of it (`absorb_padded`) wait for
/// the copy's stores to reach the cache, on the MAC's dependent chain.
#[inline(always)]
fn padded(rest: &[u8]) -> MacBlock {
    let mut words = [0u64; 2];
    for (i, &byte) in rest.iter().enumerate() {
        words[i / 8] |= u64::from(byte) << (8 * (i % 8));
    }
    let mut block = [0u8; MAC_BLOCK_LEN];
    block[..8].copy_from_slice(&words[0].to_le_bytes());
    block[8..].copy_from_slice(&words[1].to_le_bytes());
    block
}

/// Seals `buf` (plaintext in, ciphertext out) and returns the tag.
#[inline]
pub(crate) fn seal<R: Rounds, K: Aead>(
    kernel: K,
    state: State<Ietf>,
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
) -> Result<[u8; TAG_LEN], Error> {
    let blocks = message_blocks(&state, buf.len())?;
    if blocks < SHORT_BLOCKS / 2 {
        Ok(seal_short::<R, K, { SHORT_BLOCKS / 2 }>(kernel, state, aad, buf, blocks))
    } else if blocks < SHORT_BLOCKS {
        Ok(seal_short::<R, K, SHORT_BLOCKS>(kernel, state, aad, buf, blocks))
    } else if blocks > SHORT_BLOCKS && blocks < MEDIUM_BLOCKS {
        Ok(seal_medium::<R, K>(kernel, state, aad, buf))
    } else {
        Ok(seal_bulk::<R, K>(kernel, state, aad, buf))
    }
}

/// Message blocks below which a seal of more than [`SHORT_BLOCKS`] takes its key from the
/// fill of the first 8 ([`seal_medium`]). From 13 blocks on, `sse2` (5 blocks a step) was
/// slower that way (`chacha-backends/DECISIONS.md` § The fronts: the AEAD's short messages).
const MEDIUM_BLOCKS: usize = 13;

/// [`seal`] of a message of 9 to 12 blocks: the key and the first 7 blocks of keystream
/// from one fill (as the short path), the other 2–5 blocks XORed by the kernel, then the
/// MAC of the whole ciphertext, so that no kernel call computes the key block alone. Out
/// of line, as [`seal_bulk`].
#[inline(never)]
fn seal_medium<R: Rounds, K: Aead>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    mut buf: InOutBuf<'_, '_, u8>,
) -> [u8; TAG_LEN] {
    let mut keystream = [[0u8; BLOCK_LEN]; SHORT_BLOCKS];
    let mut mac = short_start::<R, K>(kernel, &mut state, aad, &mut keystream);
    let len = buf.len();
    let (head, rest) = buf.reborrow().split_at((SHORT_BLOCKS - 1) * BLOCK_LEN);
    let _ = xor_short(&keystream[1..], head);
    wipe(&mut keystream);
    let mut tail = [0u8; BLOCK_LEN];
    state.xor::<R, K>(kernel, xor_buf(rest), &mut tail).expect("checked by message_blocks");
    wipe(core::slice::from_mut(&mut tail));
    absorb(&mut mac, kernel, buf.get_out());
    mac.tag(aad.len(), len)
}

/// The start of a short message: `keystream` (blocks 0 ..= the message's last) from one
/// call, and the MAC keyed with block 0, `aad` absorbed.
#[inline(always)]
fn short_start<R: Rounds, K: Aead>(
    kernel: K,
    state: &mut State<Ietf>,
    aad: &[u8],
    keystream: &mut [Block],
) -> AeadMac {
    state.fill::<R, K>(kernel, keystream).expect("checked by message_blocks");
    let mut mac = AeadMac::new(&keystream[0]);
    absorb(&mut mac, kernel, aad);
    mac
}

/// [`seal`] of a message of `blocks` blocks, fewer than `N` ([`SHORT_BLOCKS`] or half of
/// it: the keystream array is zeroed first, which costs the shortest messages measurably,
/// DECISIONS.md § The fronts: the AEAD's short messages): the key and the keystream from
/// one call, the keystream kept on the stack (and wiped).
#[inline(always)]
fn seal_short<R: Rounds, K: Aead, const N: usize>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    mut buf: InOutBuf<'_, '_, u8>,
    blocks: usize,
) -> [u8; TAG_LEN] {
    let mut keystream = [[0u8; BLOCK_LEN]; N];
    let mut mac = short_start::<R, K>(kernel, &mut state, aad, &mut keystream[..=blocks]);
    let last = xor_short(&keystream[1..], buf.reborrow());
    // The whole blocks of the ciphertext, then its padded last block as `xor_short` left it.
    let whole = buf.len() / MAC_BLOCK_LEN * MAC_BLOCK_LEN;
    absorb(&mut mac, kernel, &buf.get_out()[..whole]);
    if whole < buf.len() {
        mac.absorb_padded(Portable, &last);
    }
    wipe(&mut keystream[..=blocks]); // the blocks the fill wrote
    mac.tag(aad.len(), buf.len())
}

/// [`seal`] of the rest: the kernel's whole message ([`Aead::message`]: the key block,
/// the AAD, the one pass, the lengths). Out of line, so that the short path's code around
/// it stays small (and inlined).
#[inline(never)]
fn seal_bulk<R: Rounds, K: Aead>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
) -> [u8; TAG_LEN] {
    state.aead_message::<R, K>(kernel, AeadDirection::Seal, aad, xor_buf(buf)).expect("checked")
}

/// Opens `buf` (ciphertext in, plaintext out) if `tag` is its tag; otherwise `Error`, and
/// the output holds what it held before the call (see the module docs).
#[inline]
pub(crate) fn open<R: Rounds, K: Aead>(
    kernel: K,
    state: State<Ietf>,
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
    tag: &[u8; TAG_LEN],
) -> Result<(), Error> {
    let blocks = message_blocks(&state, buf.len())?;
    let ok = if blocks < SHORT_BLOCKS / 2 {
        open_short::<R, K, { SHORT_BLOCKS / 2 }>(kernel, state, aad, buf, tag, blocks)
    } else if blocks < SHORT_BLOCKS {
        open_short::<R, K, SHORT_BLOCKS>(kernel, state, aad, buf, tag, blocks)
    } else {
        open_bulk::<R, K>(kernel, state, aad, buf, tag)
    };
    if ok { Ok(()) } else { Err(Error) }
}

/// [`open`] of a message of `blocks` blocks, fewer than `N`: the key and the keystream
/// from one call, as [`seal_short`]; the MAC of the input, the tag checked, and only then
/// the XOR. Whether the tag was right.
#[inline(always)]
fn open_short<R: Rounds, K: Aead, const N: usize>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    buf: InOutBuf<'_, '_, u8>,
    tag: &[u8; TAG_LEN],
    blocks: usize,
) -> bool {
    let mut keystream = [[0u8; BLOCK_LEN]; N];
    let mut mac = short_start::<R, K>(kernel, &mut state, aad, &mut keystream[..=blocks]);
    let (whole, rest) = buf.get_in().as_chunks::<MAC_BLOCK_LEN>();
    absorb(&mut mac, kernel, whole.as_flattened());
    if !rest.is_empty() {
        mac.absorb_padded(Portable, &padded(rest));
    }
    let ok = tags_equal(&mac.tag(aad.len(), buf.len()), tag);
    if ok {
        let _ = xor_short(&keystream[1..], buf);
    }
    wipe(&mut keystream[..=blocks]);
    ok
}

/// [`open`] of the rest: in place in one pass (undone on a wrong tag), buffer to buffer
/// the MAC first. Out of line, as [`seal_bulk`]. Whether the tag was right.
#[inline(never)]
fn open_bulk<R: Rounds, K: Aead>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    mut buf: InOutBuf<'_, '_, u8>,
    tag: &[u8; TAG_LEN],
) -> bool {
    let len = buf.len();
    let in_place = buf.get_in().as_ptr() == buf.get_out().as_ptr();
    if in_place {
        // One pass; on a wrong tag the same keystream again restores the ciphertext.
        let mut buf = XorBuf::in_place(buf.into_out());
        let mut after_key = state.clone();
        after_key.advance(1).expect("checked by message_blocks");
        let got =
            state.aead_message::<R, K>(kernel, AeadDirection::Open, aad, buf.reborrow()).expect("checked");
        if tags_equal(&got, tag) {
            return true;
        }
        let mut tail = [0u8; BLOCK_LEN];
        after_key.xor::<R, K>(kernel, buf, &mut tail).expect("checked");
        wipe(core::slice::from_mut(&mut tail));
        false
    } else {
        // Authenticate the input, then write the output.
        let mut mac = key_block::<R, K>(kernel, &mut state);
        absorb(&mut mac, kernel, aad);
        absorb(&mut mac, kernel, buf.get_in());
        if !tags_equal(&mac.tag(aad.len(), len), tag) {
            return false;
        }
        let mut tail = [0u8; BLOCK_LEN];
        state.xor::<R, K>(kernel, xor_buf(buf), &mut tail).expect("checked");
        wipe(core::slice::from_mut(&mut tail));
        true
    }
}

/// `aead`'s buffer as the kernels' [`XorBuf`]: free in place (every in-place call of
/// `aead`); buffer to buffer, the input is copied to the output first and XORed there,
/// since safe code cannot take an `InOutBuf`'s two sides apart (the kernel contract has a
/// type of its own so that `chacha-backends` does not wait for `inout` to build: chacha-core's
/// `XorBuf` docs). The short path above works on the `InOutBuf` itself and copies nothing.
#[inline(always)]
fn xor_buf<'o>(buf: InOutBuf<'_, 'o, u8>) -> XorBuf<'o, 'o> {
    XorBuf::in_place(buf.into_out_with_copied_in())
}

/// `a == b` in time independent of where they differ: every byte is read (as two 64-bit
/// words: the computed tag was stored as two, and a 16-byte load of it waits for both
/// stores to reach the cache), the differences OR-ed together, and the result hidden from
/// the optimiser before the test.
#[inline(always)]
fn tags_equal(a: &[u8; TAG_LEN], b: &[u8; TAG_LEN]) -> bool {
    let word = |t: &[u8; TAG_LEN], i: usize| u64::from_le_bytes(t[8 * i..][..8].try_into().expect("8 bytes"));
    let diff = (word(a, 0) ^ word(b, 0)) | (word(a, 1) ^ word(b, 1));
    core::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_equal_sees_every_byte() {
        let a = [7u8; TAG_LEN];
        assert!(tags_equal(&a, &a));
        for i in 0..TAG_LEN {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!tags_equal(&a, &b), "byte {i} bit {bit}");
            }
        }
    }

    /// The limit: `2^32 − 1` blocks after block 0, checked on a state seeked near its end
    /// as a stand-in for a 256 GiB message (the same arithmetic: blocks_left).
    #[test]
    fn message_blocks_stops_at_the_rfc_limit() {
        let state = State::<Ietf>::new(&[0; 32], &[0; 12]);
        assert_eq!(message_blocks(&state, 0), Ok(0));
        assert_eq!(message_blocks(&state, 65), Ok(2));
        let mut near_end = state.clone();
        near_end.seek((1u128 << 32) - 3).unwrap(); // 3 blocks left: key + 2
        assert_eq!(message_blocks(&near_end, 128), Ok(2));
        assert_eq!(message_blocks(&near_end, 129), Err(Error));
    }
}
