//! API properties of every cipher type on every available backend, with proptest:
//! chunked == one-shot, seek-then-apply == apply-and-skip, in-place == buffer-to-buffer
//! (each buffer-to-buffer method, and a distinct `InOutBuf`),
//! unaligned == aligned, write_keystream == apply to zeros, and agreement with the
//! published `chacha20` crate (renamed `chacha20_published`) for every type both have.
//! Every buffer the cipher gets lies between guard bytes, checked after each call.

use chacha_testdata::Guarded;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek, inout::InOutBuf};
use chacha20::{
    Backend, ChaCha8, ChaCha8Legacy, ChaCha12, ChaCha12Legacy, ChaCha20, ChaCha20Legacy, XChaCha8, XChaCha12,
    XChaCha20,
};
use proptest::prelude::*;

/// Under miri (`scripts/miri.sh`, some 10^4 times slower) the tests keep their shapes and
/// drop repetition: one type per layout (the round count is a loop bound), fewer lengths,
/// positions and short calls.
const MIRI: bool = cfg!(miri);

/// One way to apply a cipher buffer to buffer.
type B2b<C> = fn(&mut C, &[u8], &mut [u8]);

/// A cipher type under test: how to make one from a key, the first bytes of a 24-byte
/// nonce, and a backend.
trait Case: StreamCipher + StreamCipherSeek + Clone + core::fmt::Debug {
    const NAME: &'static str;
    fn make(key: &[u8; 32], nonce: &[u8; 24], backend: Backend) -> Self;
    /// The published crate's bytes for the same key and nonce, if it has this type.
    fn published(key: &[u8; 32], nonce: &[u8; 24], pos: u64, data: &mut [u8]) -> Option<()>;
}

macro_rules! case {
    ($ty:ident, $nonce_len:literal, $published:ident) => {
        impl Case for $ty {
            const NAME: &'static str = stringify!($ty);
            fn make(key: &[u8; 32], nonce: &[u8; 24], backend: Backend) -> Self {
                $ty::with_backend(key, nonce[..$nonce_len].try_into().unwrap(), backend)
            }
            fn published(key: &[u8; 32], nonce: &[u8; 24], pos: u64, data: &mut [u8]) -> Option<()> {
                use chacha20_published::cipher::{KeyIvInit as _, StreamCipher as _, StreamCipherSeek as _};
                let mut c =
                    chacha20_published::$published::new(key.into(), nonce[..$nonce_len].try_into().unwrap());
                c.seek(pos);
                c.apply_keystream(data);
                Some(())
            }
        }
    };
    ($ty:ident, $nonce_len:literal) => {
        impl Case for $ty {
            const NAME: &'static str = stringify!($ty);
            fn make(key: &[u8; 32], nonce: &[u8; 24], backend: Backend) -> Self {
                $ty::with_backend(key, nonce[..$nonce_len].try_into().unwrap(), backend)
            }
            fn published(_: &[u8; 32], _: &[u8; 24], _: u64, _: &mut [u8]) -> Option<()> {
                None
            }
        }
    };
}

case!(ChaCha20, 12, ChaCha20);
case!(ChaCha12, 12, ChaCha12);
case!(ChaCha8, 12, ChaCha8);
case!(ChaCha20Legacy, 8, ChaCha20Legacy);
case!(ChaCha12Legacy, 8);
case!(ChaCha8Legacy, 8);
case!(XChaCha20, 24, XChaCha20);
case!(XChaCha12, 24, XChaCha12);
case!(XChaCha8, 24, XChaCha8);

/// One-shot keystream applied to `data` from byte `pos`.
fn one_shot<C: Case>(key: &[u8; 32], nonce: &[u8; 24], backend: Backend, pos: u64, data: &[u8]) -> Vec<u8> {
    let mut c = C::make(key, nonce, backend);
    c.seek(pos);
    let mut out = Guarded::new(data, 0);
    c.apply_keystream(out.get_mut());
    let ctx = format!("{} on {} pos {pos} len {}", C::NAME, backend.name(), data.len());
    out.check(format_args!("{ctx}: one-shot"));
    assert_eq!(c.current_pos::<u64>(), pos + data.len() as u64, "{ctx}: position after apply");
    out.get().to_vec()
}

