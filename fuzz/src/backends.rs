//! Target `backends`: every available backend against `chacha_core::reference` through
//! `State::xor` (in place and buffer-to-buffer, unaligned) and `State::fill`, plus
//! `Kernel::hchacha`, for any key, nonce, counter (with modes that land next to every
//! limit), round count, length and layout. A request that does not fit in the stream must
//! be refused with `EndOfStream`, every buffer and the state untouched.
//!
//! Input layout (46 bytes, then the rest ignored):
//!
//! ```text
//! key[32] nonce[12] rounds:u8 layout:u8 counter_mode:u8 counter:u64 len:u16 op:u8 align:u8 hinput[16]
//! ```

use arbitrary::{Arbitrary, Unstructured};
use chacha_backends::{Backend, WithKernel};
use chacha_core::{
    Block, EndOfStream, Ietf, Kernel, Legacy, Rounds, State, Variant, XorBuf, reference,
};

use crate::{filler, reference_bytes, rounds_of, take, u16_of, u64_of, with_rounds};

/// Longest request: 32 blocks and a byte, past the widest kernel (16 blocks) twice.
pub const MAX_LEN: usize = 32 * 64 + 1;

/// One case of the `backends` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub key: [u8; 32],
    /// Ietf uses all 12 bytes, Legacy the first 8.
    pub nonce: [u8; 12],
    /// 8, 12 or 20 (selector byte modulo 3).
    pub rounds: u32,
    /// false: Ietf (RFC 8439), true: Legacy (64-bit counter).
    pub legacy: bool,
    pub counter: Counter,
    /// 0..=MAX_LEN.
    pub len: usize,
    pub op: Op,
    /// Offset of the data in its buffer (0..64), so loads and stores are unaligned.
    pub align: usize,
    /// HChaCha's 16-byte input.
    pub hinput: [u8; 16],
}

/// Where the request starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// This block counter (Ietf: its low 32 bits).
    Raw(u64),
    /// `MAX_COUNTER - n`: the last blocks of the stream (n < 256).
    FromEnd(u8),
    /// `2^32 - 128 + n`, clamped into the layout: the 32-bit boundary (the Legacy carry).
    Around32(u8),
}

impl Counter {
    pub fn value<V: Variant>(self) -> u64 {
        match self {
            Counter::Raw(c) => c & V::MAX_COUNTER,
            Counter::FromEnd(n) => V::MAX_COUNTER - u64::from(n),
            Counter::Around32(n) => ((1u64 << 32) - 128 + u64::from(n)).min(V::MAX_COUNTER),
        }
    }
}

/// Which kernel operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    XorInPlace,
    XorB2b,
    Fill,
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let key = take(u);
        let nonce = take(u);
        let [rounds, layout, counter_mode] = take(u);
        let counter_value = u64_of(u);
        let counter = match counter_mode % 3 {
            0 => Counter::Raw(counter_value),
            1 => Counter::FromEnd(counter_value as u8),
            _ => Counter::Around32(counter_value as u8),
        };
        let len = usize::from(u16_of(u)) % (MAX_LEN + 1);
        let [op, align] = take(u);
        let op = [Op::XorInPlace, Op::XorB2b, Op::Fill][usize::from(op % 3)];
        let hinput = take(u);
        Ok(Case {
            key,
            nonce,
            rounds: rounds_of(rounds),
            legacy: layout % 2 == 1,
            counter,
            len,
            op,
            align: usize::from(align % 64),
            hinput,
        })
    }
}

impl Case {
    /// The input bytes `arbitrary` reads back as this case.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.nonce);
        let rounds = match self.rounds {
            8 => 0,
            12 => 1,
            _ => 2,
        };
        let (mode, value) = match self.counter {
            Counter::Raw(c) => (0, c),
            Counter::FromEnd(n) => (1, u64::from(n)),
            Counter::Around32(n) => (2, u64::from(n)),
        };
        out.extend_from_slice(&[rounds, u8::from(self.legacy), mode]);
        out.extend_from_slice(&value.to_le_bytes());
        out.extend_from_slice(&(self.len as u16).to_le_bytes());
        out.push(self.op as u8);
        out.push(self.align as u8);
        out.extend_from_slice(&self.hinput);
        out
    }
}

/// Checks the case on every available backend, as `Backend` and as its own kernel type.
pub fn check(case: &Case) {
    with_rounds!(case.rounds, R => {
        if case.legacy { check_layout::<R, Legacy>(case) } else { check_layout::<R, Ietf>(case) }
    });
}

