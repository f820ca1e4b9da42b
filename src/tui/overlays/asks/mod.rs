//! Server→client requests waiting for the user: an elicitation form built
//! from its `requestedSchema` (one input per field, starting at the field's
//! default), a URL elicitation to confirm, a sampling request to reply to.
//! They wait in a bounded list with their arrival time; none of them stops
//! ingest or the other panes — the overlay opens only when the user asks.
//! The entries of an `input_required` result wait here too (see
//! `input_rounds`): their answers go into the call's retry, not back to a
//! server request.

pub mod update;
pub mod view;

use crate::client::ServerAsk;
use crate::protocol::IdKey;
use crate::protocol::elicit::{self, Field, Kind};
use crate::protocol::methods;
use crate::tui::format::safe_row;
use ratatui_textarea::TextArea;
use serde_json::{Map, Value, json};

/// What the user can enter for one field.
pub enum Input {
    /// Text, numbers and integers are typed.
    Typed(Box<TextArea<'static>>),
    Bool(bool),
    /// The chosen index, if any.
    Choice(Option<usize>),
    /// Which choices are on, and the one under the cursor.
    Multi(Vec<bool>, usize),
}

fn line(text: &str) -> TextArea<'static> {
    let mut t = TextArea::new(vec![text.to_string()]);
    t.move_cursor(ratatui_textarea::CursorMove::End);
    t
}

impl Input {
    /// The field's starting value: its default, else empty.
    fn start(f: &Field) -> Input {
        let d = f.default.as_ref();
        match &f.kind {
            Kind::Text { .. } => line(d.and_then(Value::as_str).unwrap_or("")).into(),
            Kind::Number { .. } => line(
                &d.filter(|v| v.is_number())
                    .map_or(String::new(), Value::to_string),
            )
            .into(),
            Kind::Boolean => Input::Bool(d.and_then(Value::as_bool).unwrap_or(false)),
            Kind::Select(choices) => Input::Choice(
                d.and_then(Value::as_str)
                    .and_then(|v| choices.iter().position(|c| c.value == v)),
            ),
            Kind::MultiSelect { choices, .. } => {
                let on: Vec<&str> = d
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                Input::Multi(
                    choices
                        .iter()
                        .map(|c| on.contains(&c.value.as_str()))
                        .collect(),
                    0,
                )
            }
        }
    }

    /// The text typed, for typed fields.
    pub fn typed(&self) -> Option<String> {
        match self {
            Input::Typed(t) => Some(t.lines().join("")),
            _ => None,
        }
    }
}

impl From<TextArea<'static>> for Input {
    fn from(t: TextArea<'static>) -> Input {
        Input::Typed(Box::new(t))
    }
}

/// An elicitation form.
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
    pub inputs: Vec<Input>,
    pub cursor: usize,
    /// Why the last accept was refused, one line per problem.
    pub problems: Vec<String>,
}

impl Form {
    /// The form of `params`, fields in the order the server wrote them.
    pub fn new(params: &Value, raw: &str) -> Result<Form, elicit::FormError> {
        let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
        let mut fields = elicit::form(schema)?;
        let order = elicit::property_order(raw);
        crate::sort::by_key(&mut fields, |f| {
            order.iter().position(|k| *k == f.key).unwrap_or(usize::MAX)
        });
        Ok(Form {
            message: text(params, "message"),
            inputs: fields.iter().map(Input::start).collect(),
            fields,
            cursor: 0,
            problems: Vec::new(),
        })
    }

    /// The content the inputs make, checked against the schema; or every
    /// problem, each naming its field.
    pub fn content(&self) -> Result<Map<String, Value>, Vec<String>> {
        let mut out = Map::new();
        let mut problems = Vec::new();
        for (f, input) in self.fields.iter().zip(&self.inputs) {
            let v = match (input, &f.kind) {
                (Input::Typed(_), Kind::Number { integer, .. }) => {
                    let s = input.typed().unwrap_or_default();
                    let s = s.trim();
                    if s.is_empty() {
                        None
                    } else if *integer {
                        match s.parse::<i64>() {
                            Ok(i) => Some(json!(i)),
                            Err(_) => {
                                problems.push(format!("{}: {s:?} is not an integer", f.label()));
                                continue;
                            }
                        }
                    } else {
                        match s.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                            Some(n) => Some(Value::Number(n)),
                            None => {
                                problems.push(format!("{}: {s:?} is not a number", f.label()));
                                continue;
                            }
                        }
                    }
                }
                (Input::Typed(_), _) => {
                    let s = input.typed().unwrap_or_default();
                    (!s.is_empty()).then_some(Value::String(s))
                }
                (Input::Bool(b), _) => Some(Value::Bool(*b)),
                (Input::Choice(i), Kind::Select(choices)) => {
                    i.and_then(|i| choices.get(i)).map(|c| json!(c.value))
                }
                (Input::Multi(on, _), Kind::MultiSelect { choices, .. }) => Some(Value::Array(
                    choices
                        .iter()
                        .zip(on)
                        .filter(|(_, on)| **on)
                        .map(|(c, _)| json!(c.value))
                        .collect(),
                )),
                _ => None,
            };
            match v {
                Some(v) => match f.check(&v) {
                    Ok(()) => {
                        out.insert(f.key.clone(), v);
                    }
                    Err(e) => problems.push(format!("{}: {e}", f.label())),
                },
                None if f.required => problems.push(format!("{}: required", f.label())),
                None => {}
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems)
        }
    }
}

