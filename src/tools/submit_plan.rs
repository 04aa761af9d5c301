//! `submit_plan`: the model submits a Markdown plan file for a person to approve or reject.
//!
//! The host reads the file when the call suspends, confined to the run's working directory,
//! and keeps that snapshot: it is what the reviewer sees and decides on. Never prompts.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::beneath::{self, Refusal};
use super::model_path;
use super::schema::{self, Problems};
use super::ToolSpec;
use crate::domain::{ItemKind, ToolOutcome, SUBMIT_PLAN};
use crate::limits::{self, ReadError, MAX_PLAN_FILE, MAX_PLAN_PATH_CHARS as MAX_PATH_CHARS};

pub const APPROVED_TEXT: &str =
    "Plan approved. Proceed with implementation following the approved plan.";

/// The plan as submitted: what the reviewer decides on.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub path: String,
    pub title: String,
    pub plan: String,
}

impl Plan {
    pub fn payload(&self) -> Value {
        json!({"toolId": SUBMIT_PLAN, "path": self.path, "title": self.title, "plan": self.plan})
    }

    pub fn from_payload(payload: &Value) -> Option<Plan> {
        let get = |k: &str| payload.get(k)?.as_str().map(str::to_string);
        Some(Plan {
            path: get("path")?,
            title: get("title")?,
            plan: get("plan")?,
        })
    }

    /// Splits a file's text into title (a first `# ` line) and body.
    pub fn from_text(path: &str, text: &str) -> Plan {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let rest = text.trim_start_matches(['\n', '\r', ' ', '\t']);
        let (first, after) = rest.split_once('\n').unwrap_or((rest, ""));
        match first.trim_start().strip_prefix("# ") {
            Some(title) => Plan {
                path: path.to_string(),
                title: title.trim().to_string(),
                plan: after.trim().to_string(),
            },
            None => Plan {
                path: path.to_string(),
                title: String::new(),
                plan: text.trim().to_string(),
            },
        }
    }
}

/// A reviewer's decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    Approved { feedback: Option<String> },
    Rejected { feedback: Option<String> },
}

/// Why an approval with feedback is refused.
pub const APPROVAL_FEEDBACK: &str = "feedback is for a rejection; an approval carries none: clear the feedback to approve, or reject with it";

impl Decision {
    /// Reads `{action, feedback?, path?, title?, plan?}`; path, title and plan are the
    /// host's to fill, so they are accepted and then replaced by the snapshot. Feedback is
    /// for a rejection: an approval with some is refused.
    pub fn from_json(v: &Value) -> Result<Decision, String> {
        let allowed = ["action", "feedback", "path", "title", "plan"];
        let Value::Object(map) = v else {
            return Err(format!(
                "expected an object like {{\"action\":\"approved\"}}, got {}",
                schema::type_name(v)
            ));
        };
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!(
                "unknown key \"{k}\"; the keys are action and feedback"
            ));
        }
        let feedback = match map.get("feedback") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(format!(
                    "feedback must be a string, got {}",
                    schema::type_name(other)
                ))
            }
        };
        let blank = feedback.as_deref().is_none_or(|f| f.trim().is_empty());
        match map.get("action").and_then(Value::as_str) {
            // The one rule of every frontend (SPEC §13): what several approvers approve is
            // the plan, never a text only one of them wrote.
            Some("approved") if !blank => Err(APPROVAL_FEEDBACK.into()),
            Some("approved") => Ok(Decision::Approved { feedback: None }),
            Some("rejected") => Ok(Decision::Rejected { feedback }),
            _ => Err("action must be \"approved\" or \"rejected\"".into()),
        }
    }

    fn feedback(&self) -> Option<&str> {
        match self {
            Decision::Approved { feedback } | Decision::Rejected { feedback } => {
                feedback.as_deref().filter(|f| !f.trim().is_empty())
            }
        }
    }

    fn action(&self) -> &'static str {
        match self {
            Decision::Approved { .. } => "approved",
            Decision::Rejected { .. } => "rejected",
        }
    }

    pub fn is_approved(&self) -> bool {
        matches!(self, Decision::Approved { .. })
    }

    /// The decision and its feedback, nothing of the plan: what a rejection sends to a
    /// Mastra server (SPEC §12), which must never get a file's text nobody approved.
    pub fn without_plan(&self) -> Value {
        let mut v = json!({"action": self.action()});
        if let Some(f) = self.feedback() {
            v["feedback"] = json!(f);
        }
        v
    }

    /// The resume data, completed from the submitted plan.
    pub fn resume_data(&self, plan: &Plan) -> Value {
        let mut v = json!({"action": self.action()});
        if let Some(f) = self.feedback() {
            v["feedback"] = json!(f);
        }
        v["path"] = json!(plan.path);
        v["title"] = json!(plan.title);
        v["plan"] = json!(plan.plan);
        v
    }

    /// The result object the model receives.
    pub fn result(&self, plan: &Plan) -> Value {
        let content = match (self, self.feedback()) {
            (Decision::Approved { .. }, _) => APPROVED_TEXT.to_string(),
            (Decision::Rejected { .. }, Some(feedback)) => format!(
                "Plan rejected. The user's feedback:\n\n{feedback}\n\nRevise the plan to address \
                 this feedback, write it to the file, and submit it again with submit_plan."
            ),
            (Decision::Rejected { .. }, None) => "Plan rejected without feedback. Do not revise \
                 the plan yet: stop here and wait for the user's next message, then revise the \
                 plan and submit it again with submit_plan."
                .to_string(),
        };
        let mut submitted = Map::new();
        submitted.insert("title".into(), json!(plan.title));
        submitted.insert("path".into(), json!(plan.path));
        submitted.insert("plan".into(), json!(plan.plan));
        if let Some(f) = self.feedback() {
            submitted.insert("feedback".into(), json!(f));
        }
        json!({
            "content": content,
            "isError": false,
            "toolId": SUBMIT_PLAN,
            "submittedPlan": submitted,
        })
    }
}

