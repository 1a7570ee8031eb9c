//! The RNGs to race: `chacha-rng` through the constructors users call (`from_seed`,
//! `seed_from_u64`: [`OURS`]) and on every available backend (`with_backend`), and the
//! peers' RNGs (`rand_chacha` 0.10, the published `chacha20` 0.10.2's `rng` feature).
//!
//! Like the ciphers in `impls`, each generator is boxed once behind [`RngStream`], whose
//! batch loops (`run_fill`, `run_u32`, `run_u64`, `run_seek_u32`) are monomorphised over the
//! concrete generator, and so is the seed-and-draw loop of [`RngImplementation::run_seed_u32`]:
//! timing pays one indirect call per batch, not per call. Each loop runs at the four places
//! of `placed`, a quarter of the batch each.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use rand_core::{Rng, SeedableRng};

use crate::impls::{OURS, Origin, Peer};
use crate::placed::{at_four, pad};

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
    /// `set_word_pos(pos)`, then `next_u32()`.
    fn seek_u32(&mut self, pos: u128) -> u32;
    /// For work items `first..first + calls`: `set_word_pos(seek_pos(item))`, then one
    /// `next_u32()` (the timed loop).
    fn run_seek_u32(&mut self, first: u64, calls: u64);
}

/// The word position of work item `item` in the seek workload: items [`SEEK_STRIDE`] words
/// apart, so each seek lands in another block, at another word of it.
pub fn seek_pos(item: u64) -> u128 {
    u128::from(item) * SEEK_STRIDE
}

/// Words between two work items' positions: a prime, so the word within the block moves
/// from item to item, as the starts of items of uneven sizes do.
pub const SEEK_STRIDE: u128 = 1_000_003;

/// `set_word_pos`, which each generator has as an inherent method of its own.
trait Seek {
    fn seek(&mut self, word_pos: u128);
}

macro_rules! seek_by_set_word_pos {
    ($($t:ty),*) => {$(
        impl Seek for $t {
            #[inline]
            fn seek(&mut self, word_pos: u128) {
                self.set_word_pos(word_pos)
            }
        }
    )*};
}

seek_by_set_word_pos!(
    chacha_rng::ChaCha8Rng,
    chacha_rng::ChaCha12Rng,
    chacha_rng::ChaCha20Rng,
    rand_chacha::ChaCha8Rng,
    rand_chacha::ChaCha12Rng,
    rand_chacha::ChaCha20Rng,
    chacha20_published::ChaCha8Rng,
    chacha20_published::ChaCha12Rng,
    chacha20_published::ChaCha20Rng
);

struct Boxed<G>(G);

impl<G: Rng + Seek> RngStream for Boxed<G> {
    fn fill(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf)
    }

    fn u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn run_fill(&mut self, buf: &mut [u8], calls: u64) {
        at_four!(0, calls, |_first, n, P| fill_loop::<G, P>(&mut self.0, buf, n));
    }

    fn run_u32(&mut self, calls: u64) {
        at_four!(0, calls, |_first, n, P| u32_loop::<G, P>(&mut self.0, n));
    }

    fn run_u64(&mut self, calls: u64) {
        at_four!(0, calls, |_first, n, P| u64_loop::<G, P>(&mut self.0, n));
    }

    fn seek_u32(&mut self, pos: u128) -> u32 {
        self.0.seek(pos);
        self.0.next_u32()
    }

    fn run_seek_u32(&mut self, first: u64, calls: u64) {
        at_four!(first, calls, |first, n, P| seek_loop::<G, P>(&mut self.0, first, n));
    }
}

// The timed loops, each at the place `P` (`placed`).

#[inline(never)]
fn fill_loop<G: Rng, const P: usize>(rng: &mut G, buf: &mut [u8], calls: u64) {
    pad::<P>();
    for _ in 0..calls {
        rng.fill_bytes(black_box(&mut *buf));
    }
}

#[inline(never)]
fn u32_loop<G: Rng, const P: usize>(rng: &mut G, calls: u64) {
    pad::<P>();
    for _ in 0..calls {
        black_box(rng.next_u32());
    }
}

#[inline(never)]
fn u64_loop<G: Rng, const P: usize>(rng: &mut G, calls: u64) {
    pad::<P>();
    for _ in 0..calls {
        black_box(rng.next_u64());
    }
}

#[inline(never)]
fn seek_loop<G: Rng + Seek, const P: usize>(rng: &mut G, first: u64, calls: u64) {
    pad::<P>();
    for item in first..first + calls {
        rng.seek(seek_pos(black_box(item)));
        black_box(rng.next_u32());
    }
}

