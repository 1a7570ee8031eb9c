//! The implementations to race: ours on every available backend, and the peers.
//!
//! Each one is a constructor for a streaming instance plus a new-and-apply function, both
//! monomorphised over the concrete cipher and boxed once. Peers that lack a variant are
//! simply absent from that variant's list.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use chacha20::cipher::{KeyIvInit, StreamCipher};

/// A cipher variant: rounds, nonce and counter layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
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

impl Variant {
    /// Every variant, in report order.
    pub const ALL: [Variant; 5] =
        [Variant::ChaCha20, Variant::ChaCha12, Variant::ChaCha8, Variant::XChaCha20, Variant::ChaCha20Legacy];

    /// The command-line and file-name id: `chacha20`, `xchacha20`, `chacha20-legacy`, ….
    pub fn id(self) -> &'static str {
        match self {
            Variant::ChaCha20 => "chacha20",
            Variant::ChaCha12 => "chacha12",
            Variant::ChaCha8 => "chacha8",
            Variant::XChaCha20 => "xchacha20",
            Variant::ChaCha20Legacy => "chacha20-legacy",
        }
    }

    /// The type name, as in `chacha20::ChaCha20Legacy`; also the criterion group prefix.
    pub fn title(self) -> &'static str {
        match self {
            Variant::ChaCha20 => "ChaCha20",
            Variant::ChaCha12 => "ChaCha12",
            Variant::ChaCha8 => "ChaCha8",
            Variant::XChaCha20 => "XChaCha20",
            Variant::ChaCha20Legacy => "ChaCha20Legacy",
        }
    }

    /// Nonce length in bytes.
    pub fn nonce_len(self) -> usize {
        match self {
            Variant::ChaCha20 | Variant::ChaCha12 | Variant::ChaCha8 => 12,
            Variant::XChaCha20 => 24,
            Variant::ChaCha20Legacy => 8,
        }
    }

    /// The variant whose [`Variant::id`] is `id`.
    pub fn by_id(id: &str) -> Option<Variant> {
        Self::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// Another implementation to compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// The published `chacha20` crate 0.10.2, default build (AVX2 at best).
    Published,
    /// `c2-chacha` 0.3 (`ppv-lite86` SIMD).
    C2Chacha,
    /// OpenSSL's EVP ChaCha20 through the `openssl` crate (feature `openssl`).
    #[cfg(feature = "openssl")]
    OpenSsl,
}

impl Peer {
    /// The peers compiled into this build.
    pub const ALL: &'static [Peer] = &[
        Peer::Published,
        Peer::C2Chacha,
        #[cfg(feature = "openssl")]
        Peer::OpenSsl,
    ];

    /// Every peer id the command line knows, compiled in or not.
    pub const KNOWN_IDS: &'static [&'static str] = &["chacha20", "c2-chacha", "openssl"];

    /// The command-line id: `chacha20` (the published crate), `c2-chacha`, `openssl`.
    pub fn id(self) -> &'static str {
        match self {
            Peer::Published => "chacha20",
            Peer::C2Chacha => "c2-chacha",
            #[cfg(feature = "openssl")]
            Peer::OpenSsl => "openssl",
        }
    }

    /// The name in tables, plots, CSV and bench ids, with the version.
    pub fn label(self) -> String {
        match self {
            Peer::Published => "chacha20-0.10.2".into(),
            Peer::C2Chacha => "c2-chacha-0.3".into(),
            #[cfg(feature = "openssl")]
            Peer::OpenSsl => {
                // "OpenSSL 3.0.19 27 Jan 2026" -> "openssl-3.0.19"
                let v = openssl::version::version();
                let number = v.split_whitespace().nth(1).unwrap_or("?");
                format!("openssl-{number}")
            }
        }
    }

    /// The peer whose [`Peer::id`] or [`Peer::label`] is `id`.
    pub fn by_id(id: &str) -> Option<Peer> {
        Self::ALL.iter().copied().find(|p| p.id() == id || p.label() == id)
    }

    /// Whether this peer implements `variant`.
    pub fn offers(self, variant: Variant) -> bool {
        match self {
            Peer::Published => true,
            // c2-chacha's ChaCha8/ChaCha12 are the original 8-byte-nonce layout only.
            Peer::C2Chacha => {
                matches!(variant, Variant::ChaCha20 | Variant::XChaCha20 | Variant::ChaCha20Legacy)
            }
            #[cfg(feature = "openssl")]
            Peer::OpenSsl => variant == Variant::ChaCha20,
        }
    }
}

