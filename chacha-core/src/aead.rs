//! The AEAD's own contract, [`Aead`]: what a kernel adds to [`Kernel`] for
//! ChaCha20-Poly1305 (RFC 8439 §2.8), each step with a portable default.
//!
//! - **Three steps, from the smallest.** [`poly1305_blocks`](Aead::poly1305_blocks) absorbs
//!   whole Poly1305 blocks; [`xor_then_mac`](Aead::xor_then_mac) and
//!   [`mac_then_xor`](Aead::mac_then_xor) encrypt and authenticate a run of blocks in one
//!   pass; [`message`](Aead::message) is a whole message from its key block to its tag. A
//!   kernel overrides as many as it runs faster; each default is written with the one
//!   below, so `impl Aead for MyKernel {}` is a correct AEAD on `MyKernel`'s `xor`.
//! - **A message from block 0**, so that a kernel can compute the Poly1305 key block in the
//!   same pass as the first blocks of keystream instead of in a call of its own, which a
//!   message of a few hundred bytes feels.
//! - **One layout.** The AEAD is RFC 8439's: the [`Ietf`] layout, a 32-bit counter.
//! - **The end of the stream is checked here**, as for [`Kernel`]: [`State::xor_and_mac`]
//!   and [`State::aead_message`] check the request, call the kernel and move the state.

use crate::{
    buf::XorBuf,
    contract::Kernel,
    poly1305::{Accumulator, BlockMac, MacBlock, TAG_LEN},
    rounds::Rounds,
    state::{BLOCK_LEN, Block, EndOfStream, Ietf, State},
};

/// ChaCha20-Poly1305's steps on a kernel (see the module header). Every method gives the
/// bytes and the accumulator of the portable default for every input it accepts, and the
/// caller guarantees what [`Kernel`]'s caller does: the request fits in the stream.
pub trait Aead: Kernel {
    /// Poly1305 (RFC 8439 §2.5): absorbs `blocks`, each with its 2^128 pad bit, into
    /// `acc`, leaving it partly reduced ([`Accumulator`] says how). The default is the
    /// portable step, [`Accumulator::absorb`].
    #[inline]
    fn poly1305_blocks(self, acc: &mut Accumulator, blocks: &[MacBlock]) {
        acc.absorb(blocks);
    }

    /// The bulk step for sealing: XORs the keystream of blocks `state.counter() ..` into
    /// `buf` as [`Kernel::xor`] does (the keystream of a partial last block is dropped) and
    /// absorbs the result, the ciphertext, into `acc` as Poly1305 blocks, a partial last one
    /// padded with zeros (`pad16`).
    ///
    /// The default works through the data in [`AEAD_CHUNK`]-byte pieces, each XORed and
    /// then absorbed while it is in L1; a kernel may interleave the two in registers.
    #[inline]
    fn xor_then_mac<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        aead_in_pieces::<R, Self>(self, state, buf, AeadDirection::Seal, |ct| acc.absorb_padded(self, ct));
    }

    /// The opening twin of [`xor_then_mac`](Aead::xor_then_mac): absorbs `buf`'s input
    /// (the ciphertext, padded with zeros to 16 bytes) into `acc` and XORs the keystream
    /// into `buf`. The caller checks the tag before it releases the output.
    #[inline]
    fn mac_then_xor<R: Rounds>(self, state: &State<Ietf>, acc: &mut Accumulator, buf: XorBuf<'_, '_>) {
        aead_in_pieces::<R, Self>(self, state, buf, AeadDirection::Open, |ct| acc.absorb_padded(self, ct));
    }

    /// A whole message (RFC 8439 §2.8) from its key block: the first 32 bytes of block
    /// `state.counter()`'s keystream are the Poly1305 key (`r`, then `s`); `aad` is
    /// absorbed padded; `buf` takes the keystream of the blocks after it, sealing or
    /// opening as `direction` says, its ciphertext absorbed padded; then the lengths block.
    /// Returns the tag.
    ///
    /// Opening decrypts in the same pass: the caller compares the tag and, if it is wrong,
    /// undoes the XOR before anything leaves (the same keystream, from the block after the
    /// key block, restores the ciphertext).
    ///
    /// The default, [`message_in_steps`], computes the key block with [`Kernel::fill`],
    /// then runs [`xor_then_mac`](Aead::xor_then_mac) or [`mac_then_xor`](Aead::mac_then_xor).
    #[inline]
    fn message<R: Rounds>(
        self,
        state: &State<Ietf>,
        direction: AeadDirection,
        aad: &[u8],
        buf: XorBuf<'_, '_>,
    ) -> [u8; TAG_LEN] {
        message_in_steps::<R, Self>(self, state, direction, aad, buf)
    }
}

