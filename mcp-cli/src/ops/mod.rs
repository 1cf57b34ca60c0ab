//! The work behind the commands, as functions that return values (and can be tested
//! without a process).

pub mod ask;
pub mod client_paths;
pub mod connect;
pub mod content;
pub mod dev;
pub mod doctor;
pub mod inspect;
pub mod install;
pub mod mcpb;
pub mod name;
pub mod oauth;
pub mod package;
pub mod package_info;
pub mod project;
pub mod registry;
pub mod scaffold;
pub mod template;
pub mod workspace;
pub mod write;