/// A new generator per work item from a `u64` (`seed_from_u64`), then one draw.
trait SeedDraw {
    /// The generator of `state`'s first `next_u32()`.
    fn once(&self, state: u64) -> u32;
    /// For states `first..first + calls`: a new generator, one `next_u32()` (the timed loop).
    fn run(&self, first: u64, calls: u64);
}

struct Seeder<F>(F);

impl<G: Rng, F: Fn(u64) -> G> SeedDraw for Seeder<F> {
    fn once(&self, state: u64) -> u32 {
        (self.0)(state).next_u32()
    }

    fn run(&self, first: u64, calls: u64) {
        at_four!(first, calls, |first, n, P| seed_loop::<G, F, P>(&self.0, first, n));
    }
}

#[inline(never)]
fn seed_loop<G: Rng, F: Fn(u64) -> G, const P: usize>(seed: &F, first: u64, calls: u64) {
    pad::<P>();
    for state in first..first + calls {
        black_box(seed(black_box(state)).next_u32());
    }
}

/// The seed that `seed_from_u64(state)` gives a generator with a 32-byte seed (rand_core's
/// default: PCG32 output), for the rows that build it with `with_backend` instead.
fn seed_of(state: u64) -> [u8; 32] {
    struct SeedOnly([u8; 32]);
    impl SeedableRng for SeedOnly {
        type Seed = [u8; 32];
        fn from_seed(seed: [u8; 32]) -> SeedOnly {
            SeedOnly(seed)
        }
    }
    SeedOnly::seed_from_u64(state).0
}

type MakeRng = Box<dyn Fn(&[u8; 32]) -> Box<dyn RngStream>>;

/// One generator of one [`RngVariant`]: ours through `from_seed` / `seed_from_u64` or on a
/// backend, or a peer's.
pub struct RngImplementation {
    /// [`OURS`], [`Backend::name`] for ours on a backend, [`Peer::label`] for a peer.
    pub name: String,
    /// Ours (through the user's constructors, or on which backend) or a peer.
    pub origin: Origin,
    /// The generator it implements.
    pub variant: RngVariant,
    make: MakeRng,
    seed_draw: Box<dyn SeedDraw>,
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

    /// `seed_from_u64(state)` (or its seed through `with_backend`), then `next_u32()`.
    pub fn seed_u32(&self, state: u64) -> u32 {
        self.seed_draw.once(state)
    }

    /// `calls` new generators, of states `first..first + calls`, one `next_u32()` each (the
    /// timed loop).
    pub fn run_seed_u32(&self, first: u64, calls: u64) {
        self.seed_draw.run(first, calls)
    }

    /// Whether it is one of ours.
    pub fn is_ours(&self) -> bool {
        self.origin.is_ours()
    }
}

fn boxed<G: Rng + Seek + 'static>(
    name: String,
    origin: Origin,
    variant: RngVariant,
    make: impl Fn(&[u8; 32]) -> G + Clone + 'static,
) -> RngImplementation {
    let from_state = make.clone();
    RngImplementation {
        name,
        origin,
        variant,
        make: Box::new(move |seed| Box::new(Boxed(make(seed)))),
        seed_draw: Box::new(Seeder(move |state: u64| from_state(&seed_of(state)))),
    }
}

/// A generator made by the user's constructors: `from_seed`, and `seed_from_u64` (not
/// `from_seed` after [`seed_of`], in case a generator has its own).
fn seeded<G: Rng + Seek + SeedableRng<Seed = [u8; 32]> + 'static>(
    name: String,
    origin: Origin,
    variant: RngVariant,
) -> RngImplementation {
    RngImplementation {
        name,
        origin,
        variant,
        make: Box::new(|seed| Box::new(Boxed(G::from_seed(*seed)))),
        seed_draw: Box::new(Seeder(G::seed_from_u64)),
    }
}

fn peer_seeded<G: Rng + Seek + SeedableRng<Seed = [u8; 32]> + 'static>(
    peer: Peer,
    variant: RngVariant,
) -> RngImplementation {
    seeded::<G>(peer.label(), Origin::Peer(peer), variant)
}

/// Ours as users write it: `from_seed` / `seed_from_u64`, which pick the backend.
fn ours_new(variant: RngVariant) -> RngImplementation {
    use chacha_rng::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
    let (name, origin) = (OURS.to_string(), Origin::OursNew);
    match variant {
        RngVariant::ChaCha20 => seeded::<ChaCha20Rng>(name, origin, variant),
        RngVariant::ChaCha12 => seeded::<ChaCha12Rng>(name, origin, variant),
        RngVariant::ChaCha8 => seeded::<ChaCha8Rng>(name, origin, variant),
    }
}

