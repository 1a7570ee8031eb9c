//! What the report measures, in one shape for the ciphers, the RNGs, the AEADs and
//! Poly1305: a [`Workload`] (a cipher variant on one instance or fresh per message, an RNG
//! streaming or set up per work item, (X)ChaCha20-Poly1305 sealing or opening, Poly1305
//! alone), its [`Point`]s (message sizes; for
//! RNGs also `next_u32` / `next_u64`, or a seed or a seek then one draw), the [`Implementation`]s,
//! a [`Runner`] that runs one batch, and the [`transcript`] every implementation must agree on.
//!
//! The report's worker processes (`--worker`) run the same code, so a peer in another
//! process is timed and checked exactly as one in this process.

use std::time::{Duration, Instant};

use chacha_backends::Backend;

use crate::aeads::{
    AeadAlgorithm, AeadImplementation, aead_implementations, aead_open_transcript, aead_transcript,
};
use crate::chunked::{ChunkedImplementation, ChunkedOp, chunked_implementations, chunked_transcript};
use crate::impls::{
    Algorithm, CipherImplementation, Origin, Peer, Stream, cipher_implementations, par_cipher_implementations,
};
use crate::macs::{MacImplementation, mac_implementations, mac_transcript};
use crate::rngs::{
    RngImplementation, RngStream, RngVariant, par_rng_implementations, rng_implementations,
    rng_setup_transcript, rng_transcript,
};
use crate::{CHECK_LEN, KEY, cpu, nonce};

/// A measured workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// A cipher variant: one instance streaming message after message, or (`fresh`) a new
    /// instance per message (key setup included).
    Cipher {
        /// The variant.
        variant: Algorithm,
        /// New instance (key setup) for every message, then apply.
        fresh: bool,
    },
    /// An RNG: `fill_bytes` at each size, and `next_u32` / `next_u64`.
    Rng(RngVariant),
    /// An RNG set up per work item, then one `next_u32`: a new generator
    /// (`seed_from_u64`), or one generator moved (`set_word_pos`).
    RngSetup(RngVariant),
    /// ChaCha20-Poly1305 or XChaCha20-Poly1305, one key: each message sealed in place
    /// under a new nonce, or (`open`) an authentic message opened in place.
    Aead {
        /// Which AEAD.
        algorithm: AeadAlgorithm,
        /// Opening (decryption with the tag checked) instead of sealing.
        open: bool,
    },
    /// Poly1305 alone: a one-shot MAC per message (key setup, absorb, tag).
    Poly1305,
    /// A long message in 64 KiB chunks: secretstream pushing or pulling, or STREAM sealing.
    Chunked(ChunkedOp),
    /// A cipher variant's `par_apply_keystream` on rayon's global pool beside its
    /// `apply_keystream`, one instance streaming message after message.
    ParCipher(Algorithm),
    /// An RNG's `par_fill_bytes` on rayon's global pool beside its `fill_bytes`.
    ParRng(RngVariant),
}

impl Workload {
    /// `chacha20`, `chacha20-new`, `chacha20-rng`, ….
    pub fn id(self) -> String {
        match self {
            Workload::Cipher { variant, fresh: false } => variant.id().to_string(),
            Workload::Cipher { variant, fresh: true } => format!("{}-new", variant.id()),
            Workload::Rng(r) => r.id().to_string(),
            Workload::RngSetup(r) => format!("{}-setup", r.id()),
            Workload::Aead { algorithm, open: false } => algorithm.id().to_string(),
            Workload::Aead { algorithm, open: true } => format!("{}-open", algorithm.id()),
            Workload::Poly1305 => "poly1305".to_string(),
            Workload::Chunked(op) => op.id().to_string(),
            Workload::ParCipher(variant) => format!("{}-par", variant.id()),
            Workload::ParRng(r) => format!("{}-par", r.id()),
        }
    }

    /// The parallel workloads (`--variants parallel`): ChaCha20 and ChaCha8, ciphers and RNGs.
    pub fn parallel() -> Vec<Workload> {
        vec![
            Workload::ParCipher(Algorithm::ChaCha20),
            Workload::ParCipher(Algorithm::ChaCha8),
            Workload::ParRng(RngVariant::ChaCha20),
            Workload::ParRng(RngVariant::ChaCha8),
        ]
    }

