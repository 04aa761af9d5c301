//! `agents --server URL`: the server's agents, one line each (id, name, tools), or one JSON
//! object each.

use anyhow::Result;
use serde_json::json;

use super::needs_server;
use crate::context::Ctx;
use crate::error::fail;
use crate::exit::Exit;
use crate::output::sanitize;
use crate::runner::Server;

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let Some(config) = &ctx.server else {
        return fail(needs_server("agents"));
    };
    let server = Server::connect(ctx, config, None)?;
    let out = ctx.out;
    let agents = server.client.agents()?;
    for a in &agents {
        if out.is_json() {
            out.json_line(&json!({
                "id": a.id, "name": a.name, "description": a.description, "tools": a.tools,
                "server": server.shown,
            }));
            continue;
        }
        let name = if a.name.is_empty() || a.name == a.id {
            String::new()
        } else {
            format!("  ({})", sanitize::one_line(&a.name))
        };
        let tools = if a.tools.is_empty() {
            "no tools".to_string()
        } else {
            a.tools.join(", ")
        };
        out.line(&format!(
            "{}{name}  tools: {}",
            sanitize::one_line(&a.id),
            sanitize::one_line(&tools)
        ));
        if !a.description.is_empty() {
            out.line(&format!("    {}", sanitize::one_line(&a.description)));
        }
    }
    if agents.is_empty() {
        out.info(&format!("{} has no agents", server.shown));
    }
    Ok(Exit::Success)
}
