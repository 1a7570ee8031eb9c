//! The implementations to race: ours through the constructor users call
//! (`KeyIvInit::new`, named [`OURS`]) and on every available backend (`with_backend`), and
//! the peers.
//!
//! Each one is a constructor for a streaming instance plus a new-and-apply function, both
//! monomorphised over the concrete cipher and boxed once. Peers that lack a variant are
//! simply absent from that variant's list.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use chacha20::cipher::{KeyIvInit, StreamCipher};

use crate::placed::{at_four, pad};

/// A cipher algorithm: rounds, nonce and counter layout (not the core's `Variant`, the
/// nonce layout alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// RFC 8439 ChaCha20: 12-byte nonce, 32-bit counter.
    ChaCha20,
    /// ChaCha12, RFC 8439 layout.
    ChaCha12,
    /// ChaCha8, RFC 8439 layout.
    ChaCha8,
    /// XChaCha20: 24-byte nonce through HChaCha20.
    XChaCha20,
    /// ChaCha20 in the original layout: 8-byte nonce, 64-bit counter.
    ChaCha20Legacy,
}

impl Algorithm {
    /// Every algorithm, in report order.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::ChaCha20,
        Algorithm::ChaCha12,
        Algorithm::ChaCha8,
        Algorithm::XChaCha20,
        Algorithm::ChaCha20Legacy,
    ];

    /// The command-line and file-name id: `chacha20`, `xchacha20`, `chacha20-legacy`, ….
    pub fn id(self) -> &'static str {
        match self {
            Algorithm::ChaCha20 => "chacha20",
            Algorithm::ChaCha12 => "chacha12",
            Algorithm::ChaCha8 => "chacha8",
            Algorithm::XChaCha20 => "xchacha20",
            Algorithm::ChaCha20Legacy => "chacha20-legacy",
        }
    }

    /// The type name, as in `chacha20::ChaCha20Legacy`; also the criterion group prefix.
    pub fn title(self) -> &'static str {
        match self {
            Algorithm::ChaCha20 => "ChaCha20",
            Algorithm::ChaCha12 => "ChaCha12",
            Algorithm::ChaCha8 => "ChaCha8",
            Algorithm::XChaCha20 => "XChaCha20",
            Algorithm::ChaCha20Legacy => "ChaCha20Legacy",
        }
    }

    /// Nonce length in bytes.
    pub fn nonce_len(self) -> usize {
        match self {
            Algorithm::ChaCha20 | Algorithm::ChaCha12 | Algorithm::ChaCha8 => 12,
            Algorithm::XChaCha20 => 24,
            Algorithm::ChaCha20Legacy => 8,
        }
    }

    /// The variant whose [`Algorithm::id`] is `id`.
    pub fn by_id(id: &str) -> Option<Algorithm> {
        Self::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// Another implementation to compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// The published `chacha20` crate 0.10.2, default build (AVX2 at best); also its RNGs.
    Published,
    /// The published crate built with `--cfg chacha20_avx512` (its AVX-512 backend): a
    /// second binary of this package, driven as a worker process by the report.
    PublishedAvx512,
    /// `c2-chacha` 0.3 (`ppv-lite86` SIMD).
    C2Chacha,
    /// OpenSSL's EVP ChaCha20, `libcrypto` loaded at run time, on the path OpenSSL picks
    /// (AVX-512 where the CPU has it).
    OpenSsl,
    /// The same with `OPENSSL_ia32cap=:~0x80010000` (AVX-512 F/VL hidden, so its AVX2
    /// code): a worker process, since OpenSSL reads the variable once when it loads.
    OpenSslAvx2,
    /// libsodium's `crypto_stream_*_xor_ic`, loaded at run time.
    Sodium,
    /// `rand_chacha` 0.10's RNGs.
    RandChacha,
    /// The published `chacha20poly1305` 0.11 over the published `chacha20` 0.10.2.
    ChaCha20Poly1305,
    /// The same AEAD over this workspace's `chacha20` and `poly1305`, as an application gets
    /// it with two `[patch.crates-io]` lines: the report's binary built again in `benches/patched/`,
    /// driven as a worker process. Its rows are ours.
    ChaCha20Poly1305Patched,
    /// `ring` 0.17's `CHACHA20_POLY1305`.
    Ring,
    /// The published `poly1305` 0.9 (RustCrypto; the MAC under the published
    /// `chacha20poly1305`).
    Poly1305,
}

