//! OTLP over gRPC (feature `otel-grpc`): opentelemetry-otlp's tonic exporters, run on a Tokio
//! runtime of their own.
//!
//! Why a runtime of their own: the SDK's batch span processor and periodic metric reader
//! export from plain threads of theirs, and tonic's channel needs a Tokio reactor both when it
//! is built and while it sends. Each export is handed to this one-thread runtime and waited
//! for on the SDK's thread, so the server's own runtime (whatever flavour it is) carries none
//! of the exporting.

use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use std::sync::Arc;
use std::time::Duration;

/// An exporter whose work runs on `runtime`.
#[derive(Debug)]
pub(crate) struct OnRuntime<E> {
    inner: E,
    runtime: Arc<Runtime>,
}

/// The runtime the gRPC exporters share: one worker thread, `otlp-grpc`.
#[derive(Debug)]
pub(crate) struct Runtime(Option<tokio::runtime::Runtime>);

impl std::ops::Deref for Runtime {
    type Target = tokio::runtime::Runtime;

    fn deref(&self) -> &Self::Target {
        self.0.as_ref().expect("only taken by drop")
    }
}

impl Drop for Runtime {
    /// Without waiting: the last holder may be on a thread that drives a runtime (the
    /// server's `main`, when an exporter could not be built), where a blocking shutdown
    /// panics. Exports are over by then: the exporters' own shutdown ran on it.
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// Starts the runtime the gRPC exporters share.
pub(crate) fn runtime() -> Result<Arc<Runtime>, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("otlp-grpc")
        .enable_all()
        .build()
        .map(|runtime| Arc::new(Runtime(Some(runtime))))
        .map_err(|e| format!("cannot start the OTLP gRPC runtime: {e}"))
}

/// The span exporter the standard environment configures, over gRPC.
pub(crate) fn spans(
    runtime: &Arc<Runtime>,
) -> Result<OnRuntime<opentelemetry_otlp::SpanExporter>, String> {
    let _inside = runtime.enter();
    let inner = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .build()
        .map_err(|e| format!("OTLP gRPC trace exporter: {e}"))?;
    Ok(OnRuntime {
        inner,
        runtime: runtime.clone(),
    })
}

/// The metric exporter the standard environment configures, over gRPC.
pub(crate) fn metrics(
    runtime: &Arc<Runtime>,
) -> Result<OnRuntime<opentelemetry_otlp::MetricExporter>, String> {
    let _inside = runtime.enter();
    let inner = opentelemetry_otlp::MetricExporter::builder()
        .with_tonic()
        .build()
        .map_err(|e| format!("OTLP gRPC metric exporter: {e}"))?;
    Ok(OnRuntime {
        inner,
        runtime: runtime.clone(),
    })
}

impl<E> OnRuntime<E> {
    /// Runs `f` inside the runtime's context (tonic looks for the reactor there).
    fn inside<T>(&self, f: impl FnOnce(&E) -> T) -> T {
        let _inside = self.runtime.enter();
        f(&self.inner)
    }
}

impl<E: SpanExporter> SpanExporter for OnRuntime<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        // The SDK calls this from its own processor thread, never from a Tokio worker.
        self.runtime.handle().block_on(self.inner.export(batch))
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inside(|e| e.shutdown_with_timeout(timeout))
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inside(SpanExporter::force_flush)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: PushMetricExporter> PushMetricExporter for OnRuntime<E> {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        self.runtime.handle().block_on(self.inner.export(metrics))
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inside(PushMetricExporter::force_flush)
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inside(|e| e.shutdown_with_timeout(timeout))
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
