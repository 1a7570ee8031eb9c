//! Every backend's Poly1305 and one-pass AEAD steps against `chacha_core::reference`:
//! `Kernel::poly1305_blocks` from any accumulator the invariant allows (`h[2] < 8`), over
//! every block count to 70 and past every lane width and loop a SIMD MAC kernel has, and
//! `State::xor_and_mac` (`Kernel::xor_then_mac` / `mac_then_xor`) sealing and opening every
//! length to 300 bytes and across the 4 KiB pieces, in place and buffer to buffer, between
//! guard bytes. Each runs on `Backend` (the run-time `match`) and on the backend's own
//! kernel type.

use chacha_backends::{Backend, WithKernel};
use chacha_core::poly1305::Accumulator;
use chacha_core::{AEAD_CHUNK, AeadDirection, Ietf, Kernel, R8, R20, Rounds, State, XorBuf, reference};
use chacha_testdata::{Guarded, filler};

const MIRI: bool = cfg!(miri);

/// Runs `body` on each available backend, as `Backend` and as its own kernel type.
fn on_every_kernel<F: WithKernel<Output = ()> + Copy>(body: F) {
    for backend in Backend::available() {
        if !MIRI {
            body.call(backend);
        }
        backend.with_kernel(body);
    }
}

/// `h` fully reduced, through the tag with `s = 0`: accumulators that differ by a multiple
/// of p are the same accumulator.
fn reduced(h: [u64; 3]) -> [u8; 16] {
    let mut acc = Accumulator::new(&[0; 16]);
    acc.set_h(h);
    acc.tag(&[0; 16])
}

/// Key halves: every bit clamping keeps, none, and random ones.
fn key_halves() -> Vec<[u8; 16]> {
    let mut keys = vec![[0xff; 16], [0; 16]];
    keys.extend((0..4).map(|seed| -> [u8; 16] { filler(seed + 77, 16).try_into().unwrap() }));
    keys
}

/// Starting accumulators: zero, the bounds of the invariant, and random ones.
fn accumulators(seed: u64) -> Vec<[u64; 3]> {
    let bytes = filler(seed, 24);
    let word = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
    vec![[0, 0, 0], [u64::MAX, u64::MAX, 7], [u64::MAX - 4, u64::MAX, 3], [word(0), word(1), word(2) % 8]]
}

/// Block counts: 0 to 70 (every lane remainder of a 4-, 8- or 16-lane kernel, one or two
/// rounds of its loop), then longer runs. Under miri a few, to reach each loop once.
fn mac_block_counts() -> Vec<usize> {
    if MIRI {
        vec![0, 1, 7, 8, 9, 16, 17, 33, 65]
    } else {
        (0..=70).chain([95, 96, 97, 128, 255, 256, 257, 1000]).collect()
    }
}

#[derive(Clone, Copy)]
struct MacBlocks;

impl WithKernel for MacBlocks {
    type Output = ();
    fn call<K: Kernel>(self, kernel: K) {
        for (k, r) in key_halves().into_iter().enumerate() {
            for n in mac_block_counts() {
                let data =
                    if (n + k) % 3 == 0 { vec![0xff; n * 16] } else { filler((n * 31 + k) as u64, n * 16) };
                let (blocks, _) = data.as_chunks::<16>();
                for h in accumulators(n as u64 ^ k as u64) {
                    let mut acc = Accumulator::new(&r);
                    acc.set_h(h);
                    kernel.poly1305_blocks(&mut acc, blocks);
                    let want = reference::poly1305_blocks(&r, h, blocks);
                    assert_eq!(
                        reduced(acc.h()),
                        reduced(want),
                        "{kernel:?}: r {r:02x?}, h {h:x?}, {n} blocks"
                    );
                }
            }
        }
    }
}

#[test]
fn poly1305_blocks_match_reference() {
    on_every_kernel(MacBlocks);
}

/// Message lengths: 0 to 300, then around the 4 KiB pieces of the default one-pass step
/// and past a SIMD kernel's loops.
fn aead_lengths() -> Vec<usize> {
    if MIRI {
        return vec![0, 1, 15, 16, 17, 64, 100, 255, 257, 1024 + 15];
    }
    let c = AEAD_CHUNK;
    (0..=300)
        .chain([511, 512, 513, 1023, 1024, 1025, 2047, 2049, c - 1, c, c + 1, c + 16, 2 * c + 17, 3 * c - 5])
        .chain([16 * c + 100])
        .collect()
}