/// The value of `OPENSSL_ia32cap` for [`Peer::OpenSslAvx2`]: clears AVX512F (bit 16) and
/// AVX512VL (bit 31) of the second capability word (CPUID leaf 7, EBX).
pub const OPENSSL_AVX2_CAP: &str = ":~0x80010000";

impl Peer {
    /// Every peer, in report order.
    pub const ALL: &'static [Peer] = &[
        Peer::Published,
        Peer::PublishedAvx512,
        Peer::C2Chacha,
        Peer::OpenSsl,
        Peer::OpenSslAvx2,
        Peer::Sodium,
        Peer::RandChacha,
        Peer::ChaCha20Poly1305,
        Peer::ChaCha20Poly1305Patched,
        Peer::Ring,
        Peer::Poly1305,
    ];

    /// The peers that run inside this process (no worker): what the tests and the
    /// criterion benches use, where their library loads.
    pub fn in_process_available() -> Vec<Peer> {
        Self::ALL.iter().copied().filter(|p| p.in_process() && p.unavailable().is_none()).collect()
    }

    /// The command-line id: `chacha20` (the published crate), `chacha20-avx512`,
    /// `c2-chacha`, `openssl`, `openssl-avx2`, `libsodium`, `rand_chacha`, `chacha20poly1305`,
    /// `chacha20poly1305-patched`, `ring`, `poly1305`.
    pub fn id(self) -> &'static str {
        match self {
            Peer::Published => "chacha20",
            Peer::PublishedAvx512 => "chacha20-avx512",
            Peer::C2Chacha => "c2-chacha",
            Peer::OpenSsl => "openssl",
            Peer::OpenSslAvx2 => "openssl-avx2",
            Peer::Sodium => "libsodium",
            Peer::RandChacha => "rand_chacha",
            Peer::ChaCha20Poly1305 => "chacha20poly1305",
            Peer::ChaCha20Poly1305Patched => "chacha20poly1305-patched",
            Peer::Ring => "ring",
            Peer::Poly1305 => "poly1305",
        }
    }

    /// The name in tables, plots, CSV and bench ids, with the version (read from the
    /// library where it is loaded at run time).
    pub fn label(self) -> String {
        // "OpenSSL 3.0.19 27 Jan 2026" -> "openssl-3.0.19"
        let openssl = || match crate::ffi::crypto() {
            Ok(c) => format!("openssl-{}", c.version.split_whitespace().nth(1).unwrap_or("?")),
            Err(_) => "openssl".into(),
        };
        match self {
            Peer::Published => "chacha20-0.10.2".into(),
            Peer::PublishedAvx512 => "chacha20-0.10.2-avx512".into(),
            Peer::C2Chacha => "c2-chacha-0.3".into(),
            Peer::OpenSsl => openssl(),
            Peer::OpenSslAvx2 => format!("{}-avx2", openssl()),
            Peer::Sodium => match crate::ffi::sodium() {
                Ok(s) => format!("libsodium-{}", s.version),
                Err(_) => "libsodium".into(),
            },
            Peer::RandChacha => "rand_chacha-0.10".into(),
            Peer::ChaCha20Poly1305 => "chacha20poly1305-0.11".into(),
            Peer::ChaCha20Poly1305Patched => "chacha20poly1305-0.11-patched".into(),
            Peer::Ring => "ring-0.17".into(),
            Peer::Poly1305 => "poly1305-0.9".into(),
        }
    }

    /// The peer whose [`Peer::id`] or [`Peer::label`] is `id`.
    pub fn by_id(id: &str) -> Option<Peer> {
        Self::ALL.iter().copied().find(|p| p.id() == id || p.label() == id)
    }

    /// Whether this peer runs in this process; the others are worker processes that the
    /// report starts (`chacha20-avx512`, `openssl-avx2`, `chacha20poly1305-patched`).
    pub fn in_process(self) -> bool {
        !matches!(self, Peer::PublishedAvx512 | Peer::OpenSslAvx2 | Peer::ChaCha20Poly1305Patched)
    }

    /// Whether this peer's rows measure our code: the published AEAD over our `chacha20` and `poly1305`.
    pub fn runs_ours(self) -> bool {
        self == Peer::ChaCha20Poly1305Patched
    }

    /// The peer that a worker process runs for this one (itself when in process).
    pub fn base(self) -> Peer {
        match self {
            Peer::PublishedAvx512 => Peer::Published,
            Peer::OpenSslAvx2 => Peer::OpenSsl,
            Peer::ChaCha20Poly1305Patched => Peer::ChaCha20Poly1305,
            p => p,
        }
    }

    /// Why this peer cannot run here (its library does not load, or the CPU lacks what
    /// makes its second build different), or `None`.
    pub fn unavailable(self) -> Option<String> {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        let avx512 =
            std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl");
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        let avx512 = false;
        match self {
            Peer::OpenSsl => crate::ffi::crypto().err().map(|e| format!("OpenSSL's libcrypto: {e}")),
            Peer::OpenSslAvx2 => match crate::ffi::crypto() {
                Err(e) => Some(format!("OpenSSL's libcrypto: {e}")),
                Ok(_) if !avx512 => {
                    Some("no AVX-512 F/VL here: OpenSSL's default rows are its AVX2 code".into())
                }
                Ok(_) => None,
            },
            Peer::PublishedAvx512 if !avx512 => {
                Some("no AVX-512 F/VL here: the AVX-512 build would run its AVX2 code".into())
            }
            Peer::Sodium => crate::ffi::sodium().err().map(|e| format!("libsodium: {e}")),
            _ => None,
        }
    }

    /// Whether this peer implements the cipher `variant`.
    pub fn offers(self, variant: Algorithm) -> bool {
        match self {
            Peer::Published | Peer::PublishedAvx512 => true,
            // c2-chacha's ChaCha8/ChaCha12 are the original 8-byte-nonce layout only.
            Peer::C2Chacha | Peer::Sodium => {
                matches!(variant, Algorithm::ChaCha20 | Algorithm::XChaCha20 | Algorithm::ChaCha20Legacy)
            }
            Peer::OpenSsl | Peer::OpenSslAvx2 => variant == Algorithm::ChaCha20,
            Peer::RandChacha
            | Peer::ChaCha20Poly1305
            | Peer::ChaCha20Poly1305Patched
            | Peer::Ring
            | Peer::Poly1305 => false,
        }
    }

    /// Whether this peer has the AEAD `algorithm` (its worker's base does, for a worker):
    /// OpenSSL's EVP and ring have no XChaCha20-Poly1305.
    pub fn offers_aead(self, algorithm: crate::AeadAlgorithm) -> bool {
        match self.base() {
            Peer::ChaCha20Poly1305 | Peer::Sodium => true,
            Peer::OpenSsl | Peer::Ring => algorithm == crate::AeadAlgorithm::ChaCha20Poly1305,
            _ => false,
        }
    }

    /// Whether this peer has Poly1305 alone (its worker's base does, for a worker; OpenSSL's
    /// only through OpenSSL 3's `EVP_MAC`).
    pub fn offers_poly1305(self) -> bool {
        match self.base() {
            Peer::Poly1305 | Peer::Sodium => true,
            Peer::OpenSsl => crate::macs::openssl_poly1305_unavailable().is_none(),
            _ => false,
        }
    }

    /// Whether this peer has ChaCha RNGs. The published crate's AVX-512 build has none of
    /// its own: its RNG runs the AVX2 code in either build.
    pub fn offers_rng(self) -> bool {
        matches!(self, Peer::Published | Peer::RandChacha)
    }
}

