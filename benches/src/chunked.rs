//! Chunked encryption of a long message in [`CHUNK`]-byte chunks, as a file tool does:
//! libsodium's secretstream (ours, `chacha20poly1305::secretstream`, against libsodium's
//! `crypto_secretstream_xchacha20poly1305`), pushing and pulling; and STREAM (RustCrypto's
//! `aead-stream` 0.6, `EncryptorBE32`) over our `ChaCha20Poly1305` against the same over the
//! published `chacha20poly1305` 0.11 (and, in the `patched/` worker, over ours underneath).
//!
//! One call is a whole stream of the point's size: set up (key, header or nonce), then every
//! chunk, the last one marked as the last (`Final`, `encrypt_last`), no associated data.
//! Pushing and sealing work in place in a buffer laid out as the chunks are (each chunk's
//! room for its overhead beside it), so no call copies; pulling reads a stream sealed
//! beforehand and writes the messages to a buffer of their own (libsodium's `pull` and ours
//! `pull_to`), so every call opens authentic chunks.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use chacha20poly1305_ours::aead;

use crate::impls::{Origin, Peer};
use crate::placed::{at_four, pad};
use crate::{KEY, OURS};

/// Bytes of message per chunk: age's and a typical file tool's.
pub const CHUNK: usize = 64 * 1024;

/// The secretstream header of every stream here (a program draws a random one per stream).
const HEADER: [u8; 24] = *b"chacha-bench secretstrea";

/// The STREAM nonce prefix (7 bytes: `EncryptorBE32` over a 12-byte nonce).
const STREAM_NONCE: [u8; 7] = *b"stream!";

/// What is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChunkedOp {
    /// secretstream: `push` of every chunk.
    SecretStreamPush,
    /// secretstream: `pull` of every chunk.
    SecretStreamPull,
    /// STREAM (`aead-stream`'s `EncryptorBE32`) over ChaCha20-Poly1305: every chunk sealed.
    StreamSeal,
}

impl ChunkedOp {
    /// All, in report order.
    pub const ALL: [ChunkedOp; 3] =
        [ChunkedOp::SecretStreamPush, ChunkedOp::SecretStreamPull, ChunkedOp::StreamSeal];

    /// The workload id.
    pub fn id(self) -> &'static str {
        match self {
            ChunkedOp::SecretStreamPush => "secretstream-push",
            ChunkedOp::SecretStreamPull => "secretstream-pull",
            ChunkedOp::StreamSeal => "stream-be32",
        }
    }

    /// A heading.
    pub fn title(self) -> String {
        let kib = CHUNK / 1024;
        match self {
            ChunkedOp::SecretStreamPush => {
                format!(
                    "secretstream (XChaCha20-Poly1305), push in place in {kib} KiB chunks, the last Final"
                )
            }
            ChunkedOp::SecretStreamPull => {
                format!("secretstream (XChaCha20-Poly1305), pull into a buffer in {kib} KiB chunks")
            }
            ChunkedOp::StreamSeal => format!(
                "STREAM (aead-stream 0.6 EncryptorBE32) over ChaCha20Poly1305, in place in {kib} KiB chunks"
            ),
        }
    }

    /// Bytes a chunk adds to its message.
    fn overhead(self) -> usize {
        match self {
            ChunkedOp::SecretStreamPush | ChunkedOp::SecretStreamPull => 17,
            ChunkedOp::StreamSeal => 16,
        }
    }

    /// Whether `peer` (its worker's base, for a worker) has it.
    pub fn offered_by(self, peer: Peer) -> bool {
        match self {
            ChunkedOp::SecretStreamPush | ChunkedOp::SecretStreamPull => peer == Peer::Sodium,
            ChunkedOp::StreamSeal => peer.base() == Peer::ChaCha20Poly1305,
        }
    }

    /// The bytes of a sealed stream of `len` message bytes.
    pub fn sealed_len(self, len: usize) -> usize {
        chunks(len).map(|(_, msg)| msg + self.overhead()).sum()
    }
}

/// The message lengths of the chunks of a `len`-byte stream: whole chunks, then the rest;
/// an empty stream is one empty chunk (its end must still be marked).
fn chunks(len: usize) -> impl Iterator<Item = (usize, usize)> {
    let n = len.div_ceil(CHUNK).max(1);
    (0..n).map(move |i| (i, CHUNK.min(len - i * CHUNK)))
}