/// A sampling request: what the server asks, and the reply being typed.
pub struct Sampling {
    /// `role: text` per message, the system prompt, model preferences.
    pub shown: Vec<String>,
    pub reply: TextArea<'static>,
}

impl Sampling {
    fn new(params: &Value) -> Sampling {
        let mut shown = Vec::new();
        let system = text(params, "systemPrompt");
        if !system.is_empty() {
            shown.push(format!("system: {system}"));
        }
        for m in params
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
            let content = match m.get("content") {
                Some(Value::Array(parts)) => parts.iter().map(part).collect::<Vec<_>>().join(" "),
                Some(c) => part(c),
                None => String::new(),
            };
            shown.push(format!("{}: {}", safe_row(role), content));
        }
        if let Some(p) = params.get("modelPreferences") {
            let hints: Vec<String> = p
                .get("hints")
                .and_then(Value::as_array)
                .map(|h| {
                    h.iter()
                        .filter_map(|h| h.get("name")?.as_str())
                        .map(safe_row)
                        .collect()
                })
                .unwrap_or_default();
            let pri = |k: &str| p.get(k).and_then(Value::as_f64).map(|v| format!("{k} {v}"));
            let mut prefs: Vec<String> = ["costPriority", "speedPriority", "intelligencePriority"]
                .iter()
                .filter_map(|k| pri(k))
                .collect();
            if !hints.is_empty() {
                prefs.insert(0, format!("hints {}", hints.join(", ")));
            }
            if !prefs.is_empty() {
                shown.push(format!("model preferences: {}", prefs.join(" · ")));
            }
        }
        if let Some(n) = params.get("maxTokens").and_then(Value::as_u64) {
            shown.push(format!("max tokens: {n}"));
        }
        Sampling {
            shown,
            reply: TextArea::default(),
        }
    }

    /// The `CreateMessageResult` for the reply typed.
    pub fn result(&self) -> Value {
        json!({
            "role": "assistant",
            "content": {"type": "text", "text": self.reply.lines().join("\n")},
            "model": "mcpscope",
            "stopReason": "endTurn",
        })
    }
}

fn part(c: &Value) -> String {
    match c.get("type").and_then(Value::as_str) {
        Some("text") => safe_row(c.get("text").and_then(Value::as_str).unwrap_or("")),
        Some(other) => format!("[{}]", safe_row(other)),
        None => "[?]".into(),
    }
}

fn text(params: &Value, key: &str) -> String {
    safe_row(params.get(key).and_then(Value::as_str).unwrap_or(""))
}

pub enum AskKind {
    Form(Form),
    /// URL-mode elicitation: the user goes there, then confirms.
    Url {
        url: String,
        message: String,
    },
    Sampling(Box<Sampling>),
    /// `roots/list` asked in an `input_required` result: the roots offered
    /// are sent (Ctrl-R edits them first).
    Roots,
    /// A form mcpscope cannot build (the schema breaks the spec's limits):
    /// it can only be declined or cancelled.
    Unusable {
        message: String,
        why: String,
    },
}

/// Where an answer goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Back to the server request it answers.
    Server,
    /// Into the retry of call `call`, under `key` of `inputResponses`.
    Input { call: IdKey, key: String },
}

pub struct Ask {
    pub id: IdKey,
    pub seq: u64,
    pub method: String,
    /// Trace clock when it arrived (its age is shown).
    pub arrived_us: u64,
    pub kind: AskKind,
    /// Where the answer goes.
    pub route: Route,
    /// The task the request is for (`_meta` `io.modelcontextprotocol/related-task`).
    pub task: Option<String>,
}

impl Ask {
    pub fn new(a: &ServerAsk, now_us: u64) -> Ask {
        let kind = match a.method.as_str() {
            methods::SAMPLING => AskKind::Sampling(Box::new(Sampling::new(&a.params))),
            _ if a.params.get("mode").and_then(Value::as_str) == Some("url") => AskKind::Url {
                url: text(&a.params, "url"),
                message: text(&a.params, "message"),
            },
            _ => match Form::new(&a.params, &a.raw) {
                Ok(f) => AskKind::Form(f),
                Err(why) => AskKind::Unusable {
                    message: text(&a.params, "message"),
                    why: safe_row(&why.to_string()),
                },
            },
        };
        Ask {
            id: a.id.clone(),
            seq: a.seq,
            method: a.method.clone(),
            arrived_us: now_us,
            kind,
            route: Route::Server,
            task: crate::protocol::meta::related_task(&a.params).map(safe_row),
        }
    }
}