    /// A heading: `ChaCha20, apply_keystream on one instance`.
    pub fn title(self) -> String {
        match self {
            Workload::Cipher { variant, fresh: false } => {
                format!("{}, apply_keystream on one instance", variant.title())
            }
            Workload::Cipher { variant, fresh: true } => {
                format!("{}, a new instance per message (new + apply_keystream)", variant.title())
            }
            Workload::Rng(r) => format!("{}, fill_bytes, next_u32 and next_u64 on one generator", r.title()),
            Workload::RngSetup(r) => format!(
                "{}, set up per work item (a new generator by seed_from_u64, or set_word_pos on one), then one next_u32",
                r.title()
            ),
            Workload::Aead { algorithm, open: false } => format!(
                "{}, sealing in place, a new nonce per message (13-byte AAD, tag apart)",
                algorithm.title()
            ),
            Workload::Aead { algorithm, open: true } => format!(
                "{}, opening in place (decryption, tag checked; 13-byte AAD, tag apart)",
                algorithm.title()
            ),
            Workload::Poly1305 => "Poly1305, a one-shot MAC per message (key setup, absorb, tag)".to_string(),
            Workload::Chunked(op) => op.title(),
            Workload::ParCipher(variant) => format!(
                "{}, par_apply_keystream on rayon's global pool ({} threads) beside apply_keystream, one instance",
                variant.title(),
                crate::impls::par_threads()
            ),
            Workload::ParRng(r) => format!(
                "{}, par_fill_bytes on rayon's global pool ({} threads) beside fill_bytes, one generator",
                r.title(),
                crate::impls::par_threads()
            ),
        }
    }

    /// The workload whose [`Workload::id`] is `id`.
    pub fn by_id(id: &str) -> Option<Workload> {
        Self::all().into_iter().find(|w| w.id() == id)
    }

    /// Every workload, in report order.
    pub fn all() -> Vec<Workload> {
        let mut all: Vec<_> =
            Algorithm::ALL.into_iter().map(|variant| Workload::Cipher { variant, fresh: false }).collect();
        all.extend(Algorithm::ALL.into_iter().map(|variant| Workload::Cipher { variant, fresh: true }));
        all.extend(RngVariant::ALL.map(Workload::Rng));
        all.extend(RngVariant::ALL.map(Workload::RngSetup));
        all.extend(Self::aeads());
        all.extend(Self::parallel());
        all
    }

    /// The AEAD workloads, sealing then opening of each, and Poly1305 alone.
    fn aeads() -> Vec<Workload> {
        let mut all: Vec<Workload> = AeadAlgorithm::ALL
            .into_iter()
            .flat_map(|algorithm| [false, true].map(|open| Workload::Aead { algorithm, open }))
            .collect();
        all.push(Workload::Poly1305);
        all.extend(ChunkedOp::ALL.map(Workload::Chunked));
        all
    }

    /// The report's default: every variant on one instance, ChaCha20 and XChaCha20 fresh,
    /// the three RNGs streaming and set up per item, both AEADs sealing and opening, and
    /// Poly1305.
    pub fn default_set() -> Vec<Workload> {
        let mut set: Vec<_> =
            Algorithm::ALL.into_iter().map(|variant| Workload::Cipher { variant, fresh: false }).collect();
        set.push(Workload::Cipher { variant: Algorithm::ChaCha20, fresh: true });
        set.push(Workload::Cipher { variant: Algorithm::XChaCha20, fresh: true });
        set.extend(RngVariant::ALL.map(Workload::Rng));
        set.extend(RngVariant::ALL.map(Workload::RngSetup));
        set.extend(Self::aeads());
        set
    }

    /// Whether `peer` has an implementation of this workload.
    pub fn offered_by(self, peer: Peer) -> bool {
        match self {
            Workload::Cipher { variant, .. } => peer.offers(variant),
            Workload::Rng(_) | Workload::RngSetup(_) => peer.offers_rng(),
            Workload::Aead { algorithm, .. } => peer.offers_aead(algorithm),
            Workload::Poly1305 => peer.offers_poly1305(),
            Workload::Chunked(op) => op.offered_by(peer),
            // OpenSSL, the fastest sequential peer, in this process (a worker's rows would be
            // raced beside the pool's threads).
            Workload::ParCipher(variant) => peer == Peer::OpenSsl && peer.offers(variant),
            Workload::ParRng(_) => false,
        }
    }

    /// The name of the row of what users call, which the summary reads: [`crate::OURS`],
    /// or for the parallel workloads [`crate::ours_par_name`].
    pub fn users_row(self) -> String {
        match self {
            Workload::ParCipher(_) | Workload::ParRng(_) => crate::ours_par_name(),
            _ => crate::OURS.to_string(),
        }
    }

