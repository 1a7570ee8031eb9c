//! CPUID faulting through `arch_prctl`: the only `unsafe` of this package.

/// `arch_prctl` codes (Linux `asm/prctl.h`).
const ARCH_GET_CPUID: libc::c_long = 0x1011;
const ARCH_SET_CPUID: libc::c_long = 0x1012;

/// From now on, CPUID in this thread raises `SIGSEGV`.
pub fn arm() -> Result<(), String> {
    set(0)?;
    // SAFETY: ARCH_GET_CPUID takes no pointer; it returns 0 when CPUID faults.
    let now = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_GET_CPUID, 0) };
    if now == 0 { Ok(()) } else { Err(format!("ARCH_GET_CPUID says {now} after arming")) }
}

/// CPUID executes again.
pub fn disarm() {
    set(1).expect("CPUID faulting was armed, so it can be disarmed");
}

fn set(enabled: libc::c_long) -> Result<(), String> {
    // SAFETY: ARCH_SET_CPUID takes an integer argument, no pointer; it changes only
    // whether CPUID faults in this thread.
    let r = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_SET_CPUID, enabled) };
    if r == 0 {
        Ok(())
    } else {
        Err(format!("arch_prctl(ARCH_SET_CPUID, {enabled}): {}", std::io::Error::last_os_error()))
    }
}

/// One CPUID (the `--control` run).
pub fn execute_cpuid() {
    // `__cpuid` is a safe function in recent Rust and an unsafe one in the MSRV's (1.89).
    #[allow(unused_unsafe)]
    // SAFETY: every x86_64 CPU has CPUID.
    let leaf0 = unsafe { core::arch::x86_64::__cpuid(0) };
    std::hint::black_box(leaf0);
}
