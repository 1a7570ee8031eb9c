//! The RFC 8439 §2.8 construction over a ChaCha state and a kernel: seal and open.
//!
//! - **Key and keystream in one call for short messages.** Block 0 is the Poly1305 key;
//!   up to `batch_blocks() − 1` blocks of message follow. When the message fits, one
//!   [`fill`](chacha_core::Kernel::fill) computes them all side by side, one dependent
//!   chain instead of two (on SIMD backends, 2–4 blocks cost what one does).
//! - **One pass for the rest**: [`State::xor_and_mac`] hands the message to the kernel,
//!   which encrypts and authenticates each piece while it is in L1 (or in registers).
//! - **Nothing unauthenticated leaves.** Opening in place decrypts in the same pass and,
//!   if the tag is wrong, XORs the keystream in again: the caller gets its ciphertext back,
//!   as the published crate leaves it. Opening buffer-to-buffer authenticates first and
//!   writes the output only then, so a wrong tag leaves the output untouched, as there.
//!   Tags are compared in constant time.

use aead::{Error, inout::InOutBuf};
use chacha_core::{
    AeadDirection, BLOCK_LEN, Block, Ietf, Kernel, MAX_BATCH_BLOCKS, Rounds, State,
    poly1305::{Accumulator, TAG_LEN},
};

/// The Poly1305 key and the accumulator of one message.
struct Mac {
    acc: Accumulator,
    s: [u8; 16],
}

impl Mac {
    /// From the first 32 bytes of block 0's keystream.
    fn new(block0: &Block) -> Self {
        let (r, rest) = block0.split_at(16);
        Mac {
            acc: Accumulator::new(r.try_into().expect("16 bytes")),
            s: rest[..16].try_into().expect("16 bytes"),
        }
    }

    /// The tag after `aad` and the ciphertext: the lengths block, then the sum.
    fn tag<K: Kernel>(mut self, kernel: K, aad_len: usize, text_len: usize) -> [u8; TAG_LEN] {
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(aad_len as u64).to_le_bytes());
        lengths[8..].copy_from_slice(&(text_len as u64).to_le_bytes());
        kernel.poly1305_blocks(&mut self.acc, &[lengths]);
        self.acc.tag(&self.s)
    }
}

#[cfg(feature = "zeroize")]
impl Drop for Mac {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.acc);
        zeroize::Zeroize::zeroize(&mut self.s);
    }
}

/// Blocks of a message of `len` bytes, or `Error` past the RFC's limit: with block 0 for
/// the key, a state at block 0 has `2^32 − 1` blocks for the message.
fn message_blocks(state: &State<Ietf>, len: usize) -> Result<usize, Error> {
    let blocks = len.div_ceil(BLOCK_LEN);
    if (blocks as u128) < state.blocks_left() { Ok(blocks) } else { Err(Error) }
}

/// Keystream blocks 0 ..= `blocks` in one call when the kernel computes that many side
/// by side; `None` otherwise.
#[inline(always)]
fn short_keystream<R: Rounds, K: Kernel>(
    kernel: K,
    state: &mut State<Ietf>,
    blocks: usize,
) -> Option<[Block; MAX_BATCH_BLOCKS]> {
    if blocks + 1 > kernel.batch_blocks().min(MAX_BATCH_BLOCKS) {
        return None;
    }
    let mut keystream = [[0u8; BLOCK_LEN]; MAX_BATCH_BLOCKS];
    state.fill::<R, K>(kernel, &mut keystream[..=blocks]).expect("checked by message_blocks");
    Some(keystream)
}

/// Block 0 alone: the Poly1305 key of a message the bulk path encrypts.
#[inline(always)]
fn key_block<R: Rounds, K: Kernel>(kernel: K, state: &mut State<Ietf>) -> Mac {
    let mut block0 = [[0u8; BLOCK_LEN]];
    state.fill::<R, K>(kernel, &mut block0).expect("block 0 is in every stream");
    let mac = Mac::new(&block0[0]);
    wipe(&mut block0);
    mac
}

/// XORs `keystream`'s first bytes into `buf`.
#[inline(always)]
fn xor_short(keystream: &[Block], mut buf: InOutBuf<'_, '_, u8>) {
    let len = buf.len();
    buf.xor_in2out(&keystream.as_flattened()[..len]);
}