fn check_all<C: Case>(key: &[u8; 32], nonce: &[u8; 24], pos: u64, data: &[u8], splits: &[usize]) {
    let mut cuts: Vec<usize> = splits.iter().map(|s| s % (data.len() + 1)).collect();
    cuts.sort_unstable();
    let expected = one_shot::<C>(key, nonce, Backend::detect(), pos, data);
    // Against the published crate (its own default backend).
    let mut theirs = data.to_vec();
    if C::published(key, nonce, pos, &mut theirs).is_some() {
        assert_eq!(theirs, expected, "{}: differs from the published crate at pos {pos}", C::NAME);
    }
    for backend in Backend::available() {
        let ctx = format!("{} on {} pos {pos} len {} cuts {cuts:?}", C::NAME, backend.name(), data.len());
        assert_eq!(one_shot::<C>(key, nonce, backend, pos, data), expected, "{ctx}: backends differ");

        // Chunked at the cut points == one-shot; each chunk a buffer of its own.
        let mut c = C::make(key, nonce, backend);
        c.seek(pos);
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain([&data.len()]) {
            let mut chunk = Guarded::new(&data[start..cut], 0);
            c.apply_keystream(chunk.get_mut());
            chunk.check(format_args!("{ctx}: chunked, bytes {start}..{cut}"));
            out.extend_from_slice(chunk.get());
            start = cut;
        }
        assert_eq!(out, expected, "{ctx}: chunked");

        // Seek to a cut, apply the rest == apply everything and keep the rest.
        let skip = cuts.first().copied().unwrap_or(0);
        let mut c = C::make(key, nonce, backend);
        c.seek(pos + skip as u64);
        let mut rest = Guarded::new(&data[skip..], 0);
        c.apply_keystream(rest.get_mut());
        rest.check(format_args!("{ctx}: seek then apply"));
        assert_eq!(rest.get(), &expected[skip..], "{ctx}: seek then apply");
        // ... and seeking backwards after use gives the same again.
        c.seek(pos + skip as u64);
        let mut again = Guarded::new(&data[skip..], 0);
        c.apply_keystream(again.get_mut());
        again.check(format_args!("{ctx}: seek back"));
        assert_eq!(again.get(), &expected[skip..], "{ctx}: seek back");

        // Buffer-to-buffer, input and output both unaligned by different amounts.
        let mut c = C::make(key, nonce, backend);
        c.seek(pos);
        let input = Guarded::new(data, 3);
        let mut output = Guarded::new(&vec![0; data.len()], 1);
        c.apply_keystream_b2b(input.get(), output.get_mut());
        input.check(format_args!("{ctx}: buffer to buffer: input"));
        output.check(format_args!("{ctx}: buffer to buffer: output"));
        assert_eq!(output.get(), expected, "{ctx}: buffer to buffer");
        assert_eq!(input.get(), data, "{ctx}: input changed");

        // The other ways buffer to buffer: `chacha20` implements the `*_b2b` methods itself
        // (no copy), and a distinct `InOutBuf` has its input copied to the output first.
        let ways: [(&str, B2b<C>); 3] = [
            ("try_apply_keystream_b2b", |c, i, o| c.try_apply_keystream_b2b(i, o).unwrap()),
            ("unchecked_apply_keystream_b2b", |c, i, o| c.unchecked_apply_keystream_b2b(i, o).unwrap()),
            ("apply_keystream_inout", |c, i, o| c.apply_keystream_inout(InOutBuf::new(i, o).unwrap())),
        ];
        for (way, call) in ways {
            let mut c = C::make(key, nonce, backend);
            c.seek(pos);
            let mut output = Guarded::new(&vec![0x5c; data.len()], 2);
            call(&mut c, input.get(), output.get_mut());
            output.check(format_args!("{ctx}: {way}: output"));
            assert_eq!(output.get(), expected, "{ctx}: {way}");
        }
        assert_eq!(input.get(), data, "{ctx}: input changed");

        // In place at an odd address.
        let mut c = C::make(key, nonce, backend);
        c.seek(pos);
        let mut shifted = Guarded::new(data, 1);
        c.apply_keystream(shifted.get_mut());
        shifted.check(format_args!("{ctx}: unaligned in place"));
        assert_eq!(shifted.get(), expected, "{ctx}: unaligned in place");

        // Keystream written == keystream applied to zeros.
        let mut c = C::make(key, nonce, backend);
        c.seek(pos);
        let mut ks = Guarded::new(&vec![0xEE; data.len()], 0);
        c.write_keystream(ks.get_mut());
        ks.check(format_args!("{ctx}: write_keystream"));
        let xored: Vec<u8> = ks.get().iter().zip(data).map(|(k, d)| k ^ d).collect();
        assert_eq!(xored, expected, "{ctx}: write_keystream");
    }
}

fn check_every_type(key: &[u8; 32], nonce: &[u8; 24], pos: u64, data: &[u8], splits: &[usize]) {
    if MIRI {
        check_all::<ChaCha20>(key, nonce, pos, data, splits);
        check_all::<ChaCha8Legacy>(key, nonce, pos, data, splits);
        check_all::<XChaCha12>(key, nonce, pos, data, splits);
        return;
    }
    check_all::<ChaCha20>(key, nonce, pos, data, splits);
    check_all::<ChaCha12>(key, nonce, pos, data, splits);
    check_all::<ChaCha8>(key, nonce, pos, data, splits);
    check_all::<ChaCha20Legacy>(key, nonce, pos, data, splits);
    check_all::<ChaCha12Legacy>(key, nonce, pos, data, splits);
    check_all::<ChaCha8Legacy>(key, nonce, pos, data, splits);
    check_all::<XChaCha20>(key, nonce, pos, data, splits);
    check_all::<XChaCha12>(key, nonce, pos, data, splits);
    check_all::<XChaCha8>(key, nonce, pos, data, splits);
}

