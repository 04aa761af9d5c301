//! How reviewers are shown by `reviewer list`: one line each in text mode (every value
//! sanitized: names are checked when added, but a store can hold anything), one JSON object
//! each in JSON mode. Never a token or its hash: the store does not give them out.

use serde_json::{json, Value};

use crate::output::{format, sanitize};
use crate::store::Reviewer;

pub fn as_json(r: &Reviewer) -> Value {
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

pub fn line(r: &Reviewer) -> String {
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
