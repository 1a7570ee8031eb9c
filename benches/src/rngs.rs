//! The RNGs to race: `chacha-rng` on every available backend, and the peers' RNGs
//! (`rand_chacha` 0.10, the published `chacha20` 0.10.2's `rng` feature).
//!
//! Like the ciphers in `impls`, each generator is boxed once behind [`RngStream`], whose
//! batch loops (`run_fill`, `run_u32`, `run_u64`) are monomorphised over the concrete
//! generator: timing pays one indirect call per batch, not per call.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use rand_core::{Rng, SeedableRng};

use crate::impls::{Origin, Peer};

/// A ChaCha RNG by round count; all of them are the original layout (64-bit counter,
/// 64-bit stream) as `rand_chacha` defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RngVariant {
    /// `ChaCha20Rng`.
    ChaCha20,
    /// `ChaCha12Rng` (`rand`'s `StdRng`).
    ChaCha12,
    /// `ChaCha8Rng`.
    ChaCha8,
}

impl RngVariant {
    /// Every RNG, in report order.
    pub const ALL: [RngVariant; 3] = [RngVariant::ChaCha20, RngVariant::ChaCha12, RngVariant::ChaCha8];

    /// The command-line and file-name id: `chacha20-rng`, `chacha12-rng`, `chacha8-rng`.
    pub fn id(self) -> &'static str {
        match self {
            RngVariant::ChaCha20 => "chacha20-rng",
            RngVariant::ChaCha12 => "chacha12-rng",
            RngVariant::ChaCha8 => "chacha8-rng",
        }
    }

    /// The type name, `ChaCha20Rng`, …; also the criterion group prefix.
    pub fn title(self) -> &'static str {
        match self {
            RngVariant::ChaCha20 => "ChaCha20Rng",
            RngVariant::ChaCha12 => "ChaCha12Rng",
            RngVariant::ChaCha8 => "ChaCha8Rng",
        }
    }

    /// The RNG whose [`RngVariant::id`] is `id`.
    pub fn by_id(id: &str) -> Option<RngVariant> {
        Self::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// A generator behind a trait object.
pub trait RngStream {
    /// `fill_bytes(buf)` once.
    fn fill(&mut self, buf: &mut [u8]);
    /// `next_u32()` once.
    fn u32(&mut self) -> u32;
    /// `next_u64()` once.
    fn u64(&mut self) -> u64;
    /// `fill_bytes(buf)` `calls` times in a row (the timed loop).
    fn run_fill(&mut self, buf: &mut [u8], calls: u64);
    /// `next_u32()` `calls` times in a row, every word consumed.
    fn run_u32(&mut self, calls: u64);
    /// `next_u64()` `calls` times in a row, every word consumed.
    fn run_u64(&mut self, calls: u64);
}

struct Boxed<G>(G);

impl<G: Rng> RngStream for Boxed<G> {
    fn fill(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf)
    }

    fn u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    #[inline(never)]
    fn run_fill(&mut self, buf: &mut [u8], calls: u64) {
        for _ in 0..calls {
            self.0.fill_bytes(black_box(&mut *buf));
        }
    }

    #[inline(never)]
    fn run_u32(&mut self, calls: u64) {
        for _ in 0..calls {
            black_box(self.0.next_u32());
        }
    }

    #[inline(never)]
    fn run_u64(&mut self, calls: u64) {
        for _ in 0..calls {
            black_box(self.0.next_u64());
        }
    }
}

type MakeRng = Box<dyn Fn(&[u8; 32]) -> Box<dyn RngStream>>;

/// One generator of one [`RngVariant`]: ours on a backend, or a peer's.
pub struct RngImplementation {
    /// [`Backend::name`] for ours, [`Peer::label`] for a peer.
    pub name: String,
    /// Ours (on which backend) or a peer.
    pub origin: Origin,
    /// The generator it implements.
    pub variant: RngVariant,
    make: MakeRng,
}

impl fmt::Debug for RngImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RngImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl RngImplementation {
    /// A generator seeded with `seed`, stream 0, position 0.
    pub fn rng(&self, seed: &[u8; 32]) -> Box<dyn RngStream> {
        (self.make)(seed)
    }

    /// Whether it is one of ours.
    pub fn is_ours(&self) -> bool {
        matches!(self.origin, Origin::Ours(_))
    }
}

