//! The builder's methods for the items the attributes collect: every `#[mcp_resource]` and
//! `#[mcp_prompt]` of the program (through `inventory`, like `#[mcp_tool]`), or all three
//! kinds at once.
//!
//! They sit beside the collection rather than in [`server`](crate::server): the server
//! registers items however they were made, and only this module knows that some were
//! gathered by the macros.

use crate::server::ServerBuilder;

impl ServerBuilder {
    /// Adds every `#[mcp_resource]` function in the program: the fixed resources
    /// ([`resource::collected()`](crate::resource::collected)) and the templates
    /// ([`resource::collected_templates()`](crate::resource::collected_templates)).
    pub fn collected_resources(self) -> Self {
        self.resources(crate::resource::collected())
            .resource_templates(crate::resource::collected_templates())
    }

    /// Adds every `#[mcp_prompt]` function in the program
    /// ([`prompt::collected()`](crate::prompt::collected)).
    pub fn collected_prompts(self) -> Self {
        self.prompts(crate::prompt::collected())
    }

    /// Adds every `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` function in the
    /// program: [`collected_tools`](Self::collected_tools),
    /// [`collected_resources`](Self::collected_resources) and
    /// [`collected_prompts`](Self::collected_prompts) together. Methods of `#[mcp_tools]`
    /// impl blocks need an instance and are added with [`tools`](Self::tools).
    pub fn collected(self) -> Self {
        self.collected_tools()
            .collected_resources()
            .collected_prompts()
    }
}
