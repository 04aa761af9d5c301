//! `reviewer add|list|rotate|remove|link`: the people who may sign in to `serve` (SPEC §13).
//! A token is printed once, on stdout alone, and the store keeps only its hash; a sign-in
//! link is printed once too. Thin: the rules (who exists, what ends a session) are the
//! store's.

use anyhow::Result;
use serde_json::json;

use super::Ctx;
use crate::cli::{ReviewerAddArgs, ReviewerCommand};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::{format, sanitize};
use crate::store::{secret, NewReviewer, Reviewer, Reviewers};

pub fn run(ctx: &Ctx, command: ReviewerCommand) -> Result<Exit> {
    match command {
        ReviewerCommand::Add(a) => add(ctx, &a),
        ReviewerCommand::List => list(ctx),
        ReviewerCommand::Rotate(a) => rotate(ctx, &a.name),
        ReviewerCommand::Remove(a) => remove(ctx, &a.name),
        ReviewerCommand::Link(a) => link(ctx, &a.name),
    }
}

/// A reviewer's name, a group or an identity: what can be typed, linked and shown as is.
fn checked<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    let ok = !value.is_empty()
        && value.len() <= 64
        && !value.starts_with('-')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'));
    if !ok {
        return fail(Error::usage(format!(
            "{what} {} is not a name mastra-ask takes: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, not starting with `-`",
            format::shell_quote(value)
        )));
    }
    Ok(value)
}

fn add(ctx: &Ctx, a: &ReviewerAddArgs) -> Result<Exit> {
    let name = checked("the name", &a.name)?;
    for g in &a.groups {
        checked("the group", g)?;
    }
    let os_user = a
        .os_user
        .as_deref()
        .map(|u| checked("the OS user", u))
        .transpose()?;
    let pg_role = a
        .pg_role
        .as_deref()
        .map(|r| checked("the role", r))
        .transpose()?;
    let store = ctx.create_store()?;
    let token = secret::token();
    let new = NewReviewer {
        name,
        groups: &a.groups,
        os_user,
        pg_role,
    };
    store.add_reviewer(&new, &token)?;
    print_token(ctx, name, &token);
    ctx.out.info(&format!(
        "reviewer {name} added; the token above is shown only now (it signs in to serve, and is the API's Bearer token)"
    ));
    Ok(Exit::Success)
}

fn print_token(ctx: &Ctx, name: &str, token: &str) {
    if ctx.out.is_json() {
        ctx.out
            .json_line(&json!({"reviewer": name, "token": token}));
    } else {
        ctx.out.line(token);
    }
}

fn list(ctx: &Ctx) -> Result<Exit> {
    let reviewers = match ctx.existing_store()? {
        Some(store) => store.list_reviewers()?,
        None => Vec::new(),
    };
    for r in &reviewers {
        if ctx.out.is_json() {
            ctx.out.json_line(&as_json(r));
        } else {
            ctx.out.line(&line(r));
        }
    }
    if reviewers.is_empty() {
        ctx.out.info(&format!(
            "no reviewers; add one with: {} reviewer add NAME",
            ctx.program()
        ));
    }
    Ok(Exit::Success)
}

fn as_json(r: &Reviewer) -> serde_json::Value {
    json!({
        "name": r.name,
        "groups": r.groups,
        "osUser": r.os_user,
        "pgRole": r.pg_role,
        "createdAt": format::time(r.created_at),
        "rotatedAt": r.rotated_at.map(format::time),
        "removedAt": r.removed_at.map(format::time),
    })
}

fn line(r: &Reviewer) -> String {
    let mut parts = vec![sanitize::one_line(&r.name)];
    if !r.groups.is_empty() {
        parts.push(format!(
            "groups: {}",
            sanitize::one_line(&r.groups.join(", "))
        ));
    }
    if let Some(u) = &r.os_user {
        parts.push(format!("os user: {}", sanitize::one_line(u)));
    }
    if let Some(role) = &r.pg_role {
        parts.push(format!("pg role: {}", sanitize::one_line(role)));
    }
    parts.push(format!("added {}", format::time(r.created_at)));
    if let Some(at) = r.rotated_at {
        parts.push(format!("token rotated {}", format::time(at)));
    }
    if let Some(at) = r.removed_at {
        parts.push(format!("removed {}", format::time(at)));
    }
    parts.join("  ")
}

fn rotate(ctx: &Ctx, name: &str) -> Result<Exit> {
    let store = existing(ctx, name)?;
    let token = secret::token();
    store.rotate_reviewer(name, &token)?;
    print_token(ctx, name, &token);
    ctx.out.info(&format!(
        "reviewer {} has a new token, shown only now; the old one and every session and link of theirs stopped working",
        sanitize::one_line(name)
    ));
    Ok(Exit::Success)
}

fn remove(ctx: &Ctx, name: &str) -> Result<Exit> {
    let store = existing(ctx, name)?;
    store.remove_reviewer(name)?;
    ctx.out.info(&format!(
        "reviewer {} removed; their token, sessions and links stopped working (what they decided stays in the runs)",
        sanitize::one_line(name)
    ));
    Ok(Exit::Success)
}

fn link(ctx: &Ctx, name: &str) -> Result<Exit> {
    let store = existing(ctx, name)?;
    let link_secret = secret::generate();
    let expires = store.add_link(name, &link_secret)?;
    let path = format!("/login/{link_secret}");
    let base = store.public_url()?;
    let link = match &base {
        Some(url) => format!("{}{path}", url.trim_end_matches('/')),
        None => path.clone(),
    };
    if ctx.out.is_json() {
        ctx.out.json_line(&json!({
            "reviewer": name, "link": link, "expiresAt": format::time(expires),
        }));
    } else {
        ctx.out.line(&link);
    }
    ctx.out.info(&format!(
        "a sign-in link for {}: it works once, until {}",
        sanitize::one_line(name),
        format::time(expires)
    ));
    if base.is_none() {
        ctx.out.info(
            "hint: this store has no public URL yet (serve --public-url URL records it); \
             open the path above on the address serve listens at",
        );
    }
    Ok(Exit::Success)
}

/// The store, which must exist for a reviewer to be named.
fn existing(ctx: &Ctx, name: &str) -> Result<Box<dyn crate::store::Store>> {
    match ctx.existing_store()? {
        Some(store) => Ok(store),
        None => fail(
            Error::not_found(format!("no reviewer {}", sanitize::one_line(name)))
                .with_hint(format!("add one with: {} reviewer add NAME", ctx.program())),
        ),
    }
}
