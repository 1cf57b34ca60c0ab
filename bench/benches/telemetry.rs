//! What request telemetry costs a `tools/call` dispatch (the `otel` feature is compiled into
//! this benchmark, as into the examples and generated projects):
//!
//! 1. not configured: the dispatch as every server runs it until `OTEL_*` asks for export
//!    (one `OnceLock` check per request);
//! 2. exporting: the semantic-convention span through `tracing-opentelemetry` into the
//!    SDK's batch processor, and the duration histogram and counters, with exporters that
//!    discard what they are given (the cost of the network is the collector's, not ours);
//! 3. exporting the request's `DEBUG` children too (`validate arguments`, `tool`), as
//!    `RUST_LOG=mcp::request=debug` asks.
//!
//! What a real server pays, exporter thread and network included, is measured by
//! `OTEL=1 bench/compare.sh` (a discarding OTLP/HTTP receiver, `otlp-sink`).
//!
//! Turning telemetry on is for the whole process and cannot be undone, so the phases run
//! one after the other (5 rounds each) and the printed ratio is of their medians. Target:
//! exporting within 1.15 × not configured.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_bench::InProcess;
use mcp_runtime::prelude::*;
use mcp_runtime::telemetry::{self, TelemetryOptions};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tracing_subscriber::layer::SubscriberExt as _;

const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"0123456789abcdef"}}}"#;

/// Echoes the text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Spans, counted and dropped.
#[derive(Debug)]
struct DiscardSpans;

/// Spans exported so far.
static EXPORTED: AtomicU64 = AtomicU64::new(0);

impl SpanExporter for DiscardSpans {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        EXPORTED.fetch_add(batch.len() as u64, Ordering::Relaxed);
        black_box(batch);
        Ok(())
    }
}

/// Metrics, dropped.
#[derive(Debug)]
struct DiscardMetrics;

impl PushMetricExporter for DiscardMetrics {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        black_box(metrics);
        Ok(())
    }
    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }
    fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
        Ok(())
    }
    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}

fn harness() -> InProcess {
    InProcess::new(
        Server::builder("bench", "1.0.0")
            .tool(echo::tool())
            .build()
            .expect("a valid server"),
    )
}

/// The median of 5 rounds of `n` dispatches of `CALL`, in ns per dispatch.
fn median_ns(bench: &mut InProcess, n: u32) -> f64 {
    let mut rounds: Vec<f64> = (0..5)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..n {
                black_box(bench.dispatch(CALL));
            }
            started.elapsed().as_secs_f64() / f64::from(n) * 1e9
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[2]
}

fn telemetry_cost(c: &mut Criterion) {
    let mut bench = harness();
    assert!(
        String::from_utf8(bench.dispatch(CALL))
            .unwrap()
            .contains("0123456789abcdef")
    );
    let n = 50_000;
    let off = median_ns(&mut bench, n);
    c.bench_function("telemetry/tools_call_not_configured", |b| {
        b.iter(|| black_box(bench.dispatch(CALL)))
    });

    let tracer = SdkTracerProvider::builder()
        .with_batch_exporter(DiscardSpans)
        .build();
    let meter = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(DiscardMetrics).build())
        .build();
    // As `launch::init_tracing` exports: the request spans, their `DEBUG` children only
    // when asked for (switched on for the last phase).
    static CHILDREN: AtomicBool = AtomicBool::new(false);
    tracing::subscriber::set_global_default(
        tracing_subscriber::registry()
            .with(telemetry::layer(&tracer))
            // Dynamic: a plain `filter_fn`'s verdict is cached per callsite.
            .with(tracing_subscriber::filter::dynamic_filter_fn(
                |metadata, _| {
                    *metadata.level() <= tracing::Level::INFO || CHILDREN.load(Ordering::Relaxed)
                },
            )),
    )
    .expect("the first subscriber");
    telemetry::enable(&meter.meter("bench"), TelemetryOptions::new());
    // Spans per call, from what reached the exporter (the batch processor drops spans when
    // its queue is full, which would make exporting look cheaper than it is).
    let spans_per_call = |bench: &mut InProcess| {
        let _ = tracer.force_flush();
        let before = EXPORTED.load(Ordering::Relaxed);
        for _ in 0..1000 {
            black_box(bench.dispatch(CALL));
        }
        let _ = tracer.force_flush();
        (EXPORTED.load(Ordering::Relaxed) - before) as f64 / 1000.0
    };
    let on = median_ns(&mut bench, n);
    let on_spans = spans_per_call(&mut bench);
    c.bench_function("telemetry/tools_call_exporting", |b| {
        b.iter(|| black_box(bench.dispatch(CALL)))
    });
    CHILDREN.store(true, Ordering::Relaxed);
    let children = median_ns(&mut bench, n);
    let children_spans = spans_per_call(&mut bench);
    eprintln!(
        "telemetry: tools/call {off:.0} ns not configured, {on:.0} ns exporting \
         ({on_spans:.1} spans a call): {:.2} × (target ≤ 1.15 ×); with the children spans \
         {children:.0} ns ({children_spans:.1} spans a call): {:.2} ×",
        on / off,
        children / off
    );
    c.bench_function("telemetry/tools_call_exporting_children", |b| {
        b.iter(|| black_box(bench.dispatch(CALL)))
    });
    let _ = tracer.shutdown();
    let _ = meter.shutdown();
}

criterion_group!(benches, telemetry_cost);
criterion_main!(benches);
