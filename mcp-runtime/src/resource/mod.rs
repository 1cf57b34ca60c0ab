//! Resources.

pub mod uri_template;
