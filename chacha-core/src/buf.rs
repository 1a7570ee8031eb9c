//! [`XorBuf`], the bytes a [`Kernel`](crate::Kernel) XORs keystream into: in place, or
//! read from one slice and written to another of the same length.
//!
//! Why a type of this crate's own, and not `XorBuf` (the type `cipher` and `aead`
//! hand to a front): `inout` needs `hybrid-array` and `typenum`, and a crate cannot start
//! to compile before its dependencies' metadata is ready, so a contract in `inout`'s
//! terms held the whole `chacha-backends` build back behind that chain (about a second of
//! a clean build) and pulled it into programs that use only an RNG. An `XorBuf` is made
//! without `unsafe` from `&mut [u8]` (in place) or from `&[u8]` and `&mut [u8]` (buffer to
//! buffer); a front that is handed an `InOutBuf` converts it with [`XorBuf::in_place`]
//! when its two sides are one slice, and otherwise copies the input to the output first
//! (safe code cannot take an `InOutBuf`'s two sides apart).

use core::fmt;

/// The bytes [`Kernel::xor`](crate::Kernel::xor) works on: XORed in place, or read from an
/// input slice and written to an output slice of the same length (never overlapping: the
/// borrow checker sees to it).
///
/// `Debug` shows the length and the form only, never the bytes.
///
/// ```
/// use chacha_core::XorBuf;
///
/// let mut data = *b"in place";
/// let mut buf = XorBuf::from(&mut data[..]);
/// buf.xor_in2out(&[1; 8]);
/// assert_eq!(data, *b"ho!qm`bd");
///
/// let input = *b"to another";
/// let mut out = [0u8; 10];
/// let mut buf = XorBuf::new(&input, &mut out).unwrap();
/// assert_eq!(buf.get_in(), b"to another");
/// buf.xor_in2out(&[0; 10]);
/// assert_eq!(out, input);
/// ```
pub struct XorBuf<'i, 'o> {
    /// `None`: in place (the input is `output`).
    input: Option<&'i [u8]>,
    output: &'o mut [u8],
}

/// [`XorBuf::new`]'s error: the input and output slices differ in length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LengthMismatch;

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the input and output buffers differ in length")
    }
}

impl core::error::Error for LengthMismatch {}

impl<'a> From<&'a mut [u8]> for XorBuf<'a, 'a> {
    /// In place.
    #[inline(always)]
    fn from(buf: &'a mut [u8]) -> Self {
        Self::in_place(buf)
    }
}

impl<'a> XorBuf<'a, 'a> {
    /// In place: `buf` is both input and output.
    #[inline(always)]
    pub fn in_place(buf: &'a mut [u8]) -> Self {
        Self { input: None, output: buf }
    }
}

impl<'i, 'o> XorBuf<'i, 'o> {
    /// Buffer to buffer: `input` is read, `output` written.
    ///
    /// # Errors
    /// [`LengthMismatch`] if the lengths differ.
    #[inline(always)]
    pub fn new(input: &'i [u8], output: &'o mut [u8]) -> Result<Self, LengthMismatch> {
        if input.len() == output.len() {
            Ok(Self { input: Some(input), output })
        } else {
            Err(LengthMismatch)
        }
    }

    /// The length in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.output.len()
    }

    /// Whether it has no bytes.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.output.is_empty()
    }

    /// Whether input and output are one slice.
    #[inline(always)]
    pub fn is_in_place(&self) -> bool {
        self.input.is_none()
    }

    /// The input (in place: the output as it is now).
    #[inline(always)]
    pub fn get_in(&self) -> &[u8] {
        match self.input {
            Some(input) => input,
            None => self.output,
        }
    }

    /// The output.
    #[inline(always)]
    pub fn get_out(&mut self) -> &mut [u8] {
        self.output
    }

    /// The output, for the buffer's whole lifetime.
    #[inline(always)]
    pub fn into_out(self) -> &'o mut [u8] {
        self.output
    }

    /// The same bytes, borrowed for a shorter time.
    #[inline(always)]
    pub fn reborrow(&mut self) -> XorBuf<'_, '_> {
        XorBuf { input: self.input, output: self.output }
    }

    /// Bytes `..mid` and `mid..`.
    ///
    /// # Panics
    /// If `mid > self.len()`.
    #[inline(always)]
    pub fn split_at(self, mid: usize) -> (Self, Self) {
        let (out_head, out_tail) = self.output.split_at_mut(mid);
        match self.input {
            Some(input) => {
                let (in_head, in_tail) = input.split_at(mid);
                (
                    Self { input: Some(in_head), output: out_head },
                    Self { input: Some(in_tail), output: out_tail },
                )
            }
            None => (Self { input: None, output: out_head }, Self { input: None, output: out_tail }),
        }
    }

    /// Writes `input XOR data` to the output.
    ///
    /// # Panics
    /// If `data.len() != self.len()`.
    #[inline(always)]
    pub fn xor_in2out(&mut self, data: &[u8]) {
        assert_eq!(data.len(), self.len(), "keystream and buffer lengths differ");
        match self.input {
            Some(input) => {
                for ((out, input), data) in self.output.iter_mut().zip(input).zip(data) {
                    *out = input ^ data;
                }
            }
            None => {
                for (out, data) in self.output.iter_mut().zip(data) {
                    *out ^= data;
                }
            }
        }
    }

    /// The input and output as pointers to their first bytes (equal when in place), for
    /// a SIMD kernel that reads and writes through them: both come from the borrows this
    /// buffer holds, and the output pointer is the one the input pointer is derived from
    /// when in place.
    #[inline(always)]
    pub fn into_raw(self) -> (*const u8, *mut u8) {
        let out = self.output.as_mut_ptr();
        match self.input {
            Some(input) => (input.as_ptr(), out),
            None => (out.cast_const(), out),
        }
    }
}