#[test]
fn every_length_to_260_and_block_edges() {
    let key = [0x5c; 32];
    let nonce: [u8; 24] = core::array::from_fn(|i| i as u8 * 7);
    let data: Vec<u8> = (0..1100u32).map(|i| (i * 31 + 7) as u8).collect();
    let (lens, positions): (Vec<usize>, &[u64]) = if MIRI {
        (vec![0, 1, 65, 260], &[63])
    } else {
        ((0..=260).chain([511, 512, 513, 1023, 1024, 1025, 1100]).collect(), &[0, 1, 63, 64, 65, 1000])
    };
    for len in lens {
        for &pos in positions {
            check_every_type(&key, &nonce, pos, &data[..len], &[len / 3, len / 2 + 1, 64]);
        }
    }
}

proptest! {
    #[test]
    fn random_inputs(
        key in any::<[u8; 32]>(),
        nonce in any::<[u8; 24]>(),
        pos in prop_oneof![0u64..1000, any::<u32>().prop_map(u64::from)],
        data in proptest::collection::vec(any::<u8>(), 0..if MIRI { 300 } else { 1500 }),
        splits in proptest::collection::vec(any::<usize>(), 0..5),
    ) {
        check_every_type(&key, &nonce, pos, &data, &splits);
    }
}

/// Many calls of random short lengths on one instance (the batched path ahead of the
/// caller), with seeks in between, == one-shot, on every backend.
fn many_short_calls<C: Case>(key: &[u8; 32], nonce: &[u8; 24], lens: &[usize], seek_at: usize) {
    let total: usize = lens.iter().sum();
    let data: Vec<u8> = (0..total).map(|i| (i * 13 + 1) as u8).collect();
    let expected = one_shot::<C>(key, nonce, Backend::detect(), 0, &data);
    for backend in Backend::available() {
        let mut c = C::make(key, nonce, backend);
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &len) in lens.iter().enumerate() {
            if i == seek_at {
                // Seek back to where we are: the keystream ahead is dropped, not reused.
                c.seek(start as u64);
            }
            let mut call = Guarded::new(&data[start..start + len], 0);
            c.apply_keystream(call.get_mut());
            call.check(format_args!("{} on {}: call {i} of {lens:?}", C::NAME, backend.name()));
            out.extend_from_slice(call.get());
            start += len;
            assert_eq!(c.current_pos::<u64>(), start as u64, "{} on {}", C::NAME, backend.name());
        }
        assert_eq!(out, expected, "{} on {}: lengths {lens:?}", C::NAME, backend.name());
    }
}

proptest! {
    #[test]
    fn many_short_calls_match_one_shot(
        key in any::<[u8; 32]>(),
        nonce in any::<[u8; 24]>(),
        lens in proptest::collection::vec(prop_oneof![0usize..=70, 0usize..=300], 1..if MIRI { 5 } else { 40 }),
        seek_at in 0usize..50,
    ) {
        many_short_calls::<ChaCha20>(&key, &nonce, &lens, seek_at);
        many_short_calls::<ChaCha8Legacy>(&key, &nonce, &lens, seek_at);
        many_short_calls::<XChaCha12>(&key, &nonce, &lens, seek_at);
    }
}

/// `with_backend` runs on the backend it was given, and says so (`Backend::default()` is
/// the detected one, so only the other backends tell them apart).
#[test]
fn with_backend_keeps_the_backend_it_was_given() {
    for backend in Backend::available() {
        let c = ChaCha20::with_backend(&[1; 32], &[2; 12], backend);
        assert_eq!((c.backend(), c.kernel()), (backend, backend));
        assert!(format!("{c:?}").contains(backend.name()), "{c:?}");
        let x = XChaCha20::with_backend(&[1; 32], &[2; 24], backend);
        assert_eq!((x.backend(), x.kernel()), (backend, backend));
    }
}

#[test]
fn new_uses_the_detected_backend_and_debug_hides_the_key() {
    let key = [0xAB; 32];
    let c = ChaCha20::new(&key.into(), &[0xCD; 12].into());
    assert_eq!(c.backend(), Backend::detect());
    let text = format!("{c:?}");
    assert!(text.contains(Backend::detect().name()), "{text}");
    assert!(!text.to_lowercase().contains("ab,") && !text.contains("171"), "{text}");
    let x = XChaCha20::new(&key.into(), &[0xCD; 24].into());
    let text = format!("{x:?}");
    assert!(text.starts_with("XChaCha") && !text.contains("171"), "{text}");
}
