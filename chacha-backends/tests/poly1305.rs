//! Every backend's Poly1305 and one-pass AEAD steps against `chacha_core::reference`:
//! `Aead::poly1305_blocks` from any accumulator the invariant allows (`h[2] < 8`), over
//! every block count to 70 and past every lane width and loop a SIMD MAC kernel has, and
//! `State::xor_and_mac` (`Aead::xor_then_mac` / `mac_then_xor`) sealing and opening every
//! length to 300 bytes and across the 4 KiB pieces, in place and buffer to buffer, between
//! guard bytes. Each runs on `Backend` (the run-time `match`) and on the backend's own
//! kernel type. The stitched steps of `avx2` and `neon` get more lengths, counters and limb
//! edges of their own (`avx2_one_pass_steps_match_reference`,
//! `neon_one_pass_steps_match_reference`), and so does `avx2`'s Poly1305 loop
//! (`avx2_poly1305_limb_edges_match_portable`).

use chacha_backends::{Backend, WithKernel};
use chacha_core::poly1305::{Accumulator, Poly1305};
use chacha_core::{AEAD_CHUNK, Aead, AeadDirection, Ietf, R8, R20, Rounds, State, XorBuf, reference};
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
    vec![
        [0, 0, 0],
        [u64::MAX, u64::MAX, 7],
        [u64::MAX - 4, u64::MAX, 3],
        [word(0), word(1), word(2) % 8],
        [0, 0, 5],
    ]
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
    fn call<K: Aead>(self, kernel: K) {
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

/// One request of a one-pass test: `len` bytes from block `counter`, into an accumulator
/// of key half `r` that holds `h`. `ones`: the ciphertext is all ones (the largest block;
/// when sealing, the message is chosen so).
#[derive(Clone, Copy)]
struct Case {
    len: usize,
    counter: u64,
    direction: AeadDirection,
    in_place: bool,
    r: [u8; 16],
    h: [u64; 3],
    ones: bool,
}

impl Case {
    /// `len` bytes from block 1, the key and the accumulator from the length.
    fn new(len: usize, direction: AeadDirection, in_place: bool) -> Self {
        let r = filler(len as u64 + 7, 16).try_into().unwrap();
        let h = accumulators(len as u64)[len % 4];
        Case { len, counter: 1, direction, in_place, r, h, ones: false }
    }
}

/// The case's seal or open from `state` against the reference: the output, the
/// accumulator (which absorbed the ciphertext padded to 16 bytes), the position after, and
/// the guard bytes around both buffers.
fn check_aead<R: Rounds, K: Aead>(kernel: K, case: Case) {
    let Case { len, counter, direction, in_place, r, h, ones } = case;
    let key: [u8; 32] = filler(len as u64 + 5, 32).try_into().unwrap();
    let nonce: [u8; 12] = filler(len as u64 + 6, 12).try_into().unwrap();
    let mut state = State::<Ietf>::new(&key, &nonce);
    state.seek(u128::from(counter)).unwrap();
    let mut ks = vec![[0u8; 64]; len.div_ceil(64)];
    reference::keystream::<R, Ietf>(&state, &mut ks);
    let ks = &ks.as_flattened()[..len];
    let data: Vec<u8> = match (ones, direction) {
        (true, AeadDirection::Seal) => ks.iter().map(|k| !k).collect(),
        (true, AeadDirection::Open) => vec![0xff; len],
        (false, _) => filler(len as u64, len),
    };
    let want_out: Vec<u8> = data.iter().zip(ks).map(|(d, k)| d ^ k).collect();
    let mut padded = if direction == AeadDirection::Seal { want_out.clone() } else { data.clone() };
    padded.resize(len.div_ceil(16) * 16, 0);
    let want_h = reference::poly1305_blocks(&r, h, padded.as_chunks::<16>().0);
    let ctx = format!(
        "{kernel:?} R{} {direction:?} {len} bytes from block {counter}, in place {in_place}, \
         r {r:02x?}, h {h:x?}, ones {ones}",
        R::ROUNDS,
    );

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
    assert!(acc.h()[2] < 8, "{ctx}: h[2] = {}", acc.h()[2]);
    assert_eq!(reduced(acc.h()), reduced(want_h), "{ctx}: accumulator");
    assert_eq!(at.blocks_left(), state.blocks_left() - len.div_ceil(64) as u128, "{ctx}: position after");
}

#[derive(Clone, Copy)]
struct OnePass;

impl WithKernel for OnePass {
    type Output = ();
    fn call<K: Aead>(self, kernel: K) {
        for len in aead_lengths() {
            for direction in [AeadDirection::Seal, AeadDirection::Open] {
                check_aead::<R20, K>(kernel, Case::new(len, direction, len % 2 == 0));
                if !MIRI {
                    check_aead::<R20, K>(kernel, Case::new(len, direction, len % 2 == 1));
                    check_aead::<R8, K>(kernel, Case::new(len, direction, true));
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

/// The `avx2` backend's one-pass steps, stitched where the CPU has BMI2 (`src/avx2/aead.rs`:
/// opening from 512 bytes, sealing from 1536), through [`Stitched`]. On a CPU without AVX2
/// it says so and checks nothing (`CHACHA_EXPECT_BACKENDS`, in `tests/differential.rs`,
/// fails where `avx2` should be).
#[test]
fn avx2_one_pass_steps_match_reference() {
    if MIRI {
        // Miri runs no `asm!`, and its `avx2` build (i686) has no stitched step: the default
        // pieces it would run are `one_pass_seal_and_open_match_reference`'s.
        eprintln!("SKIPPED under miri: avx2's stitched steps are x86_64 `asm!`");
        return;
    }
    let Some(backend) = Backend::by_name("avx2") else {
        eprintln!("SKIPPED: this CPU has no AVX2, so the avx2 one-pass steps were not checked");
        return;
    };
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("bmi2") {
        eprintln!("NOTE: this CPU has no BMI2: avx2's one-pass steps run the default pieces here");
    }
    Stitched.call(backend);
    backend.with_kernel(Stitched);
}

/// The `neon` backend's stitched one-pass steps (`src/neon/aead.rs`: opening from 512 bytes,
/// sealing from 1536), through [`Stitched`]. Where `neon` is not compiled in (every target
/// but little-endian aarch64) it says so and checks nothing; on aarch64 the backend is
/// always available (`CHACHA_EXPECT_BACKENDS` fails if it is not).
#[test]
fn neon_one_pass_steps_match_reference() {
    if MIRI {
        eprintln!("SKIPPED under miri: neon's stitched steps are `asm!`");
        return;
    }
    let Some(backend) = Backend::by_name("neon") else {
        eprintln!("SKIPPED: no neon backend on this target, so its one-pass steps were not checked");
        return;
    };
    Stitched.call(backend);
    backend.with_kernel(Stitched);
}

/// A stitched backend's one-pass steps against the reference: every length to 1100 bytes,
/// every third from 1536 to 1800 (sealing is stitched from 1536), and each side of every
/// 512-byte set to 4.5 KiB and of the 4 KiB pieces further on; at the end of the stream,
/// with `r` of every
/// clamped bit, the accumulator's limb edges and all-ones ciphertext, each through both
/// chains of a set.
#[derive(Clone, Copy)]
struct Stitched;

impl WithKernel for Stitched {
    type Output = ();
    fn call<K: Aead>(self, kernel: K) {
        let sets = (2..=9).map(|k| 512 * k);
        let edges = sets.chain([8192, 12288, 16384]).flat_map(|e| [e - 1, e, e + 1]);
        // Sealing is stitched from 1536 bytes: a stretch of lengths from there too.
        let sealing = (1536..=1800).step_by(3);
        for len in (0..=1100usize).chain(edges).chain(sealing).chain([4096 + 512 + 100, 3 * 4096 + 7]) {
            let blocks = len.div_ceil(64) as u64;
            let hs = accumulators(len as u64);
            for (i, direction) in [AeadDirection::Seal, AeadDirection::Open].into_iter().enumerate() {
                let mut case = Case::new(len, direction, len % 2 == 0);
                case.h = hs[(len + i) % hs.len()];
                if len % 2 == 0 {
                    case.r = [0xff; 16];
                }
                case.ones = len % 5 == 0;
                check_aead::<R20, K>(kernel, case);
                // Ending at the last block of the stream.
                let end = Case {
                    counter: (1 << 32) - blocks,
                    in_place: !case.in_place,
                    ones: len % 5 == 1,
                    ..case
                };
                check_aead::<R20, K>(kernel, end);
                if len % 7 == 0 || len > 1100 {
                    // All ones into the largest accumulator.
                    let most = Case { r: [0xff; 16], h: [u64::MAX, u64::MAX, 7], ones: true, ..case };
                    check_aead::<R20, K>(kernel, most);
                }
            }
        }
    }
}

/// The `avx2` Poly1305 loop (`src/avx2/poly1305.rs`: an odd group alone, then pairs of
/// groups with one carry each, the last pair on its own powers) against the portable step,
/// at the limb edges a multi-lane kernel can get wrong and a single Horner chain cannot
/// show: every block count to 600 (one group to 75 pairs, odd and even, around the
/// threshold) from accumulators at and near 2^130 and 2^131, all-ones and all-zero blocks,
/// and `r` with every clamped bit set; then the one-shot MAC of every length to 1100 bytes
/// and lengths around each 4 KiB to 64 KiB. On a CPU without AVX2 it says so and checks
/// nothing (`CHACHA_EXPECT_BACKENDS` fails where `avx2` should be).
#[test]
fn avx2_poly1305_limb_edges_match_portable() {
    let Some(backend) = Backend::by_name("avx2") else {
        eprintln!("SKIPPED: this CPU has no AVX2, so the avx2 Poly1305 loop was not checked");
        return;
    };
    // Under miri (i686: the intrinsics twin of the loop) the threshold's 8 to 11 groups only.
    let counts: Vec<usize> = if MIRI { vec![32, 36, 40, 44] } else { (0..=600).collect() };
    let max_blocks = counts[counts.len() - 1];
    let keys: [[u8; 16]; 3] = [[0xff; 16], [0x0f; 16], filler(91, 16).try_into().unwrap()];
    // 2^131 − 1 (the invariant's largest), p − 1, p, 2^130, and a random value.
    let starts =
        [[u64::MAX, u64::MAX, 7], [u64::MAX - 5, u64::MAX, 3], [u64::MAX - 4, u64::MAX, 3], [0, 0, 4]];
    let messages = [vec![0xff; max_blocks * 16], vec![0; max_blocks * 16], filler(92, max_blocks * 16)];
    for r in if MIRI { &keys[..1] } else { &keys[..] } {
        for (m, message) in messages.iter().enumerate().take(if MIRI { 1 } else { 3 }) {
            let (blocks, _) = message.as_chunks::<16>();
            for &n in &counts {
                for (s, h) in starts.iter().chain(&accumulators(n as u64)[3..4]).enumerate() {
                    let mut want = Accumulator::new(r);
                    want.set_h(*h);
                    want.absorb(&blocks[..n]);
                    let mut got = Accumulator::new(r);
                    got.set_h(*h);
                    backend.poly1305_blocks(&mut got, &blocks[..n]);
                    assert_eq!(
                        reduced(got.h()),
                        reduced(want.h()),
                        "avx2: r {r:02x?}, start {s}, message {m}, {n} blocks"
                    );
                }
            }
        }
    }
    let lengths: Vec<usize> = if MIRI {
        vec![0, 513, 1100]
    } else {
        (0..=1100)
            .chain(
                (1..=16).flat_map(|k| [4096 * k - 17, 4096 * k - 1, 4096 * k, 4096 * k + 1, 4096 * k + 65]),
            )
            .filter(|&len| len <= 65536)
            .collect()
    };
    let data = filler(93, 65536 + 65);
    for len in lengths {
        for key in [[0xff; 32], filler(len as u64, 32).try_into().unwrap()] {
            let mut got = Poly1305::new(&key);
            got.update_with(backend, &data[..len]);
            let mut want = Poly1305::new(&key);
            want.update(&data[..len]);
            assert_eq!(got.tag(), want.tag(), "avx2: {len} bytes, key {:02x?}", &key[..4]);
        }
    }
}

/// One whole message ([`Aead::message`]) and what the reference makes of it.
struct MessageCase {
    counter: u64,
    direction: AeadDirection,
    aad: Vec<u8>,
    input: Vec<u8>,
    want_out: Vec<u8>,
    want_tag: [u8; 16],
}

/// RFC 8439 §2.8 on the reference from block `counter`: its first 32 bytes the one-time
/// key, the blocks after it the keystream, the MAC over the padded AAD, the padded
/// ciphertext and the lengths.
fn message_case(len: usize, counter: u64, direction: AeadDirection) -> MessageCase {
    let state = message_state(len, counter);
    let mut ks = vec![[0u8; 64]; 1 + len.div_ceil(64)];
    reference::keystream::<R20, Ietf>(&state, &mut ks);
    let input = filler(len as u64 * 3 + 1, len);
    let want_out: Vec<u8> = input.iter().zip(&ks.as_flattened()[64..]).map(|(d, k)| d ^ k).collect();
    let aad = filler(len as u64 + 5, len % 37);
    let ciphertext = if direction == AeadDirection::Seal { &want_out } else { &input };
    let pad = |b: &[u8]| {
        let mut v = b.to_vec();
        v.resize(b.len().div_ceil(16) * 16, 0);
        v
    };
    let mut mac = pad(&aad);
    mac.extend(pad(ciphertext));
    mac.extend((aad.len() as u64).to_le_bytes());
    mac.extend((len as u64).to_le_bytes());
    let want_tag = reference::poly1305(ks[0][..32].try_into().unwrap(), &mac);
    MessageCase { counter, direction, aad, input, want_out, want_tag }
}

/// The state of [`message_case`]'s messages of `len` bytes, at block `counter`.
fn message_state(len: usize, counter: u64) -> State<Ietf> {
    let key: [u8; 32] = filler(len as u64 + 11, 32).try_into().unwrap();
    let nonce: [u8; 12] = filler(len as u64 + 12, 12).try_into().unwrap();
    let mut state = State::<Ietf>::new(&key, &nonce);
    state.seek(u128::from(counter)).unwrap();
    state
}

/// Whole messages through every kernel's `message` (the default, or a backend's own): every length to 1600 bytes and some to 16 KiB (under miri
/// a few), both ways, in place and buffer to buffer between guard bytes, from block 0 and
/// ending at the last block of the stream.
#[derive(Clone, Copy)]
struct WholeMessages<'a>(&'a [MessageCase]);

impl WithKernel for WholeMessages<'_> {
    type Output = ();
    fn call<K: Aead>(self, kernel: K) {
        for case in self.0 {
            let len = case.input.len();
            let ctx = format!("{kernel:?} {:?} {len} bytes from block {}", case.direction, case.counter);
            for in_place in [true, false] {
                let mut state = message_state(len, case.counter);
                let mut inp = Guarded::new(&case.input, len % 3);
                let (tag, out) = if in_place {
                    let buf = XorBuf::from(inp.get_mut());
                    (
                        state.aead_message::<R20, K>(kernel, case.direction, &case.aad, buf).unwrap(),
                        inp.clone(),
                    )
                } else {
                    let mut out = Guarded::new(&vec![0x5a; len], len % 2);
                    let buf = XorBuf::new(inp.get(), out.get_mut()).unwrap();
                    let tag = state.aead_message::<R20, K>(kernel, case.direction, &case.aad, buf).unwrap();
                    assert_eq!(inp.get(), case.input, "{ctx}: the input changed");
                    (tag, out)
                };
                inp.check(format_args!("{ctx}, in place {in_place}: input"));
                out.check(format_args!("{ctx}, in place {in_place}: output"));
                assert!(out.get() == case.want_out, "{ctx}, in place {in_place}: output");
                assert_eq!(tag, case.want_tag, "{ctx}, in place {in_place}: tag");
                let used = 1 + len.div_ceil(64) as u128;
                assert_eq!(
                    state.blocks_left(),
                    (1 << 32) - u128::from(case.counter) - used,
                    "{ctx}: position"
                );
            }
        }
    }
}

#[test]
fn whole_messages_match_reference() {
    let lengths: Vec<usize> = if MIRI {
        vec![0, 17, 448, 449, 512, 700, 960, 1000, 1473]
    } else {
        (0..=1600).chain([2495, 2496, 2497, 2559, 2560, 4196, 16389]).collect()
    };
    let mut cases = vec![];
    for &len in &lengths {
        let blocks = 1 + len.div_ceil(64) as u64;
        for direction in [AeadDirection::Seal, AeadDirection::Open] {
            cases.push(message_case(len, 0, direction));
            if len % 5 == 0 {
                cases.push(message_case(len, (1 << 32) - blocks, direction));
            }
        }
    }
    on_every_kernel(WholeMessages(&cases));
}