    /// The constructor behind the [`crate::OURS`] row at `point`: `new`, `from_seed`
    /// (the seek moves one generator made so) or `seed_from_u64`; for Poly1305, `detect`
    /// (the kernel `Backend::detect()` picks).
    pub fn ours_constructor(self, point: Point) -> Option<&'static str> {
        match self {
            Workload::Cipher { .. } | Workload::Aead { .. } | Workload::ParCipher(_) | Workload::Poly1305 => {
                Some("new")
            }
            Workload::Chunked(ChunkedOp::StreamSeal) => Some("new"),
            Workload::Chunked(_) => Some("from_header"),
            Workload::ParRng(_) => Some("from_seed"),
            Workload::RngSetup(_) if point == Point::SeedU32 => Some("seed_from_u64"),
            Workload::Rng(_) | Workload::RngSetup(_) => Some("from_seed"),
        }
    }
}

/// What one call does: a message (or `fill_bytes`) of so many bytes, or one `next_u32` /
/// `next_u64` of an RNG, or a new generator or a seek and then one `next_u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Point {
    /// `seed_from_u64(i)`, then one `next_u32`: 4 bytes.
    SeedU32,
    /// `set_word_pos` to work item `i`'s position, then one `next_u32`: 4 bytes.
    SeekU32,
    /// `next_u32`: 4 bytes.
    NextU32,
    /// `next_u64`: 8 bytes.
    NextU64,
    /// A message, or `fill_bytes`, of this many bytes.
    Bytes(usize),
}

impl Point {
    /// Bytes per call.
    pub fn bytes(self) -> usize {
        match self {
            Point::SeedU32 | Point::SeekU32 | Point::NextU32 => 4,
            Point::NextU64 => 8,
            Point::Bytes(n) => n,
        }
    }

    /// For tables: `16 B`, `1 KiB`, `next_u32`, `next_u64`, `seed_from_u64 + next_u32`,
    /// `set_word_pos + next_u32`.
    pub fn label(self) -> String {
        match self {
            Point::SeedU32 => "seed_from_u64 + next_u32".into(),
            Point::SeekU32 => "set_word_pos + next_u32".into(),
            Point::NextU32 => "next_u32".into(),
            Point::NextU64 => "next_u64".into(),
            Point::Bytes(n) => crate::format_size(n),
        }
    }

    /// For the worker protocol: `16`, `u32`, `u64`, `seed`, `seek`.
    pub fn token(self) -> String {
        match self {
            Point::SeedU32 => "seed".into(),
            Point::SeekU32 => "seek".into(),
            Point::NextU32 => "u32".into(),
            Point::NextU64 => "u64".into(),
            Point::Bytes(n) => n.to_string(),
        }
    }

    /// The point whose [`Point::token`] is `token`.
    pub fn from_token(token: &str) -> Option<Point> {
        match token {
            "seed" => Some(Point::SeedU32),
            "seek" => Some(Point::SeekU32),
            "u32" => Some(Point::NextU32),
            "u64" => Some(Point::NextU64),
            n => n.parse().ok().filter(|&n| n > 0).map(Point::Bytes),
        }
    }
}

/// One implementation of one workload.
#[derive(Debug)]
pub enum Implementation {
    /// A cipher.
    Cipher(CipherImplementation),
    /// An RNG.
    Rng(RngImplementation),
    /// A ChaCha20-Poly1305 or XChaCha20-Poly1305.
    Aead(AeadImplementation),
    /// A Poly1305.
    Mac(MacImplementation),
    /// A chunked encryption.
    Chunked(ChunkedImplementation),
}

impl Implementation {
    /// `Backend::name()` for ours, the peer's label otherwise.
    pub fn name(&self) -> &str {
        match self {
            Implementation::Cipher(i) => &i.name,
            Implementation::Rng(i) => &i.name,
            Implementation::Aead(i) => &i.name,
            Implementation::Mac(i) => &i.name,
            Implementation::Chunked(i) => &i.name,
        }
    }

    /// Ours or a peer.
    pub fn origin(&self) -> Origin {
        match self {
            Implementation::Cipher(i) => i.origin,
            Implementation::Rng(i) => i.origin,
            Implementation::Aead(i) => i.origin,
            Implementation::Mac(i) => i.origin,
            Implementation::Chunked(i) => i.origin,
        }
    }

