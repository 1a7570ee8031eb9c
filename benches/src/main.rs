//! The report: `cargo run --release -p chacha-bench` (`-- --help` for the options).
//!
//! Prints the CPU features and the backend `Backend::detect()` picks, checks that every
//! peer gives our bytes, measures every available backend and every peer at each message
//! size (interleaved rounds; median and min–max), prints a table per workload (GB/s, TSC
//! cycles per byte, ratio to the best peer) and writes `report.csv` and one SVG plot per
//! workload into `--out` (default `target/chacha-report/`). Progress goes to stderr.
//!
//! `args`, `measure` and `output` are this binary's modules; the implementations and the
//! agreement check live in the library, shared with the benches and the tests.
#![forbid(unsafe_code)]

mod args;
mod measure;
mod output;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chacha_bench::{Backend, check_agreement, cpu, implementations};

use crate::args::Options;
use crate::measure::{Progress, measure};

/// `target/chacha-report` of this workspace, wherever the command runs from.
fn default_out() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("target")
        .join("chacha-report")
}

fn main() -> ExitCode {
    let options = match args::parse(std::env::args().skip(1), default_out()) {
        Ok(Some(o)) => o,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}\n\nRun with --help for the options.");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(options: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; run with --release for meaningful figures");
    }

    // The machine.
    let tsc_hz = cpu::tsc_hz(Duration::from_millis(if options.quick { 20 } else { 60 }));
    let cpu_label = cpu::label(tsc_hz);
    println!("# chacha report\n");
    println!("CPU: {cpu_label}");
    let features = cpu::features();
    let seen: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let missing: Vec<&str> = features.iter().filter(|f| !f.1).map(|f| f.0).collect();
    println!(
        "CPU features: {}{}",
        if seen.is_empty() { "none of interest".to_string() } else { seen.join(" ") },
        if missing.is_empty() { String::new() } else { format!(" (not: {})", missing.join(" ")) }
    );
    println!(
        "Backends: detect() picks `{}`; available: {}; compiled in: {}",
        Backend::detect().name(),
        Backend::available().map(Backend::name).collect::<Vec<_>>().join(", "),
        Backend::COMPILED.join(", ")
    );
    match tsc_hz {
        Some(hz) => println!(
            "Cycles per byte are TSC ticks at the measured {:.3} GHz{} (the core clock may run faster)",
            hz / 1e9,
            match cpu::tsc_invariant() {
                Some(true) => ", an invariant TSC",
                Some(false) => ", BUT the TSC is not flagged invariant: treat them with care",
                None => "",
            }
        ),
        None => println!("Cycles per byte: no TSC on this target; only GB/s"),
    }
    println!(
        "Measuring: ours on {}; peers: {}",
        if options.backends.is_empty() {
            "no backend".to_string()
        } else {
            options.backends.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ")
        },
        if options.peers.is_empty() {
            "none".to_string()
        } else {
            options.peers.iter().map(|p| p.label()).collect::<Vec<_>>().join(", ")
        }
    );

    // Same bytes first: every backend and every peer, per variant.
    println!("\n## Same bytes\n");
    let mut variants: Vec<_> = options.workloads.iter().map(|w| w.variant).collect();
    variants.sort();
    variants.dedup();
    let all_backends: Vec<Backend> = Backend::available().collect();
    let mut failed = false;
    for &v in &variants {
        let mut impls = implementations(v, &all_backends, &options.peers);
        let names = impls.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(" = ");
        match check_agreement(&mut impls) {
            Ok(bytes) => println!(
                "- {}: {names}: the same {bytes} bytes (streamed in uneven chunks, and new + apply)",
                v.title()
            ),
            Err(e) => {
                println!("- {}: MISMATCH: {e}", v.title());
                failed = true;
            }
        }
    }
    if failed {
        return Err("an implementation gave different bytes; no figures for a wrong cipher".into());
    }

    // Measure, interleaved.
    let plan: Vec<_> = options.workloads.iter().map(|&w| (w, options.sizes_for(w))).collect();
    let cells_total: usize = plan
        .iter()
        .map(|(w, sizes)| implementations(w.variant, &options.backends, &options.peers).len() * sizes.len())
        .sum();
    if cells_total == 0 {
        return Err("no implementation of the chosen variants among the chosen backends and peers".into());
    }
    let batches = (cells_total * options.rounds) as f64;
    let target = Duration::from_secs_f64((options.seconds / batches).clamp(100e-6, 20e-3));
    eprintln!(
        "measuring {cells_total} (implementation, size) pairs x {} rounds, batches of ~{:.2} ms",
        options.rounds,
        target.as_secs_f64() * 1e3
    );
    let mut progress = Progress::new(cells_total);
    let mut cells = Vec::new();
    for (w, sizes) in &plan {
        let mut impls = implementations(w.variant, &options.backends, &options.peers);
        if impls.is_empty() {
            continue;
        }
        cells.extend(measure(*w, &mut impls, sizes, options.rounds, target, &mut progress));
    }
    progress.finish();

    // Tables.
    let tsc_ghz = tsc_hz.map(|hz| hz / 1e9);
    let mut all_rows = Vec::new();
    for (w, _) in &plan {
        let rows = output::rows(&cells, *w);
        if rows.is_empty() {
            continue;
        }
        println!("\n## {}\n", w.title());
        print!("{}", output::table(&rows));
        all_rows.push((*w, rows));
    }
    println!(
        "\nGB/s = 10^9 bytes/s, median of {} rounds (min–max across rounds); cycles/B = TSC ticks \
         per byte{}; vs best peer = median GB/s over the fastest peer's at that size.",
        options.rounds,
        tsc_ghz.map_or(String::new(), |g| format!(" at {g:.3} GHz"))
    );

    // Files.
    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create the output folder {}: {e}", options.out.display()))?;
    let csv = options.out.join("report.csv");
    output::write_csv(&csv, &all_rows, &cpu_label, tsc_ghz).map_err(|e| format!("{}: {e}", csv.display()))?;
    println!("\nWrote {}", csv.display());
    for (w, rows) in &all_rows {
        let path = output::write_plot(&options.out, *w, rows, &cpu_label, options.rounds)
            .map_err(|e| format!("plot {}: {e}", w.id()))?;
        println!("Wrote {}", path.display());
    }
    eprintln!("report done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
