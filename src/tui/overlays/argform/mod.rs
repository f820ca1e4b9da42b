//! The argument form of a prompt (its `arguments`) or a resource template
//! (its URI variables), built as the elicitation form is (`asks::Form`)
//! and filled the same way, plus completions: while the user types in a
//! field, `completion/complete` is asked for its value once typing pauses
//! (a debounce on the trace clock, so tests set the time), and the values
//! offered drop down under the field. A reply for an older value is
//! dropped; the values kept are capped as the spec caps them.

pub mod update;
pub mod view;

use crate::tui::browse::{PromptArg, template};
use crate::tui::format::safe_row;
use crate::tui::overlays::asks::{Form, Input};
use serde_json::{Map, Value, json};

/// Fields a form is built with (a prompt listing more is cut).
pub use crate::tui::browse::MAX_FIELDS;
/// Completion values kept (the spec's maximum per response).
pub const MAX_VALUES: usize = 100;
/// Quiet time after the last keystroke before completions are asked for.
pub const DEBOUNCE_US: u64 = 250_000;

/// What the form's answer is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Prompt { name: String },
    Template { template: String },
}

/// Completion values offered for one field's value.
#[derive(Debug, Default)]
pub struct Completion {
    /// Ask at this trace time (the debounce), if a value changed.
    pub due_us: Option<u64>,
    /// The latest request: its generation, field and value.
    pub asked: Option<(u64, usize, String)>,
    round: u64,
    /// The values shown, for `field` at `value`.
    pub field: usize,
    pub value: String,
    pub values: Vec<String>,
    /// The server's `total` and `hasMore`, and whether more than
    /// `MAX_VALUES` came.
    pub total: Option<u64>,
    pub has_more: bool,
    pub cut: bool,
    /// The value highlighted in the dropdown.
    pub pick: Option<usize>,
    /// The user hid the dropdown (Esc) until the next change.
    pub hidden: bool,
}

pub struct ArgForm {
    pub target: Target,
    pub title: String,
    pub form: Form,
    /// None when the server did not declare `completions`.
    pub complete: Option<Completion>,
    /// Send `context.arguments` (the other fields) with completions.
    pub context: bool,
}

/// Commands are `Debug` and carry a form to open; its text fields are not
/// worth printing.
impl std::fmt::Debug for ArgForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgForm").finish_non_exhaustive()
    }
}

/// A schema of string properties, written in order (the form keeps the
/// order of the text it is given).
fn schema_text(fields: &[(String, String, bool)]) -> (Value, String) {
    let mut props = String::from("{");
    let mut required = Vec::new();
    for (i, (name, desc, req)) in fields.iter().enumerate() {
        if i > 0 {
            props.push(',');
        }
        let mut p = json!({"type": "string"});
        if !desc.is_empty() {
            p["description"] = json!(desc);
        }
        props.push_str(&format!("{}:{p}", json!(name)));
        if *req {
            required.push(name.clone());
        }
    }
    props.push('}');
    let raw = format!(
        r#"{{"params":{{"requestedSchema":{{"type":"object","properties":{props},"required":{}}}}}}}"#,
        json!(required)
    );
    let params: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    (params.get("params").cloned().unwrap_or(Value::Null), raw)
}

impl ArgForm {
    fn build(
        target: Target,
        (title, message): (String, &str),
        fields: &[(String, String, bool)],
        completions: bool,
        context: bool,
    ) -> Result<ArgForm, String> {
        let (params, raw) = schema_text(fields);
        let mut form = Form::new(&params, &raw).map_err(|e| e.to_string())?;
        // The first line of what the server says it is (the title names it).
        form.message = safe_row(message.lines().next().unwrap_or(""));
        Ok(ArgForm {
            target,
            title,
            form,
            complete: completions.then(Completion::default),
            context,
        })
    }

    pub fn prompt(
        name: &str,
        description: &str,
        args: &[PromptArg],
        completions: bool,
        context: bool,
    ) -> Result<ArgForm, String> {
        let fields: Vec<(String, String, bool)> = args
            .iter()
            .take(MAX_FIELDS)
            .map(|a| (a.name.clone(), a.description.clone(), a.required))
            .collect();
        ArgForm::build(
            Target::Prompt { name: name.into() },
            (format!("prompts/get {}", safe_row(name)), description),
            &fields,
            completions,
            context,
        )
    }

    pub fn template(
        tpl: &str,
        description: &str,
        completions: bool,
        context: bool,
    ) -> Result<ArgForm, String> {
        let optional = template::optional(tpl);
        let fields: Vec<(String, String, bool)> = template::variables(tpl)
            .into_iter()
            .take(MAX_FIELDS)
            .map(|v| {
                let required = !optional.contains(&v);
                (v, String::new(), required)
            })
            .collect();
        ArgForm::build(
            Target::Template {
                template: tpl.into(),
            },
            (format!("resources/read {}", safe_row(tpl)), description),
            &fields,
            completions,
            context,
        )
    }

    /// The text in field `i` (every field here is typed).
    pub fn value(&self, i: usize) -> String {
        self.form
            .inputs
            .get(i)
            .and_then(Input::typed)
            .unwrap_or_default()
    }