/// The default [`Aead::message`], which a kernel's own calls for what it does not do
/// faster: the key block with [`Kernel::fill`], the AAD, then [`Aead::xor_then_mac`] or
/// [`Aead::mac_then_xor`] from the block after it, then the lengths.
#[inline]
pub fn message_in_steps<R: Rounds, K: Aead>(
    kernel: K,
    state: &State<Ietf>,
    direction: AeadDirection,
    aad: &[u8],
    buf: XorBuf<'_, '_>,
) -> [u8; TAG_LEN] {
    let mut block0 = [[0u8; BLOCK_LEN]];
    kernel.fill::<R, Ietf>(state, &mut block0);
    let mut mac = AeadMac::new(&block0[0]);
    wipe_keystream(&mut block0);
    mac.absorb_padded(kernel, aad);
    let mut after = state.clone();
    after.advance(1).expect("the caller checked the whole message");
    let len = buf.len();
    match direction {
        AeadDirection::Seal => kernel.xor_then_mac::<R>(&after, &mut mac.acc, buf),
        AeadDirection::Open => kernel.mac_then_xor::<R>(&after, &mut mac.acc, buf),
    }
    mac.tag(aad.len(), len)
}

/// The MAC of one ChaCha20-Poly1305 message: the accumulator keyed with `r` and the key's
/// second half `s`, from the first 32 bytes of the message's key block; wiped when it goes
/// (with `zeroize`).
pub struct AeadMac {
    acc: Accumulator,
    s: [u8; 16],
}

impl AeadMac {
    /// From the key block's keystream (its first 32 bytes: `r`, then `s`).
    #[inline(always)]
    pub fn new(key_block: &Block) -> Self {
        let (r, rest) = key_block.split_at(16);
        AeadMac {
            acc: Accumulator::new(r.try_into().expect("16 bytes")),
            s: rest[..16].try_into().expect("16 bytes"),
        }
    }

    /// Absorbs `data` padded with zeros to 16 bytes (RFC 8439 §2.8's `pad16`), whole blocks
    /// with `mac` ([`Accumulator::absorb_padded`]).
    #[inline(always)]
    pub fn absorb_padded(&mut self, mac: impl BlockMac, data: &[u8]) {
        self.acc.absorb_padded(mac, data);
    }

    /// The tag after the AAD and a text of these lengths: the lengths block, then the sum
    /// ([`Accumulator::aead_tag`]).
    #[inline(always)]
    pub fn tag(mut self, aad_len: usize, text_len: usize) -> [u8; TAG_LEN] {
        self.acc.aead_tag(&self.s, aad_len, text_len)
    }
}

/// Only that it is one: the key and the accumulator are secret.
impl core::fmt::Debug for AeadMac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AeadMac { .. }")
    }
}

#[cfg(feature = "zeroize")]
impl Drop for AeadMac {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.acc);
        zeroize::Zeroize::zeroize(&mut self.s);
    }
}

/// Wipes keystream blocks with `zeroize`; without the feature, nothing (as the published
/// crates, which wipe only with theirs).
#[inline(always)]
pub fn wipe_keystream(blocks: &mut [Block]) {
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(blocks.as_flattened_mut());
    #[cfg(not(feature = "zeroize"))]
    let _ = blocks;
}

/// Bytes per piece of the default [`Aead::xor_then_mac`] / [`Aead::mac_then_xor`]:
/// 64 blocks, a kernel's widest step four times over, and 4 KiB of input and output,
/// well inside any L1.
pub const AEAD_CHUNK: usize = 64 * BLOCK_LEN;

/// Which way an AEAD's step goes ([`State::xor_and_mac`], [`Aead::message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AeadDirection {
    /// Encrypt, then absorb the ciphertext (the output).
    Seal,
    /// Absorb the ciphertext (the input), then decrypt.
    Open,
}

