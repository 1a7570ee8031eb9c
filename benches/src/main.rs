//! The report: `cargo run --release -p chacha-bench` (`-- --help` for the options).
//!
//! Prints the CPU features and the backend `Backend::detect()` picks, says which peers
//! run here, which in a worker process (`remote`, `worker`) and which are skipped and why,
//! checks that every peer gives our bytes, measures every available backend and every peer
//! at each message size (interleaved rounds across the processes; median and min–max),
//! prints a table per workload (GB/s, TSC cycles per byte and per call, ratio to the best
//! peer) and a summary of where `detect()`'s backend stands, and writes `report.md`,
//! `report.csv` and one SVG plot per workload into `--out` (default
//! `target/chacha-report/`). Progress goes to stderr.
//!
//! `args`, `measure`, `output`, `remote` and `worker` are this binary's modules; the
//! implementations and the agreement check live in the library, shared with the benches
//! and the tests.
#![forbid(unsafe_code)]

mod args;
mod measure;
mod output;
mod remote;
mod worker;

use std::cell::RefCell;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use chacha_bench::{Backend, OURS, Peer, Workload, compare, cpu, implementations, transcript};

use crate::args::Options;
use crate::measure::{Entrant, Local, Progress, measure};
use crate::remote::{Remote, WorkerProcess};

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
    let result =
        if options.worker { worker::serve(&options.peers).map_err(Into::into) } else { run(&options) };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One workload to measure: its points and its entrants.
type Plan = (Workload, Vec<chacha_bench::Point>, Vec<Box<dyn Entrant>>);

/// Prints `text` and keeps it for `report.md`.
struct Out(String);

impl Out {
    fn say(&mut self, text: &str) {
        println!("{text}");
        self.0.push_str(text);
        self.0.push('\n');
    }
}

