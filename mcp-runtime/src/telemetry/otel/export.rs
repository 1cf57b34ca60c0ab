//! The exporters the standard `OTEL_*` environment describes ([`from_env`]), and the
//! providers a process exports through ([`Providers`]).

use super::{TelemetryOptions, enable, otlp_http, otlp_spans, own};

/// The OpenTelemetry providers a process exports through: flushed and shut down when
/// dropped (the launcher's `LogGuard` keeps them until `main` returns).
pub struct Providers {
    tracer: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    /// Where request spans are written (see `own`), flushed and shut down with the tracer.
    own: Option<std::sync::Arc<own::Sink>>,
    meter: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
}

impl std::fmt::Debug for Providers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Providers")
            .field("traces", &self.tracer.is_some())
            .field("metrics", &self.meter.is_some())
            .finish()
    }
}

impl Providers {
    /// The tracer provider, when traces are exported.
    pub fn tracer_provider(&self) -> Option<&opentelemetry_sdk::trace::SdkTracerProvider> {
        self.tracer.as_ref()
    }

    /// The meter provider, when metrics are exported.
    pub fn meter_provider(&self) -> Option<&opentelemetry_sdk::metrics::SdkMeterProvider> {
        self.meter.as_ref()
    }

    /// Exports what is pending now.
    pub fn flush(&self) {
        if let Some(own) = &self.own {
            own.flush();
        }
        if let Some(t) = &self.tracer {
            let _ = t.force_flush();
        }
        if let Some(m) = &self.meter {
            let _ = m.force_flush();
        }
    }
}

impl Drop for Providers {
    fn drop(&mut self) {
        if let Some(own) = self.own.take() {
            own.shutdown();
        }
        if let Some(t) = self.tracer.take() {
            let _ = t.shutdown();
        }
        if let Some(m) = self.meter.take() {
            let _ = m.shutdown();
        }
    }
}

/// Whether the standard environment asks for OTLP export, and of what: `(traces, metrics)`.
///
/// Export is on when an endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) or the signal's exporter
/// is `otlp` (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`; for metrics also
/// `prometheus`, a scrape endpoint); `none` switches a signal off,
/// and `OTEL_SDK_DISABLED=true` switches everything off.
pub fn wanted_by_env() -> (bool, bool) {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return (false, false);
    }
    let common = var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some();
    let signal = |endpoint: &str, exporter: &str| match var(exporter) {
        Some(e) if e.eq_ignore_ascii_case("none") => false,
        Some(e) if e.eq_ignore_ascii_case("otlp") || e.eq_ignore_ascii_case("prometheus") => true,
        _ => common || var(endpoint).is_some(),
    };
    (
        signal("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"),
        signal(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
            "OTEL_METRICS_EXPORTER",
        ),
    )
}

/// OTLP exporters as the standard environment configures them (endpoint, protocol
/// `http/protobuf` or `http/json`, headers, timeouts, `OTEL_SERVICE_NAME` — `service` when
/// unset —, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`), and request telemetry
/// [enabled](enable) on them. `None` when the environment asks for nothing
/// ([`wanted_by_env`]); `Err` says why an exporter could not be built.
pub fn from_env(service: &str) -> Result<Option<Providers>, ExportError> {
    build_from_env(service).map_err(ExportError)
}

/// Why the environment's exporters could not be built: the variable or endpoint at fault,
/// as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(String);