    /// A runner for `point` of `workload` (a new instance or generator at position 0; for
    /// opening, the message sealed with this implementation).
    ///
    /// # Panics
    /// If the implementation is not of the workload's kind, or `point` is not one of its points
    /// (a message size for a cipher, an AEAD or Poly1305).
    pub fn runner(&mut self, workload: Workload, point: Point) -> Runner {
        let mut buf = vec![0u8; point.bytes()];
        let setup = match (self, workload) {
            (Implementation::Cipher(i), Workload::Cipher { variant, fresh }) => {
                assert!(matches!(point, Point::Bytes(_)), "a cipher has no {point:?}");
                let nonce = nonce(variant.nonce_len());
                if fresh { Setup::Fresh(nonce) } else { Setup::Stream(i.stream(&KEY, &nonce)) }
            }
            (Implementation::Cipher(i), Workload::ParCipher(variant)) => {
                assert!(matches!(point, Point::Bytes(_)), "a cipher has no {point:?}");
                Setup::Stream(i.stream(&KEY, &nonce(variant.nonce_len())))
            }
            (Implementation::Rng(i), Workload::ParRng(_)) => Setup::Rng(i.rng(&KEY), point),
            (Implementation::Rng(_), Workload::RngSetup(_)) if point == Point::SeedU32 => Setup::Seed,
            (Implementation::Rng(i), Workload::Rng(_) | Workload::RngSetup(_)) => {
                Setup::Rng(i.rng(&KEY), point)
            }
            (Implementation::Aead(_), Workload::Aead { open: false, .. }) => {
                assert!(matches!(point, Point::Bytes(_)), "the AEAD has no {point:?}");
                Setup::Seal
            }
            (Implementation::Aead(i), Workload::Aead { open: true, .. }) => {
                assert!(matches!(point, Point::Bytes(_)), "the AEAD has no {point:?}");
                Setup::Open(i.prepare_open(&mut buf))
            }
            (Implementation::Mac(_), Workload::Poly1305) => {
                assert!(matches!(point, Point::Bytes(_)), "Poly1305 has no {point:?}");
                Setup::Mac
            }
            (Implementation::Chunked(i), Workload::Chunked(op)) => {
                assert!(matches!(point, Point::Bytes(_)), "a chunked stream has no {point:?}");
                let plain: Vec<u8> = (0..buf.len()).map(|j| j as u8).collect();
                let sealed = i.seal(&plain);
                if op == ChunkedOp::SecretStreamPull {
                    Setup::ChunkedOpen(sealed)
                } else {
                    Setup::ChunkedSeal(sealed)
                }
            }
            (implementation, _) => {
                panic!("{} is not an implementation of {}", implementation.name(), workload.id())
            }
        };
        Runner { setup, buf, item: 0 }
    }
}

/// The implementations of `workload`: ours through the user's constructors ([`crate::OURS`]) and
/// on each of `backends` (none without `backends`), then each of `peers` that offers it in
/// this process.
pub fn implementations(workload: Workload, backends: &[Backend], peers: &[Peer]) -> Vec<Implementation> {
    match workload {
        Workload::Cipher { variant, .. } => {
            cipher_implementations(variant, backends, peers).into_iter().map(Implementation::Cipher).collect()
        }
        Workload::Rng(r) | Workload::RngSetup(r) => {
            rng_implementations(r, backends, peers).into_iter().map(Implementation::Rng).collect()
        }
        Workload::Aead { algorithm, .. } => {
            aead_implementations(algorithm, backends, peers).into_iter().map(Implementation::Aead).collect()
        }
        Workload::Poly1305 => {
            mac_implementations(backends, peers).into_iter().map(Implementation::Mac).collect()
        }
        Workload::Chunked(op) => {
            chunked_implementations(op, backends, peers).into_iter().map(Implementation::Chunked).collect()
        }
        Workload::ParCipher(variant) => par_cipher_implementations(variant, backends, peers)
            .into_iter()
            .map(Implementation::Cipher)
            .collect(),
        Workload::ParRng(r) => {
            par_rng_implementations(r, backends).into_iter().map(Implementation::Rng).collect()
        }
    }
}

enum Setup {
    Stream(Box<dyn Stream>),
    /// The nonce; the implementation makes the instance.
    Fresh(Vec<u8>),
    Rng(Box<dyn RngStream>, Point),
    /// The implementation makes a generator per work item.
    Seed,
    /// The implementation seals each message under its own nonce.
    Seal,
    /// The implementation opens the buffer in place, its two tags in turn (see
    /// `AeadImplementation::prepare_open`).
    Open([[u8; 16]; 2]),
    /// The implementation computes the buffer's Poly1305 tag.
    Mac,
    /// The implementation seals the stream in place in this buffer (laid out as its chunks).
    ChunkedSeal(Vec<u8>),
    /// The implementation opens this sealed stream into the runner's buffer.
    ChunkedOpen(Vec<u8>),
}

