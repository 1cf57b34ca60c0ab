//! A request's metrics recorded through instruments bound to its attributes once.
//!
//! Why: the SDK's unbound `record`/`add` copy the attribute slice, sort it and hash every
//! key and value with SipHash at each measurement, two measurements a request: about 4,400
//! instructions a `tools/call` (`OTEL=1 bench/callgrind.sh`), a fifth of the whole call.
//! A bound instrument (`Histogram::bind`, the OpenTelemetry spec's `Bind`, still marked
//! experimental in the SDK, whose semantics are those of unbound recording) resolves the
//! attributes once; a measurement is then a few atomic writes. Each thread keeps its own
//! bound instruments by the request's attributes (a [`Series`]), hashed with foldhash and
//! without any lock; a new series is bound at its first request.
//!
//! The number of series is bounded by what the attributes can be (methods, registered tool
//! and prompt names, revisions, transports, error types: never a resource URI or anything
//! the client chooses freely), and a thread keeps at most [`SERIES_PER_THREAD`] of them;
//! past that, measurements are recorded unbound, exactly as before.

use super::INSTRUMENTS;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{BoundCounter, BoundHistogram, Counter, Histogram};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// How many series a thread keeps bound instruments for.
const SERIES_PER_THREAD: usize = 1024;

/// A request's `error.type`: a word, or the JSON-RPC code of a returned error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum ErrorType {
    /// `tool_error`, `cancelled`.
    Word(&'static str),
    /// A JSON-RPC error code.
    Code(i32),
}

impl ErrorType {
    /// The attribute's value: the word, or the code as a string.
    pub(super) fn value(self) -> opentelemetry::Value {
        match self {
            Self::Word(word) => word.into(),
            Self::Code(code) => code.to_string().into(),
        }
    }
}

/// The attributes of one request's metrics: `mcp.server.operation.duration`'s and, with
/// `outcome`, `mcp.server.requests`'.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Series {
    pub(super) method: &'static str,
    /// `gen_ai.tool.name` or `gen_ai.prompt.name`, and the name.
    pub(super) name: Option<(&'static str, Arc<str>)>,
    /// `mcp.protocol.version` (a request the dispatcher answers itself has none).
    pub(super) version: Option<&'static str>,
    /// `network.transport` (likewise).
    pub(super) transport: Option<&'static str>,
    pub(super) error: Option<ErrorType>,
    pub(super) outcome: &'static str,
}