fn build_from_env(service: &str) -> Result<Option<Providers>, String> {
    use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
    let (traces, metrics) = wanted_by_env();
    if !traces && !metrics {
        return Ok(None);
    }
    let protocol = |signal: &str| {
        std::env::var(signal)
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .ok()
            .map(|p| p.trim().to_ascii_lowercase())
            .filter(|p| !p.is_empty())
    };
    let prometheus = std::env::var("OTEL_METRICS_EXPORTER")
        .is_ok_and(|e| e.trim().eq_ignore_ascii_case("prometheus"));
    // Only the signals exported over OTLP have a protocol: a switched-off signal's (or a
    // Prometheus scrape's) settings neither start a gRPC runtime nor refuse an endpoint.
    let (traces_protocol, metrics_protocol) = (
        protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").filter(|_| traces),
        protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL").filter(|_| metrics && !prometheus),
    );
    let grpc = |p: &Option<String>| p.as_deref() == Some("grpc");
    #[cfg(not(feature = "otel-grpc"))]
    if grpc(&traces_protocol) || grpc(&metrics_protocol) {
        return Err(
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc needs mcp-runtime's `otel-grpc` feature: use \
             http/protobuf (port 4318) or http/json, or build with it"
                .to_owned(),
        );
    }
    // tonic is built without TLS (a second TLS stack beside the one `tls` configures):
    // OTLP/HTTP reaches `https://` collectors, gRPC only `http://` ones.
    #[cfg(feature = "otel-grpc")]
    for (protocol, endpoint) in [
        (&traces_protocol, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        (&metrics_protocol, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
    ] {
        let endpoint = std::env::var(endpoint)
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .unwrap_or_default();
        if grpc(protocol) && endpoint.trim().starts_with("https://") {
            return Err(format!(
                "OTLP over gRPC reaches `http://` collectors only, not {endpoint}: use \
                 http/protobuf (the default; port 4318), which speaks to `https://` ones"
            ));
        }
    }
    #[cfg(feature = "otel-grpc")]
    let grpc_runtime = if grpc(&traces_protocol) || grpc(&metrics_protocol) {
        Some(super::otlp_grpc::runtime()?)
    } else {
        None
    };
    let mut resource = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name(service.to_owned());
    }
    let resource = resource.build();
    let mut own_spans = None;
    let tracer = if traces {
        let provider =
            opentelemetry_sdk::trace::SdkTracerProvider::builder().with_resource(resource.clone());
        let builder = opentelemetry_otlp::SpanExporter::builder();
        let trace_error =
            |e: opentelemetry_otlp::ExporterBuildError| format!("OTLP trace exporter: {e}");
        let provider = match (&traces_protocol, grpc(&traces_protocol)) {
            #[cfg(feature = "otel-grpc")]
            (_, true) => provider.with_batch_exporter(super::otlp_grpc::spans(
                grpc_runtime.as_ref().expect("started for grpc"),
            )?),
            // Protobuf (the default) through this crate's encoder (see `otlp_proto` for why).
            (protocol, _)
                if http_protocol(protocol.as_deref())?
                    == opentelemetry_otlp::Protocol::HttpBinary
                    && otlp_spans::wanted() =>
            {
                let client = otlp_http::client("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")?;
                // Request spans are written by `own` when it follows the sampler; the
                // SDK's tracer keeps the rest (child spans, the application's own).
                if let Some(parent_based) = own::wanted() {
                    own_spans = Some(own::install(
                        otlp_spans::ProtoSpans::from_env(client.clone())?,
                        resource.clone(),
                        parent_based,
                    ));
                }
                provider.with_batch_exporter(otlp_spans::ProtoSpans::from_env(client)?)
            }
            (protocol, _) => provider.with_batch_exporter(
                builder
                    .with_http()
                    .with_http_client(otlp_http::client("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")?)
                    .with_protocol(http_protocol(protocol.as_deref())?)
                    .build()
                    .map_err(trace_error)?,
            ),
        };
        Some(provider.build())
    } else {
        None
    };
    #[cfg(not(feature = "otel-prometheus"))]
    if prometheus && metrics {
        return Err(
            "OTEL_METRICS_EXPORTER=prometheus needs mcp-runtime's `otel-prometheus` feature"
                .to_owned(),
        );
    }
    let meter = if metrics {
        let provider =
            opentelemetry_sdk::metrics::SdkMeterProvider::builder().with_resource(resource);
        #[cfg(feature = "otel-prometheus")]
        if prometheus {
            let reader = super::prometheus::start()?;
            return finish(
                tracer,
                own_spans,
                Some(provider.with_reader(reader).build()),
            );
        }
        let builder = opentelemetry_otlp::MetricExporter::builder();
        let metric_error =
            |e: opentelemetry_otlp::ExporterBuildError| format!("OTLP metric exporter: {e}");
        let provider = match (&metrics_protocol, grpc(&metrics_protocol)) {
            #[cfg(feature = "otel-grpc")]
            (_, true) => provider.with_reader(periodic(super::otlp_grpc::metrics(
                grpc_runtime.as_ref().expect("started for grpc"),
            )?)),
            (protocol, _) => provider.with_reader(periodic(
                builder
                    .with_http()
                    .with_http_client(otlp_http::client("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT")?)
                    .with_protocol(http_protocol(protocol.as_deref())?)
                    .build()
                    .map_err(metric_error)?,
            )),
        };
        Some(provider.build())
    } else {
        None
    };
    finish(tracer, own_spans, meter)
}

/// The OTLP/HTTP encoding `protocol` (the signal's `OTEL_EXPORTER_OTLP_*PROTOCOL`) names.
/// Unset, it is the specification's default, `http/protobuf` (the exporter crate would pick
/// JSON, having both built in).
fn http_protocol(protocol: Option<&str>) -> Result<opentelemetry_otlp::Protocol, String> {
    use opentelemetry_otlp::Protocol;
    match protocol {
        None | Some("http/protobuf") => Ok(Protocol::HttpBinary),
        Some("http/json") => Ok(Protocol::HttpJson),
        Some(other) => Err(format!(
            "OTEL_EXPORTER_OTLP_PROTOCOL={other} is not an OTLP protocol: use http/protobuf, \
             http/json or grpc"
        )),
    }
}

/// Telemetry [enabled](enable) on `meter` (or on nothing, metrics off), and the providers.
fn finish(
    tracer: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    own: Option<std::sync::Arc<own::Sink>>,
    meter: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
) -> Result<Option<Providers>, String> {
    let noop;
    let meter_ref: &dyn opentelemetry::metrics::MeterProvider = match &meter {
        Some(m) => m,
        None => {
            noop = opentelemetry::metrics::NoopMeterProvider::new();
            &noop
        }
    };
    enable(&meter_ref.meter("mcp-runtime"), TelemetryOptions::default());
    Ok(Some(Providers { tracer, own, meter }))
}

/// A periodic reader of `exporter` at `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds, 60 s by
/// default; read here, the SDK's reader does not).
fn periodic<E: opentelemetry_sdk::metrics::exporter::PushMetricExporter>(
    exporter: E,
) -> opentelemetry_sdk::metrics::PeriodicReader<E> {
    let mut reader = opentelemetry_sdk::metrics::PeriodicReader::builder(exporter);
    if let Some(ms) = std::env::var("OTEL_METRIC_EXPORT_INTERVAL")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
    {
        reader = reader.with_interval(std::time::Duration::from_millis(ms));
    }
    reader.build()
}
