//! What a person fills in to decide an item, neutral (no HTML, no protocol): each kind says
//! its fields and buttons (`Kind::form`), and every frontend that shows a form renders it in
//! its own terms (serve's page; an MCP elicitation; a notification's buttons), then turns
//! what came back into an `Answer` by the same names.

/// What an item asks, in a few words (not escaped: each frontend escapes it as it shows it).
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    /// A question's text, a plan's title, the tool an approval would run.
    pub text: String,
    /// The text is a name in code (a tool's).
    pub code: bool,
    /// What goes with it: an approval's arguments, as JSON.
    pub detail: Option<String>,
}

impl Headline {
    pub fn words(text: &str) -> Headline {
        Headline {
            text: text.to_string(),
            code: false,
            detail: None,
        }
    }

    /// A tool call: the tool's name and its arguments.
    pub fn call(item: &super::ItemView) -> Headline {
        Headline {
            text: item.tool_name.to_string(),
            code: true,
            detail: Some(item.args.unwrap_or(&serde_json::Value::Null).to_string()),
        }
    }
}

/// A kind's form: the fields, then the buttons that send it.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    pub fields: Vec<Field>,
    pub buttons: Vec<Button>,
}

/// One thing to fill in.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// Free text.
    Text {
        name: &'static str,
        label: &'static str,
        required: bool,
        /// Its text at first (an approval's arguments, for editing).
        value: Option<String>,
        /// Code (JSON) rather than prose.
        code: bool,
    },
    /// One of the options (`multi`: one or more), sent under `name` by label; `required`
    /// unless another field may answer instead.
    Pick {
        name: &'static str,
        multi: bool,
        required: bool,
        options: Vec<Choice>,
    },
}

/// An option of a `Pick`.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub label: String,
    pub description: Option<String>,
}

/// A button that sends the form, with `name=value` when it has them (a decision), else the
/// fields alone (an answer).
#[derive(Clone, Debug, PartialEq)]
pub struct Button {
    pub label: &'static str,
    pub sends: Option<(&'static str, &'static str)>,
    /// It refuses (declines, rejects): shown as the dangerous one.
    pub refuses: bool,
}

impl Button {
    /// The button that sends the fields as they are.
    pub fn send(label: &'static str) -> Button {
        Button {
            label,
            sends: None,
            refuses: false,
        }
    }

    /// A decision's button: `name=value`.
    pub fn deciding(label: &'static str, name: &'static str, value: &'static str) -> Button {
        Button {
            label,
            sends: Some((name, value)),
            refuses: false,
        }
    }

    /// A refusal's button: `name=value`.
    pub fn refusing(label: &'static str, name: &'static str, value: &'static str) -> Button {
        Button {
            refuses: true,
            ..Button::deciding(label, name, value)
        }
    }
}

impl Field {
    /// Optional prose under `name`.
    pub fn note(name: &'static str, label: &'static str) -> Field {
        Field::Text {
            name,
            label,
            required: false,
            value: None,
            code: false,
        }
    }

    /// The field's name.
    pub fn name(&self) -> &'static str {
        match self {
            Field::Text { name, .. } | Field::Pick { name, .. } => name,
        }
    }
}

/// `args` pretty-printed for editing: the characters a page would hide (controls, bidi,
/// invisible) as JSON `\uXXXX` escapes, so the text shows them and parses back to the same
/// value.
pub fn editable(args: &serde_json::Value) -> String {
    let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
    pretty
        .lines()
        .map(crate::output::sanitize::json)
        .collect::<Vec<_>>()
        .join("\n")
}

/// An approval's reason and its two buttons (a server's `other` item has the same).
pub fn approval_decision() -> (Field, Vec<Button>) {
    (
        Field::note("reason", "Reason (for a decline; the model reads it)"),
        vec![
            Button::refusing("Decline", "approved", "false"),
            Button::deciding("Approve", "approved", "true"),
        ],
    )
}