/// Whose implementation it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// This workspace's `chacha20` on one backend.
    Ours(Backend),
    /// A peer.
    Peer(Peer),
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

    #[inline(never)]
    fn run(&mut self, buf: &mut [u8], messages: u64) {
        for _ in 0..messages {
            (self.0)(black_box(&mut *buf));
        }
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

    #[inline(never)]
    fn run(&mut self, key: &[u8; 32], nonce: &[u8], buf: &mut [u8], messages: u64) {
        for _ in 0..messages {
            // black_box the key too, so key setup cannot be hoisted out of the loop.
            (self.0)(black_box(key), black_box(nonce), black_box(&mut *buf));
        }
    }
}

type MakeStream = Box<dyn Fn(&[u8; 32], &[u8]) -> Box<dyn Stream>>;

/// One implementation of one variant: ours on a backend, or a peer.
pub struct Implementation {
    /// [`Backend::name`] for ours, [`Peer::label`] for a peer: the table, CSV, plot and
    /// bench id.
    pub name: String,
    /// Ours (on which backend) or a peer.
    pub origin: Origin,
    /// The variant it implements.
    pub variant: Variant,
    make: MakeStream,
    fresh: Box<dyn Fresh>,
}

impl fmt::Debug for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Implementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

impl Implementation {
    /// A streaming instance at position 0. `nonce` has [`Variant::nonce_len`] bytes.
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
        matches!(self.origin, Origin::Ours(_))
    }
}

/// Builds an implementation from a constructor and an apply function; both are inlined
/// into the boxed closures.
fn build<C, M, A>(name: String, origin: Origin, variant: Variant, make: M, apply: A) -> Implementation
where
    C: 'static,
    M: Fn(&[u8; 32], &[u8]) -> C + Clone + 'static,
    A: Fn(&mut C, &mut [u8]) + Copy + 'static,
{
    let make_fresh = make.clone();
    Implementation {
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
fn cipher05<C, M>(name: String, origin: Origin, variant: Variant, make: M) -> Implementation
where
    C: StreamCipher + 'static,
    M: Fn(&[u8; 32], &[u8]) -> C + Clone + 'static,
{
    build(name, origin, variant, make, |c: &mut C, buf: &mut [u8]| c.apply_keystream(buf))
}

fn ours(variant: Variant, backend: Backend) -> Implementation {
    use chacha20::{ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, XChaCha20};
    let name = backend.name().to_string();
    let origin = Origin::Ours(backend);
    let b = backend;
    match variant {
        Variant::ChaCha20 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha20::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Variant::ChaCha12 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha12::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Variant::ChaCha8 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha8::with_backend(k, n.try_into().expect("12-byte nonce"), b)
        }),
        Variant::XChaCha20 => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            XChaCha20::with_backend(k, n.try_into().expect("24-byte nonce"), b)
        }),
        Variant::ChaCha20Legacy => cipher05(name, origin, variant, move |k: &[u8; 32], n: &[u8]| {
            ChaCha20Legacy::with_backend(k, n.try_into().expect("8-byte nonce"), b)
        }),
    }
}

fn published(variant: Variant) -> Implementation {
    use chacha20_published::{ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, XChaCha20};
    fn make<C: KeyIvInit>(k: &[u8; 32], n: &[u8]) -> C {
        C::new_from_slices(k, n).expect("key and nonce sizes")
    }
    let name = Peer::Published.label();
    let origin = Origin::Peer(Peer::Published);
    match variant {
        Variant::ChaCha20 => cipher05(name, origin, variant, make::<ChaCha20>),
        Variant::ChaCha12 => cipher05(name, origin, variant, make::<ChaCha12>),
        Variant::ChaCha8 => cipher05(name, origin, variant, make::<ChaCha8>),
        Variant::XChaCha20 => cipher05(name, origin, variant, make::<XChaCha20>),
        Variant::ChaCha20Legacy => cipher05(name, origin, variant, make::<ChaCha20Legacy>),
    }
}