/// One whole stream: `(len, a, b)` seals the `len`-byte stream in place in `a` (laid out
/// as its chunks), or opens `a` (sealed so) into `b`; whether every chunk went through.
trait Chunker {
    fn call(&mut self, len: usize, a: &mut [u8], b: &mut [u8]) -> bool;
    fn run(&mut self, len: usize, a: &mut [u8], b: &mut [u8], calls: u64);
}

struct Caller<F>(F);

impl<F: FnMut(usize, &mut [u8], &mut [u8]) -> bool> Chunker for Caller<F> {
    fn call(&mut self, len: usize, a: &mut [u8], b: &mut [u8]) -> bool {
        (self.0)(len, a, b)
    }

    fn run(&mut self, len: usize, a: &mut [u8], b: &mut [u8], calls: u64) {
        at_four!(0, calls, |_first, n, P| chunked_loop::<F, P>(&mut self.0, len, a, b, n));
    }
}

#[inline(never)]
fn chunked_loop<F: FnMut(usize, &mut [u8], &mut [u8]) -> bool, const P: usize>(
    f: &mut F,
    len: usize,
    a: &mut [u8],
    b: &mut [u8],
    calls: u64,
) {
    pad::<P>();
    for _ in 0..calls {
        let ok = f(black_box(len), black_box(&mut *a), black_box(&mut *b));
        assert!(ok, "a chunked stream failed");
    }
}

/// One implementation of one [`ChunkedOp`]: `seal` always (pulling prepares its stream with
/// it), `open` for pulling.
pub struct ChunkedImplementation {
    /// [`OURS`], [`Backend::name`] or [`Peer::label`].
    pub name: String,
    /// Ours (on which backend) or a peer.
    pub origin: Origin,
    /// What it does.
    pub op: ChunkedOp,
    seal: Box<dyn Chunker>,
    open: Option<Box<dyn Chunker>>,
}

impl fmt::Debug for ChunkedImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkedImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("op", &self.op)
            .finish_non_exhaustive()
    }
}

impl ChunkedImplementation {
    /// The stream of the `len` message bytes at the start of `plain`, sealed.
    pub fn seal(&mut self, plain: &[u8]) -> Vec<u8> {
        let len = plain.len();
        let mut area = vec![0u8; self.op.sealed_len(len)];
        let mut at = 0;
        for (i, msg) in chunks(len) {
            area[at..at + msg].copy_from_slice(&plain[i * CHUNK..][..msg]);
            at += msg + self.op.overhead();
        }
        // secretstream's chunk starts with its tag byte: the message one byte in.
        if self.op.overhead() == 17 {
            let mut shifted = vec![0u8; area.len()];
            let mut at = 0;
            for (_, msg) in chunks(len) {
                shifted[at + 1..at + 1 + msg].copy_from_slice(&area[at..at + msg]);
                at += msg + 17;
            }
            area = shifted;
        }
        assert!(self.seal.call(len, &mut area, &mut []), "{}: sealing failed", self.name);
        area
    }

    /// Opens `sealed` (a stream of `len` message bytes) into a new buffer, or `None`.
    pub fn open(&mut self, len: usize, sealed: &[u8]) -> Option<Vec<u8>> {
        let open = self.open.as_mut().expect("an implementation that pulls");
        let mut out = vec![0u8; len];
        open.call(len, &mut sealed.to_vec(), &mut out).then_some(out)
    }

    /// Seals a `len`-byte stream in place in `area` `calls` times (the timed loop).
    pub fn run_seal(&mut self, len: usize, area: &mut [u8], calls: u64) {
        self.seal.run(len, area, &mut [], calls);
    }

    /// Opens the `len`-byte stream `sealed` into `out` `calls` times (the timed loop).
    pub fn run_open(&mut self, len: usize, sealed: &mut [u8], out: &mut [u8], calls: u64) {
        self.open.as_mut().expect("an implementation that pulls").run(len, sealed, out, calls);
    }
}

fn caller<F: FnMut(usize, &mut [u8], &mut [u8]) -> bool + 'static>(f: F) -> Box<dyn Chunker> {
    Box::new(Caller(f))
}

