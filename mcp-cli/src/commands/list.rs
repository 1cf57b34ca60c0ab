//! `cargo mcp list`: what a server offers: tools, resources, resource templates, prompts,
//! and skills (when it declares the skills extension, `io.modelcontextprotocol/skills`).

use super::{ServerArgs, block_on};
use crate::ops::connect::bounded;
use crate::ops::inspect::{self, count};
use anyhow::Result;
use mcp_runtime::protocol::skills::SKILLS_EXTENSION;
use serde_json::{Map, Value, json};

/// List what a server offers: its tools, resources, resource templates, prompts and skills.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "\
Examples:
  cargo mcp list                                          # build and run the current project
  cargo mcp list --json                                   # for scripts
  cargo mcp list --era legacy                             # speak the 2025 handshake
  cargo mcp list -- ~/notes                               # arguments for the project's server
  cargo mcp list --url http://127.0.0.1:8000/mcp          # a running server over HTTP
  cargo mcp list --command npx -y @modelcontextprotocol/server-everything

Only what the server advertises in its capabilities is asked for and shown: skills when it
declares the skills extension (read a skill's files with `cargo mcp read skill://…`).")]
pub struct Args {
    /// Print JSON: `{server, era, protocolVersion, capabilities}` and, for what the server
    /// advertises, `tools`, `resources`, `resourceTemplates`, `prompts`, `skills`.
    #[arg(long)]
    pub json: bool,

    /// Which server, and how to reach it.
    #[command(flatten)]
    pub server: ServerArgs,
}

/// Connects, lists every advertised primitive (all pages) and prints them.
pub fn exec(args: Args) -> Result<()> {
    block_on(async {
        let connection = args.server.connect().await?;
        let timeout = args.server.timeout();
        let client = &connection.client;
        let offers = &connection.capabilities;
        let tools = match offers.tools {
            Some(_) => Some(bounded(timeout, "tools/list failed", client.list_tools()).await?),
            None => None,
        };
        let (resources, templates) = match offers.resources {
            Some(_) => (
                Some(bounded(timeout, "resources/list failed", client.list_resources()).await?),
                Some(
                    bounded(
                        timeout,
                        "resources/templates/list failed",
                        client.list_resource_templates(),
                    )
                    .await?,
                ),
            ),
            None => (None, None),
        };
        let prompts = match offers.prompts {
            Some(_) => Some(bounded(timeout, "prompts/list failed", client.list_prompts()).await?),
            None => None,
        };

        let declares_skills = offers
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(SKILLS_EXTENSION));
        let skills = match declares_skills {
            true => Some(bounded(timeout, "skills/list failed", client.list_skills()).await?),
            false => None,
        };

        if args.json {
            let mut out = Map::new();
            out.insert("server".into(), json!(connection.server_info));
            out.insert("era".into(), json!(connection.era.to_string()));
            out.insert("protocolVersion".into(), json!(connection.protocol_version));
            out.insert("capabilities".into(), json!(connection.capabilities));
            let lists = [
                ("tools", tools.as_ref().map(|l| json!(l))),
                ("resources", resources.as_ref().map(|l| json!(l))),
                ("resourceTemplates", templates.as_ref().map(|l| json!(l))),
                ("prompts", prompts.as_ref().map(|l| json!(l))),
                ("skills", skills.as_ref().map(|l| json!(l))),
            ];
            for (key, list) in lists {
                if let Some(list) = list {
                    out.insert(key.into(), list);
                }
            }
            println!("{}", serde_json::to_string_pretty(&Value::Object(out))?);
        } else {
            let width = inspect::output_width();
            let mut sections: Vec<(&str, String, String)> = Vec::new();
            if let Some(tools) = &tools {
                let table = inspect::tools_table(tools, width);
                sections.push(("Tools", count(tools.len(), "tool"), table));
            }
            if let (Some(resources), Some(templates)) = (&resources, &templates) {
                let table = inspect::resources_table(resources, width);
                sections.push(("Resources", count(resources.len(), "resource"), table));
                // An empty table of templates beside the resources says nothing.
                if !templates.is_empty() {
                    let table = inspect::templates_table(templates, width);
                    let n = count(templates.len(), "resource template");
                    sections.push(("Resource templates", n, table));
                }
            }
            if let Some(prompts) = &prompts {
                let table = inspect::prompts_table(prompts, width);
                sections.push(("Prompts", count(prompts.len(), "prompt"), table));
            }
            if let Some(skills) = &skills {
                let table = inspect::skills_table(skills, width);
                sections.push(("Skills", count(skills.len(), "skill"), table));
            }
            let counts: Vec<&str> = sections.iter().map(|(_, n, _)| n.as_str()).collect();
            let offered = if counts.is_empty() {
                "no tools, resources or prompts advertised".to_owned()
            } else {
                counts.join(", ")
            };
            println!(
                "{}: {offered} (protocol {}, {} era)",
                connection.server_label(),
                connection.protocol_version,
                connection.era
            );
            // A server of tools alone prints as it always did: the table, untitled.
            let titled = sections.len() > 1 || sections.iter().any(|(t, ..)| *t != "Tools");
            for (title, _, table) in &sections {
                println!();
                if titled {
                    println!("{title}:");
                }
                print!("{table}");
            }
        }
        connection.close().await;
        Ok(())
    })
}
