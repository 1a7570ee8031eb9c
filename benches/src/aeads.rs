//! The AEADs to race: ChaCha20-Poly1305 (RFC 8439) and XChaCha20-Poly1305
//! (draft-irtf-cfrg-xchacha-03) — ours (this workspace's `chacha20poly1305` front, through
//! `new` and on each backend), the published `chacha20poly1305` 0.11 over the `chacha20`
//! that Cargo gives it (the published 0.10.2 in this package's build, ours in the report's
//! `patched/` build of the same binary) — and the peers that have them: OpenSSL (EVP) and
//! `ring` (ChaCha20-Poly1305 only), libsodium (both).
//!
//! Sealing: every message is sealed in place under a nonce of its own ([`seal_nonce`],
//! [`xseal_nonce`]) with [`AAD`] authenticated, the tag kept apart. Opening: one message,
//! sealed beforehand, opened in place with its tag apart (see [`AeadImplementation::run_open`]
//! for how every call gets an authentic ciphertext without a copy). The key ([`KEY`]) is
//! set up once per implementation, as a program handling many messages under one key does
//! (libsodium takes it per call: its API has no key object). Like the ciphers, each
//! implementation's batch loops are monomorphised behind one trait object.

use core::fmt;
use std::any::TypeId;
use std::hint::black_box;

use chacha_backends::Backend;

use crate::impls::{Origin, Peer};
use crate::placed::{at_four, pad};
use crate::{KEY, OURS};

/// The associated data of every message: 13 bytes, as long as a TLS 1.2 record header.
pub const AAD: &[u8; 13] = b"chacha-bench\x01";

/// The nonce of message `message`: a fixed 4-byte prefix, then the message number
/// (little-endian), as a protocol's per-message counter.
pub fn seal_nonce(message: u64) -> [u8; 12] {
    let mut nonce = [0xa3, 0x5c, 0x11, 0x07, 0, 0, 0, 0, 0, 0, 0, 0];
    nonce[4..].copy_from_slice(&message.to_le_bytes());
    nonce
}

/// The XChaCha20-Poly1305 nonce of message `message`: [`seal_nonce`], then 12 fixed bytes
/// (the message number lands in the part HChaCha20 reads, so each message has its own
/// subkey, as with random nonces).
pub fn xseal_nonce(message: u64) -> [u8; 24] {
    let mut nonce = [0x6e; 24];
    nonce[..12].copy_from_slice(&seal_nonce(message));
    nonce
}

/// Whether `chacha20poly1305::ChaCha20Poly1305` runs on this workspace's `chacha20` in this
/// build: true only where a `[patch.crates-io]` put ours under it (the report's `patched/`
/// build), since its cipher type is then our `chacha20::ChaCha20`.
pub fn aead_on_ours() -> bool {
    TypeId::of::<chacha20poly1305::ChaCha20Poly1305>()
        == TypeId::of::<chacha20poly1305::ChaChaPoly1305<chacha20::ChaCha20>>()
}

/// Which AEAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AeadAlgorithm {
    /// RFC 8439 ChaCha20-Poly1305: 12-byte nonce.
    ChaCha20Poly1305,
    /// XChaCha20-Poly1305: 24-byte nonce through HChaCha20.
    XChaCha20Poly1305,
}

impl AeadAlgorithm {
    /// Both, in report order.
    pub const ALL: [AeadAlgorithm; 2] = [AeadAlgorithm::ChaCha20Poly1305, AeadAlgorithm::XChaCha20Poly1305];

    /// `chacha20poly1305`, `xchacha20poly1305`: the workload id's stem.
    pub fn id(self) -> &'static str {
        match self {
            AeadAlgorithm::ChaCha20Poly1305 => "chacha20poly1305",
            AeadAlgorithm::XChaCha20Poly1305 => "xchacha20poly1305",
        }
    }

    /// The type name, as in `chacha20poly1305::XChaCha20Poly1305`.
    pub fn title(self) -> &'static str {
        match self {
            AeadAlgorithm::ChaCha20Poly1305 => "ChaCha20Poly1305",
            AeadAlgorithm::XChaCha20Poly1305 => "XChaCha20Poly1305",
        }
    }

    /// Nonce length in bytes.
    pub fn nonce_len(self) -> usize {
        match self {
            AeadAlgorithm::ChaCha20Poly1305 => 12,
            AeadAlgorithm::XChaCha20Poly1305 => 24,
        }
    }
}

