//! The end of the keystream, for every cipher type and backend: the last block is
//! usable, one byte more is refused (error with the buffer untouched, or the documented
//! panic), seeking past the end is an error, and the 64-bit counters carry from word 12
//! into word 13. Expected bytes come from `chacha_core::reference`, the RFC 8439 oracle.
//! Each backend runs as `Backend` (the default kernel) and as its own kernel type.

use core::marker::PhantomData;

use chacha_core::{Ietf, Legacy, R8, R12, R20, Rounds, State, Variant, reference};
use chacha20::backends::WithKernel;
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{Backend, ChaCha, ChaCha20, ChaCha20Legacy, Kernel, XChaCha, XChaCha20};

const KEY: [u8; 32] = [0x3a; 32];

/// Reference keystream for blocks `first..first + n` (counter wrapping like the state).
fn reference_blocks<R: Rounds, V: Variant>(
    key: &[u8; 32],
    nonce: &V::Nonce,
    first: u64,
    n: usize,
) -> Vec<u8> {
    let state = State::<V>::new(key, nonce);
    (0..n as u64).flat_map(|i| reference::block::<R, V>(&state, first.wrapping_add(i))).collect()
}

/// The end-of-stream checks for `R` rounds and layout `V`, on one kernel.
struct LastBlock<R, V: Variant>(V::Nonce, PhantomData<R>);

impl<R, V: Variant> Clone for LastBlock<R, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R, V: Variant> Copy for LastBlock<R, V> {}

impl<R: Rounds, V: Variant> WithKernel for LastBlock<R, V> {
    type Output = ();
    fn call<K: Kernel>(self, kernel: K) {
        last_block_then_refusal_on::<R, V, K>(self.0, kernel);
    }
}

fn last_block_then_refusal<R: Rounds, V: Variant>(nonce: V::Nonce) {
    for backend in Backend::available() {
        LastBlock::<R, V>(nonce, PhantomData).call(backend);
        backend.with_kernel(LastBlock::<R, V>(nonce, PhantomData));
    }
}

fn last_block_then_refusal_on<R: Rounds, V: Variant, K: Kernel>(nonce: V::Nonce, kernel: K) {
    let last = V::MAX_COUNTER;
    let end = V::BLOCKS * 64;
    {
        let ctx = format!("R{} {:?} on {kernel:?}", R::ROUNDS, V::default());
        let mut c = ChaCha::<R, V, K>::with_kernel(&KEY, &nonce, kernel);
        c.seek(u128::from(last) * 64 + 10);
        assert_eq!(c.current_pos::<u128>(), u128::from(last) * 64 + 10, "{ctx}");
        assert_eq!(c.remaining(), 54, "{ctx}");
        let mut buf = [0u8; 54];
        c.try_apply_keystream(&mut buf).unwrap();
        assert_eq!(buf[..], reference_blocks::<R, V>(&KEY, &nonce, last, 1)[10..], "{ctx}: last block");
        assert_eq!((c.current_pos::<u128>(), c.remaining()), (end, 0), "{ctx}");

        // One more byte: an error, the buffer untouched, the position unchanged.
        let mut one = [0x77u8];
        assert!(c.try_apply_keystream(&mut one).is_err(), "{ctx}");
        assert_eq!(one, [0x77]);
        assert!(c.try_write_keystream(&mut one).is_err(), "{ctx}");
        assert_eq!((one, c.current_pos::<u128>()), ([0x77], end), "{ctx}");
        c.apply_keystream(&mut []); // nothing asked, nothing refused

        // A request that crosses the end is refused whole, not cut short.
        c.seek(u128::from(last) * 64 + 1);
        let mut buf = [0x55u8; 64];
        assert!(c.try_apply_keystream(&mut buf).is_err(), "{ctx}");
        assert_eq!(buf, [0x55; 64], "{ctx}");
        let mut out = [0x66u8; 64];
        assert!(c.try_apply_keystream_b2b(&buf, &mut out).is_err(), "{ctx}");
        assert_eq!(out, [0x66; 64], "{ctx}");
        c.apply_keystream(&mut buf[..63]);
        assert_eq!(c.remaining(), 0, "{ctx}");

        // Seeking: to the end is fine, past it is an error that leaves the position alone.
        c.seek(0u32);
        assert!(c.try_seek(end + 1).is_err(), "{ctx}");
        assert_eq!(c.current_pos::<u128>(), 0, "{ctx}");
        c.try_seek(end).unwrap();
        assert!(c.try_apply_keystream(&mut [0u8]).is_err(), "{ctx}");

        // Many short calls up to the end: the batches ahead are cut at the last block.
        c.seek(u128::from(last - 2) * 64);
        let mut got = Vec::new();
        for len in [5, 16, 16, 16, 64, 16, 16, 16, 27] {
            let mut piece = vec![0u8; len];
            c.apply_keystream(&mut piece);
            got.extend(piece);
        }
        assert_eq!(got, reference_blocks::<R, V>(&KEY, &nonce, last - 2, 3), "{ctx}: short calls to the end");
        assert_eq!(c.remaining(), 0, "{ctx}");
        assert!(c.try_apply_keystream(&mut [0u8]).is_err(), "{ctx}");

        // Two whole blocks ending exactly at the end, in one call.
        c.seek(u128::from(last - 1) * 64);
        let mut two = [0u8; 128];
        c.apply_keystream(&mut two);
        assert_eq!(two[..], reference_blocks::<R, V>(&KEY, &nonce, last - 1, 2)[..], "{ctx}: last two");
    }
}