/// The name of ours through the constructors users call (`KeyIvInit::new`,
/// `SeedableRng::from_seed`, `seed_from_u64`), on the backend they pick: tables, CSV, plots
/// and bench ids. Ours pinned to one backend (`with_backend`) are named by the backend.
pub const OURS: &str = "ours";

/// Whose implementation it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// This workspace's crates through the constructors users call ([`OURS`]).
    OursNew,
    /// This workspace's crates pinned to one backend with `with_backend`.
    Ours(Backend),
    /// A peer.
    Peer(Peer),
}

impl Origin {
    /// Ours (through `new()` or on one backend), or a peer whose rows run our code.
    pub fn is_ours(self) -> bool {
        match self {
            Origin::OursNew | Origin::Ours(_) => true,
            Origin::Peer(p) => p.runs_ours(),
        }
    }
}

/// A streaming cipher instance behind a trait object.
pub trait Stream {
    /// XORs the next `buf.len()` keystream bytes into `buf`.
    fn apply(&mut self, buf: &mut [u8]);
    /// Applies the keystream to `buf` `messages` times in a row (the timed loop).
    fn run(&mut self, buf: &mut [u8], messages: u64);
}

struct Streamer<F>(F);

impl<F: FnMut(&mut [u8])> Stream for Streamer<F> {
    fn apply(&mut self, buf: &mut [u8]) {
        (self.0)(buf)
    }