fn boxed<G: Rng + 'static>(
    name: String,
    origin: Origin,
    variant: RngVariant,
    make: impl Fn(&[u8; 32]) -> G + 'static,
) -> RngImplementation {
    RngImplementation { name, origin, variant, make: Box::new(move |seed| Box::new(Boxed(make(seed)))) }
}

fn seeded<G: Rng + SeedableRng<Seed = [u8; 32]> + 'static>(
    peer: Peer,
    variant: RngVariant,
) -> RngImplementation {
    boxed(peer.label(), Origin::Peer(peer), variant, |seed: &[u8; 32]| G::from_seed(*seed))
}

fn ours(variant: RngVariant, backend: Backend) -> RngImplementation {
    use chacha_rng::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
    let (name, origin) = (backend.name().to_string(), Origin::Ours(backend));
    match variant {
        RngVariant::ChaCha20 => {
            boxed(name, origin, variant, move |s: &[u8; 32]| ChaCha20Rng::with_backend(*s, backend))
        }
        RngVariant::ChaCha12 => {
            boxed(name, origin, variant, move |s: &[u8; 32]| ChaCha12Rng::with_backend(*s, backend))
        }
        RngVariant::ChaCha8 => {
            boxed(name, origin, variant, move |s: &[u8; 32]| ChaCha8Rng::with_backend(*s, backend))
        }
    }
}

fn peer(peer: Peer, variant: RngVariant) -> Option<RngImplementation> {
    if !peer.offers_rng() || !peer.in_process() {
        return None;
    }
    Some(match (peer, variant) {
        (Peer::RandChacha, RngVariant::ChaCha20) => seeded::<rand_chacha::ChaCha20Rng>(peer, variant),
        (Peer::RandChacha, RngVariant::ChaCha12) => seeded::<rand_chacha::ChaCha12Rng>(peer, variant),
        (Peer::RandChacha, RngVariant::ChaCha8) => seeded::<rand_chacha::ChaCha8Rng>(peer, variant),
        (_, RngVariant::ChaCha20) => seeded::<chacha20_published::ChaCha20Rng>(peer, variant),
        (_, RngVariant::ChaCha12) => seeded::<chacha20_published::ChaCha12Rng>(peer, variant),
        (_, RngVariant::ChaCha8) => seeded::<chacha20_published::ChaCha8Rng>(peer, variant),
    })
}

/// Ours on each of `backends` (in that order), then each of `peers` that has this RNG and
/// runs in this process.
pub fn rng_implementations(
    variant: RngVariant,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<RngImplementation> {
    let mut all: Vec<RngImplementation> = backends.iter().map(|&b| ours(variant, b)).collect();
    all.extend(peers.iter().filter_map(|&p| peer(p, variant)));
    all
}

/// How many bytes [`rng_transcript`] produces.
pub const RNG_CHECK_LEN: usize = 1 + 4 + 63 + 8 + 64 + 65 + 4 + 100 + 1024 + 8 + 4103 + 4;

/// A fixed mix of `fill_bytes` (1, 63, 64, 65, 100, 1024, 4103 bytes), `next_u32` and
/// `next_u64` from a fresh generator, concatenated (words little-endian): two generators
/// with the same stream give the same transcript, whatever their buffering.
pub fn rng_transcript(imp: &RngImplementation, seed: &[u8; 32]) -> Vec<u8> {
    let mut rng = imp.rng(seed);
    let mut out = Vec::with_capacity(RNG_CHECK_LEN);
    let fill = |rng: &mut Box<dyn RngStream>, len: usize, out: &mut Vec<u8>| {
        let mut buf = vec![0u8; len];
        rng.fill(&mut buf);
        out.extend_from_slice(&buf);
    };
    fill(&mut rng, 1, &mut out);
    out.extend_from_slice(&rng.u32().to_le_bytes());
    fill(&mut rng, 63, &mut out);
    out.extend_from_slice(&rng.u64().to_le_bytes());
    fill(&mut rng, 64, &mut out);
    fill(&mut rng, 65, &mut out);
    out.extend_from_slice(&rng.u32().to_le_bytes());
    fill(&mut rng, 100, &mut out);
    fill(&mut rng, 1024, &mut out);
    out.extend_from_slice(&rng.u64().to_le_bytes());
    fill(&mut rng, 4103, &mut out);
    out.extend_from_slice(&rng.u32().to_le_bytes());
    out
}