/// The one-pass AEAD step in [`AEAD_CHUNK`]-byte pieces: each piece XORed with the
/// kernel's `xor` and its ciphertext handed to `mac` while it is in L1 (before the XOR when
/// opening, after it when sealing). Every piece but the last is whole 128-byte groups, so
/// a MAC that absorbs 8 or 16 blocks at a time sees a partial group only at the end.
///
/// The defaults of [`Aead::xor_then_mac`] and [`Aead::mac_then_xor`] run it with
/// [`Accumulator::absorb_padded`] on the kernel's `poly1305_blocks`; a kernel with a MAC of
/// its own (state kept across pieces) runs it with that.
#[inline(always)]
pub fn aead_in_pieces<R: Rounds, K: Kernel>(
    kernel: K,
    state: &State<Ietf>,
    mut buf: XorBuf<'_, '_>,
    direction: AeadDirection,
    mut mac: impl FnMut(&[u8]),
) {
    let mut piece_state = state.clone();
    let mut tail = [0u8; BLOCK_LEN];
    while !buf.is_empty() {
        let n = buf.len().min(AEAD_CHUNK);
        let (mut piece, rest) = buf.split_at(n);
        if direction == AeadDirection::Open {
            mac(piece.get_in());
        }
        kernel.xor::<R, Ietf>(&piece_state, piece.reborrow(), &mut tail);
        if direction == AeadDirection::Seal {
            mac(piece.get_out());
        }
        // Whole pieces only until the last: never past the end the caller checked.
        if !rest.is_empty() {
            piece_state.advance((n / BLOCK_LEN) as u64).expect("the caller checked the whole request");
        }
        buf = rest;
    }
}

impl State<Ietf> {
    /// An AEAD's bulk step at this position, one pass ([`Seal`](AeadDirection::Seal):
    /// [`Aead::xor_then_mac`]; [`Open`](AeadDirection::Open): [`Aead::mac_then_xor`]),
    /// then moves past the `⌈len / 64⌉` blocks used.
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left; `buf`, `acc` and the state are
    /// untouched.
    #[inline]
    pub fn xor_and_mac<R: Rounds, K: Aead>(
        &mut self,
        kernel: K,
        direction: AeadDirection,
        acc: &mut Accumulator,
        buf: XorBuf<'_, '_>,
    ) -> Result<(), EndOfStream> {
        let blocks = buf.len().div_ceil(BLOCK_LEN) as u64;
        self.check(blocks)?;
        match direction {
            AeadDirection::Seal => kernel.xor_then_mac::<R>(self, acc, buf),
            AeadDirection::Open => kernel.mac_then_xor::<R>(self, acc, buf),
        }
        self.advance(blocks)
    }

    /// A whole AEAD message from this position, its key block ([`Aead::message`]), then
    /// moves past the key block and the `⌈len / 64⌉` blocks of the message. Returns the tag
    /// (opening: the tag of the input; `buf` is decrypted, and the caller undoes that if
    /// the tag is wrong).
    ///
    /// # Errors
    /// [`EndOfStream`] if the stream has fewer blocks left than the key block and the
    /// message's; `buf` and the state are untouched.
    ///
    /// ```
    /// use chacha_core::{reference, AeadDirection, Ietf, Kernel, R20, Rounds, State, Variant, XorBuf, Block};
    ///
    /// /// A kernel on the reference, with every AEAD step the portable default.
    /// #[derive(Clone, Copy, Debug)]
    /// struct Plain;
    /// impl Kernel for Plain {
    ///     fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
    ///         let mut ks = vec![[0u8; 64]; buf.len().div_ceil(64)];
    ///         reference::keystream::<R, V>(state, &mut ks);
    ///         buf.xor_in2out(&ks.as_flattened()[..buf.len()]);
    ///         if buf.len() % 64 != 0 {
    ///             *tail = *ks.last().unwrap();
    ///         }
    ///     }
    ///     fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
    ///         reference::keystream::<R, V>(state, out);
    ///     }
    ///     fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
    ///         reference::hchacha::<R>(key, input)
    ///     }
    /// }
    /// impl chacha_core::Aead for Plain {}
    ///
    /// // RFC 8439 §2.8.2: the tag of the sunscreen message.
    /// let key: [u8; 32] = core::array::from_fn(|i| 0x80 + i as u8);
    /// let nonce = [7, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47];
    /// let aad = [0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7];
    /// let mut text = *b"Ladies and Gentlemen of the class of '99: If I could offer you \
    ///     only one tip for the future, sunscreen would be it.";
    /// let mut state = State::<Ietf>::new(&key, &nonce);
    /// let tag = state.aead_message::<R20, _>(Plain, AeadDirection::Seal, &aad, (&mut text[..]).into()).unwrap();
    /// assert_eq!(tag, [0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a, 0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60, 0x06, 0x91]);
    /// assert_eq!(text[..4], [0xd3, 0x1a, 0x8d, 0x34]);
    /// ```
    #[inline]
    pub fn aead_message<R: Rounds, K: Aead>(
        &mut self,
        kernel: K,
        direction: AeadDirection,
        aad: &[u8],
        buf: XorBuf<'_, '_>,
    ) -> Result<[u8; TAG_LEN], EndOfStream> {
        let blocks = 1 + buf.len().div_ceil(BLOCK_LEN) as u64;
        self.check(blocks)?;
        let tag = kernel.message::<R>(self, direction, aad, buf);
        self.advance(blocks)?;
        Ok(tag)
    }
}