    fn run(&mut self, buf: &mut [u8], messages: u64) {
        at_four!(0, messages, |_first, n, P| stream_loop::<F, P>(&mut self.0, buf, n));
    }
}

#[inline(never)]
fn stream_loop<F: FnMut(&mut [u8]), const P: usize>(apply: &mut F, buf: &mut [u8], messages: u64) {
    pad::<P>();
    for _ in 0..messages {
        apply(black_box(&mut *buf));
    }
}

/// A new instance per message: key setup, then apply.
trait Fresh {
    fn once(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8]);
    fn run(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8], messages: u64);
}

struct Fresher<F>(F);

impl<F: FnMut(&[u8; 32], &[u8], &mut [u8])> Fresh for Fresher<F> {
    fn once(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8]) {
        (self.0)(key, nonce, buf)
    }

    fn run(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8], messages: u64) {
        at_four!(0, messages, |_first, n, P| fresh_loop::<F, P>(&mut self.0, key, nonce, buf, n));
    }
}

#[inline(never)]
fn fresh_loop<F: FnMut(&[u8; 32], &[u8], &mut [u8]), const P: usize>(
    fresh: &mut F,
    key: &[u8; 32],
    nonce: &[u8],
    buf: &mut [u8],
    messages: u64,
) {
    pad::<P>();
    for _ in 0..messages {
        // black_box the key too, so key setup cannot be hoisted out of the loop.
        fresh(black_box(key), black_box(nonce), black_box(&mut *buf));
    }
}

type MakeStream = Box<dyn Fn(&[u8; 32], &[u8]) -> Box<dyn Stream>>;

/// One implementation of one variant: ours on a backend, or a peer.
pub struct CipherImplementation {
    /// [`Backend::name`] for ours, [`Peer::label`] for a peer: the table, CSV, plot and
    /// bench id.
    pub name: String,
    /// Ours (on which backend) or a peer.
    pub origin: Origin,
    /// The variant it implements.
    pub variant: Algorithm,
    make: MakeStream,
    fresh: Box<dyn Fresh>,
}

impl fmt::Debug for CipherImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CipherImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl CipherImplementation {
    /// A streaming instance at position 0. `nonce` has [`Algorithm::nonce_len`] bytes.
    pub fn stream(&self, key: &[u8; 32], nonce: &[u8]) -> Box<dyn Stream> {
        (self.make)(key, nonce)
    }

    /// New instance, apply to `buf`, drop: once.
    pub fn fresh_once(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8]) {
        self.fresh.once(key, nonce, buf)
    }

    /// New instance and apply, `messages` times (the timed loop).
    pub fn run_fresh(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8], messages: u64) {
        self.fresh.run(key, nonce, buf, messages)
    }

    /// Whether it is one of ours.
    pub fn is_ours(&self) -> bool {
        self.origin.is_ours()
    }
}

/// Builds an implementation from a constructor and an apply function; both are inlined
/// into the boxed closures.
fn build<C, M, A>(name: String, origin: Origin, variant: Algorithm, make: M, apply: A) -> CipherImplementation
where
    C: 'static,
    M: Fn(&[u8; 32], &[u8]) -> C + Clone + 'static,
    A: Fn(&mut C, &mut [u8]) + Copy + 'static,
{
    let make_fresh = make.clone();
    CipherImplementation {
        name,
        origin,
        variant,
        make: Box::new(move |key, nonce| {
            let mut cipher = make(key, nonce);
            Box::new(Streamer(move |buf: &mut [u8]| apply(&mut cipher, buf)))
        }),
        fresh: Box::new(Fresher(move |key: &[u8; 32], nonce: &[u8], buf: &mut [u8]| {
            let mut cipher = make_fresh(key, nonce);
            apply(&mut cipher, buf)
        })),
    }
}