/// The message number whose nonce every opened message is sealed under (any would do:
/// each call sets the nonce up). A nonce's first [`AeadAlgorithm::nonce_len`] bytes of
/// [`xseal_nonce`] are its ChaCha20-Poly1305 nonce, [`seal_nonce`].
const OPEN_MESSAGE: u64 = u64::MAX;

/// Seals and opens messages: one with [`Aead::seal`] / [`Aead::open`], a batch with
/// [`Aead::run_seal`] / [`Aead::run_open`].
trait Aead {
    fn seal(&mut self, nonce: &[u8], buf: &mut [u8]) -> [u8; 16];
    fn open(&mut self, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool;
    fn run_seal(&mut self, nonce_len: usize, buf: &mut [u8], first: u64, messages: u64);
    fn run_open(&mut self, nonce: &[u8], buf: &mut [u8], tags: &[[u8; 16]; 2], first: u64, messages: u64);
}

/// An implementation's key object `T` with its seal and open functions.
struct Keyed<T, S, O> {
    key: T,
    seal: S,
    open: O,
}

impl<T, S, O> Aead for Keyed<T, S, O>
where
    S: Fn(&mut T, &[u8], &mut [u8]) -> [u8; 16],
    O: Fn(&mut T, &[u8], &mut [u8], &[u8; 16]) -> bool,
{
    fn seal(&mut self, nonce: &[u8], buf: &mut [u8]) -> [u8; 16] {
        (self.seal)(&mut self.key, nonce, buf)
    }

    fn open(&mut self, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        (self.open)(&mut self.key, nonce, buf, tag)
    }

    fn run_seal(&mut self, nonce_len: usize, buf: &mut [u8], first: u64, messages: u64) {
        at_four!(first, messages, |first, n, P| seal_loop::<T, S, P>(
            &mut self.key,
            &self.seal,
            nonce_len,
            buf,
            first,
            n
        ));
    }

    fn run_open(&mut self, nonce: &[u8], buf: &mut [u8], tags: &[[u8; 16]; 2], first: u64, messages: u64) {
        at_four!(first, messages, |first, n, P| open_loop::<T, O, P>(
            &mut self.key,
            &self.open,
            nonce,
            buf,
            tags,
            first,
            n
        ));
    }
}

// The timed loops, each at the place `P` (`placed`).

#[inline(never)]
fn seal_loop<T, S: Fn(&mut T, &[u8], &mut [u8]) -> [u8; 16], const P: usize>(
    key: &mut T,
    seal: &S,
    nonce_len: usize,
    buf: &mut [u8],
    first: u64,
    messages: u64,
) {
    pad::<P>();
    for message in first..first + messages {
        // The first `nonce_len` bytes: `seal_nonce(message)` for ChaCha20-Poly1305.
        let nonce = xseal_nonce(black_box(message));
        black_box(seal(key, &nonce[..nonce_len], black_box(&mut *buf)));
    }
}

#[inline(never)]
fn open_loop<T, O: Fn(&mut T, &[u8], &mut [u8], &[u8; 16]) -> bool, const P: usize>(
    key: &mut T,
    open: &O,
    nonce: &[u8],
    buf: &mut [u8],
    tags: &[[u8; 16]; 2],
    first: u64,
    messages: u64,
) {
    pad::<P>();
    for call in first..first + messages {
        let tag = &tags[(call & 1) as usize];
        let ok = open(key, black_box(nonce), black_box(&mut *buf), black_box(tag));
        assert!(ok, "an authentic message failed to open");
    }
}

/// One ChaCha20-Poly1305 or XChaCha20-Poly1305 implementation, keyed with [`KEY`].
pub struct AeadImplementation {
    /// [`Peer::label`], [`OURS`] or [`Backend::name`].
    pub name: String,
    /// Whose it is (a peer, also for the published AEAD over ours: its rows come from the
    /// worker process of the `patched/` build).
    pub origin: Origin,
    /// Which AEAD.
    pub algorithm: AeadAlgorithm,
    aead: Box<dyn Aead>,
}

impl fmt::Debug for AeadImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AeadImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl AeadImplementation {
    /// Encrypts `buf` in place under `nonce` ([`AeadAlgorithm::nonce_len`] bytes, with
    /// [`AAD`]); the tag.
    pub fn seal(&mut self, nonce: &[u8], buf: &mut [u8]) -> [u8; 16] {
        self.aead.seal(nonce, buf)
    }

