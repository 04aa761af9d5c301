//! `policy set|list|remove`: policies an administrator keeps by name (SPEC §14), so that a
//! run started with `--policy NAME` gets approvers its job's author did not choose. Thin:
//! what resolves, and who may decide, is the store's.

use anyhow::Result;
use serde_json::json;

use super::Ctx;
use crate::cli::{PolicyCommand, PolicySetArgs};
use crate::domain::review::{Rule, RuleSpec};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::{format, sanitize};
use crate::store::{NamedPolicy, Policies};

pub fn run(ctx: &Ctx, command: PolicyCommand) -> Result<Exit> {
    match command {
        PolicyCommand::Set(a) => set(ctx, &a),
        PolicyCommand::List => list(ctx),
        PolicyCommand::Remove(a) => remove(ctx, &a.name),
    }
}

fn set(ctx: &Ctx, a: &PolicySetArgs) -> Result<Exit> {
    let spec = RuleSpec {
        reviewers: a.reviewers.clone(),
        approvals: a.approvals,
        allow_self: a.allow_self,
    };
    // What can be checked before a store is opened (or created).
    spec.check()
        .map_err(|e| Error::usage(e.replace("review.", "--")))?;
    let store = ctx.create_store()?;
    let rule = store.set_policy(&a.name, &spec, a.for_agent.as_deref())?;
    if ctx.out.is_json() {
        ctx.out.json_line(&json!({
            "name": a.name,
            "reviewers": spec.reviewers,
            "members": rule.reviewers,
            "approvals": rule.approvals,
            "allowSelf": rule.allow_self,
            "forAgent": a.for_agent,
        }));
    }
    let minimum = a
        .for_agent
        .as_deref()
        .map(|agent| format!(" (the minimum for agent {})", sanitize::one_line(agent)))
        .unwrap_or_default();
    ctx.out.info(&format!(
        "policy {} set{minimum}: {}",
        sanitize::one_line(&a.name),
        who(&rule)
    ));
    Ok(Exit::Success)
}

/// Who may decide under `rule`, in words.
fn who(rule: &Rule) -> String {
    let approvals = match rule.approvals {
        1 => "one approval".to_string(),
        n => format!("{n} approvals"),
    };
    let starter = if rule.allow_self {
        "the run's starter too"
    } else {
        "never the run's starter"
    };
    format!(
        "{} may decide ({approvals}; {starter})",
        sanitize::one_line(&rule.reviewers.join(", "))
    )
}

fn list(ctx: &Ctx) -> Result<Exit> {
    let policies = match ctx.existing_store()? {
        Some(store) => store.list_policies()?,
        None => Vec::new(),
    };
    for (p, rule) in &policies {
        if ctx.out.is_json() {
            ctx.out.json_line(&as_json(p, rule));
        } else {
            ctx.out.line(&line(p, rule));
        }
    }
    if policies.is_empty() {
        ctx.out.info(&format!(
            "no policies; keep one with: {} policy set NAME --reviewer NAME|group:G",
            ctx.program()
        ));
    }
    Ok(Exit::Success)
}

fn as_json(p: &NamedPolicy, rule: &crate::store::Result<Rule>) -> serde_json::Value {
    let mut v = json!({
        "name": p.name,
        "reviewers": p.rule.reviewers,
        "approvals": p.rule.approvals,
        "allowSelf": p.rule.allow_self,
        "createdAt": format::time(p.created_at),
        "updatedAt": format::time(p.updated_at),
    });
    if let Some(agent) = &p.for_agent {
        v["forAgent"] = json!(agent);
    }
    match rule {
        Ok(r) => v["members"] = json!(r.reviewers),
        Err(e) => v["error"] = json!(e.to_string()),
    }
    v
}

fn line(p: &NamedPolicy, rule: &crate::store::Result<Rule>) -> String {
    let now = match rule {
        Ok(r) => who(r),
        Err(e) => format!(
            "no run can start under it now: {}",
            sanitize::one_line(&e.to_string())
        ),
    };
    let minimum = p
        .for_agent
        .as_deref()
        .map(|agent| format!("  (the minimum for agent {})", sanitize::one_line(agent)))
        .unwrap_or_default();
    format!(
        "{}  {}  {now}{minimum}",
        sanitize::one_line(&p.name),
        sanitize::one_line(&p.rule.reviewers.join(" "))
    )
}

fn remove(ctx: &Ctx, name: &str) -> Result<Exit> {
    let Some(store) = ctx.existing_store()? else {
        return fail(
            Error::not_found(format!("no policy {}", sanitize::one_line(name)))
                .with_hint(format!("list policies with: {} policy list", ctx.program())),
        );
    };
    store.remove_policy(name)?;
    ctx.out.info(&format!(
        "policy {} removed; runs started under it keep the policy they stored",
        sanitize::one_line(name)
    ));
    Ok(Exit::Success)
}