fn c2chacha(variant: Variant) -> Option<Implementation> {
    use c2_chacha::stream_cipher::{NewStreamCipher, SyncStreamCipher};
    fn make<C: NewStreamCipher>(k: &[u8; 32], n: &[u8]) -> C {
        C::new_var(k, n).expect("key and nonce sizes")
    }
    fn build2<C: NewStreamCipher + SyncStreamCipher + 'static>(variant: Variant) -> Implementation {
        let peer = Peer::C2Chacha;
        build(peer.label(), Origin::Peer(peer), variant, make::<C>, |c: &mut C, buf: &mut [u8]| {
            c.apply_keystream(buf)
        })
    }
    Some(match variant {
        // c2-chacha's `Ietf` is RFC 8439 ChaCha20; its `ChaCha20` is the original layout.
        Variant::ChaCha20 => build2::<c2_chacha::Ietf>(variant),
        Variant::XChaCha20 => build2::<c2_chacha::XChaCha20>(variant),
        Variant::ChaCha20Legacy => build2::<c2_chacha::ChaCha20>(variant),
        Variant::ChaCha12 | Variant::ChaCha8 => return None,
    })
}

#[cfg(feature = "openssl")]
fn openssl_peer(variant: Variant) -> Option<Implementation> {
    use openssl::cipher::Cipher;
    use openssl::cipher_ctx::CipherCtx;

    if variant != Variant::ChaCha20 {
        return None;
    }
    /// EVP's ChaCha20 IV: the 32-bit block counter (little-endian) then the 12-byte nonce.
    fn iv(nonce: &[u8]) -> [u8; 16] {
        let mut iv = [0u8; 16];
        iv[4..].copy_from_slice(nonce);
        iv
    }
    fn apply(ctx: &mut CipherCtx, buf: &mut [u8]) {
        let len = buf.len();
        ctx.cipher_update_inplace(buf, len).expect("EVP_CipherUpdate");
    }
    let peer = Peer::OpenSsl;
    let make = |key: &[u8; 32], nonce: &[u8]| {
        let mut ctx = CipherCtx::new().expect("EVP_CIPHER_CTX_new");
        ctx.encrypt_init(Some(Cipher::chacha20()), Some(key), Some(&iv(nonce))).expect("EVP_EncryptInit");
        ctx
    };
    // New message: re-key one context (EVP_EncryptInit_ex with a new key and IV), as a
    // program that encrypts many messages does; allocating a context each time is slower.
    let mut fresh_ctx = make(&[0; 32], &[0; 12]);
    Some(Implementation {
        name: peer.label(),
        origin: Origin::Peer(peer),
        variant,
        make: Box::new(move |key, nonce| {
            let mut ctx = make(key, nonce);
            Box::new(Streamer(move |buf: &mut [u8]| apply(&mut ctx, buf)))
        }),
        fresh: Box::new(Fresher(move |key: &[u8; 32], nonce: &[u8], buf: &mut [u8]| {
            fresh_ctx.encrypt_init(None, Some(key), Some(&iv(nonce))).expect("EVP_EncryptInit");
            apply(&mut fresh_ctx, buf)
        })),
    })
}

fn peer(peer: Peer, variant: Variant) -> Option<Implementation> {
    match peer {
        Peer::Published => Some(published(variant)),
        Peer::C2Chacha => c2chacha(variant),
        #[cfg(feature = "openssl")]
        Peer::OpenSsl => openssl_peer(variant),
    }
}

/// Ours on each of `backends` (in that order), then each of `peers` that offers `variant`.
pub fn implementations(variant: Variant, backends: &[Backend], peers: &[Peer]) -> Vec<Implementation> {
    let mut all: Vec<Implementation> = backends.iter().map(|&b| ours(variant, b)).collect();
    all.extend(peers.iter().filter_map(|&p| peer(p, variant)));
    all
}