/// One implementation at one point, ready to run batches (its instance, if any, keeps its
/// position from batch to batch, and the work items and messages go on numbering).
pub struct Runner {
    setup: Setup,
    buf: Vec<u8>,
    /// The next work item (seed, seek) or message (AEAD nonce).
    item: u64,
}

impl core::fmt::Debug for Runner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Runner").field("bytes", &self.buf.len()).finish_non_exhaustive()
    }
}

impl Runner {
    /// Runs `calls` calls of `implementation` (the one this runner was made from); wall time and
    /// TSC ticks.
    pub fn batch(&mut self, implementation: &mut Implementation, calls: u64) -> (Duration, Option<u64>) {
        let t0 = Instant::now();
        let c0 = cpu::tsc();
        let first = self.item;
        match (&mut self.setup, implementation) {
            (Setup::Stream(s), _) => s.run(&mut self.buf, calls),
            (Setup::Fresh(nonce), Implementation::Cipher(i)) => {
                i.run_fresh(&KEY, nonce, &mut self.buf, calls)
            }
            (Setup::Rng(r, Point::NextU32), _) => r.run_u32(calls),
            (Setup::Rng(r, Point::NextU64), _) => r.run_u64(calls),
            (Setup::Rng(r, Point::SeekU32), _) => r.run_seek_u32(first, calls),
            (Setup::Rng(r, Point::Bytes(_)), _) => r.run_fill(&mut self.buf, calls),
            (Setup::Seed, Implementation::Rng(i)) => i.run_seed_u32(first, calls),
            (Setup::Seal, Implementation::Aead(i)) => i.run(&mut self.buf, first, calls),
            (Setup::Open(tags), Implementation::Aead(i)) => i.run_open(&mut self.buf, tags, first, calls),
            (Setup::Mac, Implementation::Mac(i)) => i.run(&self.buf, calls),
            (Setup::ChunkedSeal(area), Implementation::Chunked(i)) => i.run_seal(self.buf.len(), area, calls),
            (Setup::ChunkedOpen(sealed), Implementation::Chunked(i)) => {
                i.run_open(self.buf.len(), sealed, &mut self.buf, calls)
            }
            _ => unreachable!("a runner runs the implementation it was made from"),
        }
        self.item = first.wrapping_add(calls);
        let c1 = cpu::tsc();
        let dt = t0.elapsed();
        (dt, c0.zip(c1).map(|(a, b)| b.wrapping_sub(a)))
    }

    /// How many calls make a batch of about `target` (the calibration runs double as
    /// warm-up).
    pub fn calibrate(&mut self, implementation: &mut Implementation, target: Duration) -> u64 {
        let mut n = 1u64;
        loop {
            let (dt, _) = self.batch(implementation, n);
            if dt >= target / 4 || n >= 1 << 40 {
                let scaled = n as f64 * target.as_secs_f64() / dt.as_secs_f64().max(1e-9);
                return (scaled.round() as u64).max(1);
            }
            n *= 2;
        }
    }
}

/// The chunk lengths of a cipher's transcript: partial blocks and multi-block calls meet.
const CHUNKS: [usize; 7] = [1, 63, 64, 65, 100, 1024, 4103];

/// The bytes a parallel workload's transcript adds: one call large enough for the parallel
/// path (twice the highest threshold, ChaCha8's, ending inside a block), after 100 bytes (a
/// partial block buffered).
pub const PAR_CHECK_LEN: usize = 2 * chacha20::par_min_len::<chacha20::R8>() + 37;

/// [`PAR_CHECK_LEN`] bytes from `call` after 100 bytes from it.
fn par_tail(mut call: impl FnMut(&mut [u8])) -> Vec<u8> {
    call(&mut [0u8; 100]);
    let mut big = vec![0u8; PAR_CHECK_LEN];
    call(&mut big);
    big
}

