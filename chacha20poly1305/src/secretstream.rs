//! libsodium's `crypto_secretstream_xchacha20poly1305`: a stream of messages (chunks) under
//! one key, each authenticated, in an order that cannot be changed, with an explicit end.
//! Byte for byte the format of libsodium 1.0.18 (and of libsodium.js, PyNaCl and the other
//! bindings), in both directions.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use chacha20poly1305::Key;
//! use chacha20poly1305::secretstream::{Decryptor, Encryptor, Header, Tag};
//!
//! let key = Key::from([0x42; 32]); // a secret key, e.g. `Key::generate()` with `getrandom`
//! let header = Header::from([7; 24]); // random per stream: `Encryptor::new` draws one
//! let mut tx = Encryptor::from_header(&key, &header);
//! let first = tx.push(b"first chunk", b"", Tag::Message).unwrap();
//! let last = tx.push(b"last chunk", b"", Tag::Final).unwrap();
//!
//! let mut rx = Decryptor::new(&key, &header);
//! assert_eq!(rx.pull(&first, b"").unwrap(), (b"first chunk".to_vec(), Tag::Message));
//! assert_eq!(rx.pull(&last, b"").unwrap(), (b"last chunk".to_vec(), Tag::Final));
//! rx.finish().unwrap(); // the stream ended with its `Final` chunk: nothing was cut off
//! # }
//! ```
//!
//! ## What it guarantees
//! Each chunk's MAC covers the chunk, its tag, its associated data and (through the state
//! it leaves behind) every chunk before it. So [`Decryptor`]'s pulls refuse a chunk that was
//! changed, reordered, replayed, dropped or taken from another stream ([`Error::Forged`])
//! and releases no plaintext of it. That a stream was *cut short* only shows at its end:
//! push the last chunk with [`Tag::Final`] and, when the input ends, call
//! [`Decryptor::finish`], which is [`Error::Truncated`] unless that chunk arrived.
//!
//! ## The construction (libsodium's `secretstream_xchacha20poly1305.c`)
//! - **State**: a 32-byte key `k` and a 12-byte ChaCha20 nonce, a 32-bit little-endian
//!   counter `i` followed by 8 bytes `n`. `Encryptor::new` draws a 24-byte [`Header`]:
//!   `k = HChaCha20(key, header[..16])`, `n = header[16..]`, `i = 1`.
//! - **A chunk** of an `m`-byte message is `1 + m + 16` bytes ([`ABYTES`] = 17 of overhead):
//!   ChaCha20 (RFC 8439 layout) under `k` and `i ‖ n` gives block 0, the one-time Poly1305
//!   key; block 1 encrypts the tag byte in its first byte, and its other 63 bytes are
//!   discarded (but authenticated); the message is encrypted from block 2. The MAC is
//!   Poly1305 over `aad ‖ pad16 ‖ block 1 (64 bytes) ‖ ciphertext ‖ m mod 16 zero bytes ‖
//!   le64(aad length) ‖ le64(64 + m)`: the second padding is libsodium's (it is not the
//!   AEAD's `pad16`, and can leave a partial last Poly1305 block).
//! - **After each chunk** `n ^= mac[..8]`, `i += 1`; if the tag has the rekey bit
//!   ([`Tag::Rekey`], [`Tag::Final`]) or `i` wrapped to 0, the state is rekeyed: `k ‖ n`
//!   is XORed with the first 40 bytes of block 0 of the current state, and `i = 1`.
//!
//! Here the message blocks go through the one-pass seal and open that the AEAD uses (each
//! piece encrypted and authenticated while it is in L1); only a last partial block and
//! libsodium's padding are done on their own.

use aead::array::Array;
use aead::consts::U24;
use chacha_core::poly1305::{Accumulator, MAC_BLOCK_LEN, MacBlock, TAG_LEN};
use chacha_core::{AeadDirection, BLOCK_LEN, Block, Ietf, Kernel, R20, State, XorBuf};
use core::fmt;

use crate::{Backend, Key};

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

/// Bytes a chunk adds to its message: the encrypted tag byte and the 16-byte MAC
/// (libsodium's `crypto_secretstream_xchacha20poly1305_ABYTES`).
pub const ABYTES: usize = 1 + TAG_LEN;

/// Bytes in a stream's [`Header`] (`crypto_secretstream_xchacha20poly1305_HEADERBYTES`).
pub const HEADER_LEN: usize = 24;

/// The longest message of one chunk: `(2^32 − 2) · 64` bytes, the ChaCha20 blocks after the
/// two that key the MAC and encrypt the tag
/// (`crypto_secretstream_xchacha20poly1305_MESSAGEBYTES_MAX` on 64-bit targets).
pub const MESSAGE_MAX: u64 = ((1 << 32) - 2) * BLOCK_LEN as u64;

