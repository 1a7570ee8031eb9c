//! Target `cipher_api`: arbitrary sequences of `chacha20` calls — in-place and
//! buffer-to-buffer XOR, `write_keystream`, the panicking `apply_keystream`, seeks (as
//! `u128` and `u64`, to every edge), clones — of arbitrary lengths on ChaCha20, ChaCha12,
//! ChaCha8, ChaCha20Legacy, ChaCha12Legacy, XChaCha20 and XChaCha8, on every backend (with
//! `with_backend` and with `with_kernel` on the backend's own type). What they produce must
//! be one contiguous reference keystream, each at the position the model says; every call
//! past the end must fail (the `try_` methods with `StreamCipherError`, `apply_keystream`
//! with the panic `cipher` documents) with the buffers and the position untouched.
//!
//! Input layout: `kind:u8 key[32] nonce[24]`, then operations until the input ends, each
//! `op:u8 arg:u16 extra:u64` (11 bytes).

use std::panic::{self, AssertUnwindSafe};

use arbitrary::{Arbitrary, Unstructured};
use chacha_backends::{Backend, WithKernel};
use chacha_core::{Ietf, Kernel, Legacy, Rounds, State, Variant, reference};
use chacha20::cipher::{StreamCipher, StreamCipherSeek};
use chacha20::{ChaCha, XChaCha};

use crate::{filler, reference_bytes, take, u16_of, u64_of, with_rounds};

/// Longest single request: 40 blocks, past the widest kernel and the front's batch.
pub const MAX_LEN: usize = 40 * 64 + 3;

/// One case of the `cipher_api` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub kind: Kind,
    pub key: [u8; 32],
    /// ChaCha uses the first 12 bytes, ChaChaLegacy the first 8, XChaCha all 24.
    pub nonce: [u8; 24],
    pub ops: Vec<Op>,
}

/// The cipher type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ChaCha20,
    ChaCha12,
    ChaCha8,
    ChaCha20Legacy,
    ChaCha12Legacy,
    XChaCha20,
    XChaCha8,
}

const KINDS: [Kind; 7] = [
    Kind::ChaCha20,
    Kind::ChaCha12,
    Kind::ChaCha8,
    Kind::ChaCha20Legacy,
    Kind::ChaCha12Legacy,
    Kind::XChaCha20,
    Kind::XChaCha8,
];

/// One call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `try_apply_keystream` of `len` bytes in place.
    Apply(usize),
    /// `try_apply_keystream_b2b` of `len` bytes.
    ApplyB2b(usize),
    /// `try_write_keystream` of `len` bytes.
    Write(usize),
    /// `apply_keystream` (panics at the end of the stream).
    ApplyOrPanic(usize),
    /// `try_seek::<u128>`.
    Seek(Pos),
    /// `try_seek::<u64>` of the position's low 64 bits.
    Seek64(Pos),
    /// `try_apply_keystream_b2b` with an output one byte longer than the input: refused.
    MismatchedB2b(usize),
    /// Go on with a clone of the cipher.
    Clone,
}

/// A seek target, relative to the edges of the stream (`end` = its length in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    /// `n` bytes from the start.
    Start(u64),
    /// `end - n` (saturating at 0).
    BeforeEnd(u64),
    /// `end + n`: past the end unless `n == 0`.
    AfterEnd(u64),
    /// `2^32 · 64 + n - 2^31` (saturating): around the 32-bit block counter's end or carry.
    Around32(u64),
    /// `u128::MAX - n`.
    NearMax(u64),
}

impl Pos {
    pub fn resolve(self, end: u128) -> u128 {
        match self {
            Pos::Start(n) => u128::from(n),
            Pos::BeforeEnd(n) => end.saturating_sub(u128::from(n)),
            Pos::AfterEnd(n) => end + u128::from(n),
            Pos::Around32(n) => ((1u128 << 38) + u128::from(n)).saturating_sub(1 << 31),
            Pos::NearMax(n) => u128::MAX - u128::from(n),
        }
    }