/// `fill_bytes` as `par_fill_bytes`: ours on rayon's global pool, everything else as the
/// generator inside.
struct Par<G>(G);

impl<R: chacha_rng::Rounds> rand_core::TryRng for Par<chacha_rng::ChaChaRng<R>> {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.par_fill_bytes(dst);
        Ok(())
    }
}

impl<R: chacha_rng::Rounds> Seek for Par<chacha_rng::ChaChaRng<R>> {
    fn seek(&mut self, word_pos: u128) {
        self.0.set_word_pos(word_pos)
    }
}

/// The parallel workload of `variant`: ours through `from_seed` and `par_fill_bytes` on
/// rayon's global pool, then ours through `fill_bytes` ([`OURS`]); no peer has a parallel
/// fill. No `backends`, none of ours.
pub fn par_rng_implementations(variant: RngVariant, backends: &[Backend]) -> Vec<RngImplementation> {
    use chacha_rng::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
    if backends.is_empty() {
        return Vec::new();
    }
    let (name, origin) = (crate::impls::ours_par_name(), Origin::OursNew);
    let par = match variant {
        RngVariant::ChaCha20 => boxed(name, origin, variant, |s: &[u8; 32]| Par(ChaCha20Rng::from_seed(*s))),
        RngVariant::ChaCha12 => boxed(name, origin, variant, |s: &[u8; 32]| Par(ChaCha12Rng::from_seed(*s))),
        RngVariant::ChaCha8 => boxed(name, origin, variant, |s: &[u8; 32]| Par(ChaCha8Rng::from_seed(*s))),
    };
    vec![par, ours_new(variant)]
}

/// Ours pinned to `backend`.
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
        (Peer::RandChacha, RngVariant::ChaCha20) => peer_seeded::<rand_chacha::ChaCha20Rng>(peer, variant),
        (Peer::RandChacha, RngVariant::ChaCha12) => peer_seeded::<rand_chacha::ChaCha12Rng>(peer, variant),
        (Peer::RandChacha, RngVariant::ChaCha8) => peer_seeded::<rand_chacha::ChaCha8Rng>(peer, variant),
        (_, RngVariant::ChaCha20) => peer_seeded::<chacha20_published::ChaCha20Rng>(peer, variant),
        (_, RngVariant::ChaCha12) => peer_seeded::<chacha20_published::ChaCha12Rng>(peer, variant),
        (_, RngVariant::ChaCha8) => peer_seeded::<chacha20_published::ChaCha8Rng>(peer, variant),
    })
}

/// Ours through `from_seed` / `seed_from_u64` ([`OURS`]) and on each of `backends` (in that
/// order), then each of `peers` that has this RNG and runs in this process. No `backends`,
/// none of ours (a worker process's list).
pub fn rng_implementations(
    variant: RngVariant,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<RngImplementation> {
    let mut all: Vec<RngImplementation> = Vec::new();
    if !backends.is_empty() {
        all.push(ours_new(variant));
    }
    all.extend(backends.iter().map(|&b| ours(variant, b)));
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

/// The `seed_from_u64` states of [`rng_setup_transcript`].
const SEED_STATES: [u64; 5] = [0, 1, 2, 0xdead_beef, u64::MAX];

/// The word positions of [`rng_setup_transcript`]: the start, within the first block, block
/// boundaries and far away.
const SEEK_POSITIONS: [u128; 9] = [0, 1, 15, 16, 17, 33, 4099 * 7, (1 << 40) + 3, 1_000_003 * 1_000_003];

/// How many bytes [`rng_setup_transcript`] produces.
pub const RNG_SETUP_CHECK_LEN: usize = 4 * (SEED_STATES.len() + SEEK_POSITIONS.len() + 2);

/// What the setup workload times, once each: the first `next_u32()` after
/// `seed_from_u64(state)` for a few states, then on one generator seeded with `seed`, the
/// `next_u32()` after each `set_word_pos` of a fixed list, and after the seek workload's
/// first two ([`seek_pos`]); words little-endian.
pub fn rng_setup_transcript(imp: &RngImplementation, seed: &[u8; 32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(RNG_SETUP_CHECK_LEN);
    for state in SEED_STATES {
        out.extend_from_slice(&imp.seed_u32(state).to_le_bytes());
    }
    let mut rng = imp.rng(seed);
    for pos in SEEK_POSITIONS.into_iter().chain([seek_pos(1), seek_pos(2)]) {
        out.extend_from_slice(&rng.seek_u32(pos).to_le_bytes());
    }
    out
}