/// The 24 bytes that start a stream: random, never used twice with one key. Not secret;
/// send it ahead of the first chunk.
pub type Header = Array<u8, U24>;

/// What a chunk says about its place in the stream; authenticated with it.
///
/// libsodium's four tags (`crypto_secretstream_xchacha20poly1305_TAG_*`), the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tag {
    /// An ordinary chunk (`TAG_MESSAGE`, 0).
    Message = 0,
    /// The end of a set of chunks, e.g. a record or a file inside the stream (`TAG_PUSH`,
    /// 1); nothing changes in the state.
    Push = 1,
    /// Rekey after this chunk (`TAG_REKEY`, 2): the following chunks are under a new key,
    /// and the earlier ones cannot be derived from it.
    Rekey = 2,
    /// The last chunk of the stream (`TAG_FINAL`, 3 = push and rekey): nothing may follow.
    Final = 3,
}

impl Tag {
    /// The tag a byte names, if it is one of the four.
    fn from_byte(byte: u8) -> Option<Tag> {
        match byte {
            0 => Some(Tag::Message),
            1 => Some(Tag::Push),
            2 => Some(Tag::Rekey),
            3 => Some(Tag::Final),
            _ => None,
        }
    }
}

/// Why a chunk was not pushed or pulled; each leaves the state as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The chunk is not the next one of this stream under this key and header, or its
    /// associated data differs: changed, reordered, replayed, a chunk before it dropped,
    /// from another stream. No plaintext is released, and the decryptor still expects
    /// the chunk it expected (as libsodium's `pull`, which leaves the state alone).
    Forged,
    /// The chunk is shorter than [`ABYTES`], so it cannot be one.
    TooShort,
    /// The message is longer than [`MESSAGE_MAX`] (when pulling: the chunk is longer than
    /// any chunk can be).
    TooLong,
    /// The stream already ended with a [`Tag::Final`] chunk: nothing more is pushed or
    /// pulled.
    Finished,
    /// The input ended before the [`Tag::Final`] chunk ([`Decryptor::finish`]): the stream
    /// was cut short.
    Truncated,
    /// The chunk is authentic but its tag byte is none of the four [`Tag`]s (a sender that
    /// pushes other tags than libsodium's); its plaintext is not released.
    UnknownTag(u8),
    /// The output buffer of [`Encryptor::push_to`] or [`Decryptor::pull_to`] is not
    /// [`ABYTES`] longer (push) or shorter (pull) than the input.
    OutputLength,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Forged => {
                f.write_str("secretstream chunk refused: not the next authentic chunk of this stream")
            }
            Error::TooShort => write!(f, "secretstream chunk shorter than its {ABYTES} bytes of overhead"),
            Error::TooLong => write!(f, "secretstream message longer than {MESSAGE_MAX} bytes"),
            Error::Finished => f.write_str("secretstream already ended with its final chunk"),
            Error::Truncated => f.write_str("secretstream cut short: its final chunk never arrived"),
            Error::UnknownTag(byte) => write!(f, "secretstream chunk with unknown tag byte {byte}"),
            Error::OutputLength => {
                write!(f, "secretstream output buffer not {ABYTES} bytes off the input's length")
            }
        }
    }
}

impl core::error::Error for Error {}

/// The state both ends keep: the key and the nonce (`i ‖ n`), and whether the final chunk
/// has gone by.
struct Stream {
    key: [u8; 32],
    /// `i` (little-endian, bytes 0..4) then `n` (bytes 4..12).
    nonce: [u8; 12],
    backend: Backend,
    finished: bool,
}

impl Stream {
    /// `crypto_secretstream_xchacha20poly1305_init_push` / `_init_pull`, with the header
    /// given.
    fn new(key: &Key, header: &Header, backend: Backend) -> Self {
        let (head, tail) = header.0.split_at(16);
        let key = backend.hchacha::<R20>(&key.0, head.try_into().expect("16 bytes"));
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(&1u32.to_le_bytes());
        nonce[4..].copy_from_slice(tail);
        Stream { key, nonce, backend, finished: false }
    }

    /// The ChaCha20 state at block 0 for this chunk.
    fn state(&self) -> State<Ietf> {
        State::new(&self.key, &self.nonce)
    }

    /// Blocks 0 and 1 (the MAC key and the tag byte's block), then the MAC keyed and `aad`
    /// absorbed; `state` is left at block 2.
    fn start(&self, state: &mut State<Ietf>, aad: &[u8]) -> (Mac, Block) {
        let mut keystream = [[0u8; BLOCK_LEN]; 2];
        state.fill::<R20, Backend>(self.backend, &mut keystream).expect("a fresh state has blocks 0 and 1");
        let [block0, block1] = keystream;
        let mut mac = Mac::new(&block0);
        wipe(&mut [block0]);
        mac.acc.absorb_padded(self.backend, aad);
        (mac, block1)
    }

