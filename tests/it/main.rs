//! End-to-end tests, compiled into one binary (link time dominates on small machines).

mod support_smoke;