    fn encode(self) -> (u16, u64) {
        match self {
            Pos::Start(n) => (0, n),
            Pos::BeforeEnd(n) => (1, n),
            Pos::AfterEnd(n) => (2, n),
            Pos::Around32(n) => (3, n),
            Pos::NearMax(n) => (4, n),
        }
    }

    fn decode(mode: u16, n: u64) -> Pos {
        // Offsets from an edge stay within a few blocks of it; `Start` takes any u64.
        let near = n % 4096;
        match mode % 5 {
            0 => Pos::Start(n),
            1 => Pos::BeforeEnd(near),
            2 => Pos::AfterEnd(near),
            3 => Pos::Around32(n % (1 << 32)),
            _ => Pos::NearMax(near),
        }
    }
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let [kind] = take(u);
        let kind = KINDS[usize::from(kind) % KINDS.len()];
        let key = take(u);
        let nonce = take(u);
        let mut ops = Vec::new();
        while !u.is_empty() {
            let [op] = take(u);
            let arg = u16_of(u);
            let extra = u64_of(u);
            let len = usize::from(arg) % (MAX_LEN + 1);
            ops.push(match op % 8 {
                0 => Op::Apply(len),
                1 => Op::ApplyB2b(len),
                2 => Op::Write(len),
                3 => Op::ApplyOrPanic(len),
                4 => Op::Seek(Pos::decode(arg, extra)),
                5 => Op::Seek64(Pos::decode(arg, extra)),
                6 => Op::MismatchedB2b(len),
                _ => Op::Clone,
            });
        }
        Ok(Case { kind, key, nonce, ops })
    }
}

impl Case {
    /// The input bytes `arbitrary` reads back as this case.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![KINDS.iter().position(|k| *k == self.kind).expect("a kind") as u8];
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.nonce);
        for op in &self.ops {
            let (code, arg, extra) = match *op {
                Op::Apply(len) => (0, len as u16, 0),
                Op::ApplyB2b(len) => (1, len as u16, 0),
                Op::Write(len) => (2, len as u16, 0),
                Op::ApplyOrPanic(len) => (3, len as u16, 0),
                Op::Seek(pos) => {
                    let (mode, n) = pos.encode();
                    (4, mode, n)
                }
                Op::Seek64(pos) => {
                    let (mode, n) = pos.encode();
                    (5, mode, n)
                }
                Op::MismatchedB2b(len) => (6, len as u16, 0),
                Op::Clone => (7, 0, 0),
            };
            out.push(code);
            out.extend_from_slice(&arg.to_le_bytes());
            out.extend_from_slice(&u64::to_le_bytes(extra));
        }
        out
    }
}

/// What one call must do, from the model.
#[derive(Debug)]
enum Expect {
    /// These output bytes (data XOR keystream, or keystream), position after.
    Bytes(Vec<u8>, u128),
    /// Refused: the error (or the panic), nothing touched, position unchanged.
    Refused,
    /// A seek: succeeds or not, position after.
    Seek(bool, u128),
    Clone,
}

/// The model: the stream of one key and nonce, `end` bytes long.
struct Model<'a> {
    keystream: &'a dyn Fn(u128, usize) -> Vec<u8>,
    end: u128,
}

