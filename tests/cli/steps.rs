//! Script steps for test agents (`Env::agent`), so that a test says what its model does
//! (`ask("q", "Go?")`, `say("done")`) instead of spelling the script's JSON each time.

use serde_json::{json, Value};

/// A step that asks one free-text question as call `id`.
pub fn ask(id: &str, question: &str) -> Value {
    json!({"toolCalls": [{"id": id, "name": "ask_user", "args": {"question": question}}]})
}

/// A step that submits the plan file `path` as call `id`.
pub fn plan(id: &str, path: &str) -> Value {
    json!({"toolCalls": [{"id": id, "name": "submit_plan", "args": {"path": path}}]})
}

/// A step that ends the run with `text`.
pub fn say(text: &str) -> Value {
    json!({ "text": text })
}
