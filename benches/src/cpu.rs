//! What the machine is: its name, the CPU features the backends care about, and the
//! time-stamp counter (TSC) that "cycles per byte" are counted in.
//!
//! This package keeps `unsafe` to its FFI and placement modules, so it reads the TSC through
//! `criterion-cycles-per-byte`'s safe `Measurement` (an `lfence; rdtsc; lfence`), on x86
//! and x86_64 only. The TSC ticks
//! at a fixed rate, not the core clock: [`tsc_hz`] measures that rate against
//! [`std::time::Instant`], and every figure in TSC ticks says so.

use std::time::{Duration, Instant};

/// The CPU's name from `/proc/cpuinfo` (`model name`, or `Model`/`Hardware` on Arm), else
/// the target architecture.
pub fn model_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    for key in ["model name", "Model", "Hardware"] {
        let found = info.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        });
        if let Some(name) = found {
            return name;
        }
    }
    std::env::consts::ARCH.to_string()
}

/// A label for reports and plots: the model name, with family/model numbers on x86 (a VM
/// often shows only "AMD EPYC"), the logical CPU count and the TSC rate when known.
pub fn label(tsc_hz: Option<f64>) -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let mut label = model_name();
    if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
        label.push_str(&format!(" (family {family}, model {model})"));
    }
    // The machine's CPUs, not the ones this process may use (the report pins itself to
    // one): `processor` entries, else the parallelism std sees.
    let listed =
        info.lines().filter(|line| line.split(':').next().is_some_and(|k| k.trim() == "processor")).count();
    let cpus = if listed > 0 { listed } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
    label.push_str(&format!(", {cpus} logical CPUs"));
    if let Some(hz) = tsc_hz {
        label.push_str(&format!(", TSC {:.2} GHz", hz / 1e9));
    }
    label
}

/// `Some(how)` if this process runs under emulation, so its timings say nothing about the
/// architecture it was built for: the environment variable `CHACHA_EMULATED` (set by
/// `scripts/cross-test.sh` to the emulator's name), or, on a build for a non-x86
/// architecture, a `/proc/cpuinfo` that describes an x86 CPU (qemu user mode passes the
/// host's file through).
pub fn emulated() -> Option<String> {
    if let Some(how) = std::env::var("CHACHA_EMULATED").ok().filter(|v| !v.is_empty()) {
        return Some(format!("{how} (CHACHA_EMULATED)"));
    }
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        return None;
    }
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let x86 = info.lines().any(|line| {
        line.split_once(':').is_some_and(|(k, v)| {
            k.trim() == "vendor_id" && ["GenuineIntel", "AuthenticAMD"].contains(&v.trim())
        })
    });
    x86.then(|| format!("an x86 host's /proc/cpuinfo on a {} build", std::env::consts::ARCH))
}

/// The SIMD features the backends use, each with whether this CPU has it (as
/// `std::arch`'s run-time detection sees it).
pub fn features() -> Vec<(&'static str, bool)> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        vec![
            ("sse2", std::arch::is_x86_feature_detected!("sse2")),
            ("ssse3", std::arch::is_x86_feature_detected!("ssse3")),
            ("avx", std::arch::is_x86_feature_detected!("avx")),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("avx512vl", std::arch::is_x86_feature_detected!("avx512vl")),
            ("avx512bw", std::arch::is_x86_feature_detected!("avx512bw")),
            ("avx512vbmi", std::arch::is_x86_feature_detected!("avx512vbmi")),
        ]
    }
    #[cfg(target_arch = "aarch64")]
    {
        vec![("neon", std::arch::is_aarch64_feature_detected!("neon"))]
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Vec::new()
    }
}

/// Whether `/proc/cpuinfo` says the TSC ticks at a constant rate through frequency changes
/// and sleep (`constant_tsc` and `nonstop_tsc`), so ticks are a clock.
pub fn tsc_invariant() -> Option<bool> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let flags = info.lines().find(|l| l.starts_with("flags"))?;
    let has = |f: &str| flags.split_whitespace().any(|w| w == f);
    Some(has("constant_tsc") && has("nonstop_tsc"))
}

/// The time-stamp counter now, where this build can read it (x86, x86_64).
#[inline(always)]
pub fn tsc() -> Option<u64> {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        use criterion::measurement::Measurement;
        Some(criterion_cycles_per_byte::CyclesPerByte.start())
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        None
    }
}

/// The TSC's rate in ticks per second, measured against [`Instant`] over `window` (best of
/// three, so a preemption in one window does not skew it). `None` where [`tsc`] is.
pub fn tsc_hz(window: Duration) -> Option<f64> {
    let mut rates = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let c0 = tsc()?;
        while t0.elapsed() < window {
            std::hint::spin_loop();
        }
        let c1 = tsc()?;
        let secs = t0.elapsed().as_secs_f64();
        rates.push((c1.wrapping_sub(c0)) as f64 / secs);
    }
    rates.sort_by(f64::total_cmp);
    Some(rates[1])
}

/// Pins the report — this process and its worker processes `workers` (pids) — to the CPU
/// it runs on now (see the README, "Noise on shared machines"): every entrant then runs on
/// that CPU, so a neighbour that slows one CPU slows them all, and no ratio compares two
/// CPUs. Called once the workers are running: the build of a worker's binary before that
/// keeps every CPU. Returns the CPU, or why it could not pin.
pub fn pin_to_current_cpu(workers: &[u32]) -> Result<usize, String> {
    crate::ffi::pin_to_current_cpu(workers)
}