pub fn resume_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["approved", "rejected"]},
            "feedback": {"type": "string"},
            "path": {"type": "string"},
            "title": {"type": "string"},
            "plan": {"type": "string"}
        },
        "required": ["action"],
        "additionalProperties": false
    })
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: SUBMIT_PLAN.into(),
        description: "Submit a plan for the user to review before you act on it. Write the plan \
            as a Markdown file in the working directory (a first line `# Title`, then the \
            plan), then call this tool with its path. The user approves it, rejects it with \
            feedback, or rejects it and writes to you next."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "description": "Path of the Markdown plan file, relative to the working directory."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    }
}

fn path_arg(args: &Value) -> Result<String, Value> {
    let mut p = Problems::default();
    let path = schema::object(args, "root", &["path"], &mut p)
        .and_then(|map| schema::required(map, "path", &mut p))
        .and_then(|v| schema::string(v, "path", true, MAX_PATH_CHARS, &mut p));
    match path {
        Some(path) if p.is_empty() => Ok(path.to_string()),
        _ => Err(p.into_result(SUBMIT_PLAN, args)),
    }
}

fn failure(what: &str) -> Value {
    json!({"content": format!("Failed to submit plan: {what}"), "isError": true})
}

pub fn evaluate(args: &Value, cwd: &Path) -> ToolOutcome {
    let path = match path_arg(args) {
        Ok(p) => p,
        Err(result) => return ToolOutcome::Result(result),
    };
    match read_plan(cwd, &path) {
        Ok(text) => ToolOutcome::Suspend {
            kind: ItemKind::Plan,
            payload: Plan::from_text(&path, &text).payload(),
            resume_schema: resume_schema(),
        },
        Err(what) => ToolOutcome::Result(failure(&what)),
    }
}