    /// Decrypts `buf` in place under `nonce` (with [`AAD`]) if `tag` is its tag; whether
    /// it was. On a wrong tag the buffer is left as the implementation leaves it.
    pub fn open(&mut self, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        self.aead.open(nonce, buf, tag)
    }

    /// Seals `buf` `messages` times, message `first` onwards, each under its own nonce (the
    /// timed loop).
    pub fn run(&mut self, buf: &mut [u8], first: u64, messages: u64) {
        self.aead.run_seal(self.algorithm.nonce_len(), buf, first, messages)
    }

    /// The two tags [`AeadImplementation::run_open`] needs for `buf` (the plaintext `P`,
    /// which becomes its ciphertext `C` here): the tag of `C` and the tag of `P` taken as a
    /// ciphertext. Opening `C` in place under the open nonce gives `P`, and since ChaCha
    /// only XORs, opening `P` under the same nonce gives `C` back: so the timed loop opens
    /// `C` and `P` in turn, each an authentic message, and needs no copy between calls.
    pub fn prepare_open(&mut self, buf: &mut [u8]) -> [[u8; 16]; 2] {
        let nonce = xseal_nonce(OPEN_MESSAGE);
        let nonce = &nonce[..self.algorithm.nonce_len()];
        let plaintext = buf.to_vec();
        let tag_c = self.seal(nonce, buf);
        // Sealing C yields P again (XOR), and the tag of P as a ciphertext.
        let mut p = buf.to_vec();
        let tag_p = self.seal(nonce, &mut p);
        assert_eq!(p, plaintext, "{}: sealing twice under one nonce is not the identity", self.name);
        [tag_c, tag_p]
    }

    /// Opens `buf` in place `messages` times, call `first` onwards, under the open nonce:
    /// `buf` holds `C` before an even call and `P` before an odd one, with `tags` from
    /// [`AeadImplementation::prepare_open`] (the timed loop). Panics if a call fails.
    pub fn run_open(&mut self, buf: &mut [u8], tags: &[[u8; 16]; 2], first: u64, messages: u64) {
        let nonce = xseal_nonce(OPEN_MESSAGE);
        self.aead.run_open(&nonce[..self.algorithm.nonce_len()], buf, tags, first, messages)
    }
}

fn keyed<T, S, O>(
    name: String,
    origin: Origin,
    algorithm: AeadAlgorithm,
    key: T,
    seal: S,
    open: O,
) -> AeadImplementation
where
    T: 'static,
    S: Fn(&mut T, &[u8], &mut [u8]) -> [u8; 16] + 'static,
    O: Fn(&mut T, &[u8], &mut [u8], &[u8; 16]) -> bool + 'static,
{
    AeadImplementation { name, origin, algorithm, aead: Box::new(Keyed { key, seal, open }) }
}

/// An `aead` 0.6 `AeadInOut` (ours and the published crate's).
fn aead06<A>(name: String, origin: Origin, algorithm: AeadAlgorithm, aead: A) -> AeadImplementation
where
    A: chacha20poly1305::aead::AeadInOut + 'static,
{
    use chacha20poly1305::aead::{Nonce, Tag};
    keyed(
        name,
        origin,
        algorithm,
        aead,
        |a: &mut A, nonce: &[u8], buf: &mut [u8]| -> [u8; 16] {
            let nonce = Nonce::<A>::try_from(nonce).expect("the AEAD's nonce length");
            let tag = a.encrypt_inout_detached(&nonce, AAD, buf.into()).expect("a message below 256 GiB");
            tag.as_slice().try_into().expect("a 16-byte tag")
        },
        |a: &mut A, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]| {
            let nonce = Nonce::<A>::try_from(nonce).expect("the AEAD's nonce length");
            let tag = Tag::<A>::try_from(&tag[..]).expect("a 16-byte tag");
            a.decrypt_inout_detached(&nonce, AAD, buf.into(), &tag).is_ok()
        },
    )
}

