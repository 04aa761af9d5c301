//! `cancel`: stop a run; its pending items are closed as cancelled. A running run stops at
//! its driver's next commit. `--on-resolve` runs for the items it closed.

use anyhow::Result;
use serde_json::json;

use crate::context::Ctx;
use crate::exit::Exit;

pub fn run(ctx: &Ctx, input: &str) -> Result<Exit> {
    let (store, run) = ctx.store_and_run(input)?;
    let was = store.cancel(&run.id)?;
    crate::runner::resolved::told(ctx, store.as_ref(), Some(&run.id));
    if ctx.out.is_json() {
        ctx.out.json_line(
            &json!({"runId": run.id, "status": "cancelled", "previousStatus": was.as_str()}),
        );
    } else {
        ctx.out.line(&format!(
            "cancelled run {} (it was {})",
            run.id,
            was.as_str()
        ));
    }
    Ok(Exit::Success)
}
