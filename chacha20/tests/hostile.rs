//! Hostile inputs to every public constructor and method of the cipher types: wrong and
//! zero lengths, maximal positions, seeks to every edge, mismatched buffers. Nothing panics
//! except where the `cipher` API documents a panic; every error is the documented type;
//! a refused call leaves its buffers and the position alone. The table in this folder's
//! README ("Hostile inputs") lists each case with the test that proves it; the end of the stream
//! itself (last block usable, one byte more refused, on every backend and kernel type) is in
//! `tests/limits.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use chacha_core::reference;
use chacha20::cipher::{InvalidLength, KeyIvInit, StreamCipher, StreamCipherError, StreamCipherSeek};
use chacha20::{Backend, ChaCha8, ChaCha12Legacy, ChaCha20, ChaCha20Legacy, XChaCha8, XChaCha20, hchacha};
use chacha20::{Kernel, R8, R12, R20, Rounds};

/// The call was refused with the documented error type.
fn refused(result: Result<(), StreamCipherError>) -> bool {
    matches!(result, Err(StreamCipherError))
}

/// The message `f` panics with; fails if it does not panic. Needs unwinding: on targets
/// that abort on panic (wasm32-wasip1, where scripts/ci/wasm-test.sh runs this file under
/// Node) the tests that call it are ignored, as libtest ignores `should_panic` there.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A cipher type, how long its stream is, and its nonce length.
trait Type: KeyIvInit + StreamCipher + StreamCipherSeek + Clone {
    const NONCE_LEN: usize;
    /// Stream length in bytes.
    const END: u128;
    fn make() -> Self {
        Self::new_from_slices(&[0x42; 32], &[0x24; 24][..Self::NONCE_LEN]).expect("right lengths")
    }
}

macro_rules! types {
    ($($ty:ident: $nonce_len:literal bytes, $end:expr;)*) => {$(
        impl Type for $ty {
            const NONCE_LEN: usize = $nonce_len;
            const END: u128 = $end;
        }
    )*};
}

types! {
    ChaCha20: 12 bytes, 1 << 38;
    ChaCha8: 12 bytes, 1 << 38;
    ChaCha20Legacy: 8 bytes, 1 << 70;
    ChaCha12Legacy: 8 bytes, 1 << 70;
    XChaCha20: 24 bytes, 1 << 70;
    XChaCha8: 24 bytes, 1 << 70;
}

/// Runs `check::<T>()` for every cipher type.
macro_rules! every_type {
    ($check:ident) => {
        $check::<ChaCha20>();
        $check::<ChaCha8>();
        $check::<ChaCha20Legacy>();
        $check::<ChaCha12Legacy>();
        $check::<XChaCha20>();
        $check::<XChaCha8>();
    };
}

fn wrong_lengths<T: Type>() {
    for key_len in [0, 1, 16, 31, 33, 64] {
        assert_eq!(
            T::new_from_slices(&vec![0; key_len], &[0; 24][..T::NONCE_LEN]).err(),
            Some(InvalidLength)
        );
    }
    for nonce_len in [0, 1, 7, 8, 11, 12, 13, 16, 23, 24, 25, 32] {
        let result = T::new_from_slices(&[0; 32], &vec![0; nonce_len]);
        assert_eq!(result.is_ok(), nonce_len == T::NONCE_LEN, "nonce of {nonce_len} bytes");
        if nonce_len != T::NONCE_LEN {
            assert_eq!(result.err(), Some(InvalidLength));
        }
    }
    assert_eq!(T::new_from_slices(&[], &[]).err(), Some(InvalidLength));
}

#[test]
fn new_from_slices_with_wrong_lengths_is_invalid_length() {
    every_type!(wrong_lengths);
}

fn zero_lengths<T: Type>() {
    for pos in [0, 1, 63, 64, T::END - 1, T::END] {
        let mut c = T::make();
        c.seek(pos);
        c.apply_keystream(&mut []);
        c.try_apply_keystream(&mut []).unwrap();
        c.write_keystream(&mut []);
        c.try_write_keystream(&mut []).unwrap();
        c.apply_keystream_b2b(&[], &mut []);
        c.try_apply_keystream_b2b(&[], &mut []).unwrap();
        c.unchecked_apply_keystream(&mut []);
        assert_eq!(c.current_pos::<u128>(), pos, "zero-length calls do not move");
    }
}