/// Reads the plan file `path` of a run whose working directory is `cwd`: a Markdown file
/// with no hidden component (`model_path`, checked on the path as named and as resolved),
/// opened once, beneath `cwd` whatever symlinks or renames meet the path (`beneath`), and
/// it must be a regular UTF-8 file of at most 1 MiB with one link, on a real file system.
/// Every plan path goes through here: `submit_plan`, `plan FILE`, `review`'s look at the
/// file on disk, and a server's plan read under `--plan-root`.
pub fn read_plan(cwd: &Path, path: &str) -> Result<String, String> {
    let refused = |what: String| format!("{path} cannot be a plan: {what}");
    if let Ok(rel) = beneath::relative(cwd, Path::new(path)) {
        model_path::check(rel, model_path::PLAN).map_err(refused)?;
    }
    let (file, resolved) = beneath::open_beneath(cwd, Path::new(path)).map_err(|r| match r {
        Refusal::Outside => format!("{path} is outside the working directory"),
        Refusal::Missing => format!("{path} does not exist"),
        Refusal::NotRegular => format!("{path} is not a regular file"),
        Refusal::Pseudo(fs) => format!("{path} is on {fs}, not a plain file system"),
        Refusal::Linked(n) => {
            format!("{path} has {n} hard links; submit a file with one (a copy, not a link)")
        }
        Refusal::Changed => format!("{path} kept changing while it was opened"),
        Refusal::Root(e) => format!("the working directory {} is unusable: {e}", cwd.display()),
        Refusal::Io(e) => format!("cannot open {path}: {e}"),
    })?;
    model_path::check(&resolved, model_path::PLAN)
        .map_err(|what| refused(format!("it leads to {}, and {what}", resolved.display())))?;
    let bytes = match limits::read_capped(file, MAX_PLAN_FILE) {
        Ok(b) => b,
        Err(ReadError::TooLarge(_)) => {
            return Err(format!(
                "{path} is larger than {}",
                limits::show_size(MAX_PLAN_FILE)
            ))
        }
        Err(e) => return Err(format!("{path} {e}")),
    };
    let text = String::from_utf8(bytes).map_err(|_| format!("{path} is not valid UTF-8"))?;
    if text.trim().is_empty() {
        return Err(format!("{path} is empty"));
    }
    Ok(text)
}

