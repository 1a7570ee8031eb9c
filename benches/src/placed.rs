//! Where the timed loops sit in the code, so a row measures the code and not where the
//! linker put it.
//!
//! A loop of a few instructions around a value that goes through memory (an RNG's buffer
//! index, loaded, incremented and stored on every call) runs at one speed or another by
//! where the loop starts within a 64-byte line: the same loop of `next_u32` calls differed
//! by more than any change we measure across the four 16-byte starts on one CPU (the
//! figures: `benches/README.md` § Where the timed loops sit). A user's loop sits wherever their build puts it, so every timed loop here runs
//! at all four: [`at_four!`] splits a batch's calls into four equal parts, one per copy of
//! the loop, and copy `P` starts `16·P` bytes (mod 64) later than copy 0. A batch's time is
//! then the mean over the four placements, the same for every implementation.

/// The placements of each timed loop: four 16-byte steps of a 64-byte line.
pub const PLACES: usize = 4;

/// Moves the code after it to a 64-byte boundary plus `16·P` bytes (nothing else: no
/// memory, stack or flags). Loop copies that differ only in `P` then start at the four
/// 16-byte positions of a line, LLVM aligning loop heads to 16 bytes. The padding runs once
/// per loop, not per iteration.
#[inline(always)]
pub fn pad<const P: usize>() {
    // One `nop` is 1 byte on x86 and 4 on the 64-bit Arm and RISC-V targets.
    const NOP_BYTES: usize = if cfg!(any(target_arch = "x86", target_arch = "x86_64")) { 1 } else { 4 };
    // SAFETY: the assembly is alignment padding and `nop`s: it reads and writes no memory,
    // touches neither the stack nor the flags, and falls through to the next instruction.
    unsafe {
        core::arch::asm!(
            ".p2align 6",
            ".rept {n}",
            "nop",
            ".endr",
            n = const 16 * P / NOP_BYTES,
            options(nomem, nostack, preserves_flags),
        );
    }
}

/// `calls` calls from `first` on, in four consecutive parts `(first, calls)`, one per place
/// (the remainder in the first).
pub fn split(first: u64, calls: u64) -> [(u64, u64); PLACES] {
    let part = calls / PLACES as u64;
    let head = calls - part * (PLACES as u64 - 1);
    [(first, head), (first + head, part), (first + head + part, part), (first + head + 2 * part, part)]
}

/// Runs a timed loop at every place: `at_four!(first, calls, |first, calls, P| loop)`
/// expands `loop` four times with `P` a constant 0–3, each for its part of the calls
/// ([`split`]); the loop function starts with [`pad::<P>()`](pad) and is `#[inline(never)]`.
macro_rules! at_four {
    ($first:expr, $calls:expr, |$f:ident, $n:ident, $p:ident| $body:expr) => {{
        let parts = $crate::placed::split($first, $calls);
        $crate::placed::at_four!(@at parts[0], 0, |$f, $n, $p| $body);
        $crate::placed::at_four!(@at parts[1], 1, |$f, $n, $p| $body);
        $crate::placed::at_four!(@at parts[2], 2, |$f, $n, $p| $body);
        $crate::placed::at_four!(@at parts[3], 3, |$f, $n, $p| $body);
    }};
    (@at $part:expr, $place:literal, |$f:ident, $n:ident, $p:ident| $body:expr) => {{
        let ($f, $n) = $part;
        const $p: usize = $place;
        $body
    }};
}

pub(crate) use at_four;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_every_call_once_in_order() {
        for (first, calls) in [(0, 0), (5, 1), (0, 3), (7, 4), (1, 10), (100, 1_000_003)] {
            let parts = split(first, calls);
            assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), calls, "{first} {calls}");
            let mut next = first;
            for (start, n) in parts {
                assert_eq!(start, next, "{first} {calls}");
                next += n;
            }
            assert!(parts[1..].iter().all(|p| p.1 == calls / 4));
        }
    }
}
