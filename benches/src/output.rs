//! The report's outputs: the tables (Markdown, printed and written to `report.md`), the
//! summary of where ours stands and the ratios of ours to each peer, the CSV, and one SVG
//! plot per workload of message sizes (plotters, SVG backend: no system fonts needed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chacha_bench::{Backend, OURS, Point, Workload, format_size};
use plotters::prelude::*;

use crate::measure::{Cell, Stats};

/// One row: a cell's statistics and its ratio to the best peer at its size.
#[derive(Debug)]
pub struct Row<'a> {
    pub cell: &'a Cell,
    pub gbps: Stats,
    pub ticks: Option<Stats>,
    /// Median GB/s over the best peer's median GB/s at this size.
    pub vs_best_peer: Option<f64>,
}

/// The rows of one workload, by point then in measuring order.
pub fn rows<'a>(cells: &'a [Cell], workload: Workload) -> Vec<Row<'a>> {
    let mine: Vec<&Cell> = cells.iter().filter(|c| c.workload == workload).collect();
    mine.iter()
        .map(|&cell| {
            let gbps = Stats::of(&cell.gbps).expect("at least one round");
            let best_peer = mine
                .iter()
                .filter(|c| !c.ours && c.point == cell.point)
                .filter_map(|c| Stats::of(&c.gbps))
                .map(|s| s.median)
                .max_by(f64::total_cmp);
            Row {
                cell,
                gbps,
                ticks: Stats::of(&cell.ticks_per_byte),
                vs_best_peer: best_peer.map(|best| gbps.median / best),
            }
        })
        .collect()
}

fn gb(x: f64) -> String {
    if x < 1.0 {
        format!("{x:.3}")
    } else if x < 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}

/// How the row was built, for ours: the user's constructor for [`OURS`] (`new`,
/// `from_seed`, `seed_from_u64`), `with_backend` for a backend's; `None` for a peer and for
/// the published AEAD over ours.
fn constructor(cell: &Cell) -> Option<&'static str> {
    if !cell.ours {
        None
    } else if cell.name == OURS || cell.name == chacha_bench::ours_par_name() {
        cell.workload.ours_constructor(cell.point)
    } else if Backend::COMPILED.contains(&cell.name.as_str()) {
        Some("with_backend")
    } else {
        None
    }
}

/// `ours (new)`, `avx2 (with_backend)`, `chacha20poly1305-0.11-patched (ours)`, or a peer's
/// name.
fn display_name(cell: &Cell) -> String {
    match constructor(cell) {
        Some(how) => format!("{} ({how})", cell.name),
        None if cell.ours => format!("{} (ours)", cell.name),
        None => cell.name.clone(),
    }
}

/// TSC ticks per call (per message, per `next_u32`, …), from the median per byte.
fn ticks_per_call(r: &Row<'_>) -> Option<f64> {
    r.ticks.map(|t| t.median * r.cell.point.bytes() as f64)
}

/// A Markdown table with padded columns.
pub fn table(rows: &[Row<'_>]) -> String {
    const N: usize = 7;
    let header = [
        "size",
        "implementation",
        "GB/s",
        "min–max GB/s",
        "cycles/B (TSC)",
        "TSC ticks/call",
        "vs best peer",
    ];
    let mut lines: Vec<[String; N]> = Vec::new();
    for r in rows {
        lines.push([
            r.cell.point.label(),
            display_name(r.cell),
            gb(r.gbps.median),
            format!("{}–{}", gb(r.gbps.min), gb(r.gbps.max)),
            r.ticks.map_or("–".into(), |t| format!("{:.2}", t.median)),
            ticks_per_call(r)
                .map_or("–".into(), |t| if t < 100.0 { format!("{t:.1}") } else { format!("{t:.0}") }),
            r.vs_best_peer.map_or("–".into(), |v| format!("{v:.2}×")),
        ]);
    }
    let width = |i: usize| {
        lines.iter().map(|l| l[i].chars().count()).chain([header[i].chars().count()]).max().unwrap_or(0)
    };
    let widths: Vec<usize> = (0..N).map(width).collect();
    let right = [true, false, true, true, true, true, true];
    let fmt_line = |cols: &[String]| {
        let mut s = String::from("|");
        for (i, c) in cols.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if right[i] {
                let _ = write!(s, " {}{c} |", " ".repeat(pad));
            } else {
                let _ = write!(s, " {c}{} |", " ".repeat(pad));
            }
        }
        s
    };
    let mut out = fmt_line(&header.map(String::from));
    out.push('\n');
    out.push('|');
    for (i, w) in widths.iter().enumerate() {
        let dashes = "-".repeat(w.saturating_sub(1).max(2));
        if right[i] {
            let _ = write!(out, " {dashes}: |");
        } else {
            let _ = write!(out, " :{dashes} |");
        }
    }
    out.push('\n');
    for l in &lines {
        out.push_str(&fmt_line(l));
        out.push('\n');
    }
    out
}

