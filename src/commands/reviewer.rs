//! `reviewer add|list|rotate|remove|link|notify`: the people who may sign in to `serve` (SPEC §13).
//! A token is printed once, on stdout alone, and the store keeps only its hash; a sign-in
//! link is printed once too. Thin: the rules (which names, who exists, what ends a session)
//! are the store's, how a reviewer is shown is `serve::people`'s.

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::cli::{ReviewerAddArgs, ReviewerCommand, ReviewerNotifyArgs};
use crate::error::{fail, Error};
use crate::exit::Exit;
use crate::output::{format, sanitize};
use crate::store::{check_name, secret, NewReviewer, Reviewer, Reviewers, Store};

pub fn run(ctx: &Ctx, command: ReviewerCommand) -> Result<Exit> {
    match command {
        ReviewerCommand::Add(a) => add(ctx, &a),
        ReviewerCommand::List => list(ctx),
        ReviewerCommand::Rotate(a) => rotate(ctx, &a.name),
        ReviewerCommand::Remove(a) => remove(ctx, &a.name),
        ReviewerCommand::Link(a) => link(ctx, &a.name),
        ReviewerCommand::Notify(a) => notify(ctx, &a),
    }
    .map(|()| Exit::Success)
}

fn add(ctx: &Ctx, a: &ReviewerAddArgs) -> Result<()> {
    let name = check_name("the name", &a.name)?;
    for g in &a.groups {
        check_name("the group", g)?;
    }
    let os_user = a.os_user.as_deref();
    let pg_role = a.pg_role.as_deref();
    os_user.map(|u| check_name("the OS user", u)).transpose()?;
    pg_role.map(|r| check_name("the role", r)).transpose()?;
    let notify = a.notify.as_deref().map(channel).transpose()?;
    let store = ctx.create_store()?;
    let token = secret::token();
    let new = NewReviewer {
        name,
        groups: &a.groups,
        os_user,
        pg_role,
        notify,
    };
    store.add_reviewer(&new, &token)?;
    print(ctx, json!({"reviewer": name, "token": token}), &token);
    ctx.out.info(&format!(
        "reviewer {name} added; the token above is shown only now (it signs in to serve, and is the API's Bearer token)"
    ));
    Ok(())
}

/// A secret printed once, on stdout alone: `text`, or in JSON mode `json`.
fn print(ctx: &Ctx, json: serde_json::Value, text: &str) {
    match ctx.out.is_json() {
        true => ctx.out.json_line(&json),
        false => ctx.out.line(text),
    }
}

fn list(ctx: &Ctx) -> Result<()> {
    let reviewers = match ctx.existing_store()? {
        Some(store) => store.list_reviewers()?,
        None => Vec::new(),
    };
    for r in &reviewers {
        match ctx.out.is_json() {
            true => ctx.out.json_line(&as_json(r)),
            false => ctx.out.line(&line(r)),
        }
    }
    if reviewers.is_empty() {
        ctx.out.info(&format!(
            "no reviewers; add one with: {} reviewer add NAME",
            ctx.program()
        ));
    }
    Ok(())
}

fn rotate(ctx: &Ctx, name: &str) -> Result<()> {
    let store = existing(ctx, name)?;
    let token = secret::token();
    store.rotate_reviewer(name, &token)?;
    print(ctx, json!({"reviewer": name, "token": token}), &token);
    ctx.out.info(&format!(
        "reviewer {} has a new token, shown only now; the old one and every session and link of theirs stopped working",
        sanitize::one_line(name)
    ));
    Ok(())
}

fn remove(ctx: &Ctx, name: &str) -> Result<()> {
    existing(ctx, name)?.remove_reviewer(name)?;
    ctx.out.info(&format!(
        "reviewer {} removed; their token, sessions and links stopped working (what they decided stays in the runs)",
        sanitize::one_line(name)
    ));
    Ok(())
}

fn link(ctx: &Ctx, name: &str) -> Result<()> {
    let store = existing(ctx, name)?;
    let link_secret = secret::generate();
    let expires = store.add_link(name, &link_secret)?;
    let base = store.public_url()?;
    let link = crate::links::login_url(base.as_deref(), &link_secret);
    let shown = json!({"reviewer": name, "link": link, "expiresAt": format::time(expires)});
    print(ctx, shown, &link);
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
    Ok(())
}

fn notify(ctx: &Ctx, a: &ReviewerNotifyArgs) -> Result<()> {
    let url = a.url.as_deref().map(channel).transpose()?;
    existing(ctx, &a.name)?.set_notify(&a.name, url)?;
    let name = sanitize::one_line(&a.name);
    ctx.out.info(&match url {
        Some(url) => format!(
            "serve tells reviewer {name} of new items at {}",
            sanitize::one_line(url)
        ),
        None => format!("serve tells reviewer {name} of nothing"),
    });
    Ok(())
}

/// A channel's URL as given, once it reads as one (a usage error otherwise).
fn channel(url: &str) -> Result<&str> {
    match crate::notify::Channel::parse(url) {
        Ok(_) => Ok(url),
        Err(e) => fail(Error::usage(sanitize::one_line(&e))),
    }
}

/// The store, which must exist for a reviewer to be named.
fn existing(ctx: &Ctx, name: &str) -> Result<Box<dyn Store>> {
    ctx.existing_store()?.map_or_else(
        || {
            fail(
                Error::not_found(format!("no reviewer {}", sanitize::one_line(name)))
                    .with_hint(format!("add one with: {} reviewer add NAME", ctx.program())),
            )
        },
        Ok,
    )
}

// How reviewers are shown by `reviewer list`: one line each in text mode (every value
// sanitized: names are checked when added, but a store can hold anything), one JSON object
// each in JSON mode. Never a token or its hash: the store does not give them out.

fn as_json(r: &Reviewer) -> Value {
    json!({
        "name": r.name,
        "groups": r.groups,
        "osUser": r.os_user,
        "pgRole": r.pg_role,
        "notify": r.notify,
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
    if let Some(url) = &r.notify {
        parts.push(format!("notify: {}", sanitize::one_line(url)));
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
