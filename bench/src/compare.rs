//! Several servers measured side by side: rounds interleave the servers so that a noisy
//! neighbour slows all of them alike, and medians per metric are compared as ratios to a
//! baseline (the floor).

use crate::load::{Report, Settings, run};
use std::fmt::Write as _;

/// A server to measure: a label and its command.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The label in the report.
    pub name: String,
    /// The command and its arguments.
    pub command: Vec<String>,
}

impl std::str::FromStr for Candidate {
    type Err = String;

    /// `NAME=COMMAND ARGS…` (split on whitespace).
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, command) = s.split_once('=').ok_or("expected NAME=COMMAND")?;
        let command: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        if name.is_empty() || command.is_empty() {
            return Err("expected NAME=COMMAND".into());
        }
        Ok(Self {
            name: name.to_owned(),
            command,
        })
    }
}

/// The medians of one server over all rounds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    /// Median of each metric.
    pub median: Report,
    /// Rounds measured.
    pub rounds: usize,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn summarize(reports: &[Report]) -> Summary {
    let m = |f: fn(&Report) -> f64| median(reports.iter().map(f).collect());
    let first = &reports[0];
    Summary {
        median: Report {
            server: first.server.clone(),
            era: first.era,
            cold_start_ms: m(|r| r.cold_start_ms),
            seq_p50_us: m(|r| r.seq_p50_us),
            seq_p99_us: m(|r| r.seq_p99_us),
            list_p50_us: m(|r| r.list_p50_us),
            pipelined_calls_per_s: m(|r| r.pipelined_calls_per_s),
            cpu_per_call_us: m(|r| r.cpu_per_call_us),
            peak_rss_kib: m(|r| r.peak_rss_kib as f64) as u64,
            errors: reports.iter().map(|r| r.errors).sum(),
            calls: reports.iter().map(|r| r.calls).sum(),
        },
        rounds: reports.len(),
    }
}

/// Measures every candidate `rounds` times, interleaved, and summarizes each.
pub fn compare(
    candidates: &[Candidate],
    settings: Settings,
    rounds: usize,
) -> Result<Vec<Summary>, String> {
    let mut all: Vec<Vec<Report>> = vec![Vec::new(); candidates.len()];
    for _ in 0..rounds.max(1) {
        for (c, reports) in candidates.iter().zip(all.iter_mut()) {
            reports
                .push(run(&c.name, &c.command, settings).map_err(|e| format!("{}: {e}", c.name))?);
        }
    }
    Ok(all.iter().map(|r| summarize(r)).collect())
}

/// A table for people: medians, and ratios to the first candidate (the baseline).
pub fn table(summaries: &[Summary]) -> String {
    let mut out = String::new();
    let Some(base) = summaries.first().map(|s| &s.median) else {
        return out;
    };
    let _ = writeln!(
        out,
        "{:<16} {:>12} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>7}",
        "server",
        "calls/s",
        "cpu µs",
        "p50 µs",
        "p99 µs",
        "list µs",
        "cold ms",
        "rss KiB",
        "errors",
        "rounds"
    );
    for s in summaries {
        let r = &s.median;
        let _ = writeln!(
            out,
            "{:<16} {:>12.0} {:>9.2} {:>10.1} {:>10.1} {:>10.1} {:>10.2} {:>10} {:>8} {:>7}",
            r.server,
            r.pipelined_calls_per_s,
            r.cpu_per_call_us,
            r.seq_p50_us,
            r.seq_p99_us,
            r.list_p50_us,
            r.cold_start_ms,
            r.peak_rss_kib,
            r.errors,
            s.rounds
        );
    }
    let _ = writeln!(
        out,
        "\nratios to {} (throughput: higher is better; the rest: lower is better)",
        base.server
    );
    for s in summaries.iter().skip(1) {
        let r = &s.median;
        let _ = writeln!(
            out,
            "{:<16} throughput {:.2}x  cpu/call {:.2}x  p50 {:.2}x  cold start {:.2}x  rss {:+} KiB",
            r.server,
            r.pipelined_calls_per_s / base.pipelined_calls_per_s,
            r.cpu_per_call_us / base.cpu_per_call_us,
            r.seq_p50_us / base.seq_p50_us,
            r.cold_start_ms / base.cold_start_ms,
            r.peak_rss_kib as i64 - base.peak_rss_kib as i64,
        );
    }
    out
}

/// The HTTP comparison: every candidate measured `rounds` times, interleaved; medians.
pub fn compare_http(
    candidates: &[Candidate],
    era: crate::load::Era,
    connections: usize,
    calls: u64,
    rounds: usize,
) -> Result<Vec<crate::http_load::HttpReport>, String> {
    let mut all: Vec<Vec<crate::http_load::HttpReport>> = vec![Vec::new(); candidates.len()];
    for _ in 0..rounds.max(1) {
        for (c, reports) in candidates.iter().zip(all.iter_mut()) {
            reports.push(
                crate::http_load::run(&c.name, &c.command, era, connections, calls)
                    .map_err(|e| format!("{}: {e}", c.name))?,
            );
        }
    }
    Ok(all
        .into_iter()
        .map(|reports| {
            let m = |f: fn(&crate::http_load::HttpReport) -> f64| {
                median(reports.iter().map(f).collect())
            };
            crate::http_load::HttpReport {
                server: reports[0].server.clone(),
                era,
                connections,
                calls_per_s: m(|r| r.calls_per_s),
                cpu_per_call_us: m(|r| r.cpu_per_call_us),
                peak_rss_kib: m(|r| r.peak_rss_kib as f64) as u64,
                errors: reports.iter().map(|r| r.errors).sum(),
            }
        })
        .collect())
}

/// A table of HTTP medians, with ratios to the first candidate.
pub fn http_table(reports: &[crate::http_load::HttpReport]) -> String {
    let mut out = String::new();
    let Some(base) = reports.first() else {
        return out;
    };
    let _ = writeln!(
        out,
        "{:<24} {:>12} {:>9} {:>10} {:>8} {:>12}",
        "server", "calls/s", "cpu µs", "rss KiB", "errors", "connections"
    );
    for r in reports {
        let _ = writeln!(
            out,
            "{:<24} {:>12.0} {:>9.2} {:>10} {:>8} {:>12}",
            r.server, r.calls_per_s, r.cpu_per_call_us, r.peak_rss_kib, r.errors, r.connections
        );
    }
    let _ = writeln!(out, "\nratios to {}", base.server);
    for r in reports.iter().skip(1) {
        let _ = writeln!(
            out,
            "{:<24} throughput {:.2}x  cpu/call {:.2}x",
            r.server,
            r.calls_per_s / base.calls_per_s,
            r.cpu_per_call_us / base.cpu_per_call_us
        );
    }
    out
}
