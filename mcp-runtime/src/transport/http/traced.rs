//! The span of a POST the transport answers before any dispatcher sees it (telemetry on):
//! a refused `Origin` or token, a wrong media type, a limit, a body that does not decode.
//! See `telemetry::Unrouted` for what it records. Nothing without the `otel`
//! feature, or with telemetry off.

use crate::protocol::RequestId;
use axum::body::Body;
use http::{Request, Response};

/// One POST's telemetry until the dispatcher takes it over ([`routed`](Self::routed)).
pub(crate) struct Watch(Option<crate::telemetry::Unrouted>);

impl Watch {
    /// Watches `request` when it is a POST (a GET or DELETE is a session's stream or end,
    /// not a request) and telemetry is on.
    pub(crate) fn of<B>(request: &Request<B>) -> Self {
        use crate::telemetry::Unrouted;
        if request.method() != http::Method::POST || !crate::telemetry::enabled() {
            return Self(None);
        }
        let (method, version) = super::headers::traced_names(request.headers());
        Self(Unrouted::begin(method, version, || {
            super::headers::trace_context(request.headers())
        }))
    }

    /// The body could not be decoded as a message: its id (when it names one) and method
    /// name the span.
    pub(crate) fn undecodable(&mut self, body: &[u8], id: Option<&RequestId>) {
        if let Some(watch) = &mut self.0 {
            let method = crate::telemetry::method_of(body);
            watch.read(id.cloned(), crate::server::traced_name(&method));
        }
    }

    /// The body is request `id` of `method`: they name the span from now on.
    pub(crate) fn request(&mut self, id: &RequestId, method: &str) {
        if let Some(watch) = &mut self.0 {
            watch.read(Some(id.clone()), crate::server::traced_name(method));
        }
    }

    /// The message is the dispatcher's now (which gives a request its span), or it is not
    /// a request (a notification, an answer): no span here.
    pub(crate) fn routed(&mut self) {
        self.0 = None;
    }

    /// Ends the watch with the response: a transport refusal ([`Refused`]) gets its span.
    pub(crate) fn finish(self, response: &Response<Body>) {
        if let Some(watch) = self.0
            && let Some(refused) = response.extensions().get::<Refused>()
        {
            watch.finish(response.status().as_u16(), refused.code, &refused.message);
        }
    }
}

/// What a transport refusal answered, kept on its response for [`Watch::finish`] (only
/// while telemetry is on).
#[derive(Clone)]
pub(crate) struct Refused {
    pub(crate) code: i32,
    pub(crate) message: std::borrow::Cow<'static, str>,
}
