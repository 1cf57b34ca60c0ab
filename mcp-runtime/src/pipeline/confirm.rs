//! The confirmation layer: a tool declaring [`Confirm`] runs only after the user accepts
//! (see [`crate::tool::Confirm`] for what is asked, in which era, and what a client that
//! cannot elicit gets). It sits outside the tool's limits and timeout, so the time a person
//! takes to answer holds no slot and spends no budget, and it validates the arguments first,
//! so nobody is asked about a call that would be refused.

use super::{AUDIT_TARGET, BoxError, McpRequest, Outcome, Refusal, validate};
use crate::context::input::InputError;
use crate::protocol::{ElicitAction, ElicitRequestParams, InputRequest};
use crate::tool::schema::CheckedSchema;
use crate::tool::{Confirm, Unconfirmable};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::ServiceExt as _;

/// Makes [`Confirmed`].
#[derive(Clone)]
pub(crate) struct ConfirmLayer {
    confirm: Arc<Confirm>,
    schema: Arc<CheckedSchema>,
}

impl ConfirmLayer {
    /// Asks as `confirm` says, after checking the arguments against `schema`.
    pub(crate) fn new(confirm: Confirm, schema: Arc<CheckedSchema>) -> Self {
        Self {
            confirm: Arc::new(confirm),
            schema,
        }
    }
}

impl<S> tower::Layer<S> for ConfirmLayer {
    type Service = Confirmed<S>;

    fn layer(&self, inner: S) -> Confirmed<S> {
        Confirmed {
            inner,
            confirm: self.confirm.clone(),
            schema: self.schema.clone(),
        }
    }
}

/// Calls `S` once the user accepts.
#[derive(Clone)]
pub(crate) struct Confirmed<S> {
    inner: S,
    confirm: Arc<Confirm>,
    schema: Arc<CheckedSchema>,
}

/// What became of the question.
enum Decision {
    Accepted,
    /// Refused, with the audit's word for why.
    Refused(&'static str, String),
    /// The client cannot be asked: the tool's [`Unconfirmable`] decides.
    Unconfirmable(String),
}

impl<S> tower::Service<McpRequest> for Confirmed<S>
where
    S: tower::Service<McpRequest, Response = Outcome, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Outcome;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Outcome, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // The inner service is made ready after the answer (it may be a limit).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: McpRequest) -> Self::Future {
        if let Some(refused) = validate::refusal(&self.schema, &mut request) {
            return Box::pin(std::future::ready(Ok(refused)));
        }
        let inner = self.inner.clone();
        let confirm = self.confirm.clone();
        let context = request.context().clone();
        let mut asking: BoxFuture<'static, Result<Outcome, BoxError>> = Box::pin(async move {
            let tool = request.target_arc().clone();
            let cx = request.context().clone();
            let question = confirm.render(&tool, request.arguments());
            let decision = ask(&cx, question).await;
            let (word, unconfirmable) = match &decision {
                Decision::Accepted => ("accept", None),
                Decision::Refused(word, _) => (*word, None),
                Decision::Unconfirmable(why) => {
                    let run = confirm.when_unconfirmable() == Unconfirmable::Run;
                    (
                        if run {
                            "unconfirmable_run"
                        } else {
                            "unconfirmable"
                        },
                        Some((run, why.as_str())),
                    )
                }
            };
            tracing::info!(
                target: AUDIT_TARGET,
                id = %cx.request_id(),
                era = %cx.era(),
                target = &*tool,
                caller = %cx.caller().log_name(),
                decision = word,
                "confirmation"
            );
            let message = match decision {
                Decision::Accepted => None,
                Decision::Refused(_, message) => Some(message),
                Decision::Unconfirmable(_) => match unconfirmable {
                    Some((true, _)) => None,
                    Some((false, why)) => Some(format!(
                        "Tool `{tool}` needs the user's confirmation before it runs, and the \
                         user could not be asked ({why}), so it did not run. Tell the user; \
                         it can run from a client that supports elicitation."
                    )),
                    None => unreachable!("set above for an unconfirmable decision"),
                },
            };
            match message {
                Some(message) => Ok(Outcome::Refused(Refusal::new("not_confirmed", message))),
                None => inner.oneshot(request).await,
            }
        });
        // On the modern leg an unanswered question suspends the call: the client gets
        // `input_required` (as a tool's own ask does, in `Invoke`), and this future is
        // dropped.
        Box::pin(std::future::poll_fn(move |task| {
            match asking.as_mut().poll(task) {
                Poll::Pending if context.round().is_some_and(|r| r.suspended()) => {
                    Poll::Ready(Ok(Outcome::InputRequired))
                }
                polled => polled,
            }
        }))
    }
}

/// Asks the user, unless the client cannot be asked.
async fn ask(cx: &crate::context::RequestContext, question: String) -> Decision {
    // Checked before asking: an ask without the capability would be answered with the
    // spec's missing-capability error, and a refusal here is the model's to relay.
    let form = InputRequest::Elicit(ElicitRequestParams::form(String::new(), Default::default()));
    if !form.allowed_by(cx.client_capabilities()) {
        return Decision::Unconfirmable("the client does not support elicitation".into());
    }
    match cx.confirm(question).await {
        Ok(ElicitAction::Accept) => Decision::Accepted,
        Ok(ElicitAction::Decline) => Decision::Refused(
            "declined",
            "The user declined this call, so the tool did not run. Do not retry it unless the \
             user asks."
                .into(),
        ),
        Ok(ElicitAction::Cancel) => Decision::Refused(
            "cancelled",
            "The user dismissed the confirmation without allowing this call, so the tool did \
             not run."
                .into(),
        ),
        Err(InputError::MissingCapability { .. }) | Err(InputError::Unavailable(_)) => {
            Decision::Unconfirmable("the request has no way to ask the user".into())
        }
        Err(e) => Decision::Refused(
            "not_confirmed",
            format!("The user's confirmation was not received ({e}), so the tool did not run."),
        ),
    }
}