    /// Seals `buf` (message in, ciphertext out: in place or buffer to buffer) as the next
    /// chunk with `tag`; the chunk's first byte and MAC.
    fn seal(&mut self, buf: XorBuf<'_, '_>, aad: &[u8], tag: Tag) -> Result<(u8, [u8; TAG_LEN]), Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        let len = buf.len();
        if len as u64 > MESSAGE_MAX {
            return Err(Error::TooLong);
        }
        let mut state = self.state();
        let (mut mac, mut block1) = self.start(&mut state, aad);
        block1[0] ^= tag as u8;
        let first = block1[0];
        mac.absorb_block1(&block1);
        wipe(&mut [block1]);
        let (whole, mut rest) = buf.split_at(len / BLOCK_LEN * BLOCK_LEN);
        state
            .xor_and_mac::<R20, Backend>(self.backend, AeadDirection::Seal, &mut mac.acc, whole)
            .expect("checked against MESSAGE_MAX");
        xor_rest(self.backend, &mut state, rest.reborrow());
        let sum = mac.finish(rest.get_out(), aad.len(), len);
        wipe_state(&mut state);
        self.next(&sum, tag);
        Ok((first, sum))
    }

    /// Opens `buf` (ciphertext in, message out) if `first` and `sum` make it the next chunk
    /// under `aad`; its tag. On any error the state is unchanged and the output holds no
    /// plaintext: in place, the ciphertext again; buffer to buffer, zeros where the one pass
    /// wrote.
    fn open(
        &mut self,
        first: u8,
        buf: XorBuf<'_, '_>,
        sum: &[u8; TAG_LEN],
        aad: &[u8],
    ) -> Result<Tag, Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        let len = buf.len();
        if len as u64 > MESSAGE_MAX {
            return Err(Error::TooLong);
        }
        let in_place = buf.is_in_place();
        let mut state = self.state();
        let (mut mac, mut block1) = self.start(&mut state, aad);
        let tag_byte = first ^ block1[0];
        block1[0] = first;
        mac.absorb_block1(&block1);
        wipe(&mut [block1]);
        let (mut whole, rest) = buf.split_at(len / BLOCK_LEN * BLOCK_LEN);
        // One pass over the whole blocks (decrypted as they are authenticated), undone below
        // if the chunk is refused; the last partial block is decrypted only once accepted.
        let mut at_block_2 = state.clone();
        state
            .xor_and_mac::<R20, Backend>(self.backend, AeadDirection::Open, &mut mac.acc, whole.reborrow())
            .expect("checked against MESSAGE_MAX");
        let computed = mac.finish(rest.get_in(), aad.len(), len);
        let verdict = if !tags_equal(&computed, sum) {
            Err(Error::Forged)
        } else {
            Tag::from_byte(tag_byte).ok_or(Error::UnknownTag(tag_byte))
        };
        let result = match verdict {
            Ok(tag) => {
                xor_rest(self.backend, &mut state, rest);
                self.next(&computed, tag);
                Ok(tag)
            }
            Err(e) if in_place => {
                let mut tail = [0u8; BLOCK_LEN];
                at_block_2.xor::<R20, Backend>(self.backend, whole, &mut tail).expect("as above");
                wipe(&mut [tail]);
                Err(e)
            }
            Err(e) => {
                wipe_bytes(whole.into_out());
                Err(e)
            }
        };
        wipe_state(&mut state);
        wipe_state(&mut at_block_2);
        result
    }

    /// The state after a chunk with MAC `sum` and `tag`: `n ^= sum[..8]`, `i += 1`, and a
    /// rekey for the rekey bit or a counter that wrapped to 0.
    fn next(&mut self, sum: &[u8; TAG_LEN], tag: Tag) {
        for (n, s) in self.nonce[4..].iter_mut().zip(sum) {
            *n ^= s;
        }
        let counter = u32::from_le_bytes(self.nonce[..4].try_into().expect("4 bytes")).wrapping_add(1);
        self.nonce[..4].copy_from_slice(&counter.to_le_bytes());
        if tag as u8 & Tag::Rekey as u8 != 0 || counter == 0 {
            self.rekey();
        }
        self.finished = tag == Tag::Final;
    }

    /// `crypto_secretstream_xchacha20poly1305_rekey`: `k ‖ n` XORed with the first 40
    /// bytes of block 0 under the current key and nonce, then `i = 1`.
    fn rekey(&mut self) {
        let mut block0 = [[0u8; BLOCK_LEN]];
        let mut state = self.state();
        state.fill::<R20, Backend>(self.backend, &mut block0).expect("block 0 is in every stream");
        wipe_state(&mut state);
        for (k, ks) in self.key.iter_mut().zip(&block0[0][..32]) {
            *k ^= ks;
        }
        for (n, ks) in self.nonce[4..].iter_mut().zip(&block0[0][32..40]) {
            *n ^= ks;
        }
        self.nonce[..4].copy_from_slice(&1u32.to_le_bytes());
        wipe(&mut block0);
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.key);
        zeroize::Zeroize::zeroize(&mut self.nonce);
    }
}