impl fmt::Debug for XorBuf<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XorBuf").field("len", &self.len()).field("in_place", &self.is_in_place()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_xor_agree_in_place_and_buffer_to_buffer() {
        let input: [u8; 37] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        let ks: [u8; 37] = core::array::from_fn(|i| (i * 13 + 1) as u8);
        let want: [u8; 37] = core::array::from_fn(|i| input[i] ^ ks[i]);
        for mid in 0..=37 {
            let mut in_place = input;
            let (mut a, mut b) = XorBuf::from(&mut in_place[..]).split_at(mid);
            assert_eq!(a.get_in(), &input[..mid]);
            a.xor_in2out(&ks[..mid]);
            b.xor_in2out(&ks[mid..]);
            assert_eq!(in_place, want, "in place, split at {mid}");

            let mut out = [0u8; 37];
            let (mut a, mut b) = XorBuf::new(&input, &mut out).unwrap().split_at(mid);
            assert_eq!(b.get_in(), &input[mid..]);
            assert_eq!(a.len() + b.len(), 37);
            a.reborrow().xor_in2out(&ks[..mid]);
            b.xor_in2out(&ks[mid..]);
            assert_eq!(out, want, "buffer to buffer, split at {mid}");
        }
    }

    #[test]
    fn lengths_must_match() {
        let err = XorBuf::new(&[0; 3], &mut [0; 4]).unwrap_err();
        assert_eq!(err, LengthMismatch);
        assert_eq!(err.to_string(), "the input and output buffers differ in length");
        let mut out = [0u8; 4];
        let buf = XorBuf::new(&[1; 4], &mut out).unwrap();
        assert!(!buf.is_in_place() && !buf.is_empty());
        assert_eq!(format!("{buf:?}"), "XorBuf { len: 4, in_place: false }");
        let mut data = [2u8; 3];
        let buf = XorBuf::from(&mut data[..]);
        assert!(buf.is_in_place());
        assert_eq!(format!("{buf:?}"), "XorBuf { len: 3, in_place: true }");
        assert!(XorBuf::from(&mut data[..0]).is_empty());
    }

    #[test]
    fn the_output_is_the_output_slice() {
        let mut out = [0u8; 5];
        let mut buf = XorBuf::new(&[9; 5], &mut out).unwrap();
        buf.get_out()[1] = 7;
        assert_eq!(buf.get_in(), &[9; 5]);
        buf.into_out()[2] = 8;
        assert_eq!(out, [0, 7, 8, 0, 0]);
        let mut data = [1u8; 4];
        let mut buf = XorBuf::from(&mut data[..]);
        buf.get_out()[0] = 3;
        assert_eq!(buf.get_in(), &[3, 1, 1, 1], "in place, the input is the output");
        buf.into_out()[3] = 4;
        assert_eq!(data, [3, 1, 1, 4]);
    }

    #[test]
    fn raw_parts_are_the_slices() {
        let mut data = [0u8; 8];
        let p = data.as_ptr();
        let (i, o) = XorBuf::from(&mut data[..]).into_raw();
        assert_eq!((i, o.cast_const()), (p, p));
        let input = [0u8; 8];
        let mut out = [0u8; 8];
        let (i, o) = XorBuf::new(&input, &mut out).unwrap().into_raw();
        assert_eq!((i, o.cast_const()), (input.as_ptr(), out.as_ptr()));
    }

    #[test]
    #[should_panic(expected = "keystream and buffer lengths differ")]
    fn xor_of_the_wrong_length_panics() {
        XorBuf::from(&mut [0u8; 4][..]).xor_in2out(&[0; 3]);
    }
}