/// What two implementations of one workload must both produce: for a cipher, [`CHECK_LEN`] bytes
/// of keystream streamed in uneven chunks (1, 63, 64, 65, 100, 1024, 4103 bytes), then a
/// new instance's keystream at each chunk length; for an RNG, [`rng_transcript`] (streaming)
/// or [`rng_setup_transcript`] (set up per item); for an AEAD, [`aead_transcript`]
/// (sealing) or [`aead_open_transcript`] (opening); for Poly1305, [`mac_transcript`]. The
/// parallel workloads add [`PAR_CHECK_LEN`] bytes from one large call.
pub fn transcript(workload: Workload, implementation: &mut Implementation) -> Vec<u8> {
    match implementation {
        Implementation::Cipher(imp) => {
            let nonce = nonce(imp.variant.nonce_len());
            let mut out = vec![0u8; CHECK_LEN];
            let mut stream = imp.stream(&KEY, &nonce);
            let mut rest = &mut out[..];
            for len in CHUNKS {
                let (head, tail) = rest.split_at_mut(len);
                stream.apply(head);
                rest = tail;
            }
            for len in CHUNKS {
                let mut buf = vec![0u8; len];
                imp.fresh_once(&KEY, &nonce, &mut buf);
                out.extend_from_slice(&buf);
            }
            if let Workload::ParCipher(_) = workload {
                let mut stream = imp.stream(&KEY, &nonce);
                out.extend(par_tail(|buf| stream.apply(buf)));
            }
            out
        }
        Implementation::Rng(imp) if matches!(workload, Workload::RngSetup(_)) => {
            rng_setup_transcript(imp, &KEY)
        }
        Implementation::Rng(imp) if matches!(workload, Workload::ParRng(_)) => {
            let mut out = rng_transcript(imp, &KEY);
            let mut rng = imp.rng(&KEY);
            out.extend(par_tail(|buf| rng.fill(buf)));
            out
        }
        Implementation::Rng(imp) => rng_transcript(imp, &KEY),
        Implementation::Aead(imp) if matches!(workload, Workload::Aead { open: true, .. }) => {
            aead_open_transcript(imp)
        }
        Implementation::Aead(imp) => aead_transcript(imp),
        Implementation::Mac(imp) => mac_transcript(imp),
        Implementation::Chunked(imp) => chunked_transcript(imp),
    }
}

/// Compares `transcripts` (name, bytes) with the first one's.
///
/// # Errors
/// Every implementation that differs, with the first differing byte (for a cipher: in the
/// stream, or in which new-instance message).
pub fn compare(workload: Workload, transcripts: &[(String, Vec<u8>)]) -> Result<usize, String> {
    let Some((first_name, expected)) = transcripts.first() else { return Ok(0) };
    let mut problems = Vec::new();
    for (name, got) in transcripts {
        let at = expected.iter().zip(got).position(|(a, b)| a != b);
        let at = match at {
            None if got.len() == expected.len() => continue,
            None => expected.len().min(got.len()),
            Some(at) => at,
        };
        let place = match workload {
            Workload::Cipher { .. } | Workload::ParCipher(_) if at < CHECK_LEN => {
                format!("streaming, byte {at}")
            }
            Workload::ParCipher(_) if at >= 2 * CHECK_LEN => {
                format!("the {PAR_CHECK_LEN}-byte call after 100 bytes, byte {}", at - 2 * CHECK_LEN)
            }
            Workload::ParRng(_) if at >= crate::RNG_CHECK_LEN => {
                format!("the {PAR_CHECK_LEN}-byte fill after 100 bytes, byte {}", at - crate::RNG_CHECK_LEN)
            }
            Workload::Cipher { .. } | Workload::ParCipher(_) => {
                let mut off = at - CHECK_LEN;
                let mut which = CHUNKS[0];
                for len in CHUNKS {
                    which = len;
                    if off < len {
                        break;
                    }
                    off -= len;
                }
                format!("new + apply of {which} B, byte {off}")
            }
            Workload::Rng(_) | Workload::ParRng(_) => {
                format!("byte {at} of the mixed fill_bytes/next_u32/next_u64 sequence")
            }
            Workload::RngSetup(_) => format!("byte {at} of the seed_from_u64 and set_word_pos draws"),
            Workload::Aead { open: false, .. } => {
                format!("byte {at} of the sealed messages (ciphertext and tag)")
            }
            Workload::Aead { open: true, .. } => {
                format!(
                    "byte {at} of the sealed, opened and forged messages (ciphertext, tag, plaintext, results)"
                )
            }
            Workload::Poly1305 => format!("byte {at} of the tags"),
            Workload::Chunked(_) => format!("byte {at} of the sealed (and opened) streams"),
        };
        problems.push(format!("{name} differs from {first_name} ({place})"));
    }
    if problems.is_empty() { Ok(expected.len()) } else { Err(problems.join("; ")) }
}