    fn values(&self) -> Map<String, Value> {
        self.form
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.key.clone(), Value::String(self.value(i))))
            .collect()
    }

    /// The field under the cursor changed (or was entered): ask for its
    /// completions once the user pauses.
    pub fn touched(&mut self, now_us: u64) {
        let field = self.form.cursor;
        if let Some(c) = &mut self.complete {
            c.due_us = Some(now_us + DEBOUNCE_US);
            c.hidden = false;
            c.pick = None;
            if c.field != field {
                c.values.clear();
            }
        }
    }

    /// The `completion/complete` params due at `now_us`, if any.
    pub fn due(&mut self, now_us: u64) -> Option<(u64, Value)> {
        let field = self.form.cursor;
        let value = self.value(field);
        let name = self.form.fields.get(field)?.key.clone();
        let reference = match &self.target {
            Target::Prompt { name } => json!({"type": "ref/prompt", "name": name}),
            Target::Template { template } => json!({"type": "ref/resource", "uri": template}),
        };
        let mut others = self.values();
        others.remove(&name);
        others.retain(|_, v| v.as_str().is_some_and(|s| !s.is_empty()));
        let context = self.context;
        let c = self.complete.as_mut()?;
        if c.due_us.is_none_or(|d| d > now_us) {
            return None;
        }
        c.due_us = None;
        c.round += 1;
        c.asked = Some((c.round, field, value.clone()));
        let mut params = json!({"ref": reference, "argument": {"name": name, "value": value}});
        if context && !others.is_empty() {
            params["context"] = json!({"arguments": others});
        }
        Some((c.round, params))
    }

    /// A `completion/complete` reply: kept only if it answers the latest
    /// request and the field still holds the value asked about.
    pub fn on_values(&mut self, round: u64, result: Result<Value, String>) {
        let current = |f: usize| self.value(f);
        let Some(c) = &self.complete else { return };
        let Some((latest, field, value)) = c.asked.clone() else {
            return;
        };
        if round != latest || current(field) != value {
            return;
        }
        let Some(c) = self.complete.as_mut() else {
            return;
        };
        c.asked = None;
        c.field = field;
        c.value = value;
        c.pick = None;
        let Ok(v) = result else {
            // A server without completions for this argument: nothing to offer.
            c.values.clear();
            return;
        };
        let comp = v.get("completion").unwrap_or(&Value::Null);
        let list = comp.get("values").and_then(Value::as_array);
        let n = list.map_or(0, Vec::len);
        c.values = list
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .take(MAX_VALUES)
            .map(str::to_string)
            .collect();
        c.cut = n > MAX_VALUES;
        c.total = comp.get("total").and_then(Value::as_u64);
        c.has_more = comp.get("hasMore").and_then(Value::as_bool) == Some(true);
    }

    /// The values to show under the focused field (none when they are for
    /// another field or value, or hidden).
    pub fn shown(&self) -> &[String] {
        match &self.complete {
            Some(c)
                if !c.hidden
                    && c.field == self.form.cursor
                    && c.value == self.value(self.form.cursor) =>
            {
                &c.values
            }
            _ => &[],
        }
    }

    /// Put the picked (or first) value into the field. True if one was.
    pub fn take_pick(&mut self) -> bool {
        let pick = self.complete.as_ref().and_then(|c| c.pick).unwrap_or(0);
        let Some(v) = self.shown().get(pick).cloned() else {
            return false;
        };
        if let Some(Input::Typed(t)) = self.form.inputs.get_mut(self.form.cursor) {
            **t = ratatui_textarea::TextArea::new(vec![v.clone()]);
            t.move_cursor(ratatui_textarea::CursorMove::End);
        }
        if let Some(c) = &mut self.complete {
            c.values.clear();
            c.pick = None;
            c.value = v;
        }
        true
    }

    /// Move the highlight in the dropdown; false when none is shown.
    pub fn move_pick(&mut self, delta: isize) -> bool {
        let n = self.shown().len();
        let Some(c) = &mut self.complete else {
            return false;
        };
        if n == 0 {
            return false;
        }
        c.pick = match (c.pick, delta > 0) {
            (None, true) => Some(0),
            (None, false) => return false,
            (Some(0), false) => None,
            (Some(i), true) => Some((i + 1).min(n - 1)),
            (Some(i), false) => Some(i - 1),
        };
        true
    }

    pub fn hide(&mut self) -> bool {
        let shown = !self.shown().is_empty();
        if let Some(c) = &mut self.complete {
            c.hidden = true;
        }
        shown
    }

    /// The request the filled form makes, or the problems to show.
    pub fn submit(&mut self) -> Option<crate::tui::browse::Req> {
        use crate::tui::browse::Req;
        match self.form.content() {
            Ok(content) => Some(match &self.target {
                Target::Prompt { name } => Req::GetPrompt {
                    name: name.clone(),
                    args: content,
                },
                Target::Template { template } => Req::Read {
                    uri: template::expand(template, &content),
                },
            }),
            Err(p) => {
                self.form.problems = p;
                None
            }
        }
    }
}