/// A `cipher` 0.5 cipher (ours and the published crate's).
fn cipher05<C, M>(name: String, origin: Origin, variant: Algorithm, make: M) -> CipherImplementation
where
    C: StreamCipher + 'static,
    M: Fn(&[u8; 32], &[u8]) -> C + Clone + 'static,
{
    build(name, origin, variant, make, |c: &mut C, buf: &mut [u8]| c.apply_keystream(buf))
}

/// Ours as users write it: `KeyIvInit::new`, which picks the backend.
fn ours_new(variant: Algorithm) -> CipherImplementation {
    use chacha20::{ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, XChaCha20};
    fn make<C: KeyIvInit, const N: usize>(k: &[u8; 32], n: &[u8]) -> C
    where
        [u8; 32]: Into<chacha20::cipher::Key<C>>,
        [u8; N]: Into<chacha20::cipher::Iv<C>>,
    {
        let nonce: [u8; N] = n.try_into().expect("the variant's nonce length");
        C::new(&(*k).into(), &nonce.into())
    }
    let (name, origin) = (OURS.to_string(), Origin::OursNew);
    match variant {
        Algorithm::ChaCha20 => cipher05(name, origin, variant, make::<ChaCha20, 12>),
        Algorithm::ChaCha12 => cipher05(name, origin, variant, make::<ChaCha12, 12>),
        Algorithm::ChaCha8 => cipher05(name, origin, variant, make::<ChaCha8, 12>),
        Algorithm::XChaCha20 => cipher05(name, origin, variant, make::<XChaCha20, 24>),
        Algorithm::ChaCha20Legacy => cipher05(name, origin, variant, make::<ChaCha20Legacy, 8>),
    }
}

/// The threads of rayon's global pool, which the parallel calls use; the first call makes
/// the pool, with threads that inherit the calling thread's CPU affinity.
pub fn par_threads() -> usize {
    rayon::current_num_threads()
}

/// The name of ours through the parallel calls (`par_apply_keystream`, `par_fill_bytes`) on
/// rayon's global pool, with its thread count.
pub fn ours_par_name() -> String {
    format!("{OURS} par ({} threads)", par_threads())
}

/// Ours through `KeyIvInit::new` and `par_apply_keystream` on rayon's global pool.
fn ours_par(variant: Algorithm) -> Option<CipherImplementation> {
    use chacha20::{ChaCha8, ChaCha20};
    let (name, origin) = (ours_par_name(), Origin::OursNew);
    let make12 = |n: &[u8]| -> [u8; 12] { n.try_into().expect("12-byte nonce") };
    Some(match variant {
        Algorithm::ChaCha20 => build(
            name,
            origin,
            variant,
            move |k: &[u8; 32], n: &[u8]| ChaCha20::new(&(*k).into(), &make12(n).into()),
            |c: &mut ChaCha20, buf: &mut [u8]| c.par_apply_keystream(buf),
        ),
        Algorithm::ChaCha8 => build(
            name,
            origin,
            variant,
            move |k: &[u8; 32], n: &[u8]| ChaCha8::new(&(*k).into(), &make12(n).into()),
            |c: &mut ChaCha8, buf: &mut [u8]| c.par_apply_keystream(buf),
        ),
        _ => return None,
    })
}

/// The parallel workload of `variant`: ours through `par_apply_keystream`, ours through
/// `apply_keystream` ([`OURS`]), then OpenSSL if it is among `peers` and offers `variant`.
/// No `backends`, none of ours.
pub fn par_cipher_implementations(
    variant: Algorithm,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<CipherImplementation> {
    let mut all: Vec<CipherImplementation> = Vec::new();
    if !backends.is_empty() {
        all.extend(ours_par(variant));
        all.push(ours_new(variant));
    }
    all.extend(peers.iter().filter(|&&p| p == Peer::OpenSsl).filter_map(|&p| peer(p, variant)));
    all
}

/// Ours pinned to `backend`.
fn ours(variant: Algorithm, backend: Backend) -> CipherImplementation {
    use chacha20::{ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, XChaCha20};
    let name = backend.name().to_string();
    let origin = Origin::Ours(backend);
    let b = backend;
    match variant {
        Algorithm::ChaCha20 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha20::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Algorithm::ChaCha12 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha12::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Algorithm::ChaCha8 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha8::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Algorithm::XChaCha20 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            XChaCha20::with_backend(k, n.try_into().expect("24-byte nonce"), b)
        }),
        Algorithm::ChaCha20Legacy => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha20Legacy::with_backend(k, n.try_into().expect("8-byte nonce"), b)
        }),
    }
}