impl Series {
    /// The duration histogram's attributes.
    fn duration_attributes(&self) -> Vec<KeyValue> {
        let mut attributes = Vec::with_capacity(5);
        attributes.push(KeyValue::new("mcp.method.name", self.method));
        if let Some(version) = self.version {
            attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        if let Some(transport) = self.transport {
            attributes.push(KeyValue::new("network.transport", transport));
        }
        if let Some((key, name)) = &self.name {
            attributes.push(KeyValue::new(*key, name.clone()));
        }
        if let Some(error) = self.error {
            attributes.push(KeyValue::new("error.type", error.value()));
        }
        attributes
    }

    /// The requests counter's attributes.
    fn requests_attributes(&self) -> [KeyValue; 2] {
        [
            KeyValue::new("mcp.method.name", self.method),
            KeyValue::new("outcome", self.outcome),
        ]
    }

    /// Records a request of this series that took `seconds`.
    pub(super) fn record(&self, seconds: f64) {
        let Some(instruments) = INSTRUMENTS.get() else {
            return;
        };
        let (duration, requests) = (&instruments.duration, &instruments.requests);
        // `try_with`: a request ended while its thread is torn down is recorded, unbound.
        if BOUND
            .try_with(|bound| {
                bound
                    .borrow_mut()
                    .record(self, seconds, duration, requests, SERIES_PER_THREAD);
            })
            .is_err()
        {
            Bound::unbound(self, seconds, duration, requests);
        }
    }
}

/// A series' bound instruments.
struct Bound {
    duration: BoundHistogram<f64>,
    requests: BoundCounter<u64>,
}

impl Bound {
    /// Records with the instruments themselves.
    fn unbound(series: &Series, seconds: f64, duration: &Histogram<f64>, requests: &Counter<u64>) {
        duration.record(seconds, &series.duration_attributes());
        requests.add(1, &series.requests_attributes());
    }
}

/// A thread's bound instruments, by series.
#[derive(Default)]
struct Cache(HashMap<Series, Bound, foldhash::fast::RandomState>);

impl Cache {
    /// Records `series` through its bound instruments, bound now if it is new and fewer
    /// than `most` are kept, or else through the instruments themselves.
    fn record(
        &mut self,
        series: &Series,
        seconds: f64,
        duration: &Histogram<f64>,
        requests: &Counter<u64>,
        most: usize,
    ) {
        if let Some(bound) = self.0.get(series) {
            bound.duration.record(seconds);
            bound.requests.add(1);
        } else if self.0.len() >= most {
            Bound::unbound(series, seconds, duration, requests);
        } else {
            let bound = Bound {
                duration: duration.bind(&series.duration_attributes()),
                requests: requests.bind(&series.requests_attributes()),
            };
            bound.duration.record(seconds);
            bound.requests.add(1);
            self.0.insert(series.clone(), bound);
        }
    }
}

thread_local! {
    static BOUND: RefCell<Cache> = RefCell::new(Cache::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
    use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

    #[test]
    fn an_error_code_is_its_decimal_text() {
        assert_eq!(ErrorType::Code(-32602).value().as_str(), "-32602");
        assert_eq!(ErrorType::Word("tool_error").value().as_str(), "tool_error");
    }

    /// Every measurement lands in its own series' data point, bound or not: the first two
    /// series are bound, the third is past the cap and recorded unbound.
    #[test]
    fn bound_and_unbound_series_count_alike() {
        let exporter = InMemoryMetricExporter::default();
        let provider = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        let meter = provider.meter("test");
        let duration = meter.f64_histogram("d").build();
        let requests = meter.u64_counter("r").build();
        let series = |name: &str, error| Series {
            method: "tools/call",
            name: Some(("gen_ai.tool.name", Arc::from(name))),
            version: Some("2025-11-25"),
            transport: Some("pipe"),
            error,
            outcome: if error.is_some() { "error" } else { "ok" },
        };
        let all = [
            series("a", None),
            series("a", Some(ErrorType::Word("tool_error"))),
            series("b", Some(ErrorType::Code(-32602))),
        ];
        let mut cache = Cache::default();
        for (n, series) in all.iter().enumerate() {
            for _ in 0..=n {
                cache.record(series, 0.5, &duration, &requests, 2);
            }
        }
        assert_eq!(cache.0.len(), 2);
        provider.force_flush().unwrap();
        let exported = exporter.get_finished_metrics().unwrap();
        let mut counts = Vec::new();
        for metric in exported
            .last()
            .unwrap()
            .scope_metrics()
            .flat_map(|s| s.metrics())
        {
            match metric.data() {
                AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                    for point in h.data_points() {
                        let mut attributes: Vec<_> = point
                            .attributes()
                            .map(|kv| format!("{}={}", kv.key, kv.value))
                            .collect();
                        attributes.sort();
                        counts.push(("d", attributes.join(","), point.count()));
                    }
                }
                AggregatedMetrics::U64(MetricData::Sum(s)) => {
                    for point in s.data_points() {
                        let mut attributes: Vec<_> = point
                            .attributes()
                            .map(|kv| format!("{}={}", kv.key, kv.value))
                            .collect();
                        attributes.sort();
                        counts.push(("r", attributes.join(","), point.value()));
                    }
                }
                other => panic!("{other:?}"),
            }
        }
        counts.sort();
        let common = "gen_ai.tool.name={},mcp.method.name=tools/call,mcp.protocol.version=2025-11-25,network.transport=pipe";
        let with = |error: &str, name: &str| {
            let common = common.replace("{}", name);
            if error.is_empty() {
                common
            } else {
                format!("error.type={error},{common}")
            }
        };
        assert_eq!(
            counts,
            [
                ("d", with("-32602", "b"), 3),
                ("d", with("tool_error", "a"), 2),
                ("d", with("", "a"), 1),
                (
                    "r",
                    "mcp.method.name=tools/call,outcome=error".to_owned(),
                    5
                ),
                ("r", "mcp.method.name=tools/call,outcome=ok".to_owned(), 1),
            ]
        );
    }
}