impl Model<'_> {
    fn expectations(&self, ops: &[Op]) -> Vec<Expect> {
        let mut pos = 0u128;
        ops.iter()
            .enumerate()
            .map(|(i, op)| match *op {
                Op::Apply(len) | Op::ApplyB2b(len) | Op::ApplyOrPanic(len) | Op::Write(len) => {
                    if pos + len as u128 > self.end {
                        return Expect::Refused;
                    }
                    let ks = (self.keystream)(pos, len);
                    pos += len as u128;
                    let data = if matches!(op, Op::Write(_)) { vec![0; len] } else { filler(i as u64, len) };
                    Expect::Bytes(data.iter().zip(ks).map(|(d, k)| d ^ k).collect(), pos)
                }
                Op::MismatchedB2b(_) => Expect::Refused,
                Op::Seek(to) => {
                    let to = to.resolve(self.end);
                    if to <= self.end {
                        pos = to;
                    }
                    Expect::Seek(to <= self.end, pos)
                }
                Op::Seek64(to) => {
                    let to = u128::from(to.resolve(self.end) as u64);
                    if to <= self.end {
                        pos = to;
                    }
                    Expect::Seek(to <= self.end, pos)
                }
                Op::Clone => Expect::Clone,
            })
            .collect()
    }
}

/// What the targets need of a cipher beyond `cipher`'s traits.
trait Cipher: StreamCipher + StreamCipherSeek + Clone + core::fmt::Debug {
    fn left(&self) -> u128;
}

impl<R: Rounds, V: Variant, K: Kernel> Cipher for ChaCha<R, V, K> {
    fn left(&self) -> u128 {
        self.remaining()
    }
}

impl<R: Rounds, K: Kernel> Cipher for XChaCha<R, K> {
    fn left(&self) -> u128 {
        self.remaining()
    }
}

/// Runs `f` expecting the panic `cipher` documents for the end of the stream; a panic with
/// another message, or none, fails. libfuzzer-sys's panic hook aborts the process, so it is
/// set aside while the expected panic unwinds.
fn expect_end_panic(f: impl FnOnce()) {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    let payload = result.expect_err("apply_keystream past the end did not panic");
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(message.contains("end of keystream reached"), "unexpected panic: {message:?}");
}

fn run<C: Cipher>(mut cipher: C, ops: &[Op], expected: &[Expect], end: u128) {
    let mut pos = 0u128;
    for (i, (op, want)) in ops.iter().zip(expected).enumerate() {
        let ctx = format!("{cipher:?} op {i} {op:?}");
        match (*op, want) {
            (Op::Apply(len) | Op::ApplyB2b(len) | Op::ApplyOrPanic(len) | Op::Write(len), want) => {
                let data = if matches!(op, Op::Write(_)) { vec![0x99; len] } else { filler(i as u64, len) };
                let mut buf = data.clone();
                let mut out = vec![0x77u8; len];
                let result = match *op {
                    Op::Apply(_) => cipher.try_apply_keystream(&mut buf).map(|()| &buf),
                    Op::ApplyB2b(_) => cipher.try_apply_keystream_b2b(&data, &mut out).map(|()| &out),
                    Op::Write(_) => cipher.try_write_keystream(&mut buf).map(|()| &buf),
                    _ if matches!(want, Expect::Refused) => {
                        expect_end_panic(|| cipher.apply_keystream(&mut buf));
                        Err(chacha20::cipher::StreamCipherError)
                    }
                    _ => {
                        cipher.apply_keystream(&mut buf);
                        Ok(&buf)
                    }
                };
                match (result, want) {
                    (Ok(got), Expect::Bytes(bytes, after)) => {
                        assert_eq!(got, bytes, "{ctx}: keystream");
                        pos = *after;
                    }
                    (Err(_), Expect::Refused) => {
                        assert_eq!(buf, data, "{ctx}: refused call touched the buffer");
                        assert_eq!(out, vec![0x77; len], "{ctx}: refused call touched the output");
                    }
                    (result, want) => panic!("{ctx}: got {:?}, want {want:?}", result.map(|_| ())),
                }
            }
            (Op::MismatchedB2b(len), _) => {
                let data = filler(i as u64, len);
                let mut out = vec![0x77u8; len + 1];
                assert!(cipher.try_apply_keystream_b2b(&data, &mut out).is_err(), "{ctx}");
                assert_eq!(out, vec![0x77; len + 1], "{ctx}: refused b2b touched the output");
            }
            (Op::Seek(to), Expect::Seek(ok, after)) => {
                assert_eq!(cipher.try_seek(to.resolve(end)).is_ok(), *ok, "{ctx}");
                pos = *after;
            }
            (Op::Seek64(to), Expect::Seek(ok, after)) => {
                assert_eq!(cipher.try_seek(to.resolve(end) as u64).is_ok(), *ok, "{ctx}");
                pos = *after;
            }
            (Op::Clone, _) => cipher = cipher.clone(),
            (op, want) => unreachable!("{op:?} {want:?}"),
        }
        assert_eq!(cipher.current_pos::<u128>(), pos, "{ctx}: position");
        assert_eq!(cipher.left(), end - pos, "{ctx}: remaining");
        assert_eq!(cipher.try_current_pos::<u64>().ok(), u64::try_from(pos).ok(), "{ctx}: u64 position");
    }
}