#[test]
fn zero_length_calls_succeed_anywhere_even_at_the_end() {
    every_type!(zero_lengths);
}

fn mismatched_buffers<T: Type>() {
    let mut c = T::make();
    c.seek(10u32);
    for (input, output) in [(0usize, 1usize), (1, 0), (10, 11), (65, 64)] {
        let mut out = vec![0x7e; output];
        assert!(refused(c.try_apply_keystream_b2b(&vec![1; input], &mut out)));
        assert!(c.unchecked_apply_keystream_b2b(&vec![1; input], &mut out).is_err());
        assert_eq!(out, vec![0x7e; output], "refused buffer-to-buffer touched the output");
        let message = panic_message(|| c.apply_keystream_b2b(&vec![1; input], &mut out));
        assert_eq!(message, "Lengths of input and output buffers are not equal to each other!");
        assert_eq!(out, vec![0x7e; output]);
        assert_eq!(c.current_pos::<u64>(), 10);
    }
}

#[test]
#[cfg_attr(
    not(panic = "unwind"),
    ignore = "catches a panic: needs panic = \"unwind\" (wasm32-wasip1 aborts)"
)]
fn buffer_to_buffer_with_unequal_lengths_is_refused_and_touches_nothing() {
    every_type!(mismatched_buffers);
}

fn past_the_end<T: Type>() {
    let mut c = T::make();
    c.seek(T::END - 3);
    let mut buf = [0x11u8; 4];
    assert!(refused(c.try_apply_keystream(&mut buf)));
    assert!(refused(c.try_write_keystream(&mut buf)));
    let mut out = [0x22u8; 4];
    assert!(refused(c.try_apply_keystream_b2b(&buf, &mut out)));
    assert_eq!((buf, out), ([0x11; 4], [0x22; 4]), "refused calls touched a buffer");
    for call in [
        &mut |c: &mut T, b: &mut [u8]| c.apply_keystream(b) as _,
        &mut |c: &mut T, b: &mut [u8]| c.write_keystream(b),
        &mut |c: &mut T, b: &mut [u8]| c.apply_keystream_b2b(&[0; 4], b),
        &mut |c: &mut T, b: &mut [u8]| c.unchecked_apply_keystream(b),
        &mut |c: &mut T, b: &mut [u8]| c.unchecked_write_keystream(b),
    ] as [&mut dyn FnMut(&mut T, &mut [u8]); 5]
    {
        let mut attempt = c.clone();
        assert!(panic_message(|| call(&mut attempt, &mut buf)).starts_with("end of keystream reached"));
    }
    assert_eq!(buf, [0x11; 4], "the documented panics come before the buffer is touched");
    assert_eq!(c.current_pos::<u128>(), T::END - 3);
    c.try_apply_keystream(&mut buf[..3]).unwrap();
    assert_eq!(c.current_pos::<u128>(), T::END);
}

#[test]
#[cfg_attr(
    not(panic = "unwind"),
    ignore = "catches a panic: needs panic = \"unwind\" (wasm32-wasip1 aborts)"
)]
fn calls_past_the_end_are_errors_or_the_documented_panic_before_any_write() {
    every_type!(past_the_end);
}

fn seek_edges<T: Type>() {
    let mut c = T::make();
    c.seek(5u8 as u32);
    // Exactly the end, and everything past it up to each type's maximum.
    c.try_seek(T::END).unwrap();
    assert_eq!(c.current_pos::<u128>(), T::END);
    c.seek(5u32);
    for past in [T::END + 1, T::END + 63, T::END + 64, T::END + 65, u128::MAX - 1, u128::MAX] {
        assert!(refused(c.try_seek(past)), "{past}");
        assert_eq!(c.current_pos::<u128>(), 5, "a refused seek moved");
    }
    let message = panic_message(|| c.clone().seek(T::END + 1));
    assert!(message.starts_with("position value bigger than keystream length"), "{message}");
    // u64::MAX and usize::MAX: past the end of the 32-bit-counter types, inside the others.
    assert_eq!(c.try_seek(u64::MAX).is_ok(), u128::from(u64::MAX) <= T::END);
    assert_eq!(c.try_seek(usize::MAX).is_ok(), usize::MAX as u128 <= T::END);
    // u32 and i32 positions are always inside every stream.
    c.try_seek(u32::MAX).unwrap();
    assert_eq!(c.current_pos::<u32>(), u32::MAX);
    c.try_seek(i32::MAX).unwrap();
    assert_eq!(c.current_pos::<i32>(), i32::MAX);
}

