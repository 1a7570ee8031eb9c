//! The three valgrind client requests this program makes: the only `unsafe` code in it.
//!
//! A client request is valgrind.h's `VALGRIND_DO_CLIENT_REQUEST_EXPR` for amd64: `rax`
//! points at six words (request code and five arguments), the "special instruction
//! preamble" (four rotates of `rdi` by 3 + 13 + 61 + 51 = 128 bits, so `rdi` ends where it
//! started) followed by `xchg rbx, rbx` tells valgrind's JIT to serve the request, and the
//! result comes back in `rdx`. On a real CPU the sequence does nothing and `rdx` keeps the
//! default, so outside valgrind every request returns its default.
//!
//! Written here rather than taken from the `crabgrind` crate: that crate generates its
//! bindings with `bindgen` (libclang on every CI machine, and a long build) to call the same
//! instruction sequence through C; this program needs three requests.

/// `VG_USERREQ__RUNNING_ON_VALGRIND` (valgrind.h).
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ_TOOL_BASE('M', 'C')` (valgrind.h): memcheck's requests.
const MEMCHECK_BASE: usize = (b'M' as usize) << 24 | (b'C' as usize) << 16;
/// `VG_USERREQ__MAKE_MEM_UNDEFINED` (memcheck.h).
const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED` (memcheck.h).
const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;

/// Makes request `code` with two arguments; `default` outside valgrind.
fn request(default: usize, code: usize, arg1: usize, arg2: usize) -> usize {
    let args: [usize; 6] = [code, arg1, arg2, 0, 0, 0];
    let result;
    // SAFETY: on the CPU the instructions change only `rdi` (declared clobbered; rotated by
    // 128 bits in all, so in fact unchanged), `rdx` (the result operand) and the flags, and
    // touch no memory. Under valgrind the request reads the six words at `rax`, which `args`
    // holds for the whole statement, and the requests made here (see the constants) change
    // only valgrind's own bookkeeping, never this program's memory or registers other than
    // `rdx`.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") default => result,
            out("rdi") _,
            options(nostack),
        );
    }
    result
}

/// Whether this process runs under valgrind (any tool).
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
}

/// Marks `bytes` as undefined for memcheck: from here on, a conditional jump, a conditional
/// move or a memory address computed from them is reported. Their values do not change.
pub fn make_undefined(bytes: &mut [u8]) {
    request(0, MAKE_MEM_UNDEFINED, bytes.as_mut_ptr() as usize, bytes.len());
}

/// Marks `bytes` as defined again (the program's results, before it compares them).
pub fn make_defined(bytes: &mut [u8]) {
    request(0, MAKE_MEM_DEFINED, bytes.as_mut_ptr() as usize, bytes.len());
}