/// Runs the case's calls on one cipher type, on every backend both ways.
struct OnEveryKernel<'a, R, V> {
    key: [u8; 32],
    nonce: [u8; 24],
    xchacha: bool,
    ops: &'a [Op],
    expected: &'a [Expect],
    end: u128,
    _types: core::marker::PhantomData<(R, V)>,
}

impl<R: Rounds, V: Variant> WithKernel for &OnEveryKernel<'_, R, V> {
    type Output = ();

    fn call<K: Kernel>(self, kernel: K) {
        if self.xchacha {
            run(
                XChaCha::<R, K>::with_kernel(&self.key, &self.nonce, kernel),
                self.ops,
                self.expected,
                self.end,
            );
        } else {
            let mut nonce = V::Nonce::default();
            nonce.as_mut().copy_from_slice(&self.nonce[..V::NONCE_LEN]);
            run(ChaCha::<R, V, K>::with_kernel(&self.key, &nonce, kernel), self.ops, self.expected, self.end);
        }
    }
}

fn check_type<R: Rounds, V: Variant>(case: &Case, xchacha: bool) {
    let (key, nonce) = if xchacha {
        let subkey = reference::hchacha::<R>(&case.key, case.nonce[..16].try_into().expect("16 bytes"));
        let mut nonce = V::Nonce::default();
        nonce.as_mut().copy_from_slice(&case.nonce[16..16 + V::NONCE_LEN]);
        (subkey, nonce)
    } else {
        let mut nonce = V::Nonce::default();
        nonce.as_mut().copy_from_slice(&case.nonce[..V::NONCE_LEN]);
        (case.key, nonce)
    };
    let state = State::<V>::new(&key, &nonce);
    let keystream = |from: u128, len: usize| reference_bytes::<R, V>(&state, from, len);
    let end = V::BLOCKS * 64;
    let expected = Model { keystream: &keystream, end }.expectations(&case.ops);
    let each = OnEveryKernel::<R, V> {
        key: case.key,
        nonce: case.nonce,
        xchacha,
        ops: &case.ops,
        expected: &expected,
        end,
        _types: core::marker::PhantomData,
    };
    for backend in Backend::available() {
        (&each).call(backend);
        backend.with_kernel(&each);
    }
}

/// Checks the case on its cipher type, on every backend.
pub fn check(case: &Case) {
    let (rounds, legacy, xchacha) = match case.kind {
        Kind::ChaCha20 => (20, false, false),
        Kind::ChaCha12 => (12, false, false),
        Kind::ChaCha8 => (8, false, false),
        Kind::ChaCha20Legacy => (20, true, false),
        Kind::ChaCha12Legacy => (12, true, false),
        Kind::XChaCha20 => (20, true, true),
        Kind::XChaCha8 => (8, true, true),
    };
    with_rounds!(rounds, R => {
        if legacy { check_type::<R, Legacy>(case, xchacha) } else { check_type::<R, Ietf>(case, xchacha) }
    });
}