/// XORs the keystream of one block at `state` into `rest` (fewer than 64 bytes).
fn xor_rest(backend: Backend, state: &mut State<Ietf>, rest: XorBuf<'_, '_>) {
    if !rest.is_empty() {
        let mut tail = [0u8; BLOCK_LEN];
        state.xor::<R20, Backend>(backend, rest, &mut tail).expect("checked");
        wipe(&mut [tail]);
    }
}

/// The Poly1305 key and accumulator of one chunk.
struct Mac {
    acc: Accumulator,
    s: [u8; 16],
}

impl Mac {
    /// From the first 32 bytes of block 0's keystream.
    fn new(block0: &Block) -> Self {
        Mac {
            acc: Accumulator::new(block0[..16].try_into().expect("16 bytes")),
            s: block0[16..32].try_into().expect("16 bytes"),
        }
    }

    /// Absorbs block 1 (its first byte the encrypted tag), all 64 bytes.
    fn absorb_block1(&mut self, block1: &Block) {
        let (blocks, _) = block1.as_chunks::<MAC_BLOCK_LEN>();
        self.acc.absorb(blocks);
    }

    /// Absorbs the rest of the chunk after its whole ChaCha blocks — `rest` (its last 0–63
    /// ciphertext bytes), `m mod 16` zero bytes, le64(`aad_len`), le64(64 + `m`) — and
    /// returns the MAC.
    fn finish(mut self, rest: &[u8], aad_len: usize, m: usize) -> [u8; TAG_LEN] {
        // At most 63 + 15 + 16 bytes.
        let mut end = [0u8; BLOCK_LEN + 2 * MAC_BLOCK_LEN];
        end[..rest.len()].copy_from_slice(rest);
        let mut len = rest.len() + m % MAC_BLOCK_LEN;
        end[len..len + 8].copy_from_slice(&(aad_len as u64).to_le_bytes());
        end[len + 8..len + 16].copy_from_slice(&((BLOCK_LEN + m) as u64).to_le_bytes());
        len += 16;
        let (blocks, last) = end[..len].as_chunks::<MAC_BLOCK_LEN>();
        self.acc.absorb(blocks);
        if !last.is_empty() {
            absorb_last(&mut self.acc, last);
        }
        wipe_bytes(&mut end);
        self.acc.tag(&self.s)
    }
}

impl Drop for Mac {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.acc);
        zeroize::Zeroize::zeroize(&mut self.s);
    }
}

/// Absorbs `last` (1–15 bytes) as Poly1305's final partial block, which RFC 8439 §2.5 ends
/// with one `0x01` byte and zeros and gives no 2^128 bit. chacha-core's [`Accumulator`]
/// absorbs whole blocks only, each with that bit; so `h` is set to
/// `h + m − 2^128 (mod p)` and a zero block is absorbed: `(h + m − 2^128 + 0 + 2^128)·r`.
/// Branch-free (carries as `overflowing_*`), as the accumulator is secret.
fn absorb_last(acc: &mut Accumulator, last: &[u8]) {
    let mut block: MacBlock = [0; MAC_BLOCK_LEN];
    block[..last.len()].copy_from_slice(last);
    block[last.len()] = 1;
    let m = u128::from_le_bytes(block);
    let [h0, h1, h2] = acc.h();
    // h + m + (p − 2^128) = h + m + 3·2^128 − 5, below 12·2^128 (h[2] < 8, m < 2^128).
    let (lo, carry) = (u128::from(h0) | (u128::from(h1) << 64)).overflowing_add(m);
    let (lo, borrow) = lo.overflowing_sub(5);
    let hi = h2 + u64::from(carry) + 3 - u64::from(borrow);
    // 2^130 ≡ 5: fold the bits from 2^130 up (hi >> 2 is at most 2) into the low part,
    // which leaves h[2] at most 4.
    let (lo, carry) = lo.overflowing_add(u128::from(hi >> 2) * 5);
    acc.set_h([lo as u64, (lo >> 64) as u64, (hi & 3) + u64::from(carry)]);
    acc.absorb(&[[0; MAC_BLOCK_LEN]]);
    zeroize::Zeroize::zeroize(&mut block);
}

