//! `chacha-cpuid-guard`: no public entry point of the fronts executes CPUID after the
//! first call in a process.
//!
//! CPUID is serialising, and on a virtual machine it traps to the hypervisor (thousands of
//! cycles): one per `ChaCha20::new` made a fresh 64-byte message 65× slower than the
//! published crate's. Detection must run once per process. A timed test could not tell
//! one CPUID from noise, so this program makes CPUID *fault* instead: Linux's
//! `arch_prctl(ARCH_SET_CPUID, 0)` (CPUID faulting, which the kernel offers where the CPU
//! or the hypervisor does) turns every later CPUID of this thread into `SIGSEGV`.
//!
//! 1. Warm-up: every entry point once, so each one-time probe runs (CPUID allowed).
//! 2. Armed: CPUID faults. Every entry point again, [`ROUNDS`] times, on every backend of
//!    `Backend::available()` and through the defaults (`new`, `from_seed`, …).
//! 3. Prints the number of calls and exits 0. A CPUID anywhere in between kills the
//!    process with `SIGSEGV` (exit status 139 from a shell), which fails the CI stage.
//!
//! `--control` executes one CPUID after arming, and must die: `scripts/cpuid-guard.sh`
//! runs it expecting the signal, so the guard is shown to be able to fail. Where the
//! kernel refuses CPUID faulting, the program says so and exits 2 (the script then counts
//! CPUID instructions with gdb breakpoints instead).

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod fault;

mod calls;

use std::process::ExitCode;

/// Calls of each entry point while armed, per backend.
const ROUNDS: usize = 200;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn main() -> ExitCode {
    let control = std::env::args().any(|a| a == "--control");
    let gdb = std::env::args().any(|a| a == "--gdb");
    let warm = calls::every_entry_point(1);
    if gdb {
        // Under gdb (the fallback): the script breaks on every CPUID instruction of this
        // binary once `armed` is reached.
        calls::armed();
    } else if let Err(why) = fault::arm() {
        eprintln!("chacha-cpuid-guard: CPUID faulting is not available here: {why}");
        return ExitCode::from(2);
    }
    if control {
        // Must not return: the script expects this process to die here.
        fault::execute_cpuid();
        eprintln!("chacha-cpuid-guard --control: CPUID executed without a fault");
        return ExitCode::FAILURE;
    }
    let armed = calls::every_entry_point(ROUNDS);
    if !gdb {
        fault::disarm();
    }
    println!(
        "no CPUID in {armed} calls of the public entry points after the first {warm} ({})",
        if gdb { "gdb breakpoints on every CPUID" } else { "CPUID faulting armed" }
    );
    ExitCode::SUCCESS
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn main() -> ExitCode {
    eprintln!("chacha-cpuid-guard needs Linux on x86_64 (arch_prctl, CPUID)");
    ExitCode::FAILURE
}