/// One line per workload: the smallest and the largest ratio of what users call
/// ([`Workload::users_row`]) to the best peer across the workload's points, with where and
/// against whom; or why there is none.
pub fn summary(all: &[(Workload, Vec<Row<'_>>)]) -> String {
    let mut out = String::new();
    for (w, rows) in all {
        let ours = w.users_row();
        let mine: Vec<&Row<'_>> = rows.iter().filter(|r| r.cell.ours && r.cell.name == ours).collect();
        let best_at = |r: &Row<'_>| {
            rows.iter()
                .filter(|p| !p.cell.ours && p.cell.point == r.cell.point)
                .max_by(|a, b| a.gbps.median.total_cmp(&b.gbps.median))
                .map(|p| p.cell.name.clone())
                .unwrap_or_default()
        };
        let with_ratio: Vec<(&Row<'_>, f64)> =
            mine.iter().filter_map(|r| r.vs_best_peer.map(|v| (*r, v))).collect();
        let lo = with_ratio.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let hi = with_ratio.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let line = match (lo, hi) {
            (Some(&(lr, lv)), Some(&(hr, hv))) => format!(
                "{lv:.2}× ({}, vs {}) … {hv:.2}× ({}, vs {})",
                lr.cell.point.label(),
                best_at(lr),
                hr.cell.point.label(),
                best_at(hr)
            ),
            _ if mine.is_empty() => format!("`{ours}` was not measured"),
            _ => "no peer measured".to_string(),
        };
        let _ = writeln!(out, "- {}: {line}", w.id());
    }
    out
}

/// A Markdown table: at each point of `rows`, the median GB/s of what users call
/// ([`Workload::users_row`]) over each peer's, a column per peer, `first` (if measured)
/// leftmost; empty without that row or without peers.
pub fn ratios_to_peers(workload: Workload, rows: &[Row<'_>], first: &str) -> String {
    let ours = workload.users_row();
    let mut peers: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| !r.cell.ours) {
        if !peers.contains(&r.cell.name.as_str()) {
            peers.push(&r.cell.name);
        }
    }
    peers.sort_by_key(|p| *p != first);
    let mine: Vec<&Row<'_>> = rows.iter().filter(|r| r.cell.ours && r.cell.name == ours).collect();
    if mine.is_empty() || peers.is_empty() {
        return String::new();
    }
    let mut out = String::from("| size |");
    for p in &peers {
        let _ = write!(out, " vs {p} |");
    }
    out.push_str("\n|---:|");
    out.push_str(&"---:|".repeat(peers.len()));
    out.push('\n');
    for r in mine {
        let _ = write!(out, "| {} |", r.cell.point.label());
        for p in &peers {
            match rows.iter().find(|q| q.cell.name == *p && q.cell.point == r.cell.point) {
                Some(q) => {
                    let _ = write!(out, " {:.2}× |", r.gbps.median / q.gbps.median);
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    out
}

/// The CSV: one row per (workload, implementation, point).
pub fn write_csv(
    path: &Path,
    all: &[(Workload, Vec<Row<'_>>)],
    cpu: &str,
    tsc_ghz: Option<f64>,
) -> std::io::Result<()> {
    let mut s = String::from(
        "workload,variant,new_instance_per_message,call,implementation,origin,constructor,size_bytes,\
         calls_per_batch,rounds,gbps_median,gbps_min,gbps_max,tsc_cycles_per_byte_median,\
         tsc_cycles_per_byte_min,tsc_cycles_per_byte_max,tsc_ticks_per_call_median,\
         ratio_to_best_peer,tsc_ghz,cpu\n",
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
    for (w, rows) in all {
        for r in rows {
            let (variant, fresh) = match w {
                Workload::Cipher { variant, fresh } => (variant.id(), fresh.to_string()),
                Workload::Rng(v) | Workload::RngSetup(v) => (v.id(), String::new()),
                Workload::Aead { algorithm, .. } => (algorithm.id(), String::new()),
                Workload::Poly1305 => ("poly1305", String::new()),
                Workload::Chunked(op) => (op.id(), String::new()),
                Workload::ParCipher(variant) => (variant.id(), false.to_string()),
                Workload::ParRng(v) => (v.id(), String::new()),
            };
            let par = matches!(w, Workload::ParCipher(_) | Workload::ParRng(_))
                && r.cell.name == chacha_bench::ours_par_name();
            let call = match (w, r.cell.point) {
                (_, Point::SeedU32) => "seed_from_u64+next_u32",
                (_, Point::SeekU32) => "set_word_pos+next_u32",
                (_, Point::NextU32) => "next_u32",
                (_, Point::NextU64) => "next_u64",
                (Workload::Rng(_) | Workload::RngSetup(_), Point::Bytes(_)) => "fill_bytes",
                (Workload::Cipher { fresh: true, .. }, _) => "new_apply_keystream",
                (Workload::Cipher { fresh: false, .. }, _) => "apply_keystream",
                (Workload::Aead { open: false, .. }, _) => "seal_in_place_detached",
                (Workload::Aead { open: true, .. }, _) => "open_in_place_detached",
                (Workload::Poly1305, _) => "poly1305_one_shot",
                (Workload::Chunked(chacha_bench::ChunkedOp::SecretStreamPush), _) => "push_in_place_64k",
                (Workload::Chunked(chacha_bench::ChunkedOp::SecretStreamPull), _) => "pull_to_64k",
                (Workload::Chunked(chacha_bench::ChunkedOp::StreamSeal), _) => "encrypt_next_in_place_64k",
                (Workload::ParCipher(_), _) if par => "par_apply_keystream",
                (Workload::ParCipher(_), _) => "apply_keystream",
                (Workload::ParRng(_), _) if par => "par_fill_bytes",
                (Workload::ParRng(_), _) => "fill_bytes",
            };
            let _ = writeln!(
                s,
                "{},{variant},{fresh},{call},{},{},{},{},{},{},{:.4},{:.4},{:.4},{},{},{},{},{},{},\"{}\"",
                w.id(),
                r.cell.name,
                if r.cell.ours { "ours" } else { "peer" },
                constructor(r.cell).unwrap_or(""),
                r.cell.point.bytes(),
                r.cell.messages,
                r.cell.gbps.len(),
                r.gbps.median,
                r.gbps.min,
                r.gbps.max,
                opt(r.ticks.map(|t| t.median)),
                opt(r.ticks.map(|t| t.min)),
                opt(r.ticks.map(|t| t.max)),
                opt(ticks_per_call(r)),
                opt(r.vs_best_peer),
                opt(tsc_ghz),
                cpu.replace('"', "'"),
            );
        }
    }
    std::fs::write(path, s)
}

/// Line colours: ours first (strong colours), then peers.
const COLORS: [RGBColor; 8] = [
    RGBColor(0xd6, 0x27, 0x28), // red
    RGBColor(0x1f, 0x77, 0xb4), // blue
    RGBColor(0x2c, 0xa0, 0x2c), // green
    RGBColor(0x94, 0x67, 0xbd), // purple
    RGBColor(0xff, 0x7f, 0x0e), // orange
    RGBColor(0x8c, 0x56, 0x4b), // brown
    RGBColor(0x17, 0xbe, 0xcf), // cyan
    RGBColor(0x7f, 0x7f, 0x7f), // grey
];

/// One SVG: GB/s against message size (log scale), a line per implementation, min–max
/// bars at each point. Ours are solid, peers dashed. For an RNG the line is `fill_bytes`;
/// `next_u32` and `next_u64` are triangles at 4 and 8 bytes, not joined to it. `None` for
/// an RNG set up per work item: two per-call costs and no size, so the table is all.
pub fn write_plot(
    dir: &Path,
    workload: Workload,
    rows: &[Row<'_>],
    cpu: &str,
    rounds: usize,
) -> Result<Option<PathBuf>, Box<dyn std::error::Error>> {
    if matches!(workload, Workload::RngSetup(_)) {
        return Ok(None);
    }
    let path = dir.join(format!("{}.svg", workload.id()));
    let rng = matches!(workload, Workload::Rng(_));
    let mut names: Vec<(&str, bool)> = Vec::new();
    for r in rows {
        if !names.iter().any(|(n, _)| *n == r.cell.name) {
            names.push((&r.cell.name, r.cell.ours));
        }
    }
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.cell.point.bytes()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let (lo, hi) = (sizes[0] as f64, sizes[sizes.len() - 1] as f64);
    let (lo, hi) = if lo == hi { (lo / 2.0, hi * 2.0) } else { (lo / 1.3, hi * 1.3) };
    let y_max = rows.iter().map(|r| r.gbps.max).fold(0.0, f64::max) * 1.12;
    let y_max = if y_max > 0.0 { y_max } else { 1.0 };

    {
        let root = SVGBackend::new(&path, (1100, 680)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, body) = root.split_vertically(64);
        top.draw(&Text::new(
            format!("{}: throughput against message size", workload.title()),
            (20, 10),
            ("sans-serif", 22).into_font().style(FontStyle::Bold).color(&BLACK),
        ))?;
        top.draw(&Text::new(
            format!("{cpu}; median of {rounds} interleaved rounds, bars: min–max"),
            (20, 40),
            ("sans-serif", 15).into_font().color(&RGBColor(0x44, 0x44, 0x44)),
        ))?;
        let mut chart = ChartBuilder::on(&body)
            .margin_left(10)
            .margin_right(30)
            .margin_bottom(10)
            .x_label_area_size(55)
            .y_label_area_size(75)
            .build_cartesian_2d(
                (lo..hi).log_scale().with_key_points(sizes.iter().map(|&s| s as f64).collect()),
                0.0..y_max,
            )?;
        chart
            .configure_mesh()
            .x_desc(if rng {
                "bytes per call (log scale): next_u32, next_u64 (triangles), then fill_bytes"
            } else {
                "message size (log scale)"
            })
            .y_desc("GB/s (10⁹ bytes/s)")
            .x_label_formatter(&|x| match (rng, x.round() as usize) {
                (true, 4) => "next_u32".into(),
                (true, 8) => "next_u64".into(),
                (_, n) => format_size(n),
            })
            .y_label_formatter(&|y| format!("{y:.1}"))
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .light_line_style(RGBColor(0xee, 0xee, 0xee))
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .draw()?;
        for (idx, (name, ours)) in names.iter().enumerate() {
            let color = COLORS[idx % COLORS.len()];
            let mut points: Vec<(f64, f64, f64, f64)> = rows
                .iter()
                .filter(|r| r.cell.name == *name && matches!(r.cell.point, Point::Bytes(_)))
                .map(|r| (r.cell.point.bytes() as f64, r.gbps.median, r.gbps.min, r.gbps.max))
                .collect();
            let calls: Vec<(f64, f64, f64, f64)> = rows
                .iter()
                .filter(|r| r.cell.name == *name && !matches!(r.cell.point, Point::Bytes(_)))
                .map(|r| (r.cell.point.bytes() as f64, r.gbps.median, r.gbps.min, r.gbps.max))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let label =
                rows.iter().find(|r| r.cell.name == *name).map_or_else(String::new, |r| display_name(r.cell));
            let width = if *ours { 3 } else { 2 };
            let style = color.stroke_width(width);
            let line: Vec<(f64, f64)> = points.iter().map(|p| (p.0, p.1)).collect();
            if *ours {
                chart.draw_series(LineSeries::new(line.clone(), style))?
            } else {
                chart.draw_series(DashedLineSeries::new(line.clone(), 10, 6, style))?
            }
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 28, y)], color.stroke_width(width)));
            chart.draw_series(line.iter().map(|&(x, y)| Circle::new((x, y), 4, color.filled())))?;
            chart.draw_series(points.iter().chain(&calls).map(|&(x, median, min, max)| {
                ErrorBar::new_vertical(x, min, median, max, color.stroke_width(1), 8)
            }))?;
            chart.draw_series(
                calls.iter().map(|&(x, y, _, _)| TriangleMarker::new((x, y), 7, color.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .margin(12)
            .legend_area_size(36)
            .label_font(("sans-serif", 16))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(0xaa, 0xaa, 0xaa))
            .draw()?;
        root.present()?;
    }
    Ok(Some(path))
}