/// `a == b` in time independent of where they differ.
fn tags_equal(a: &[u8; TAG_LEN], b: &[u8; TAG_LEN]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    core::hint::black_box(diff) == 0
}

fn wipe(blocks: &mut [Block]) {
    zeroize::Zeroize::zeroize(blocks.as_flattened_mut());
}

fn wipe_bytes(bytes: &mut [u8]) {
    zeroize::Zeroize::zeroize(bytes);
}

/// A ChaCha state holds the chunk's key in its words: wiped once used.
fn wipe_state(state: &mut State<Ietf>) {
    zeroize::Zeroize::zeroize(state);
}

/// The sending end of a stream (libsodium's `init_push` and `push`).
///
/// Each push ([`push_in_place`](Self::push_in_place), [`push_to`](Self::push_to), `push`
/// with `alloc`) makes the next chunk; send the [`Header`] first. The state
/// (key, nonce) is wiped on drop, and `Debug` shows none of it.
pub struct Encryptor {
    stream: Stream,
}

impl Encryptor {
    /// A stream under `key` with a fresh random header (from the operating system's
    /// generator), which the receiver needs: send it first.
    ///
    /// # Panics
    /// If the operating system's generator fails.
    #[cfg(feature = "getrandom")]
    pub fn new(key: &Key) -> (Self, Header) {
        use aead::Generate;
        let header = Header::generate();
        (Self::from_header(key, &header), header)
    }

    /// A stream under `key` that starts with `header`, on [`Backend::detect`]'s backend.
    ///
    /// The header must be random and never used again with this key (two streams with one
    /// key and header have the same keystream): `Encryptor::new` (feature `getrandom`) draws one. Taking it
    /// from the caller serves a caller with its own generator, and tests.
    pub fn from_header(key: &Key, header: &Header) -> Self {
        Self::with_backend(key, header, Backend::detect())
    }

    /// [`Encryptor::from_header`] on `backend` (one of [`Backend::available`]).
    pub fn with_backend(key: &Key, header: &Header, backend: Backend) -> Self {
        Encryptor { stream: Stream::new(key, header, backend) }
    }

    /// Encrypts the message in `chunk` in place into the next chunk, with `aad` (not sent;
    /// the receiver must give the same) authenticated and `tag`.
    ///
    /// `chunk` is laid out as the chunk will be: one byte of room, the message, 16 bytes
    /// of room (`chunk.len()` is the message's length + [`ABYTES`]). No allocation, no
    /// copy.
    ///
    /// ```
    /// use chacha20poly1305::Key;
    /// use chacha20poly1305::secretstream::{ABYTES, Decryptor, Encryptor, Header, Tag};
    ///
    /// let (key, header) = (Key::from([1; 32]), Header::from([2; 24]));
    /// let mut chunk = [0u8; 5 + ABYTES];
    /// chunk[1..6].copy_from_slice(b"hello");
    /// Encryptor::from_header(&key, &header).push_in_place(&mut chunk, b"", Tag::Final).unwrap();
    /// let (msg, tag) = Decryptor::new(&key, &header).pull_in_place(&mut chunk, b"").unwrap();
    /// assert_eq!((&*msg, tag), (&b"hello"[..], Tag::Final));
    /// ```
    ///
    /// # Errors
    /// [`Error::TooShort`] if `chunk` is shorter than [`ABYTES`], [`Error::TooLong`] past
    /// [`MESSAGE_MAX`], [`Error::Finished`] after a [`Tag::Final`] chunk; `chunk` and the
    /// state are then untouched.
    pub fn push_in_place(&mut self, chunk: &mut [u8], aad: &[u8], tag: Tag) -> Result<(), Error> {
        let len = chunk.len().checked_sub(ABYTES).ok_or(Error::TooShort)?;
        let (first, rest) = chunk.split_first_mut().expect("at least ABYTES");
        let (msg, sum_out) = rest.split_at_mut(len);
        let (byte, sum) = self.stream.seal(XorBuf::in_place(msg), aad, tag)?;
        *first = byte;
        sum_out.copy_from_slice(&sum);
        Ok(())
    }