/// Each chunk of a `len`-byte stream laid out in `area` with `overhead` bytes each: the
/// chunk's bytes and whether it is the last.
fn for_each_chunk(
    len: usize,
    overhead: usize,
    area: &mut [u8],
    mut f: impl FnMut(&mut [u8], bool) -> bool,
) -> bool {
    let n = len.div_ceil(CHUNK).max(1);
    let mut rest = area;
    for (i, msg) in chunks(len) {
        let (chunk, tail) = rest.split_at_mut(msg + overhead);
        if !f(chunk, i + 1 == n) {
            return false;
        }
        rest = tail;
    }
    true
}

fn secretstream_ours(op: ChunkedOp, backend: Backend, name: String, origin: Origin) -> ChunkedImplementation {
    use chacha20poly1305_ours::Key;
    use chacha20poly1305_ours::secretstream::{Decryptor, Encryptor, Header, Tag};
    let seal = caller(move |len, area, _| {
        let mut tx = Encryptor::with_backend(&Key::from(KEY), &Header::from(HEADER), backend);
        for_each_chunk(len, 17, area, |chunk, last| {
            tx.push_in_place(chunk, &[], if last { Tag::Final } else { Tag::Message }).is_ok()
        })
    });
    let open = caller(move |len, sealed, out| {
        let mut rx = Decryptor::with_backend(&Key::from(KEY), &Header::from(HEADER), backend);
        let mut out = &mut out[..];
        for_each_chunk(len, 17, sealed, |chunk, last| {
            let (msg, rest) = core::mem::take(&mut out).split_at_mut(chunk.len() - 17);
            out = rest;
            rx.pull_to(chunk, msg, &[]) == Ok(if last { Tag::Final } else { Tag::Message })
        })
    });
    ChunkedImplementation { name, origin, op, seal, open: Some(open) }
}

fn secretstream_sodium(op: ChunkedOp, peer: Peer) -> Option<ChunkedImplementation> {
    let lib = crate::ffi::sodium().ok()?;
    // `init_pull` with a header is `init_push` with that header (which `init_push` draws
    // itself): the state both start from.
    let seal = caller(move |len, area, _| {
        let mut state = lib.secretstream_init_pull(&KEY, &HEADER);
        for_each_chunk(len, 17, area, |chunk, last| {
            lib.secretstream_push_in_place(&mut state, chunk, &[], if last { 3 } else { 0 });
            true
        })
    });
    let open = caller(move |len, sealed, out| {
        let mut state = lib.secretstream_init_pull(&KEY, &HEADER);
        let mut out = &mut out[..];
        for_each_chunk(len, 17, sealed, |chunk, last| {
            let (msg, rest) = core::mem::take(&mut out).split_at_mut(chunk.len() - 17);
            out = rest;
            lib.secretstream_pull(&mut state, msg, chunk, &[]) == Some(if last { 3 } else { 0 })
        })
    });
    Some(ChunkedImplementation { name: peer.label(), origin: Origin::Peer(peer), op, seal, open: Some(open) })
}

/// A chunk's message and the room after it for the tag, as the `aead::Buffer` that
/// `aead-stream`'s in-place calls take.
#[derive(Debug)]
pub struct Slot<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Slot<'a> {
    /// The first `len` bytes of `buf` as the message, the rest as room to grow into.
    pub fn new(buf: &'a mut [u8], len: usize) -> Self {
        let len = len.min(buf.len());
        Slot { buf, len }
    }
}

impl AsRef<[u8]> for Slot<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl AsMut<[u8]> for Slot<'_> {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }
}