#[test]
#[cfg_attr(
    not(panic = "unwind"),
    ignore = "catches a panic: needs panic = \"unwind\" (wasm32-wasip1 aborts)"
)]
fn seeks_to_the_end_succeed_and_past_it_are_errors_up_to_u128_max() {
    every_type!(seek_edges);
}

/// A negative `i32` position that is not a multiple of 64 makes `cipher`'s `SeekNum` for
/// `i32` panic (`u8::try_from` of the negative remainder: "bs fits into u8") before this
/// crate sees the position; the published crate does the same. A negative multiple of 64
/// gets as far as the block number, which does not convert: `StreamCipherError`. The
/// position is left alone either way.
#[test]
#[cfg_attr(
    not(panic = "unwind"),
    ignore = "catches a panic: needs panic = \"unwind\" (wasm32-wasip1 aborts)"
)]
fn negative_i32_seeks_are_errors_or_panic_inside_cipher() {
    let mut c = ChaCha20::make();
    c.seek(7u32);
    for pos in [-1i32, -63, -65, i32::MIN + 1] {
        assert!(panic_message(|| _ = c.clone().try_seek(pos)).contains("bs fits into u8"), "{pos}");
    }
    for pos in [-64i32, -128, i32::MIN] {
        assert!(refused(c.try_seek(pos)), "{pos}");
    }
    assert_eq!(c.current_pos::<u32>(), 7);
    use chacha20_published::cipher::{KeyIvInit as _, StreamCipherSeek as _};
    let mut published = chacha20_published::ChaCha20::new(&[0x42; 32].into(), &[0x24; 12].into());
    assert!(panic_message(|| _ = published.try_seek(-1i32)).contains("bs fits into u8"));
}

fn positions_too_big_for_the_type<T: Type>() {
    let mut c = T::make();
    c.seek(T::END);
    assert_eq!(c.try_current_pos::<u128>().ok(), Some(T::END));
    assert!(c.try_current_pos::<u32>().is_err());
    assert!(c.try_current_pos::<i32>().is_err());
    assert_eq!(c.try_current_pos::<u64>().ok(), u64::try_from(T::END).ok());
    let message = panic_message(|| _ = c.current_pos::<u32>());
    assert!(message.starts_with("position cannot be represented by `T`"), "{message}");
    c.seek(u128::from(u32::MAX) + 1);
    assert!(c.try_current_pos::<u32>().is_err());
    assert_eq!(c.current_pos::<u64>(), u64::from(u32::MAX) + 1);
}

#[test]
#[cfg_attr(
    not(panic = "unwind"),
    ignore = "catches a panic: needs panic = \"unwind\" (wasm32-wasip1 aborts)"
)]
fn positions_that_do_not_fit_the_asked_type_are_overflow_errors() {
    every_type!(positions_too_big_for_the_type);
}

#[test]
fn remaining_counts_to_zero_at_the_end() {
    let mut c = ChaCha20::make();
    assert_eq!(c.remaining(), 1 << 38);
    c.seek((1u64 << 38) - 1);
    assert_eq!(c.remaining(), 1);
    c.apply_keystream(&mut [0]);
    assert_eq!(c.remaining(), 0);
    let mut x = XChaCha20::make();
    assert_eq!(x.remaining(), 1 << 70);
    x.seek(1u128 << 70);
    assert_eq!(x.remaining(), 0);
    let mut l = ChaCha20Legacy::make();
    l.seek((1u128 << 70) - 64);
    assert_eq!(l.remaining(), 64);
}