/// Outside a run: the submission as readable text.
pub fn fallback(args: &Value) -> Result<String, Value> {
    let path = path_arg(args)?;
    Ok(format!("[Plan submitted for review]\n\nPath: {path}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn failure_text(dir: &Path, path: &str) -> String {
        match evaluate(&json!({"path": path}), dir) {
            ToolOutcome::Result(r) => {
                assert_eq!(r["isError"], true);
                r["content"].as_str().unwrap().to_string()
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn a_good_plan_suspends_with_its_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("PLAN.md"),
            "\n# Ship 2.0 \n\n1. Tag\n2. Publish\n",
        )
        .unwrap();
        match evaluate(&json!({"path": "PLAN.md"}), dir.path()) {
            ToolOutcome::Suspend { payload, .. } => assert_eq!(
                payload,
                json!({"toolId": "submit_plan", "path": "PLAN.md", "title": "Ship 2.0", "plan": "1. Tag\n2. Publish"})
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mastras_plan_folder_is_the_one_hidden_folder_allowed() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".mastracode/plans")).unwrap();
        fs::write(dir.path().join(".mastracode/plans/dark.MD"), "# Dark\n").unwrap();
        let args = json!({"path": ".mastracode/plans/dark.MD"});
        assert!(matches!(
            evaluate(&args, dir.path()),
            ToolOutcome::Suspend { .. }
        ));
    }

    #[test]
    fn a_plan_without_a_title_line() {
        let p = Plan::from_text("p.md", "## Steps\n- a\n");
        assert_eq!((p.title.as_str(), p.plan.as_str()), ("", "## Steps\n- a"));
        let p = Plan::from_text("p.md", "#Title\nx");
        assert_eq!(p.title, "");
    }

    #[test]
    fn bad_paths_fail_without_suspending() {
        let outer = tempfile::tempdir().unwrap();
        let dir = outer.path().join("work");
        fs::create_dir(&dir).unwrap();
        fs::write(outer.path().join("secret.md"), "# Secret").unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        fs::create_dir(dir.join("sub.md")).unwrap();
        fs::write(dir.join("big.md"), vec![b'a'; MAX_PLAN_FILE as usize + 1]).unwrap();
        fs::write(dir.join("latin1.md"), [b'#', b' ', 0xe9, b'\n']).unwrap();
        symlink(outer.path().join("secret.md"), dir.join("link.md")).unwrap();
        symlink(outer.path(), dir.join("up")).unwrap();
        fs::create_dir_all(dir.join(".ssh")).unwrap();
        fs::create_dir_all(dir.join(".mastracode/plans")).unwrap();
        fs::write(
            dir.join(".ssh/id_ed25519"),
            "-----BEGIN OPENSSH PRIVATE KEY-----",
        )
        .unwrap();
        fs::write(dir.join(".ssh/key.md"), "# key").unwrap();
        fs::write(dir.join(".env"), "AWS_SECRET=x").unwrap();
        fs::write(dir.join("notes.txt"), "# notes").unwrap();
        symlink(".ssh/key.md", dir.join("innocent.md")).unwrap();
        symlink(".ssh", dir.join("keys")).unwrap();
        let hidden = "a model's path may not start a name with a dot, except .mastracode/plans/";
        let hidden_ssh = format!("it is in a hidden folder (.ssh); {hidden}");
        let cases = [
            (
                ".ssh/id_ed25519",
                format!("Failed to submit plan: .ssh/id_ed25519 cannot be a plan: {hidden_ssh}"),
            ),
            (
                ".env",
                format!("Failed to submit plan: .env cannot be a plan: it is a hidden file (.env); {hidden}"),
            ),
            (
                ".mastracode/plans/../../.ssh/key.md",
                format!("Failed to submit plan: .mastracode/plans/../../.ssh/key.md cannot be a plan: {hidden_ssh}"),
            ),
            (
                "innocent.md",
                format!("Failed to submit plan: innocent.md cannot be a plan: it leads to .ssh/key.md, and {hidden_ssh}"),
            ),
            (
                "keys/key.md",
                format!("Failed to submit plan: keys/key.md cannot be a plan: it leads to .ssh/key.md, and {hidden_ssh}"),
            ),
            (
                "notes.txt",
                "Failed to submit plan: notes.txt cannot be a plan: it is not a Markdown file (.md or .markdown)".into(),
            ),
            (
                ".mastracode/plans/none.md",
                "Failed to submit plan: .mastracode/plans/none.md does not exist".into(),
            ),
        ];
        for (path, expected) in cases {
            assert_eq!(failure_text(&dir, path), expected, "path {path}");
        }
        let cases = [
            (
                "missing.md",
                "Failed to submit plan: missing.md does not exist",
            ),
            (
                "sub",
                "Failed to submit plan: sub cannot be a plan: it is not a Markdown file (.md or .markdown)",
            ),
            ("sub.md", "Failed to submit plan: sub.md is not a regular file"),
            (
                "big.md",
                "Failed to submit plan: big.md is larger than 1 MiB",
            ),
            (
                "latin1.md",
                "Failed to submit plan: latin1.md is not valid UTF-8",
            ),
            (
                "../secret.md",
                "Failed to submit plan: ../secret.md is outside the working directory",
            ),
            (
                "../nothing.md",
                "Failed to submit plan: ../nothing.md is outside the working directory",
            ),
            (
                "link.md",
                "Failed to submit plan: link.md is outside the working directory",
            ),
            (
                "up/secret.md",
                "Failed to submit plan: up/secret.md is outside the working directory",
            ),
        ];
        for (path, expected) in cases {
            assert_eq!(failure_text(&dir, path), expected, "path {path}");
        }
        let abs = outer.path().join("secret.md");
        assert!(
            failure_text(&dir, abs.to_str().unwrap()).ends_with("is outside the working directory")
        );
    }

    #[test]
    fn a_path_that_is_not_a_string_is_a_validation_error() {
        match evaluate(&json!({"path": 7}), Path::new("/")) {
            ToolOutcome::Result(r) => {
                assert_eq!(r["error"], true);
                assert_eq!(
                    r["validationErrors"],
                    json!({"path": ["Expected string, received number"]})
                );
            }
            other => panic!("{other:?}"),
        }
    }

    fn plan() -> Plan {
        Plan {
            path: "PLAN.md".into(),
            title: "T".into(),
            plan: "body".into(),
        }
    }

    #[test]
    fn approved_result() {
        let d = Decision::from_json(&json!({"action": "approved"})).unwrap();
        assert_eq!(
            d.result(&plan()),
            json!({
                "content": APPROVED_TEXT,
                "isError": false,
                "toolId": "submit_plan",
                "submittedPlan": {"title": "T", "path": "PLAN.md", "plan": "body"}
            })
        );
        assert_eq!(
            d.resume_data(&plan()),
            json!({"action": "approved", "path": "PLAN.md", "title": "T", "plan": "body"})
        );
        assert_eq!(d.without_plan(), json!({"action": "approved"}));
        let r =
            Decision::from_json(&json!({"action": "rejected", "feedback": "Smaller."})).unwrap();
        assert_eq!(
            r.without_plan(),
            json!({"action": "rejected", "feedback": "Smaller."})
        );
    }

    #[test]
    fn rejected_with_feedback_carries_it_verbatim() {
        let d = Decision::from_json(
            &json!({"action": "rejected", "feedback": "Split step 2.\nAdd a rollback."}),
        )
        .unwrap();
        let r = d.result(&plan());
        let content = r["content"].as_str().unwrap();
        assert!(content.contains("Split step 2.\nAdd a rollback."));
        assert!(content.contains("submit it again with submit_plan"));
        assert_eq!(
            r["submittedPlan"]["feedback"],
            "Split step 2.\nAdd a rollback."
        );
        assert_eq!(r["isError"], false);
    }

    #[test]
    fn rejected_without_feedback_says_wait() {
        for v in [
            json!({"action": "rejected"}),
            json!({"action": "rejected", "feedback": " "}),
        ] {
            let r = Decision::from_json(&v).unwrap().result(&plan());
            assert!(r["content"]
                .as_str()
                .unwrap()
                .contains("wait for the user's next message"));
            assert!(r["submittedPlan"].get("feedback").is_none());
        }
    }

    #[test]
    fn bad_decisions() {
        assert_eq!(
            Decision::from_json(&json!({"action": "approved", "feedback": "x"})).err(),
            Some(APPROVAL_FEEDBACK.to_string())
        );
        assert!(Decision::from_json(&json!({"action": "approved", "feedback": " "})).is_ok());
        assert!(Decision::from_json(&json!({"action": "maybe"})).is_err());
        assert!(Decision::from_json(&json!({"action": "approved", "x": 1})).is_err());
        assert!(Decision::from_json(&json!("approved")).is_err());
    }

    #[test]
    fn fallback_text() {
        assert_eq!(
            fallback(&json!({"path": "PLAN.md"})).unwrap(),
            "[Plan submitted for review]\n\nPath: PLAN.md"
        );
    }

    #[test]
    fn no_decision_or_plan_path_makes_submit_plan_panic() {
        use crate::testing::{json_input, string, Rng, CASES};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("work");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("plan.md"), "# Plan\n\n1. Ship.\n").unwrap();
        fs::write(root.join("sub/p.md"), "no title\n").unwrap();
        fs::write(root.join("bad.md"), [0xff, 0xfe, 0x00]).unwrap();
        fs::write(dir.path().join("outside.md"), "# Secret\n").unwrap();
        symlink(dir.path().join("outside.md"), root.join("link.md")).unwrap();
        symlink(&root, root.join("loop")).unwrap();
        let paths = [
            "plan.md",
            "sub/p.md",
            "./sub/../plan.md",
            "bad.md",
            "link.md",
            "../outside.md",
            "loop/loop/plan.md",
            "sub",
            "",
            "/etc/passwd",
            "nope.md",
            "plan.md\0x",
        ];
        let decisions = [
            json!({"action": "approved"}),
            json!({"action": "rejected", "feedback": "Smaller steps."}),
            json!({"action": "rejected", "feedback": "", "plan": "ignored"}),
        ];
        let mut rng = Rng::new(6);
        let (mut decided, mut suspended) = (0, 0);
        for _ in 0..CASES {
            let plan = Plan::from_text(&string(&mut rng), &string(&mut rng));
            assert!(!plan.title.contains('\n'), "{plan:?}");
            if let Ok(d) = Decision::from_json(&json_input(&mut rng, &decisions)) {
                decided += 1;
                let data = d.resume_data(&plan);
                let again = Decision::from_json(&data).unwrap();
                assert_eq!(again.is_approved(), d.is_approved());
                assert_eq!(d.result(&plan)["isError"], false);
            }
            let args = if rng.chance(60) {
                json!({"path": rng.pick(&paths)})
            } else {
                json_input(&mut rng, &[json!({"path": "plan.md"})])
            };
            let _ = fallback(&args);
            if let ToolOutcome::Suspend { payload, .. } = evaluate(&args, &root) {
                suspended += 1;
                let path = payload["path"].as_str().unwrap();
                let real = root.join(path).canonicalize().unwrap();
                assert!(real.starts_with(root.canonicalize().unwrap()), "{path}");
            }
        }
        assert!(
            decided > 300 && suspended > 100,
            "{decided} decided, {suspended} suspended"
        );
    }
}