/// What goes back to the server: a result, or a JSON-RPC error `(code, message)`.
pub type Answer = Result<Value, (i64, String)>;

/// How the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Accept,
    Decline,
    Cancel,
}

/// The waiting requests, oldest first, and whether the overlay shows the first.
#[derive(Default)]
pub struct Asks {
    pub waiting: Vec<Ask>,
    pub open: bool,
    /// The roots `roots/list` is answered with, as the session has them.
    pub roots: Vec<String>,
    /// The roots being edited (one per line), while the editor is open.
    pub roots_editor: Option<Box<TextArea<'static>>>,
    /// Store events looked at for withdrawn requests.
    scanned: u64,
}

impl Asks {
    /// Open the roots editor on the current list.
    pub fn edit_roots(&mut self) {
        let mut t = TextArea::new(if self.roots.is_empty() {
            vec![String::new()]
        } else {
            self.roots.clone()
        });
        t.move_cursor(ratatui_textarea::CursorMove::Bottom);
        t.move_cursor(ratatui_textarea::CursorMove::End);
        self.roots_editor = Some(Box::new(t));
    }

    /// Close the editor keeping its lines (blank ones dropped): the new list.
    pub fn save_roots(&mut self) -> Option<Vec<String>> {
        let t = self.roots_editor.take()?;
        self.roots = t
            .lines()
            .iter()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        Some(self.roots.clone())
    }

    pub fn push(&mut self, ask: Ask) {
        self.waiting.push(ask);
    }

    pub fn current(&mut self) -> Option<&mut Ask> {
        self.waiting.first_mut()
    }

    /// The answer for `choice` to the first request: `None` (it stays
    /// open, its problems shown) when an accepted form does not validate.
    pub fn answer(&mut self, choice: Choice) -> Option<(IdKey, Route, Answer)> {
        let ask = self.waiting.first_mut()?;
        let answer = match (&mut ask.kind, choice) {
            (AskKind::Roots, Choice::Accept) => Ok(crate::client::roots_result(&self.roots)),
            (AskKind::Roots, Choice::Decline) => Ok(json!({"roots": []})),
            (AskKind::Roots, Choice::Cancel) => Err((0, "cancelled by the user".to_string())),
            (AskKind::Sampling(s), Choice::Accept) => Ok(s.result()),
            (AskKind::Sampling(_), _) => Err((-1, "User rejected sampling request".to_string())),
            (AskKind::Form(f), Choice::Accept) => match f.content() {
                Ok(content) => Ok(json!({"action": "accept", "content": content})),
                Err(problems) => {
                    f.problems = problems;
                    return None;
                }
            },
            (AskKind::Url { .. }, Choice::Accept) => Ok(json!({"action": "accept"})),
            (AskKind::Unusable { .. }, Choice::Accept) => return None,
            (_, Choice::Decline) => Ok(json!({"action": "decline"})),
            (_, Choice::Cancel) => Ok(json!({"action": "cancel"})),
        };
        let ask = self.waiting.remove(0);
        if self.waiting.is_empty() {
            self.open = false;
        }
        Some((ask.id, ask.route, answer))
    }

    /// Drop the waiting entries of `call`'s `input_required` round (the
    /// round itself is `input_rounds`' to forget).
    pub fn drop_round(&mut self, call: &IdKey) {
        self.waiting
            .retain(|a| !matches!(&a.route, Route::Input { call: c, .. } if c == call));
        if self.waiting.is_empty() {
            self.open = false;
        }
    }

    /// Drop the requests the server withdrew since the last look: an
    /// incoming `notifications/cancelled` naming one of them. Returns how
    /// many went.
    pub fn sync(&mut self, store: &crate::trace::Store) -> usize {
        let end = store.next_seq();
        let from = self.scanned.max(store.first_seq());
        self.scanned = end;
        if self.waiting.is_empty() {
            return 0;
        }
        let before = self.waiting.len();
        for ev in store.range(from, end) {
            if ev.dir != crate::trace::Dir::In || ev.method != Some(methods::CANCELLED) {
                continue;
            }
            let id = ev
                .frame()
                .params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("requestId").map(IdKey::from_value));
            if let Some(id) = id {
                self.forget(&id);
            }
        }
        before - self.waiting.len()
    }

    /// A request the server withdrew (`notifications/cancelled`) or that
    /// can no longer be answered.
    pub fn forget(&mut self, id: &IdKey) {
        self.waiting.retain(|a| &a.id != id);
        if self.waiting.is_empty() {
            self.open = false;
        }
    }
}