fn check_layout<R: Rounds, V: Variant>(case: &Case) {
    let mut nonce = V::Nonce::default();
    nonce.as_mut().copy_from_slice(&case.nonce[..V::NONCE_LEN]);
    let mut state = State::<V>::new(&case.key, &nonce);
    let counter = case.counter.value::<V>();
    state.seek(u128::from(counter)).expect("a counter value is in the stream");
    let blocks = case.len.div_ceil(64);
    let fits = blocks as u128 <= state.blocks_left();
    let keystream = if fits {
        reference_bytes::<R, V>(&state, u128::from(counter) * 64, blocks * 64)
    } else {
        Vec::new()
    };
    let data = filler(counter ^ case.len as u64, case.len);
    let hchacha = reference::hchacha::<R>(&case.key, &case.hinput);
    let run = Run::<R, V> { case, state, fits, keystream, data, hchacha, _rounds: R::default() };
    for backend in Backend::available() {
        (&run).call(backend);
        backend.with_kernel(&run);
    }
}

/// One case and what the reference says about it, to run on each kernel.
struct Run<'a, R: Rounds, V: Variant> {
    case: &'a Case,
    /// At the case's counter.
    state: State<V>,
    /// The request fits in what is left of the stream.
    fits: bool,
    /// The reference keystream of the request's blocks (empty if it does not fit).
    keystream: Vec<u8>,
    data: Vec<u8>,
    hchacha: [u8; 32],
    _rounds: R,
}

impl<R: Rounds, V: Variant> WithKernel for &Run<'_, R, V> {
    type Output = ();

    fn call<K: Kernel>(self, kernel: K) {
        let case = self.case;
        let ctx = format!(
            "{kernel:?} R{} {:?} counter {:?} len {} {:?}",
            R::ROUNDS,
            V::default(),
            case.counter,
            case.len,
            case.op
        );
        assert_eq!(kernel.hchacha::<R>(&case.key, &case.hinput), self.hchacha, "{ctx}: hchacha");
        let len = case.len;
        let blocks = len.div_ceil(64);
        let mut state = self.state.clone();
        let before = state.position();
        let result = match case.op {
            Op::XorInPlace | Op::XorB2b => {
                // The data sits `align` bytes into a buffer with guard bytes around it.
                let mut input = vec![0xC3; case.align + len + 64];
                input[case.align..case.align + len].copy_from_slice(&self.data);
                let mut output = vec![0x3C; case.align + len + 64];
                let mut tail: Block = [0xA5; 64];
                let result = if case.op == Op::XorInPlace {
                    let buf = XorBuf::from(&mut input[case.align..case.align + len]);
                    state.xor::<R, K>(kernel, buf, &mut tail)
                } else {
                    let buf = XorBuf::new(
                        &input[case.align..case.align + len],
                        &mut output[case.align..case.align + len],
                    )
                    .expect("equal lengths");
                    state.xor::<R, K>(kernel, buf, &mut tail)
                };
                let produced = if case.op == Op::XorInPlace { &input } else { &output };
                let untouched = if case.op == Op::XorInPlace { 0xC3 } else { 0x3C };
                assert!(
                    produced[..case.align].iter().all(|&b| b == untouched),
                    "{ctx}: wrote before the buffer"
                );
                assert!(
                    produced[case.align + len..].iter().all(|&b| b == untouched),
                    "{ctx}: wrote past the buffer"
                );
                if case.op == Op::XorB2b {
                    assert_eq!(
                        input[case.align..case.align + len],
                        self.data[..],
                        "{ctx}: b2b changed its input"
                    );
                }
                if result.is_ok() {
                    let want: Vec<u8> = self.data.iter().zip(&self.keystream).map(|(d, k)| d ^ k).collect();
                    assert_eq!(produced[case.align..case.align + len], want[..], "{ctx}: xor");
                    if len.is_multiple_of(64) {
                        assert_eq!(tail, [0xA5; 64], "{ctx}: tail written for whole blocks");
                    } else {
                        assert_eq!(tail[..], self.keystream[(blocks - 1) * 64..], "{ctx}: tail");
                    }
                } else {
                    let before: &[u8] =
                        if case.op == Op::XorInPlace { &self.data } else { &[0x3C; MAX_LEN][..len] };
                    assert_eq!(
                        &produced[case.align..case.align + len],
                        before,
                        "{ctx}: refused request touched the buffer"
                    );
                    assert_eq!(tail, [0xA5; 64], "{ctx}: refused request touched the tail");
                }
                result
            }
            Op::Fill => {
                let mut out = vec![[0x5Au8; 64]; blocks + 1];
                let result = state.fill::<R, K>(kernel, &mut out[..blocks]);
                assert_eq!(out[blocks], [0x5A; 64], "{ctx}: fill wrote past its blocks");
                if result.is_ok() {
                    assert_eq!(out[..blocks].concat(), self.keystream, "{ctx}: fill");
                } else {
                    assert!(out.iter().all(|b| *b == [0x5A; 64]), "{ctx}: refused fill touched the output");
                }
                result
            }
        };
        if self.fits {
            assert_eq!(result, Ok(()), "{ctx}");
            assert_eq!(state.position(), before + blocks as u128, "{ctx}: position after");
        } else {
            assert_eq!(result, Err(EndOfStream), "{ctx}");
            assert_eq!(state.position(), before, "{ctx}: a refused request moved the state");
        }
    }
}
