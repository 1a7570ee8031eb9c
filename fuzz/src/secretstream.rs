//! Target `secretstream`: `chacha20poly1305::secretstream` against a plain model of
//! libsodium's `crypto_secretstream_xchacha20poly1305` built from `chacha_core::reference`
//! and chacha-core's Poly1305 ([`model_push`]), for any key, header and sequence of chunks
//! (tags, associated data, messages, explicit rekeys), on every backend of
//! `Backend::available()`: each chunk pushed must be the model's bytes; pulling them back
//! must give every message and tag; the stream must `finish` exactly when it ended with
//! `Final`; and one flipped bit anywhere in the chunks must be refused at its chunk, with
//! the chunk left as it was and the chunks before it opened.
//!
//! Input layout (59 bytes, then chunks until the input is used up, at most 16):
//!
//! ```text
//! key[32] header[24] flip:u16 ignored:u8 { kind:u8 aad_len:u8 len:u16 aad… message… }…
//! ```
//!
//! `kind & 3` is the tag (a `Final` ends the stream: later chunks are not read), bit 2 an
//! explicit rekey after the chunk; a chunk's associated data and message are the next
//! `aad_len` and `len` bytes (fewer if the input ends). `flip` picks the bit the forgery
//! flips (modulo the stream's bits).

use arbitrary::{Arbitrary, Unstructured};
use chacha_backends::Backend;
use chacha_core::poly1305::Poly1305;
use chacha_core::{Ietf, R20, State, reference};
use chacha20poly1305::Key;
use chacha20poly1305::secretstream::{ABYTES, Decryptor, Encryptor, Error, Header, Tag};

use crate::{take, u16_of};

/// Chunks per case at most.
const MAX_CHUNKS: usize = 16;

/// One chunk of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// 0 message, 1 push, 2 rekey, 3 final.
    pub tag: u8,
    /// Both ends call `rekey` after this chunk.
    pub rekey_after: bool,
    pub aad: Vec<u8>,
    pub message: Vec<u8>,
}

/// One case of the `secretstream` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub key: [u8; 32],
    pub header: [u8; 24],
    /// Which bit the forgery flips.
    pub flip: u16,
    pub chunks: Vec<Chunk>,
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let key = take(u);
        let header = take(u);
        let flip = u16_of(u);
        let [_] = take(u);
        let mut chunks = Vec::new();
        while !u.is_empty() && chunks.len() < MAX_CHUNKS {
            let [kind, aad_len] = take(u);
            let len = usize::from(u16_of(u));
            let aad = u.bytes(usize::from(aad_len).min(u.len()))?.to_vec();
            let message = u.bytes(len.min(u.len()))?.to_vec();
            let tag = kind & 3;
            chunks.push(Chunk { tag, rekey_after: kind & 4 != 0, aad, message });
            if tag == Tag::Final as u8 {
                break;
            }
        }
        Ok(Case { key, header, flip, chunks })
    }
}

impl Case {
    /// The input bytes `arbitrary` reads back as this case.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.key.to_vec();
        out.extend_from_slice(&self.header);
        out.extend_from_slice(&self.flip.to_le_bytes());
        out.push(0);
        for c in &self.chunks {
            out.push(c.tag | u8::from(c.rekey_after) << 2);
            out.push(c.aad.len() as u8);
            out.extend_from_slice(&(c.message.len() as u16).to_le_bytes());
            out.extend_from_slice(&c.aad);
            out.extend_from_slice(&c.message);
        }
        out
    }
}

/// The model's state: the chunk key and the nonce (counter, then 8 bytes).
#[derive(Clone)]
pub struct Model {
    key: [u8; 32],
    nonce: [u8; 12],
}

impl Model {
    /// `init_push` / `init_pull` with `header`.
    pub fn new(key: &[u8; 32], header: &[u8; 24]) -> Self {
        let mut input = [0u8; 16];
        input.copy_from_slice(&header[..16]);
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(&1u32.to_le_bytes());
        nonce[4..].copy_from_slice(&header[16..]);
        Model { key: reference::hchacha::<R20>(key, &input), nonce }
    }

    /// ChaCha20 keystream from block `counter`, XORed into `data`.
    fn xor(&self, counter: u64, data: &mut [u8]) {
        let state = State::<Ietf>::new(&self.key, &self.nonce);
        for (i, piece) in data.chunks_mut(64).enumerate() {
            let ks = reference::block::<R20, Ietf>(&state, counter + i as u64);
            piece.iter_mut().zip(ks).for_each(|(b, k)| *b ^= k);
        }
    }

