//! The rules of an `#[mcp_tools]` impl block: inherent, not generic, with at least one
//! `#[mcp_tool]` method, each of which follows the tool rules.

use super::{Position, tool};
use crate::ast::ImplBlock;
use crate::ctxt::Ctxt;

/// Checks the block and each of its tools, recording each violation.
pub(crate) fn check(cx: &Ctxt, block: &ImplBlock) {
    if !block.args.is_empty() {
        cx.error_spanned_by(
            &block.args,
            "`#[mcp_tools]` takes no arguments; configure each method's `#[mcp_tool(...)]`",
        );
    }
    if let Some((_, path, _)) = &block.block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_tools]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !block.block.generics.params.is_empty() {
        cx.error_spanned_by(&block.block.generics, "`#[mcp_tools]` does not support generic impl blocks; implement the tools on a concrete type");
    }
    if block.tools.is_empty() {
        cx.error_spanned_by(
            &block.block.self_ty,
            "this `#[mcp_tools]` block has no `#[mcp_tool]` methods",
        );
    }
    for t in &block.tools {
        tool(cx, t, Position::Method);
    }
}