#[test]
fn ietf_last_block_is_usable_and_the_next_byte_is_refused() {
    let nonce = [0xfe; 12];
    last_block_then_refusal::<R20, Ietf>(nonce);
    last_block_then_refusal::<R12, Ietf>(nonce);
    last_block_then_refusal::<R8, Ietf>(nonce);
}

#[test]
fn legacy_last_block_is_usable_and_the_next_byte_is_refused() {
    let nonce = [0xfe; 8];
    last_block_then_refusal::<R20, Legacy>(nonce);
    last_block_then_refusal::<R12, Legacy>(nonce);
    last_block_then_refusal::<R8, Legacy>(nonce);
}

#[test]
#[should_panic(expected = "end of keystream reached")]
fn apply_keystream_panics_at_the_end() {
    let mut c = ChaCha20::new(&KEY.into(), &[0; 12].into());
    c.seek((1u64 << 32) * 64 - 1);
    c.apply_keystream(&mut [0u8; 2]);
}

#[test]
#[should_panic(expected = "end of keystream reached")]
fn unchecked_apply_still_refuses_to_reuse_keystream() {
    let mut c = ChaCha20::new(&KEY.into(), &[0; 12].into());
    c.seek((1u64 << 32) * 64);
    c.unchecked_apply_keystream(&mut [0u8; 1]);
}

#[test]
fn ietf_counter_never_carries_into_the_nonce() {
    // Block 2^32 - 1 then the end: no block 2^32 (which a carry would compute as counter 0
    // with nonce word 13 + 1).
    for backend in Backend::available() {
        let mut c = ChaCha20::with_backend(&KEY, &[0; 12], backend);
        c.seek((u64::from(u32::MAX)) * 64);
        let mut buf = [0u8; 64];
        c.apply_keystream(&mut buf);
        assert_eq!(buf[..], reference_blocks::<R20, Ietf>(&KEY, &[0; 12], u64::from(u32::MAX), 1)[..]);
        assert!(c.try_apply_keystream(&mut buf).is_err());
    }
}

