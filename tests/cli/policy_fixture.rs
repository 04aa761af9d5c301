//! The set-up the policy and approval suites share (SPEC §11, §14): reviewers in a group,
//! and an agent whose command tool `tag_release` (the tagger) waits for an approval, under a
//! policy naming that group when one is given. Each suite says only what differs.

use serde_json::{json, Value};

use crate::command_tools::{call, tagger, tool, tool_agent};
use crate::common::Env;

/// Adds the reviewers `names`, each in `group`.
pub fn reviewers(env: &Env, group: &str, names: &[impl AsRef<str>]) {
    for name in names {
        env.run(&["reviewer", "add", name.as_ref(), "--group", group])
            .assert_code(0);
    }
}

/// A tool's review: `approvals` approvals from the reviewers of `group`.
pub fn of_group(group: &str, approvals: u32) -> Value {
    json!({"reviewers": [format!("group:{group}")], "approvals": approvals})
}

/// An agent (its file) whose first step calls `tag_release` with `args` as `c1`, then says
/// "done"; the tool needs approval, under `review` (`of_group`) when given.
pub fn tagging_agent(env: &Env, args: Value, review: Option<Value>) -> String {
    let tag = tagger(env);
    let mut extra = json!({"requireApproval": true});
    if let Some(review) = review {
        extra["review"] = review;
    }
    tool_agent(
        env,
        json!([call("c1", "tag_release", args), {"text": "done"}]),
        vec![tool("tag_release", &[&tag], extra)],
    )
}