/// Ours through `new` ([`Backend::detect`]) or on `backend`.
fn ours(algorithm: AeadAlgorithm, backend: Option<Backend>) -> AeadImplementation {
    use chacha20poly1305_ours::aead::KeyInit;
    use chacha20poly1305_ours::{ChaCha20Poly1305, XChaCha20Poly1305};
    let (name, origin) = match backend {
        None => (OURS.to_string(), Origin::OursNew),
        Some(b) => (b.name().to_string(), Origin::Ours(b)),
    };
    let key = KEY.into();
    match (algorithm, backend) {
        (AeadAlgorithm::ChaCha20Poly1305, None) => {
            aead06(name, origin, algorithm, ChaCha20Poly1305::new(&key))
        }
        (AeadAlgorithm::ChaCha20Poly1305, Some(b)) => {
            aead06(name, origin, algorithm, ChaCha20Poly1305::with_backend(&key, b))
        }
        (AeadAlgorithm::XChaCha20Poly1305, None) => {
            aead06(name, origin, algorithm, XChaCha20Poly1305::new(&key))
        }
        (AeadAlgorithm::XChaCha20Poly1305, Some(b)) => {
            aead06(name, origin, algorithm, XChaCha20Poly1305::with_backend(&key, b))
        }
    }
}

fn rustcrypto(peer: Peer, algorithm: AeadAlgorithm) -> AeadImplementation {
    use chacha20poly1305::aead::KeyInit;
    use chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
    let key = KEY.into();
    match algorithm {
        AeadAlgorithm::ChaCha20Poly1305 => {
            aead06(peer.label(), Origin::Peer(peer), algorithm, ChaCha20Poly1305::new(&key))
        }
        AeadAlgorithm::XChaCha20Poly1305 => {
            aead06(peer.label(), Origin::Peer(peer), algorithm, XChaCha20Poly1305::new(&key))
        }
    }
}

fn ring_peer(peer: Peer, algorithm: AeadAlgorithm) -> Option<AeadImplementation> {
    use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, Tag, UnboundKey};
    if algorithm != AeadAlgorithm::ChaCha20Poly1305 {
        return None; // ring has no XChaCha20-Poly1305
    }
    let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &KEY).expect("a 32-byte key"));
    let nonce_of = |nonce: &[u8]| Nonce::try_assume_unique_for_key(nonce).expect("a 12-byte nonce");
    Some(keyed(
        peer.label(),
        Origin::Peer(peer),
        algorithm,
        key,
        move |key: &mut LessSafeKey, nonce: &[u8], buf: &mut [u8]| -> [u8; 16] {
            let tag = key
                .seal_in_place_separate_tag(nonce_of(nonce), Aad::from(AAD), buf)
                .expect("a message below 256 GiB");
            tag.as_ref().try_into().expect("a 16-byte tag")
        },
        move |key: &mut LessSafeKey, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]| {
            key.open_in_place_separate_tag(nonce_of(nonce), Aad::from(AAD), Tag::from(*tag), buf, 0..).is_ok()
        },
    ))
}

fn openssl_peer(peer: Peer, algorithm: AeadAlgorithm) -> Option<AeadImplementation> {
    use crate::ffi::EvpAead;
    let lib = crate::ffi::crypto().ok()?;
    if algorithm != AeadAlgorithm::ChaCha20Poly1305 {
        return None; // OpenSSL's EVP has no XChaCha20-Poly1305
    }
    // EVP fixes a context's direction: one context seals, another opens.
    let contexts = (EvpAead::new(lib, &KEY), EvpAead::new_open(lib, &KEY));
    Some(keyed(
        peer.label(),
        Origin::Peer(peer),
        algorithm,
        contexts,
        |c: &mut (EvpAead, EvpAead), nonce: &[u8], buf: &mut [u8]| {
            c.0.seal(nonce.try_into().expect("a 12-byte nonce"), AAD, buf)
        },
        |c: &mut (EvpAead, EvpAead), nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]| {
            c.1.open(nonce.try_into().expect("a 12-byte nonce"), AAD, buf, tag)
        },
    ))
}

fn sodium_peer(peer: Peer, algorithm: AeadAlgorithm) -> Option<AeadImplementation> {
    let lib = crate::ffi::sodium().ok()?;
    let open = |lib: &mut &'static crate::ffi::Sodium, nonce: &[u8], buf: &mut [u8], tag: &[u8; 16]| {
        lib.aead_open(nonce, AAD, buf, tag, &KEY)
    };
    Some(match algorithm {
        AeadAlgorithm::ChaCha20Poly1305 => keyed(
            peer.label(),
            Origin::Peer(peer),
            algorithm,
            lib,
            |lib: &mut &'static crate::ffi::Sodium, nonce: &[u8], buf: &mut [u8]| {
                lib.aead_ietf_seal(nonce.try_into().expect("a 12-byte nonce"), AAD, buf, &KEY)
            },
            open,
        ),
        AeadAlgorithm::XChaCha20Poly1305 => keyed(
            peer.label(),
            Origin::Peer(peer),
            algorithm,
            lib,
            |lib: &mut &'static crate::ffi::Sodium, nonce: &[u8], buf: &mut [u8]| {
                lib.aead_xchacha_seal(nonce.try_into().expect("a 24-byte nonce"), AAD, buf, &KEY)
            },
            open,
        ),
    })
}