fn published(peer: Peer, variant: Algorithm) -> CipherImplementation {
    use chacha20_published::{ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, XChaCha20};
    fn make<C: KeyIvInit>(k: &[u8; 32], n: &[u8]) -> C {
        C::new_from_slices(k, n).expect("key and nonce sizes")
    }
    let name = peer.label();
    let origin = Origin::Peer(peer);
    match variant {
        Algorithm::ChaCha20 => cipher05(name, origin, variant, make::<ChaCha20>),
        Algorithm::ChaCha12 => cipher05(name, origin, variant, make::<ChaCha12>),
        Algorithm::ChaCha8 => cipher05(name, origin, variant, make::<ChaCha8>),
        Algorithm::XChaCha20 => cipher05(name, origin, variant, make::<XChaCha20>),
        Algorithm::ChaCha20Legacy => cipher05(name, origin, variant, make::<ChaCha20Legacy>),
    }
}

fn c2chacha(variant: Algorithm) -> Option<CipherImplementation> {
    use c2_chacha::stream_cipher::{NewStreamCipher, SyncStreamCipher};
    fn make<C: NewStreamCipher>(k: &[u8; 32], n: &[u8]) -> C {
        C::new_var(k, n).expect("key and nonce sizes")
    }
    fn build2<C: NewStreamCipher + SyncStreamCipher + 'static>(variant: Algorithm) -> CipherImplementation {
        let peer = Peer::C2Chacha;
        build(peer.label(), Origin::Peer(peer), variant, make::<C>, |c: &mut C, buf: &mut [u8]| {
            c.apply_keystream(buf)
        })
    }
    Some(match variant {
        // c2-chacha's `Ietf` is RFC 8439 ChaCha20; its `ChaCha20` is the original layout.
        Algorithm::ChaCha20 => build2::<c2_chacha::Ietf>(variant),
        Algorithm::XChaCha20 => build2::<c2_chacha::XChaCha20>(variant),
        Algorithm::ChaCha20Legacy => build2::<c2_chacha::ChaCha20>(variant),
        Algorithm::ChaCha12 | Algorithm::ChaCha8 => return None,
    })
}

/// EVP's ChaCha20 IV: the 32-bit block counter (little-endian) then the 12-byte nonce.
fn evp_iv(nonce: &[u8]) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[4..].copy_from_slice(nonce);
    iv
}

fn openssl_peer(peer: Peer, variant: Algorithm) -> Option<CipherImplementation> {
    use crate::ffi::EvpChaCha20;

    let lib = crate::ffi::crypto().ok()?;
    if variant != Algorithm::ChaCha20 {
        return None;
    }
    let make = move |key: &[u8; 32], nonce: &[u8]| EvpChaCha20::new(lib, key, &evp_iv(nonce));
    // New message: re-key one context (EVP_EncryptInit_ex with a new key and IV), as a
    // program that encrypts many messages does; allocating a context each time is slower.
    let mut fresh_ctx = make(&[0; 32], &[0; 12]);
    Some(CipherImplementation {
        name: peer.label(),
        origin: Origin::Peer(peer),
        variant,
        make: Box::new(move |key, nonce| {
            let mut ctx = make(key, nonce);
            Box::new(Streamer(move |buf: &mut [u8]| ctx.apply(buf)))
        }),
        fresh: Box::new(Fresher(move |key: &[u8; 32], nonce: &[u8], buf: &mut [u8]| {
            fresh_ctx.rekey(key, &evp_iv(nonce));
            fresh_ctx.apply(buf)
        })),
    })
}

/// libsodium has no stream object: one instance is its `_xor_ic` function driven at the
/// block counter, with the keystream of a partial last block kept for the next call (as
/// every streaming instance does), so a message that ends mid-block costs one extra
/// one-block call, like ours.
struct SodiumStream<X> {
    /// `xor(key, nonce, buf, counter)`: the variant's `_xor_ic` function.
    xor: X,
    key: [u8; 32],
    nonce: Vec<u8>,
    /// The next block to compute.
    counter: u64,
    /// Keystream of block `counter - 1`; its last `left` bytes are unused.
    tail: [u8; 64],
    left: usize,
}