impl aead::Buffer for Slot<'_> {
    fn extend_from_slice(&mut self, other: &[u8]) -> aead::Result<()> {
        let end = self.len + other.len();
        self.buf.get_mut(self.len..end).ok_or(aead::Error)?.copy_from_slice(other);
        self.len = end;
        Ok(())
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

/// STREAM over the AEAD `make` returns (ours or the published crate's, both `aead` 0.6).
fn stream_over<A, M>(make: M) -> Box<dyn Chunker>
where
    A: aead::AeadInOut + 'static,
    A::NonceSize: core::ops::Sub<aead::consts::U5>,
    <A::NonceSize as core::ops::Sub<aead::consts::U5>>::Output: aead::array::ArraySize,
    M: Fn() -> A + 'static,
{
    caller(move |len, area, _| {
        let nonce = aead_stream::Nonce::<A, aead_stream::StreamBE32<A>>::try_from(&STREAM_NONCE[..])
            .expect("a 7-byte prefix");
        let mut enc = Some(aead_stream::EncryptorBE32::from_aead(make(), &nonce));
        for_each_chunk(len, 16, area, |chunk, last| {
            let len = chunk.len() - 16;
            let mut slot = Slot::new(chunk, len);
            if last {
                enc.take().expect("one last chunk").encrypt_last_in_place(&[], &mut slot).is_ok()
            } else {
                enc.as_mut().expect("before the last chunk").encrypt_next_in_place(&[], &mut slot).is_ok()
            }
        })
    })
}

fn stream_ours(backend: Backend, name: String, origin: Origin) -> ChunkedImplementation {
    use chacha20poly1305_ours::ChaCha20Poly1305;
    let seal = stream_over(move || ChaCha20Poly1305::with_backend(&KEY.into(), backend));
    ChunkedImplementation { name, origin, op: ChunkedOp::StreamSeal, seal, open: None }
}

fn stream_published(peer: Peer) -> ChunkedImplementation {
    use chacha20poly1305::ChaCha20Poly1305;
    use chacha20poly1305::aead::KeyInit;
    let seal = stream_over(|| ChaCha20Poly1305::new(&KEY.into()));
    ChunkedImplementation {
        name: peer.label(),
        origin: Origin::Peer(peer),
        op: ChunkedOp::StreamSeal,
        seal,
        open: None,
    }
}

/// Ours on [`Backend::detect`]'s backend ([`OURS`]) and on each of `backends` (none
/// without `backends`), then each of `peers` that has `op` and runs in this process.
pub fn chunked_implementations(
    op: ChunkedOp,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<ChunkedImplementation> {
    let ours = |backend: Backend, name: String, origin: Origin| match op {
        ChunkedOp::SecretStreamPush | ChunkedOp::SecretStreamPull => {
            secretstream_ours(op, backend, name, origin)
        }
        ChunkedOp::StreamSeal => stream_ours(backend, name, origin),
    };
    let mut all = Vec::new();
    if !backends.is_empty() {
        all.push(ours(Backend::detect(), OURS.to_string(), Origin::OursNew));
    }
    all.extend(backends.iter().map(|&b| ours(b, b.name().to_string(), Origin::Ours(b))));
    all.extend(peers.iter().filter(|p| p.in_process() && op.offered_by(**p)).filter_map(|&peer| match op {
        ChunkedOp::SecretStreamPush | ChunkedOp::SecretStreamPull => secretstream_sodium(op, peer),
        ChunkedOp::StreamSeal => Some(stream_published(peer)),
    }));
    all
}

/// The stream lengths of [`chunked_transcript`]: empty, short, one chunk exactly and one
/// byte more, several chunks and a partial one.
const CHECK_LENGTHS: [usize; 6] = [0, 1, 100, CHUNK, CHUNK + 1, 3 * CHUNK + 4103];

/// How many bytes [`chunked_transcript`] produces for `op`.
pub fn chunked_check_len(op: ChunkedOp) -> usize {
    let sealed: usize = CHECK_LENGTHS.iter().map(|&len| op.sealed_len(len)).sum();
    match op {
        ChunkedOp::SecretStreamPull => sealed + CHECK_LENGTHS.iter().map(|&len| len + 1).sum::<usize>(),
        ChunkedOp::SecretStreamPush | ChunkedOp::StreamSeal => sealed,
    }
}

/// What two implementations of `op` must agree on: each stream of `CHECK_LENGTHS` (a fixed
/// pattern) sealed; for pulling, also opened (the implementation's own seal, which the
/// pushing workload compares), and a byte of the last chunk changed and refused.
pub fn chunked_transcript(imp: &mut ChunkedImplementation) -> Vec<u8> {
    let mut out = Vec::new();
    for len in CHECK_LENGTHS {
        let plain: Vec<u8> = (0..len).map(|j| (j as u8).wrapping_mul(37).wrapping_add(3)).collect();
        let sealed = imp.seal(&plain);
        out.extend_from_slice(&sealed);
        if imp.op == ChunkedOp::SecretStreamPull {
            let opened = imp.open(len, &sealed);
            out.extend_from_slice(opened.as_deref().unwrap_or(b"refused"));
            let mut forged = sealed.clone();
            *forged.last_mut().expect("at least one chunk") ^= 1;
            out.push(u8::from(imp.open(len, &forged).is_none()));
        }
    }
    out
}