    /// Writes the next chunk to `chunk`: `msg` encrypted with `aad` authenticated and
    /// `tag`, as libsodium's `push` (`chunk.len()` must be `msg.len() + ABYTES`).
    ///
    /// # Errors
    /// [`Error::OutputLength`] for a `chunk` of another length, [`Error::TooLong`] past
    /// [`MESSAGE_MAX`], [`Error::Finished`] after a [`Tag::Final`] chunk; `chunk` and the
    /// state are then untouched.
    pub fn push_to(&mut self, msg: &[u8], chunk: &mut [u8], aad: &[u8], tag: Tag) -> Result<(), Error> {
        if chunk.len() != msg.len() + ABYTES {
            return Err(Error::OutputLength);
        }
        let (first, rest) = chunk.split_first_mut().expect("at least ABYTES");
        let (ct, sum_out) = rest.split_at_mut(msg.len());
        let buf = XorBuf::new(msg, ct).expect("the same length");
        let (byte, sum) = self.stream.seal(buf, aad, tag)?;
        *first = byte;
        sum_out.copy_from_slice(&sum);
        Ok(())
    }

    /// The next chunk: `msg` encrypted with `aad` authenticated and `tag`
    /// (`msg.len() + ABYTES` bytes).
    ///
    /// # Errors
    /// [`Error::TooLong`] past [`MESSAGE_MAX`], [`Error::Finished`] after a [`Tag::Final`]
    /// chunk.
    #[cfg(feature = "alloc")]
    pub fn push(&mut self, msg: &[u8], aad: &[u8], tag: Tag) -> Result<Vec<u8>, Error> {
        let mut chunk = alloc::vec![0; msg.len() + ABYTES];
        self.push_to(msg, &mut chunk, aad, tag)?;
        Ok(chunk)
    }

    /// Rekeys now, outside a chunk (`crypto_secretstream_xchacha20poly1305_rekey`): the
    /// receiver must call [`Decryptor::rekey`] at the same point.
    pub fn rekey(&mut self) {
        self.stream.rekey();
    }

    /// Whether a [`Tag::Final`] chunk was pushed (nothing more can be).
    pub fn is_finished(&self) -> bool {
        self.stream.finished
    }

    /// The backend this stream runs on.
    pub fn backend(&self) -> Backend {
        self.stream.backend
    }
}

/// The receiving end of a stream (libsodium's `init_pull` and `pull`).
///
/// Each pull ([`pull_in_place`](Self::pull_in_place), [`pull_to`](Self::pull_to), `pull` with
/// `alloc`) opens the next chunk or refuses it; [`finish`](Self::finish)
/// at the end of the input says whether the stream was complete. The state is wiped on
/// drop, and `Debug` shows none of it.
pub struct Decryptor {
    stream: Stream,
}

impl Decryptor {
    /// The receiving end of the stream under `key` that started with `header`, on
    /// [`Backend::detect`]'s backend.
    pub fn new(key: &Key, header: &Header) -> Self {
        Self::with_backend(key, header, Backend::detect())
    }

    /// [`Decryptor::new`] on `backend` (one of [`Backend::available`]).
    pub fn with_backend(key: &Key, header: &Header, backend: Backend) -> Self {
        Decryptor { stream: Stream::new(key, header, backend) }
    }

    /// Opens the next chunk in place, if it is authentic: its message (inside `chunk`,
    /// `chunk[1..len - 16]`) and tag, `aad` being the associated data it was pushed with.
    ///
    /// # Errors
    /// [`Error::Forged`] if the chunk is not the next one of this stream (see the [module
    /// docs](self)), [`Error::TooShort`], [`Error::Finished`] after a [`Tag::Final`]
    /// chunk, [`Error::UnknownTag`]. On every error `chunk` holds what it held and the
    /// decryptor is as it was, so the right chunk still opens after a wrong one (what
    /// libsodium does).
    pub fn pull_in_place<'c>(
        &mut self,
        chunk: &'c mut [u8],
        aad: &[u8],
    ) -> Result<(&'c mut [u8], Tag), Error> {
        let len = chunk.len().checked_sub(ABYTES).ok_or(Error::TooShort)?;
        let (&mut first, rest) = chunk.split_first_mut().expect("at least ABYTES");
        let (ct, sum) = rest.split_at_mut(len);
        let sum: &[u8; TAG_LEN] = (&*sum).try_into().expect("TAG_LEN bytes");
        let tag = self.stream.open(first, XorBuf::in_place(&mut *ct), sum, aad)?;
        Ok((ct, tag))
    }

    /// Opens the next chunk into `msg` (`chunk.len() − ABYTES` bytes), if it is authentic,
    /// as libsodium's `pull`: its tag.
    ///
    /// # Errors
    /// As [`pull_in_place`](Self::pull_in_place), and [`Error::OutputLength`] for a `msg`
    /// of another length. On every error the decryptor is as it was and `msg` holds no
    /// plaintext (zeros where the one pass wrote).
    pub fn pull_to(&mut self, chunk: &[u8], msg: &mut [u8], aad: &[u8]) -> Result<Tag, Error> {
        let len = chunk.len().checked_sub(ABYTES).ok_or(Error::TooShort)?;
        if msg.len() != len {
            return Err(Error::OutputLength);
        }
        let sum: &[u8; TAG_LEN] = chunk[1 + len..].try_into().expect("TAG_LEN bytes");
        let buf = XorBuf::new(&chunk[1..1 + len], msg).expect("the same length");
        self.stream.open(chunk[0], buf, sum, aad)
    }

    /// Opens the next chunk, if it is authentic: its message and tag.
    ///
    /// # Errors
    /// As [`pull_in_place`](Self::pull_in_place); a refused chunk's plaintext is never
    /// returned.
    #[cfg(feature = "alloc")]
    pub fn pull(&mut self, chunk: &[u8], aad: &[u8]) -> Result<(Vec<u8>, Tag), Error> {
        let len = chunk.len().checked_sub(ABYTES).ok_or(Error::TooShort)?;
        let mut msg = alloc::vec![0; len];
        let tag = self.pull_to(chunk, &mut msg, aad)?;
        Ok((msg, tag))
    }

    /// Rekeys now, outside a chunk, where the sender called [`Encryptor::rekey`].
    pub fn rekey(&mut self) {
        self.stream.rekey();
    }

    /// Whether the [`Tag::Final`] chunk has been pulled (nothing more can be).
    pub fn is_finished(&self) -> bool {
        self.stream.finished
    }

    /// The end of the input: `Ok` if the stream ended with its [`Tag::Final`] chunk.
    ///
    /// # Errors
    /// [`Error::Truncated`] if it did not: the stream was cut short, and what was pulled
    /// is only its beginning.
    pub fn finish(self) -> Result<(), Error> {
        if self.stream.finished { Ok(()) } else { Err(Error::Truncated) }
    }

    /// The backend this stream runs on.
    pub fn backend(&self) -> Backend {
        self.stream.backend
    }
}