impl<X: Fn(&[u8; 32], &[u8], &mut [u8], u64)> SodiumStream<X> {
    fn apply(&mut self, buf: &mut [u8]) {
        let take = self.left.min(buf.len());
        let (head, rest) = buf.split_at_mut(take);
        for (b, k) in head.iter_mut().zip(&self.tail[64 - self.left..]) {
            *b ^= k;
        }
        self.left -= take;
        let whole = rest.len() / 64 * 64;
        let (blocks, end) = rest.split_at_mut(whole);
        if !blocks.is_empty() {
            (self.xor)(&self.key, &self.nonce, blocks, self.counter);
            self.counter += (whole / 64) as u64;
        }
        if !end.is_empty() {
            self.tail = [0; 64];
            (self.xor)(&self.key, &self.nonce, &mut self.tail, self.counter);
            self.counter += 1;
            for (b, k) in end.iter_mut().zip(&self.tail) {
                *b ^= k;
            }
            self.left = 64 - end.len();
        }
    }
}

fn sodium_with<X>(variant: Algorithm, xor: X) -> CipherImplementation
where
    X: Fn(&[u8; 32], &[u8], &mut [u8], u64) + Copy + 'static,
{
    let peer = Peer::Sodium;
    CipherImplementation {
        name: peer.label(),
        origin: Origin::Peer(peer),
        variant,
        make: Box::new(move |key, nonce| {
            let mut s =
                SodiumStream { xor, key: *key, nonce: nonce.to_vec(), counter: 0, tail: [0; 64], left: 0 };
            Box::new(Streamer(move |buf: &mut [u8]| s.apply(buf)))
        }),
        // A fresh message is one `_xor_ic` call from block 0: libsodium's one-shot API.
        fresh: Box::new(Fresher(move |key: &[u8; 32], nonce: &[u8], buf: &mut [u8]| xor(key, nonce, buf, 0))),
    }
}

fn sodium_peer(variant: Algorithm) -> Option<CipherImplementation> {
    let lib = crate::ffi::sodium().ok()?;
    Some(match variant {
        Algorithm::ChaCha20 => {
            sodium_with(variant, move |k: &[u8; 32], n: &[u8], buf: &mut [u8], ic: u64| {
                let ic = u32::try_from(ic).expect("an RFC 8439 counter fits 32 bits");
                lib.chacha20_ietf_xor_ic(buf, n.try_into().expect("12-byte nonce"), ic, k)
            })
        }
        Algorithm::XChaCha20 => {
            sodium_with(variant, move |k: &[u8; 32], n: &[u8], buf: &mut [u8], ic: u64| {
                lib.xchacha20_xor_ic(buf, n.try_into().expect("24-byte nonce"), ic, k)
            })
        }
        Algorithm::ChaCha20Legacy => {
            sodium_with(variant, move |k: &[u8; 32], n: &[u8], buf: &mut [u8], ic: u64| {
                lib.chacha20_xor_ic(buf, n.try_into().expect("8-byte nonce"), ic, k)
            })
        }
        Algorithm::ChaCha12 | Algorithm::ChaCha8 => return None,
    })
}

fn peer(peer: Peer, variant: Algorithm) -> Option<CipherImplementation> {
    match peer {
        Peer::Published => Some(published(peer, variant)),
        Peer::C2Chacha => c2chacha(variant),
        Peer::OpenSsl => openssl_peer(peer, variant),
        Peer::Sodium => sodium_peer(variant),
        // Worker processes, RNG-only and AEAD-only peers: not here.
        Peer::PublishedAvx512
        | Peer::OpenSslAvx2
        | Peer::RandChacha
        | Peer::ChaCha20Poly1305
        | Peer::ChaCha20Poly1305Patched
        | Peer::Ring
        | Peer::Poly1305 => None,
    }
}

/// Ours through `new()` ([`OURS`]) and on each of `backends` (in that order), then each of
/// `peers` that offers `variant`. No `backends`, none of ours (a worker process's list).
pub fn cipher_implementations(
    variant: Algorithm,
    backends: &[Backend],
    peers: &[Peer],
) -> Vec<CipherImplementation> {
    let mut all: Vec<CipherImplementation> = Vec::new();
    if !backends.is_empty() {
        all.push(ours_new(variant));
    }
    all.extend(backends.iter().map(|&b| ours(variant, b)));
    all.extend(peers.iter().filter_map(|&p| peer(p, variant)));
    all
}