/// The expected seal or open of `data` from block 1 of `state`: the output, and the
/// accumulator after `h` absorbed the ciphertext padded to 16 bytes.
fn expected<R: Rounds>(
    state: &State<Ietf>,
    r: &[u8; 16],
    h: [u64; 3],
    data: &[u8],
    direction: AeadDirection,
) -> (Vec<u8>, [u64; 3]) {
    let mut ks = vec![[0u8; 64]; data.len().div_ceil(64)];
    reference::keystream::<R, Ietf>(state, &mut ks);
    let out: Vec<u8> = data.iter().zip(ks.as_flattened()).map(|(d, k)| d ^ k).collect();
    let ciphertext = if direction == AeadDirection::Seal { &out } else { data };
    let mut padded = ciphertext.to_vec();
    padded.resize(ciphertext.len().div_ceil(16) * 16, 0);
    let (blocks, _) = padded.as_chunks::<16>();
    (out, reference::poly1305_blocks(r, h, blocks))
}

fn check_aead<R: Rounds, K: Kernel>(kernel: K, len: usize, direction: AeadDirection, in_place: bool) {
    let key: [u8; 32] = filler(len as u64 + 5, 32).try_into().unwrap();
    let mut state = State::<Ietf>::new(&key, &filler(len as u64 + 6, 12).try_into().unwrap());
    state.seek(1).unwrap();
    let r: [u8; 16] = filler(len as u64 + 7, 16).try_into().unwrap();
    let h = accumulators(len as u64)[len % 4];
    let data = filler(len as u64, len);
    let (want_out, want_h) = expected::<R>(&state, &r, h, &data, direction);
    let ctx = format!("{kernel:?} R{} {direction:?} {len} bytes, in place {in_place}", R::ROUNDS);

    let mut acc = Accumulator::new(&r);
    acc.set_h(h);
    let mut at = state.clone();
    let mut inp = Guarded::new(&data, len % 3);
    let out = if in_place {
        at.xor_and_mac::<R, K>(kernel, direction, &mut acc, XorBuf::from(inp.get_mut())).unwrap();
        inp.clone()
    } else {
        let mut out = Guarded::new(&vec![0x5a; len], len % 2);
        let buf = XorBuf::new(inp.get(), out.get_mut()).unwrap();
        at.xor_and_mac::<R, K>(kernel, direction, &mut acc, buf).unwrap();
        assert_eq!(inp.get(), data, "{ctx}: the input changed");
        out
    };
    inp.check(format_args!("{ctx}: input"));
    out.check(format_args!("{ctx}: output"));
    assert!(out.get() == want_out, "{ctx}: output");
    assert_eq!(reduced(acc.h()), reduced(want_h), "{ctx}: accumulator");
    assert_eq!(at.counter(), 1 + len.div_ceil(64) as u64, "{ctx}: position after");
}

#[derive(Clone, Copy)]
struct OnePass;

impl WithKernel for OnePass {
    type Output = ();
    fn call<K: Kernel>(self, kernel: K) {
        for len in aead_lengths() {
            for direction in [AeadDirection::Seal, AeadDirection::Open] {
                check_aead::<R20, K>(kernel, len, direction, len % 2 == 0);
                if !MIRI {
                    check_aead::<R20, K>(kernel, len, direction, len % 2 == 1);
                    check_aead::<R8, K>(kernel, len, direction, true);
                }
            }
        }
    }
}

#[test]
fn one_pass_seal_and_open_match_reference() {
    on_every_kernel(OnePass);
}

/// A one-pass step that would run past the end of the stream is refused before anything
/// is touched: the output, the accumulator and the state.
#[test]
fn one_pass_past_the_end_touches_nothing() {
    for backend in Backend::available() {
        let mut state = State::<Ietf>::new(&[1; 32], &[2; 12]);
        state.seek((1 << 32) - 2).unwrap(); // two blocks left
        let r = [3u8; 16];
        let mut acc = Accumulator::new(&r);
        acc.set_h([9, 8, 7]);
        let mut buf = [0x11u8; 129];
        let before = state.clone();
        let got =
            state.xor_and_mac::<R20, _>(backend, AeadDirection::Seal, &mut acc, XorBuf::from(&mut buf[..]));
        assert!(got.is_err(), "{backend:?}");
        assert_eq!(buf, [0x11; 129], "{backend:?}");
        assert_eq!(acc.h(), [9, 8, 7], "{backend:?}");
        assert_eq!(state.counter(), before.counter(), "{backend:?}");
    }
}