    /// `rekey`: the key and the 8 nonce bytes XORed with block 0's first 40 bytes.
    pub fn rekey(&mut self) {
        let mut k_n = [0u8; 40];
        k_n[..32].copy_from_slice(&self.key);
        k_n[32..].copy_from_slice(&self.nonce[4..]);
        self.xor(0, &mut k_n);
        self.key.copy_from_slice(&k_n[..32]);
        self.nonce[4..].copy_from_slice(&k_n[32..]);
        self.nonce[..4].copy_from_slice(&1u32.to_le_bytes());
    }
}

/// libsodium's `push`, step by step: the chunk, and the model moved past it.
pub fn model_push(model: &mut Model, message: &[u8], aad: &[u8], tag: u8) -> Vec<u8> {
    let mut poly_key = [0u8; 32];
    model.xor(0, &mut poly_key);
    let mut mac = Poly1305::new(&poly_key);
    mac.update(aad);
    mac.update(&[0; 16][..(16 - aad.len() % 16) % 16]);
    let mut block1 = [0u8; 64];
    block1[0] = tag;
    model.xor(1, &mut block1);
    mac.update(&block1);
    let mut ciphertext = message.to_vec();
    model.xor(2, &mut ciphertext);
    mac.update(&ciphertext);
    mac.update(&[0; 16][..message.len() % 16]);
    mac.update(&(aad.len() as u64).to_le_bytes());
    mac.update(&(64 + message.len() as u64).to_le_bytes());
    let sum = mac.tag();
    let mut chunk = vec![block1[0]];
    chunk.extend_from_slice(&ciphertext);
    chunk.extend_from_slice(&sum);
    model.nonce[4..].iter_mut().zip(&sum).for_each(|(n, s)| *n ^= s);
    let counter = u32::from_le_bytes(model.nonce[..4].try_into().expect("4 bytes")).wrapping_add(1);
    model.nonce[..4].copy_from_slice(&counter.to_le_bytes());
    if tag & 2 != 0 || counter == 0 {
        model.rekey();
    }
    chunk
}

fn tag_of(byte: u8) -> Tag {
    [Tag::Message, Tag::Push, Tag::Rekey, Tag::Final][usize::from(byte & 3)]
}

/// Runs one case (panics on any disagreement).
pub fn check(case: &Case) {
    let key = Key::from(case.key);
    let header = Header::from(case.header);
    let mut model = Model::new(&case.key, &case.header);
    let expected: Vec<Vec<u8>> = case
        .chunks
        .iter()
        .map(|c| {
            let chunk = model_push(&mut model, &c.message, &c.aad, c.tag);
            if c.rekey_after {
                model.rekey();
            }
            chunk
        })
        .collect();
    let ends_final = case.chunks.last().is_some_and(|c| c.tag == Tag::Final as u8);
    for backend in Backend::available() {
        let mut tx = Encryptor::with_backend(&key, &header, backend);
        let mut rx = Decryptor::with_backend(&key, &header, backend);
        for (c, want) in case.chunks.iter().zip(&expected) {
            let mut chunk = vec![0u8; c.message.len() + ABYTES];
            tx.push_to(&c.message, &mut chunk, &c.aad, tag_of(c.tag)).expect("a short message");
            assert_eq!(&chunk, want, "{backend:?}: push against the model");
            let (opened, tag) = rx.pull_in_place(&mut chunk, &c.aad).expect("an authentic chunk");
            assert_eq!((&*opened, tag), (&c.message[..], tag_of(c.tag)), "{backend:?}: pull");
            if c.rekey_after {
                tx.rekey();
                rx.rekey();
            }
        }
        assert_eq!(rx.finish().is_ok(), ends_final, "{backend:?}: finish");
    }
    // One bit flipped in the concatenated chunks: refused at its chunk, nothing released.
    let bits: usize = expected.iter().map(|c| 8 * c.len()).sum();
    if bits == 0 {
        return;
    }
    let mut bit = usize::from(case.flip) % bits;
    let backend = Backend::detect();
    let mut rx = Decryptor::with_backend(&key, &header, backend);
    for (c, chunk) in case.chunks.iter().zip(&expected) {
        let mut copy = chunk.clone();
        if bit < 8 * chunk.len() {
            copy[bit / 8] ^= 1 << (bit % 8);
            let forged = copy.clone();
            assert_eq!(rx.pull_in_place(&mut copy, &c.aad).map(|_| ()), Err(Error::Forged), "bit {bit}");
            assert_eq!(copy, forged, "a refused chunk is left as it was");
            return;
        }
        bit -= 8 * chunk.len();
        rx.pull_in_place(&mut copy, &c.aad).expect("an authentic chunk before the forged one");
        if c.rekey_after {
            rx.rekey();
        }
    }
    unreachable!("the flipped bit is in one of the chunks");
}