#[test]
fn legacy_and_xchacha_counters_carry_into_word_13() {
    let nonce = [0x21; 8];
    let want = reference_blocks::<R20, Legacy>(&KEY, &nonce, u64::from(u32::MAX) - 1, 4);
    for backend in Backend::available() {
        let mut c = ChaCha20Legacy::with_backend(&KEY, &nonce, backend);
        c.seek((u64::from(u32::MAX) - 1) * 64 + 5);
        let mut buf = vec![0u8; 4 * 64 - 5];
        c.apply_keystream(&mut buf[..100]);
        c.apply_keystream(&mut buf[100..]);
        assert_eq!(buf[..], want[5..], "{}", backend.name());
        assert_eq!(c.current_pos::<u64>(), (u64::from(u32::MAX) + 3) * 64);

        // XChaCha: the same stream under the HChaCha subkey.
        let xnonce: [u8; 24] = core::array::from_fn(|i| i as u8);
        let subkey = reference::hchacha::<R20>(&KEY, xnonce[..16].try_into().unwrap());
        let tail_nonce: [u8; 8] = xnonce[16..].try_into().unwrap();
        let xwant = reference_blocks::<R20, Legacy>(&subkey, &tail_nonce, u64::from(u32::MAX), 2);
        let mut x = XChaCha20::with_backend(&KEY, &xnonce, backend);
        xchacha_end(&mut x, &xwant);
        backend.with_kernel(XChachaEnd(xnonce, xwant.try_into().unwrap()));
    }
}

/// XChaCha20 across the carry and at the end of its 2^64-block stream, on one kernel.
#[derive(Clone, Copy)]
struct XChachaEnd([u8; 24], [u8; 128]);

impl WithKernel for XChachaEnd {
    type Output = ();
    fn call<K: Kernel>(self, kernel: K) {
        xchacha_end(&mut XChaCha::<R20, K>::with_kernel(&KEY, &self.0, kernel), &self.1);
    }
}

fn xchacha_end<K: Kernel>(x: &mut XChaCha<R20, K>, want: &[u8]) {
    x.seek(u64::from(u32::MAX) * 64);
    let mut xbuf = [0u8; 128];
    x.apply_keystream(&mut xbuf);
    assert_eq!(xbuf[..], want[..], "{x:?}");
    x.seek(u128::from(u64::MAX) * 64);
    x.apply_keystream(&mut xbuf[..64]);
    assert!(x.try_apply_keystream(&mut xbuf[..1]).is_err());
    assert!(x.try_seek((u128::from(u64::MAX) + 1) * 64 + 1).is_err());
}

#[test]
fn positions_that_do_not_fit_the_asked_type_are_errors() {
    let mut c = ChaCha20Legacy::new(&KEY.into(), &[0; 8].into());
    c.seek(u128::from(u64::MAX) * 64);
    assert!(c.try_current_pos::<u64>().is_err());
    assert_eq!(c.current_pos::<u128>(), u128::from(u64::MAX) * 64);
    assert!(c.try_current_pos::<u32>().is_err());
}

/// Regression (found by the `cipher_api` fuzz target): `SeekNum::from_block_byte` computes
/// `block * 64 - (64 - byte)`, so positions in the last 63 bytes below 2^32 (for `u32`) or
/// 2^64 (for `u64`) overflowed on the way and `try_current_pos` refused them although they
/// fit.
#[test]
fn every_position_that_fits_the_asked_type_is_reported() {
    let mut c = ChaCha20::new(&KEY.into(), &[0; 12].into());
    for pos in [u64::from(u32::MAX) - 62, u64::from(u32::MAX) - 1, u64::from(u32::MAX)] {
        c.seek(pos);
        assert_eq!(c.try_current_pos::<u32>().ok(), Some(pos as u32), "{pos}");
        assert_eq!(c.current_pos::<u64>(), pos);
    }
    c.seek(1u64 << 32);
    assert!(c.try_current_pos::<u32>().is_err());
    let mut x = XChaCha20::new(&KEY.into(), &[0; 24].into());
    for pos in [u64::MAX - 62, u64::MAX - 1, u64::MAX] {
        x.seek(pos);
        assert_eq!(x.try_current_pos::<u64>().ok(), Some(pos), "{pos}");
        assert_eq!(x.current_pos::<u128>(), u128::from(pos));
    }
    x.seek(1u128 << 64);
    assert!(x.try_current_pos::<u64>().is_err());
    assert_eq!(x.current_pos::<u128>(), 1 << 64);
}
