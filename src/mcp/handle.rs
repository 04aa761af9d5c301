//! The requests that touch runs: `tools/call` (checked, a run started, then waited for on
//! the call's own thread, with the client's form asked meanwhile), and the tasks of
//! 2025-11-25 sessions (`tasks/get`, `tasks/cancel` at once; `tasks/result` on a thread of
//! its own). Each reads the run from the store; nothing about a call is kept here.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Result;
use serde_json::{json, Value};

use super::{calls, elicit, tasks, tools, wire, Server, AGENT};
use crate::domain::{CallRecord, CallState};
use crate::output::sanitize::one_line;
use crate::runner::oneshot;
use crate::store::{Run, Store};

/// What a `tools/call` came to before any wait.
enum Started {
    /// A result at once: bad input, or no such run for `await_answer`.
    Answered(Value),
    /// The run to wait for.
    Run(String),
}

/// The `_meta` key of the words a model gets at once for a task.
const IMMEDIATE: &str = "io.modelcontextprotocol/model-immediate-response";

impl<W: Write + Send> Server<'_, W> {
    /// The checked name of a `tools/call` and whether it asks for a task, or `None` once
    /// it was answered with an error.
    pub(super) fn tool_call(&self, id: &Value, params: &Value) -> Option<(String, bool)> {
        let name = match params["name"].as_str() {
            Some(n) if tools::specs().iter().any(|t| t.name == n) => n.to_string(),
            Some(n) => {
                let what = format!("Unknown tool: {}", one_line(n));
                self.out.error(id, wire::INVALID_PARAMS, &what);
                return None;
            }
            None => {
                let what = "Invalid params: \"name\" must be a string";
                self.out.error(id, wire::INVALID_PARAMS, what);
                return None;
            }
        };
        let tasks = self.session.lock().map(|s| s.tasks()).unwrap_or(false);
        let task = tasks && params.get("task").is_some_and(Value::is_object);
        if task && !tools::asks_a_person(&name) {
            let what = format!("Method not found: tool {name} cannot be called as a task");
            self.out.error(id, wire::METHOD_NOT_FOUND, &what);
            return None;
        }
        Some((name, task))
    }

    /// A `tools/call` of tool `name`, on its own thread: checked, started, then waited for
    /// (or, as a task, answered at once with the task).
    pub(super) fn run_call(&self, id: &Value, params: &Value, name: String, task: bool) {
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let token = params["_meta"]["progressToken"].clone();
        let result = match name == tools::APPROVAL_PROMPT {
            true => self.prompt_call(&args, &token),
            false => self.start(&name, &args),
        };
        let result = result.and_then(|started| match started {
            Started::Answered(result) => Ok(result),
            Started::Run(run_id) if task => self.created(&run_id),
            Started::Run(run_id) => self.wait_for(&run_id, &token, Some(self.setup.wait)),
        });
        match result {
            Ok(result) => self.out.result(id, result),
            Err(e) => {
                eprintln!("mcp: {name}: {e:#}");
                let text = format!("error: {}", one_line(&format!("{e:#}")));
                self.out.result(id, calls::text_result(&text, true));
            }
        }
    }

    /// Checks the call and starts its one-step run (or finds the run `await_answer` names).
    fn start(&self, name: &str, args: &Value) -> Result<Started> {
        let roots = self.roots();
        let call = match tools::call(name, args, &roots) {
            Some(Ok(call)) => call,
            Some(Err(invalid)) => return Ok(Started::Answered(calls::object_result(&invalid))),
            None => anyhow::bail!("no tool {name}"),
        };
        let ctx = self.setup.context();
        let run_id = match call {
            start @ tools::Call::Start { .. } => self.begin(start)?,
            tools::Call::Await(run_id) => run_id,
        };
        Ok(match self.run_of(ctx.create_store()?.as_ref(), &run_id)? {
            Some(_) => Started::Run(run_id),
            None => {
                let text = format!("no call of this server has the id {}", one_line(&run_id));
                Started::Answered(calls::text_result(&text, true))
            }
        })
    }

    /// Starts the one-step run of a checked call: its id.
    fn begin(&self, call: tools::Call) -> Result<String> {
        let tools::Call::Start {
            tool,
            entry,
            args,
            prompt,
            cwd,
        } = call
        else {
            anyhow::bail!("nothing to start");
        };
        let run_id = uuid::Uuid::new_v4().to_string();
        let cwd = cwd.display().to_string();
        let shot = oneshot::OneShot {
            agent_id: AGENT,
            tool,
            prompt,
            args,
            cwd,
        };
        let watched = self.setup.watched.clone();
        oneshot::begin(&self.setup.context(), shot, *entry, watched, false, &run_id)?;
        Ok(run_id)
    }

    /// `approval_prompt`: checked, then its item found or made, and waited for
    /// (`permission`).
    fn prompt_call(&self, args: &Value, token: &Value) -> Result<Started> {
        let roots = self.roots();
        let asked = match tools::call(tools::APPROVAL_PROMPT, args, &roots) {
            Some(Ok(tools::Call::Start { args, .. })) => args,
            Some(Err(invalid)) => return Ok(Started::Answered(calls::object_result(&invalid))),
            _ => anyhow::bail!("no tool {}", tools::APPROVAL_PROMPT),
        };
        let start = || match tools::call(tools::APPROVAL_PROMPT, args, &roots) {
            Some(Ok(call)) => self.begin(call),
            _ => anyhow::bail!("the call no longer checks"),
        };
        let cwd = roots[0].display().to_string();
        Ok(Started::Answered(
            self.permission(&asked, &cwd, &start, token)?,
        ))
    }

    /// The run of a call of this server (agent `mcp`), with its item.
    fn run_of(&self, store: &dyn Store, run_id: &str) -> Result<Option<(Run, Option<CallRecord>)>> {
        let Some(run) = store.run(run_id)?.filter(|r| r.agent_id == AGENT) else {
            return Ok(None);
        };
        let item = store.calls(run_id)?.into_iter().find(|c| c.kind.is_some());
        Ok(Some((run, item)))
    }

    /// Waits up to `wait` (`None`: until decided) for the run's item, asking in the
    /// client's form meanwhile where it may.
    /// During `tasks/result` (`wait` is `None`) the form is tied to its task.
    pub(super) fn wait_for(
        &self,
        run_id: &str,
        token: &Value,
        wait: Option<Duration>,
    ) -> Result<Value> {
        let ctx = self.setup.context();
        let store = ctx.create_store()?;
        let progress = |n: u64| {
            let message = "waiting for a person to decide";
            let params = json!({"progressToken": token, "progress": n, "message": message});
            self.out.notify("notifications/progress", params)
        };
        let done = AtomicBool::new(false);
        let stop = || self.closed.load(Ordering::SeqCst) || done.load(Ordering::SeqCst);
        let watch = calls::Watch {
            store: store.as_ref(),
            run_id,
            wait,
            progress: (!token.is_null()).then_some(&progress as &dyn Fn(u64)),
            closed: &stop,
        };
        std::thread::scope(|scope| {
            if let Some(mut params) = self.form(store.as_ref(), run_id) {
                if wait.is_none() {
                    params["_meta"] = json!({ tasks::RELATED: {"taskId": run_id} });
                }
                let stop = &stop;
                scope.spawn(move || self.elicit(run_id, params, stop));
            }
            let result = calls::wait(&watch, &ctx.program());
            done.store(true, Ordering::SeqCst);
            crate::runner::resolved::told(&ctx, store.as_ref(), Some(run_id));
            result
        })
    }

    /// The form that asks for the pending item of `run_id`, when the client answers forms
    /// and the server's policy may let its own user decide (the store judges the decision
    /// itself).
    fn form(&self, store: &dyn Store, run_id: &str) -> Option<Value> {
        let policy = &self.setup.watched.review.policy;
        let may = policy.is_empty()
            || (policy.named.is_none() && policy.rule.as_ref().is_some_and(|r| r.allow_self));
        let version = {
            let session = self.session.lock().unwrap_or_else(|e| e.into_inner());
            session.forms().filter(|_| may)?
        };
        let pending = store
            .calls(run_id)
            .ok()?
            .into_iter()
            .find(|c| c.kind.is_some() && c.state == CallState::Pending)?;
        elicit::request(&pending, version)
    }

    /// Asks in the client's form (`params`) until it is answered there (recorded: the
    /// call's wait sees it) or `stop` (the form is cancelled).
    fn elicit(&self, run_id: &str, params: Value, stop: &(dyn Fn() -> bool + Sync)) {
        self.open_forms(run_id, true);
        let Some((id, rx)) = self.asked.open(self.out, "elicitation/create", params) else {
            return self.open_forms(run_id, false);
        };
        let reply = loop {
            if stop() {
                let reason = "the item was decided, or the call stopped waiting";
                let params = json!({"requestId": id, "reason": reason});
                self.out.notify("notifications/cancelled", params);
                break None;
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(reply) => break Some(reply),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
            }
        };
        self.asked.forget(&id);
        self.open_forms(run_id, false);
        let accepted = match reply {
            Some(Ok(r)) if r["action"] == json!("accept") => r["content"].clone(),
            Some(Err(e)) => return eprintln!("mcp: the form for run {run_id} failed: {e}"),
            _ => return,
        };
        let ctx = self.setup.context();
        let recorded = ctx
            .create_store()
            .and_then(|store| elicit::record(&ctx, store.as_ref(), run_id, &accepted));
        if let Err(e) = recorded {
            let e = one_line(&format!("{e:#}"));
            eprintln!("mcp: the answer given in the form for run {run_id} was not recorded: {e}");
        }
    }

    /// Notes that a form for `run_id` is open (`true`) or closed: a task is
    /// `input_required` only while one is.
    fn open_forms(&self, run_id: &str, open: bool) {
        let mut forms = self.forms.lock().unwrap_or_else(|e| e.into_inner());
        match open {
            true => *forms.entry(run_id.to_string()).or_default() += 1,
            false => {
                if let Some(n) = forms.get_mut(run_id) {
                    *n -= 1;
                    if *n == 0 {
                        forms.remove(run_id);
                    }
                }
            }
        }
    }

    /// The task of `run`, `input_required` while a form for it is open here.
    fn task_of(&self, run: &Run, item: Option<&CallRecord>, said: Option<&str>) -> Value {
        let mut task = tasks::task(run, item, said);
        let open = self
            .forms
            .lock()
            .map(|f| f.contains_key(&run.id))
            .unwrap_or(false);
        if open && task["status"] == json!("working") {
            task["status"] = json!("input_required");
            task["statusMessage"] = json!("a form for it is open in this client");
        }
        task
    }

    /// The `CreateTaskResult` of a call just started as a task.
    fn created(&self, run_id: &str) -> Result<Value> {
        let ctx = self.setup.context();
        let store = ctx.create_store()?;
        let (run, item) = self
            .run_of(store.as_ref(), run_id)?
            .ok_or_else(|| anyhow::anyhow!("run {run_id} is gone"))?;
        let url = store.calls_and_url(run_id)?.1;
        let said = item
            .as_ref()
            .map(|i| calls::how_to_answer(run_id, i, url.as_deref(), &ctx.program()));
        let told = format!("A person was asked (run {run_id}); the answer is this task's result.");
        Ok(json!({
            "task": self.task_of(&run, item.as_ref(), said.as_deref()),
            "_meta": { IMMEDIATE: told },
        }))
    }

    /// `tasks/get` and `tasks/cancel`: the task after it; `Err` the error's message.
    pub(super) fn task(&self, method: &str, params: &Value) -> Result<Value, String> {
        let run_id = params["taskId"]
            .as_str()
            .ok_or("Invalid params: \"taskId\" must be a string")?;
        let failed = |e: anyhow::Error| format!("{e:#}");
        let ctx = self.setup.context();
        let store = ctx.create_store().map_err(failed)?;
        store
            .expire_due(crate::store::now_ms())
            .map_err(|e| failed(e.into()))?;
        let unknown = || format!("Invalid params: no task {}", one_line(run_id));
        let (run, item) = self
            .run_of(store.as_ref(), run_id)
            .map_err(failed)?
            .ok_or_else(unknown)?;
        if method == "tasks/cancel" {
            if tasks::status(&run, item.as_ref()).0 != "working" {
                let (status, _) = tasks::status(&run, item.as_ref());
                return Err(format!("Invalid params: task {run_id} is already {status}"));
            }
            store.cancel(run_id).map_err(|e| failed(e.into()))?;
            let (run, item) = self
                .run_of(store.as_ref(), run_id)
                .map_err(failed)?
                .ok_or_else(unknown)?;
            return Ok(self.task_of(&run, item.as_ref(), None));
        }
        Ok(self.task_of(&run, item.as_ref(), None))
    }

    /// `tasks/result`, on its own thread: the call's result once decided, tied to its task.
    pub(super) fn task_result(&self, id: &Value, params: &Value) {
        let Some(run_id) = params["taskId"].as_str() else {
            let what = "Invalid params: \"taskId\" must be a string";
            return self.out.error(id, wire::INVALID_PARAMS, what);
        };
        let known = self
            .setup
            .context()
            .create_store()
            .and_then(|store| self.run_of(store.as_ref(), run_id));
        match known {
            Ok(Some(_)) => {}
            Ok(None) => {
                let what = format!("Invalid params: no task {}", one_line(run_id));
                return self.out.error(id, wire::INVALID_PARAMS, &what);
            }
            Err(e) => return self.out.error(id, wire::INTERNAL_ERROR, &format!("{e:#}")),
        }
        match self.wait_for(run_id, &Value::Null, None) {
            Ok(result) => self.out.result(id, tasks::related(result, run_id)),
            Err(e) => self.out.error(id, wire::INTERNAL_ERROR, &format!("{e:#}")),
        }
    }
}