fn run(options: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; run with --release for meaningful figures");
    }
    let mut out = Out(String::new());

    // The machine.
    let tsc_hz = cpu::tsc_hz(Duration::from_millis(if options.quick { 20 } else { 60 }));
    let cpu_label = cpu::label(tsc_hz);
    out.say("# chacha report\n");
    out.say(&format!("CPU: {cpu_label}"));
    if let Some(how) = cpu::emulated() {
        out.say(&format!(
            "**Emulated** ({how}): the CPU above is the host's; every timing below is the \
             emulator's and means nothing about this architecture (the byte checks still hold)"
        ));
    }
    let features = cpu::features();
    let seen: Vec<&str> = features.iter().filter(|f| f.1).map(|f| f.0).collect();
    let missing: Vec<&str> = features.iter().filter(|f| !f.1).map(|f| f.0).collect();
    out.say(&format!(
        "CPU features: {}{}",
        if seen.is_empty() { "none of interest".to_string() } else { seen.join(" ") },
        if missing.is_empty() { String::new() } else { format!(" (not: {})", missing.join(" ")) }
    ));
    let detected = Backend::detect();
    out.say(&format!(
        "Backends: detect() picks `{}`; available: {}; compiled in: {}",
        detected.name(),
        Backend::available().map(Backend::name).collect::<Vec<_>>().join(", "),
        Backend::COMPILED.join(", ")
    ));
    match tsc_hz {
        Some(hz) => out.say(&format!(
            "Cycles per byte are TSC ticks at the measured {:.3} GHz{} (the core clock may run faster)",
            hz / 1e9,
            match cpu::tsc_invariant() {
                Some(true) => ", an invariant TSC",
                Some(false) => ", BUT the TSC is not flagged invariant: treat them with care",
                None => "",
            }
        )),
        None => out.say("Cycles per byte: no TSC on this target; only GB/s"),
    }

    // The peers: which run here, which in a worker process, which are skipped and why.
    let wanted: Vec<Peer> = options
        .peers
        .iter()
        .copied()
        .filter(|p| options.workloads.iter().any(|w| w.offered_by(*p)))
        .collect();
    let mut local_peers = Vec::new();
    let mut workers: Vec<Rc<RefCell<WorkerProcess>>> = Vec::new();
    let mut notes = Vec::new();
    for &peer in &wanted {
        if let Some(why) = peer.unavailable() {
            notes.push(format!("- skipped {}: {why}", peer.label()));
        } else if peer.in_process() {
            local_peers.push(peer);
        } else {
            match remote::start(peer) {
                Ok((worker, how)) => {
                    notes.push(format!("- {} runs in {how}", peer.label()));
                    workers.push(Rc::new(RefCell::new(worker)));
                }
                Err(why) => notes.push(format!("- skipped {}: {why}", peer.label())),
            }
        }
    }
    // The parallel workloads' pool first: its threads inherit the affinity of the thread
    // that makes them, so made after the pinning below they would all share its one CPU.
    let parallel =
        options.workloads.iter().any(|w| matches!(w, Workload::ParCipher(_) | Workload::ParRng(_)));
    if parallel {
        out.say(&format!(
            "Parallel workloads: rayon's global pool of {} threads (made before the pinning below, \
             so its threads run on every CPU; the calling thread, pinned, takes pieces beside them)",
            chacha_bench::par_threads()
        ));
    }
    // One CPU for every entrant from here on: this process and the workers (once they run,
    // so that building a worker's binary above had every CPU).
    let pids: Vec<u32> = workers.iter().map(|w| w.borrow().pid()).collect();
    let pinned = match cpu::pin_to_current_cpu(&pids) {
        Ok(n) => format!("Pinned to CPU {n}: every entrant runs there, those in worker processes too"),
        Err(why) => format!("Not pinned to a CPU ({why}): entrants may run on different CPUs"),
    };
    out.say(&format!(
        "Measuring: ours on {}; peers: {}",
        if options.backends.is_empty() {
            "nothing".to_string()
        } else {
            format!(
                "`{OURS}` (the constructors users call) and with_backend on {}",
                options.backends.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ")
            )
        },
        {
            let mut names: Vec<String> = local_peers.iter().map(|p| p.label()).collect();
            names.extend(workers.iter().map(|w| w.borrow().peer.label()));
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        }
    ));
    out.say(&pinned);
    if std::env::var_os("OPENSSL_ia32cap").is_some() {
        notes.push("- note: OPENSSL_ia32cap is set in this environment, so the `openssl` rows are not OpenSSL's default path".into());
    }
    for note in &notes {
        out.say(note);
    }

    // Same bytes first: every backend and every peer, per workload.
    out.say("\n## Same bytes\n");
    let all_backends: Vec<Backend> = Backend::available().collect();
    let mut failed = false;
    for &w in &options.workloads {
        let mut list: Vec<(String, Vec<u8>)> = implementations(w, &all_backends, &local_peers)
            .iter_mut()
            .map(|e| (e.name().to_string(), transcript(w, e)))
            .collect();
        for worker in workers.iter().filter(|wk| w.offered_by(wk.borrow().peer)) {
            let mut worker = worker.borrow_mut();
            let label = worker.peer.label();
            for t in worker.transcripts(w)? {
                list.push((label.clone(), t));
            }
        }
        let names = list.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" = ");
        let what = match w {
            Workload::Cipher { .. } => "streamed in uneven chunks, and new + apply",
            Workload::Rng(_) => "a mix of fill_bytes, next_u32 and next_u64",
            Workload::RngSetup(_) => "next_u32 after seed_from_u64 of 5 states and after 11 set_word_pos",
            Workload::Aead { open: false, .. } => "8 messages of 0 to 4103 bytes sealed: ciphertext and tag",
            Workload::Aead { open: true, .. } => {
                "8 messages of 0 to 4103 bytes sealed, opened in place, and refused with a forged tag"
            }
            Workload::Poly1305 => "the tags of 12 messages of 0 to 4103 bytes, each under its own key",
            Workload::Chunked(chacha_bench::ChunkedOp::SecretStreamPull) => {
                "6 streams of 0 to 200 KiB pushed, pulled, and refused with a changed MAC byte"
            }
            Workload::Chunked(_) => "6 streams of 0 to 200 KiB sealed in 64 KiB chunks",
            Workload::ParCipher(_) => "streamed in uneven chunks, and new + apply",
            Workload::ParRng(_) => "a mix of fill_bytes, next_u32 and next_u64",
        };
        match compare(w, &list) {
            Ok(bytes) => out.say(&format!("- {}: {names}: the same {bytes} bytes ({what})", w.id())),
            Err(e) => {
                out.say(&format!("- {}: MISMATCH: {e}", w.id()));
                failed = true;
            }
        }
    }
    if failed {
        return Err("an implementation gave different bytes; no figures for a wrong cipher".into());
    }

    // The entrants of each workload: ours and the in-process peers, then the workers'.
    let mut plan: Vec<Plan> = Vec::new();
    for &w in &options.workloads {
        let mut entrants: Vec<Box<dyn Entrant>> = implementations(w, &options.backends, &local_peers)
            .into_iter()
            .map(|e| Box::new(Local::new(e)) as Box<dyn Entrant>)
            .collect();
        for worker in workers.iter().filter(|wk| w.offered_by(wk.borrow().peer)) {
            let (count, label) = {
                let mut wk = worker.borrow_mut();
                (wk.entrant_count(w)?, wk.peer.label())
            };
            for index in 0..count {
                entrants.push(Box::new(Remote::new(Rc::clone(worker), label.clone(), index)));
            }
        }
        if !entrants.is_empty() {
            plan.push((w, options.points_for(w), entrants));
        }
    }
    let cells_total: usize = plan.iter().map(|(_, points, entrants)| points.len() * entrants.len()).sum();
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
    for (w, points, entrants) in &mut plan {
        cells.extend(measure(*w, entrants, points, options.rounds, target, &mut progress)?);
    }
    progress.finish();
    drop(plan);
    drop(workers);

    // Tables.
    let tsc_ghz = tsc_hz.map(|hz| hz / 1e9);
    let mut all_rows = Vec::new();
    for &w in &options.workloads {
        let rows = output::rows(&cells, w);
        if rows.is_empty() {
            continue;
        }
        out.say(&format!("\n## {}\n", w.title()));
        out.say(output::table(&rows).trim_end());
        all_rows.push((w, rows));
    }
    out.say(&format!(
        "\nGB/s = 10^9 bytes/s, median of {} rounds (min–max across rounds); cycles/B = TSC ticks \
         per byte{}; TSC ticks/call = per message, per fill_bytes, per next_u32 or next_u64 call, per \
         work item (a seed or a seek, then one next_u32); vs best peer = median GB/s over the fastest \
         peer's at that size. Rows of ours: `{OURS} (new)`, `{OURS} (from_seed)` and `{OURS} \
         (seed_from_u64)` build every instance with the constructor users call (`KeyIvInit::new`, \
         `SeedableRng::from_seed`, `seed_from_u64`), which picks the backend (`{}` here); \
         `BACKEND (with_backend)` rows build it on that one backend, picked once; \
         `{} (ours)` is the published AEAD over our chacha20 and poly1305.",
        options.rounds,
        tsc_ghz.map_or(String::new(), |g| format!(" at {g:.3} GHz")),
        detected.name(),
        Peer::ChaCha20Poly1305Patched.label(),
    ));
    out.say(&format!(
        "\n## Summary: what users call (`{OURS}`, on `{}`; the AEAD over our chacha20 and poly1305) against the best peer at each size\n",
        detected.name()
    ));
    out.say(&format!(
        "Smallest … largest ratio of its median GB/s to the fastest peer's, across the sizes of each workload \
         (above 1 = faster than every peer there).\n\n{}",
        output::summary(&all_rows).trim_end()
    ));
    for (w, rows) in all_rows.iter().filter(|(w, _)| matches!(w, Workload::Aead { .. })) {
        let table = output::ratios_to_peers(*w, rows, &Peer::ChaCha20Poly1305.label());
        if !table.is_empty() {
            out.say(&format!(
                "\n## {}: the published AEAD over our chacha20 and poly1305 against each peer\n\n\
                 Median GB/s of `{}` over each one's, per size (above 1 = ours faster); the \
                 first column, `{}`, is the same AEAD crate over the published chacha20.\n\n{}",
                w.id(),
                w.users_row(),
                Peer::ChaCha20Poly1305.label(),
                table.trim_end()
            ));
        }
    }

    // Files.
    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot create the output folder {}: {e}", options.out.display()))?;
    let csv = options.out.join("report.csv");
    output::write_csv(&csv, &all_rows, &cpu_label, tsc_ghz).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut written = vec![csv];
    for (w, rows) in &all_rows {
        let path = output::write_plot(&options.out, *w, rows, &cpu_label, options.rounds)
            .map_err(|e| format!("plot {}: {e}", w.id()))?;
        written.extend(path);
    }
    let md = options.out.join("report.md");
    let mut text = out.0.clone();
    let _ = writeln!(
        text,
        "\nPlots: {}",
        written[1..]
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| format!("`{}`", n.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    std::fs::write(&md, text).map_err(|e| format!("{}: {e}", md.display()))?;
    println!();
    for path in [&md].into_iter().chain(&written) {
        println!("Wrote {}", path.display());
    }
    eprintln!("report done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