/// The backend and whether the stream ended: the key and nonce are secret.
impl fmt::Debug for Encryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encryptor")
            .field("backend", &self.stream.backend)
            .field("finished", &self.stream.finished)
            .finish_non_exhaustive()
    }
}

/// The backend and whether the stream ended: the key and nonce are secret.
impl fmt::Debug for Decryptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryptor")
            .field("backend", &self.stream.backend)
            .field("finished", &self.stream.finished)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::{vec, vec::Vec};
    use chacha_core::poly1305::Poly1305;

    /// `absorb_last` is RFC 8439's final partial block: against chacha-core's `Poly1305`
    /// (whose `tag` pads a pending partial block itself), every length up to 5 blocks,
    /// keys that leave `h` large.
    #[test]
    fn absorb_last_is_the_rfc_partial_block() {
        for key_byte in [0u8, 0x55, 0xff] {
            let key = [key_byte; 32];
            for len in 0..80 {
                let msg: [u8; 80] = core::array::from_fn(|i| (i as u8).wrapping_mul(31) ^ key_byte ^ 0xf0);
                let msg = &msg[..len];
                let mut reference = Poly1305::new(&key);
                reference.update(msg);
                let mut mac = Mac::new(&[[key_byte; 32], [0; 32]].concat().try_into().unwrap());
                let (blocks, last) = msg.as_chunks::<MAC_BLOCK_LEN>();
                mac.acc.absorb(blocks);
                if !last.is_empty() {
                    absorb_last(&mut mac.acc, last);
                }
                mac.s = [key_byte; 16];
                assert_eq!(mac.acc.tag(&mac.s), reference.tag(), "key byte {key_byte:#x}, {len} bytes");
            }
        }
    }

    /// The chunk and state of libsodium's `push`, computed from the description in the
    /// module docs with chacha-core's reference block function and `Poly1305`: the oracle
    /// for the counter wrap, which no public API (ours or libsodium's) reaches in a test.
    fn reference_push(
        key: &[u8; 32],
        nonce: &[u8; 12],
        msg: &[u8],
        aad: &[u8],
        tag: u8,
    ) -> (Vec<u8>, [u8; 32], [u8; 12]) {
        use chacha_core::reference::block;
        let state = State::<Ietf>::new(key, nonce);
        let stream = |counter: u64, data: &mut [u8]| {
            for (i, piece) in data.chunks_mut(BLOCK_LEN).enumerate() {
                let ks = block::<R20, Ietf>(&state, counter + i as u64);
                piece.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
            }
        };
        let mut poly_key = [0u8; 32];
        stream(0, &mut poly_key);
        let mut mac = Poly1305::new(&poly_key);
        mac.update(aad);
        mac.update(&[0; 16][..(16 - aad.len() % 16) % 16]);
        let mut block1 = [0u8; 64];
        block1[0] = tag;
        stream(1, &mut block1);
        mac.update(&block1);
        let mut ct = msg.to_vec();
        stream(2, &mut ct);
        mac.update(&ct);
        mac.update(&[0; 16][..msg.len() % 16]);
        mac.update(&(aad.len() as u64).to_le_bytes());
        mac.update(&(64 + msg.len() as u64).to_le_bytes());
        let sum = mac.tag();
        let mut chunk = vec![block1[0]];
        chunk.extend_from_slice(&ct);
        chunk.extend_from_slice(&sum);
        let (mut key, mut nonce) = (*key, *nonce);
        nonce[4..].iter_mut().zip(&sum).for_each(|(n, s)| *n ^= s);
        let counter = u32::from_le_bytes(nonce[..4].try_into().unwrap()).wrapping_add(1);
        nonce[..4].copy_from_slice(&counter.to_le_bytes());
        if tag & 2 != 0 || counter == 0 {
            let mut k_n = [0u8; 40];
            k_n[..32].copy_from_slice(&key);
            k_n[32..].copy_from_slice(&nonce[4..]);
            let ks = block::<R20, Ietf>(&State::<Ietf>::new(&key, &nonce), 0);
            k_n.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
            key.copy_from_slice(&k_n[..32]);
            nonce[4..].copy_from_slice(&k_n[32..]);
            nonce[..4].copy_from_slice(&1u32.to_le_bytes());
        }
        (chunk, key, nonce)
    }

    /// Pushes with the counter set near its wrap (2^32 − 2, − 1: the second chunk's counter
    /// wraps to 0 and rekeys) against the reference, on every backend, and pulls them back.
    #[test]
    fn counter_wrap_rekeys_as_the_reference() {
        let key = Key::from([0x5a; 32]);
        let header = Header::from([0xa5; 24]);
        for backend in Backend::available() {
            for tag in [Tag::Message, Tag::Push, Tag::Rekey] {
                let mut tx = Encryptor::with_backend(&key, &header, backend);
                let mut rx = Decryptor::with_backend(&key, &header, backend);
                for end in [&mut tx.stream, &mut rx.stream] {
                    end.nonce[..4].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
                }
                let (mut k, mut nonce) = (tx.stream.key, tx.stream.nonce);
                for (i, len) in [100usize, 7, 64, 0].into_iter().enumerate() {
                    let msg: Vec<u8> = (0..len).map(|b| b as u8 ^ i as u8).collect();
                    let counter_before = u32::from_le_bytes(nonce[..4].try_into().unwrap());
                    let (expected, k2, n2) = reference_push(&k, &nonce, &msg, b"ad", tag as u8);
                    let chunk = tx.push(&msg, b"ad", tag).unwrap();
                    assert_eq!(chunk, expected, "{backend:?} {tag:?} chunk {i}");
                    assert_eq!((tx.stream.key, tx.stream.nonce), (k2, n2), "{backend:?} {tag:?} state {i}");
                    if counter_before == u32::MAX {
                        assert_eq!(u32::from_le_bytes(n2[..4].try_into().unwrap()), 1, "rekeyed at the wrap");
                        assert_ne!(k2, k, "a new key at the wrap");
                    }
                    assert_eq!(rx.pull(&chunk, b"ad").unwrap(), (msg, tag));
                    (k, nonce) = (k2, n2);
                }
            }
        }
    }

    /// Every length around the block and Poly1305 edges against the reference, every tag,
    /// AAD lengths around 16, on every backend.
    #[test]
    fn chunks_match_the_reference() {
        let key = Key::from([0x11; 32]);
        let header = Header::from(core::array::from_fn::<u8, 24, _>(|i| i as u8));
        // Under miri (scripts/miri.sh, its soft build), a few lengths across the edges:
        // the whole list there is minutes of interpreted ChaCha for no new memory access.
        let lens: Vec<usize> = if cfg!(miri) {
            vec![0, 1, 15, 16, 17, 63, 64, 65, 200, 1025]
        } else {
            (0..200).chain([255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 70_000]).collect()
        };
        for backend in Backend::available() {
            let mut tx = Encryptor::with_backend(&key, &header, backend);
            let (mut k, mut nonce) = (tx.stream.key, tx.stream.nonce);
            for (i, &len) in lens.iter().enumerate() {
                let msg: Vec<u8> = (0..len).map(|b| (b * 7 + i) as u8).collect();
                let aad = vec![0xaa; i % 33];
                let tag = [Tag::Message, Tag::Push, Tag::Rekey][i % 3];
                let (expected, k2, n2) = reference_push(&k, &nonce, &msg, &aad, tag as u8);
                assert_eq!(tx.push(&msg, &aad, tag).unwrap(), expected, "{backend:?} {len} bytes");
                (k, nonce) = (k2, n2);
            }
        }
    }
}
