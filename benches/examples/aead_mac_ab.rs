//! ChaCha20-Poly1305 sealing through the public API on one backend, with that backend's
//! own Poly1305 (`Aead::poly1305_blocks`) against the same backend with the portable
//! step (a kernel that delegates everything else to it), interleaved batch by batch: what
//! a backend's MAC kernel gains the AEAD, without two builds. TSC ticks per message
//! (13-byte AAD, a new nonce per message), min and median over the batches.
//!
//! usage: cd benches && cargo run --release --example aead_mac_ab -- BACKEND SIZES [BATCHES]
use std::hint::black_box;

use chacha_backends::WithKernel;
use chacha_backends::chacha_core::{Aead, Block, Kernel, Rounds, State, Variant, XorBuf};
use chacha_bench::{AAD, Backend, KEY, cpu::tsc};
use chacha20poly1305_ours::ChaChaPoly1305;
use chacha20poly1305_ours::aead::AeadInOut;

/// `K` with the default (portable) Poly1305 and one-pass AEAD steps.
#[derive(Clone, Copy, Debug)]
struct PortableMac<K>(K);

impl<K: Kernel> Kernel for PortableMac<K> {
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, buf: XorBuf<'_, '_>, tail: &mut Block) {
        self.0.xor::<R, V>(state, buf, tail);
    }
    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        self.0.fill::<R, V>(state, out);
    }
    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        self.0.hchacha::<R>(key, input)
    }
    fn batch_blocks(self) -> usize {
        self.0.batch_blocks()
    }
}

/// Every AEAD step the portable default.
impl<K: Kernel> Aead for PortableMac<K> {}

type Ours<K> = ChaChaPoly1305<chacha20::ChaCha<chacha20::R20, chacha20::Ietf, K>>;

/// The race on one kernel type (`Backend::with_kernel` gives the backend's own, so
/// neither side pays the run-time `match`).
#[derive(Clone, Copy)]
struct Race<'a> {
    name: &'a str,
    sizes: &'a [usize],
    batches: usize,
}

impl WithKernel for Race<'_> {
    type Output = ();
    fn call<K: Aead>(self, kernel: K) {
        let own = Ours::<K>::with_kernel(&KEY.into(), kernel);
        let portable = Ours::<PortableMac<K>>::with_kernel(&KEY.into(), PortableMac(kernel));
        println!("size,mac,min_ticks_per_message,median_ticks_per_message,min_ticks_per_byte");
        for &size in self.sizes {
            let mut buf = vec![0u8; size];
            let calls = (200_000 / size).clamp(2, 200);
            let mut t = [vec![], vec![]];
            let mut nonce = [0u8; 12];
            for _ in 0..self.batches {
                for (k, times) in t.iter_mut().enumerate() {
                    let t0 = tsc().unwrap();
                    for _ in 0..calls {
                        nonce[0] = nonce[0].wrapping_add(1);
                        let tag = if k == 0 {
                            own.encrypt_inout_detached(&nonce.into(), AAD, black_box(&mut buf[..]).into())
                        } else {
                            portable.encrypt_inout_detached(
                                &nonce.into(),
                                AAD,
                                black_box(&mut buf[..]).into(),
                            )
                        };
                        black_box(tag.unwrap());
                    }
                    times.push((tsc().unwrap() - t0) as f64 / calls as f64);
                }
            }
            for (k, name) in [self.name, "portable"].iter().enumerate() {
                let v = &mut t[k];
                v.sort_by(f64::total_cmp);
                println!("{size},{name},{:.0},{:.0},{:.3}", v[0], v[v.len() / 2], v[0] / size as f64);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backend = Backend::available().find(|b| b.name() == args[1]).expect("backend");
    let sizes: Vec<usize> = args[2].split(',').map(|s| s.parse().unwrap()).collect();
    let batches: usize = args.get(3).map_or(300, |s| s.parse().unwrap());
    backend.with_kernel(Race { name: backend.name(), sizes: &sizes, batches });
}