/// Seals `buf` (plaintext in, ciphertext out) and returns the tag.
#[inline]
pub(crate) fn seal<R: Rounds, K: Kernel>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    mut buf: InOutBuf<'_, '_, u8>,
) -> Result<[u8; TAG_LEN], Error> {
    let blocks = message_blocks(&state, buf.len())?;
    let mac = if let Some(mut keystream) = short_keystream::<R, K>(kernel, &mut state, blocks) {
        let mut mac = Mac::new(&keystream[0]);
        mac.acc.absorb_padded(kernel, aad);
        xor_short(&keystream[1..], buf.reborrow());
        mac.acc.absorb_padded(kernel, buf.get_out());
        wipe(&mut keystream[..=blocks]); // the blocks the fill wrote
        mac
    } else {
        let mut mac = key_block::<R, K>(kernel, &mut state);
        mac.acc.absorb_padded(kernel, aad);
        state
            .xor_and_mac::<R, K>(kernel, AeadDirection::Seal, &mut mac.acc, buf.reborrow())
            .expect("checked");
        mac
    };
    Ok(mac.tag(kernel, aad.len(), buf.len()))
}

/// Opens `buf` (ciphertext in, plaintext out) if `tag` is its tag; otherwise `Error`, and
/// the output holds what it held before the call (see the module docs).
#[inline]
pub(crate) fn open<R: Rounds, K: Kernel>(
    kernel: K,
    mut state: State<Ietf>,
    aad: &[u8],
    mut buf: InOutBuf<'_, '_, u8>,
    tag: &[u8; TAG_LEN],
) -> Result<(), Error> {
    let blocks = message_blocks(&state, buf.len())?;
    let len = buf.len();
    if let Some(mut keystream) = short_keystream::<R, K>(kernel, &mut state, blocks) {
        let mut mac = Mac::new(&keystream[0]);
        mac.acc.absorb_padded(kernel, aad);
        mac.acc.absorb_padded(kernel, buf.get_in());
        let ok = tags_equal(&mac.tag(kernel, aad.len(), len), tag);
        if ok {
            xor_short(&keystream[1..], buf);
        }
        wipe(&mut keystream[..=blocks]);
        return if ok { Ok(()) } else { Err(Error) };
    }
    let mut mac = key_block::<R, K>(kernel, &mut state);
    mac.acc.absorb_padded(kernel, aad);
    let in_place = buf.get_in().as_ptr() == buf.get_out().as_ptr();
    if in_place {
        // One pass; on a wrong tag the same keystream again restores the ciphertext.
        let at_block_1 = state.clone();
        state
            .xor_and_mac::<R, K>(kernel, AeadDirection::Open, &mut mac.acc, buf.reborrow())
            .expect("checked");
        if tags_equal(&mac.tag(kernel, aad.len(), len), tag) {
            return Ok(());
        }
        let mut tail = [0u8; BLOCK_LEN];
        let mut state = at_block_1;
        state.xor::<R, K>(kernel, buf, &mut tail).expect("checked");
        wipe(core::slice::from_mut(&mut tail));
        Err(Error)
    } else {
        // Authenticate the input, then write the output.
        mac.acc.absorb_padded(kernel, buf.get_in());
        if !tags_equal(&mac.tag(kernel, aad.len(), len), tag) {
            return Err(Error);
        }
        let mut tail = [0u8; BLOCK_LEN];
        state.xor::<R, K>(kernel, buf, &mut tail).expect("checked");
        wipe(core::slice::from_mut(&mut tail));
        Ok(())
    }
}

/// `a == b` in time independent of where they differ: every byte is read, the
/// differences OR-ed together, and the result hidden from the optimiser before the test.
#[inline(never)]
fn tags_equal(a: &[u8; TAG_LEN], b: &[u8; TAG_LEN]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    core::hint::black_box(diff) == 0
}

/// Wipes keystream with `zeroize`; without it, nothing (as the published crate).
#[inline(always)]
fn wipe(blocks: &mut [Block]) {
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(blocks.as_flattened_mut());
    #[cfg(not(feature = "zeroize"))]
    let _ = blocks;
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