/// Ours through `new` and on each of `backends` (none without `backends`), then each of
/// `peers` that has `algorithm` and runs in this process.
pub fn aead_implementations(
    algorithm: AeadAlgorithm,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<AeadImplementation> {
    let mut all = Vec::new();
    if !backends.is_empty() {
        all.push(ours(algorithm, None));
    }
    all.extend(backends.iter().map(|&b| ours(algorithm, Some(b))));
    let peers = peers.iter().filter_map(|&peer| match peer {
        Peer::ChaCha20Poly1305 => Some(rustcrypto(peer, algorithm)),
        Peer::Ring => ring_peer(peer, algorithm),
        Peer::OpenSsl => openssl_peer(peer, algorithm),
        Peer::Sodium => sodium_peer(peer, algorithm),
        _ => None,
    });
    all.extend(peers);
    all
}

/// The message lengths of [`aead_transcript`]: empty, partial blocks, multi-block messages.
const CHECK_LENGTHS: [usize; 8] = [0, 1, 63, 64, 65, 100, 1024, 4103];

/// How many bytes [`aead_transcript`] produces: each message's ciphertext and tag.
pub const AEAD_CHECK_LEN: usize = {
    let mut total = 0;
    let mut i = 0;
    while i < CHECK_LENGTHS.len() {
        total += CHECK_LENGTHS[i] + 16;
        i += 1;
    }
    total
};

/// How many bytes [`aead_open_transcript`] produces: per message, its ciphertext and tag,
/// the opened plaintext and two result bytes.
pub const AEAD_OPEN_CHECK_LEN: usize = AEAD_CHECK_LEN + {
    let mut total = 0;
    let mut i = 0;
    while i < CHECK_LENGTHS.len() {
        total += CHECK_LENGTHS[i] + 2;
        i += 1;
    }
    total
};

/// The `i`-th check message: `len` bytes of a fixed pattern.
fn check_message(len: usize) -> Vec<u8> {
    (0..len).map(|j| (j as u8).wrapping_mul(31).wrapping_add(7)).collect()
}

/// Messages of 0, 1, 63, 64, 65, 100, 1024 and 4103 bytes (`CHECK_LENGTHS`, a fixed
/// pattern), the `i`-th sealed under message number `i`'s nonce: ciphertext then tag of
/// each, concatenated.
pub fn aead_transcript(imp: &mut AeadImplementation) -> Vec<u8> {
    let mut out = Vec::with_capacity(AEAD_CHECK_LEN);
    for (i, len) in CHECK_LENGTHS.into_iter().enumerate() {
        let mut buf = check_message(len);
        let nonce = xseal_nonce(i as u64);
        let tag = imp.seal(&nonce[..imp.algorithm.nonce_len()], &mut buf);
        out.extend_from_slice(&buf);
        out.extend_from_slice(&tag);
    }
    out
}

/// What an opening implementation must agree on, per message of [`aead_transcript`]: its
/// ciphertext and tag (sealed by the same implementation), what opening them in place gave,
/// and two bytes: 1 if that open succeeded, 1 if opening with the tag's last bit flipped
/// failed. Since every implementation's bytes are compared with ours, the opened plaintext must be
/// the message and every forgery refused, for all of them.
pub fn aead_open_transcript(imp: &mut AeadImplementation) -> Vec<u8> {
    let mut out = Vec::with_capacity(AEAD_OPEN_CHECK_LEN);
    for (i, len) in CHECK_LENGTHS.into_iter().enumerate() {
        let message = check_message(len);
        let mut buf = message.clone();
        let nonce = xseal_nonce(i as u64);
        let nonce = &nonce[..imp.algorithm.nonce_len()];
        let tag = imp.seal(nonce, &mut buf);
        out.extend_from_slice(&buf);
        out.extend_from_slice(&tag);
        let sealed = buf.clone();
        let mut forged = tag;
        forged[15] ^= 0x80;
        let refused = !imp.open(nonce, &mut buf, &forged);
        buf.copy_from_slice(&sealed);
        let opened = imp.open(nonce, &mut buf, &tag);
        out.extend_from_slice(&buf);
        out.extend_from_slice(&[u8::from(opened), u8::from(refused)]);
    }
    out
}