#[test]
fn every_key_and_input_is_valid_for_hchacha_and_the_constructors() {
    for byte in [0x00, 0x01, 0x7f, 0x80, 0xff] {
        let key = [byte; 32];
        for backend in Backend::available() {
            fn same<R: Rounds>(backend: Backend, key: &[u8; 32], input: &[u8; 16]) {
                assert_eq!(
                    backend.hchacha::<R>(key, input),
                    reference::hchacha::<R>(key, input),
                    "{backend:?}"
                );
            }
            same::<R8>(backend, &key, &[!byte; 16]);
            same::<R12>(backend, &key, &[byte; 16]);
            same::<R20>(backend, &key, &[byte; 16]);
            let subkey = hchacha::<R20>(&key.into(), &[byte; 16].into());
            assert_eq!(subkey.as_slice(), reference::hchacha::<R20>(&key, &[byte; 16]).as_slice());
            let mut c = XChaCha20::with_backend(&key, &[byte; 24], backend);
            c.apply_keystream(&mut [0; 65]);
            let mut c = ChaCha20::with_backend(&key, &[byte; 12], backend);
            c.apply_keystream(&mut [0; 65]);
        }
    }
}

#[test]
fn backend_by_name_is_none_for_unknown_names() {
    for name in ["", "nonsense", "AVX2", "soft ", "neon\0"] {
        assert_eq!(Backend::by_name(name), None, "{name:?}");
    }
    for backend in Backend::available() {
        assert_eq!(Backend::by_name(backend.name()), Some(backend));
    }
}

/// The "Hostile inputs" table of this folder's README names the test behind each row; a
/// renamed or removed test would leave the table pointing at nothing. Every name in its last column is
/// a `fn` of the named file (`ietf_…`: a `fn` whose name starts so; a word without `_`, like a
/// feature's name, is not a test's). The `chacha-rng` files
/// are read from the workspace, and skipped where they are not there (a packaged crate,
/// wasm32-wasip1 without a file system); this crate's own are compiled in.
#[test]
fn the_test_table_names_only_tests_that_exist() {
    let own = |file: &str| -> Option<String> {
        Some(
            match file {
                "hostile.rs" => include_str!("hostile.rs"),
                "limits.rs" => include_str!("limits.rs"),
                _ => return None,
            }
            .to_string(),
        )
    };
    let rng = |file: &str| {
        std::fs::read_to_string(format!("{}/../chacha-rng/tests/{file}", env!("CARGO_MANIFEST_DIR"))).ok()
    };
    let readme = include_str!("README.md");
    let table = readme.split("## Hostile inputs").nth(1).expect("the README has a Hostile inputs section");
    let (mut checked, mut missing) = (0, Vec::new());
    for row in table.lines().skip(1).take_while(|l| !l.starts_with("## ")).filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let last = cells.last().expect("a row has cells").trim_end_matches(" |");
        if last == "test" || last.starts_with("---") {
            continue;
        }
        // A `chacha-rng` token puts the rest of the cell in that crate's tests.
        let (mut in_rng, mut file, mut text) = (false, String::new(), None);
        for token in last.split('`').skip(1).step_by(2) {
            if token == "chacha-rng" {
                in_rng = true;
            } else if token.ends_with(".rs") {
                file = format!("{}/tests/{token}", if in_rng { "chacha-rng" } else { "chacha20" });
                text = if in_rng {
                    rng(token)
                } else {
                    Some(
                        own(token)
                            .unwrap_or_else(|| panic!("{token}: not a file of chacha20/tests known here")),
                    )
                };
            } else if let Some(text) = text.as_ref().filter(|_| token.contains('_')) {
                let found = match token.split_once('…') {
                    Some((prefix, _)) => text.contains(&format!("fn {prefix}")),
                    None => text.contains(&format!("fn {token}(")),
                };
                checked += 1;
                if !found {
                    missing.push(format!("{file}: {token}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "tests named in the README's table that do not exist: {missing:?}");
    assert!(
        checked >= 15,
        "only {checked} test names found in the README's table: is the parser still reading it?"
    );
}
