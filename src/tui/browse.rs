//! The Tools pane's other tabs: the server's resources (with templates)
//! and prompts. Lists are fetched page by page (every page) when a tab is
//! first shown and again on the server's `list_changed`; reading a resource
//! or getting a prompt fills a scrollable detail view. Subscriptions mark
//! their resource, and `notifications/resources/updated` counts on it live.
//! Everything the server sends is bounded here and the cut is said.

pub mod template;

use crate::protocol::methods;
use crate::trace::{Dir, Store};
use crate::tui::argform::ArgForm;
use crate::tui::format::{safe, safe_row};
use crate::tui::state::Cursor;
use base64::Engine as _;
use serde_json::{Map, Value, json};

/// Items of one list kept (the rest are counted, not shown).
pub const MAX_ITEMS: usize = 5_000;
/// Lines a detail view keeps.
pub const MAX_LINES: usize = 5_000;
/// Bytes of a binary content shown as hex.
pub const HEX_PREVIEW: usize = 256;
/// Contents (of one read) or messages (of one prompt) shown.
pub const MAX_PARTS: usize = 200;

pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

/// The tabs sharing the Tools pane's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Tools,
    Resources,
    Prompts,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Tools, Tab::Resources, Tab::Prompts];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Tools => "Tools",
            Tab::Resources => "Resources",
            Tab::Prompts => "Prompts",
        }
    }

    pub fn step(self, forward: bool) -> Tab {
        let i = Tab::ALL.iter().position(|t| *t == self).unwrap_or(0);
        let n = Tab::ALL.len();
        Tab::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// A request the tabs make; the runtime sends it and hands back its result.
#[derive(Debug, Clone, PartialEq)]
pub enum Req {
    ListResources,
    ListTemplates,
    ListPrompts,
    Read {
        uri: String,
    },
    Subscribe {
        uri: String,
        on: bool,
    },
    GetPrompt {
        name: String,
        args: Map<String, Value>,
    },
    /// `completion/complete`; `round` tells a stale reply from the latest.
    Complete {
        round: u64,
        params: Value,
    },
}

impl Req {
    pub fn method(&self) -> &'static str {
        match self {
            Req::ListResources => methods::RESOURCES_LIST,
            Req::ListTemplates => methods::RESOURCE_TEMPLATES_LIST,
            Req::ListPrompts => methods::PROMPTS_LIST,
            Req::Read { .. } => "resources/read",
            Req::Subscribe { on: true, .. } => "resources/subscribe",
            Req::Subscribe { on: false, .. } => "resources/unsubscribe",
            Req::GetPrompt { .. } => "prompts/get",
            Req::Complete { .. } => "completion/complete",
        }
    }

    /// Paginated listings are followed to their last page.
    pub fn is_listing(&self) -> bool {
        matches!(
            self,
            Req::ListResources | Req::ListTemplates | Req::ListPrompts
        )
    }

    pub fn params(&self) -> Option<Value> {
        match self {
            Req::ListResources | Req::ListTemplates | Req::ListPrompts => None,
            Req::Read { uri } | Req::Subscribe { uri, .. } => Some(json!({"uri": uri})),
            Req::GetPrompt { name, args } => Some(json!({"name": name, "arguments": args})),
            Req::Complete { params, .. } => Some(params.clone()),
        }
    }
}

/// What the server declared that the tabs depend on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    pub resources: bool,
    pub subscribe: bool,
    pub prompts: bool,
    pub completions: bool,
    /// `context.arguments` in `completion/complete` (2025-06-18 on).
    pub context: bool,
}

impl Caps {
    pub fn of(capabilities: &Value, revision: &str) -> Caps {
        let has = |k: &str| capabilities.get(k).is_some_and(|v| !v.is_null());
        Caps {
            resources: has("resources"),
            subscribe: capabilities
                .pointer("/resources/subscribe")
                .and_then(Value::as_bool)
                == Some(true),
            prompts: has("prompts"),
            completions: has("completions"),
            context: revision >= "2025-06-18",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Resource {
    /// Exactly as listed: reads and subscriptions use it.
    pub uri: String,
    pub label: String,
    pub name: String,
    pub mime: String,
    pub size: Option<u64>,
    pub description: String,
    pub subscribed: bool,
    /// `notifications/resources/updated` received for it, and the last one's time.
    pub updates: u64,
    pub last_update_us: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub struct Template {
    pub template: String,
    pub label: String,
    pub name: String,
    pub mime: String,
    pub description: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptArg {
    pub name: String,
    pub description: String,
    pub required: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Prompt {
    pub name: String,
    pub label: String,
    pub title: String,
    pub description: String,
    pub args: Vec<PromptArg>,
}

/// One list as fetched: what is kept, how many the server listed.
#[derive(Debug, Clone)]
pub struct Listing<T> {
    pub items: Vec<T>,
    pub listed: usize,
    pub loading: bool,
    pub loaded: bool,
    pub error: Option<String>,
}

impl<T> Default for Listing<T> {
    fn default() -> Self {
        Listing {
            items: Vec::new(),
            listed: 0,
            loading: false,
            loaded: false,
            error: None,
        }
    }
}

impl<T> Listing<T> {
    fn fill(&mut self, result: Result<Value, String>, key: &str, item: impl Fn(&Value) -> T) {
        self.loading = false;
        self.loaded = true;
        match result {
            Ok(v) => {
                let list = v.get(key).and_then(Value::as_array);
                self.listed = list.map_or(0, Vec::len);
                self.items = list
                    .into_iter()
                    .flatten()
                    .take(MAX_ITEMS)
                    .map(item)
                    .collect();
                self.error = None;
            }
            Err(e) => self.error = Some(safe_row(&e)),
        }
    }

    /// "12" or "showing 5000 of 7000".
    pub fn count(&self) -> String {
        if self.listed > self.items.len() {
            format!("showing {} of {}", self.items.len(), self.listed)
        } else {
            self.items.len().to_string()
        }
    }
}

/// How a detail line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Head,
    Text,
    Muted,
    Error,
}

/// A read resource or a got prompt, as lines to scroll through.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    pub title: String,
    pub lines: Vec<(Tone, String)>,
    pub scroll: usize,
    /// Lines the server sent past `MAX_LINES` (or parts past `MAX_PARTS`).
    pub cut: bool,
}

impl Detail {
    fn new(title: String) -> Detail {
        Detail {
            title,
            ..Detail::default()
        }
    }

    fn push(&mut self, tone: Tone, text: impl Into<String>) {
        if self.lines.len() < MAX_LINES {
            self.lines.push((tone, text.into()));
        } else {
            self.cut = true;
        }
    }

    fn text(&mut self, text: &str) {
        for l in text.lines() {
            if self.lines.len() >= MAX_LINES {
                self.cut = true;
                return;
            }
            self.push(Tone::Text, safe_row(l));
        }
    }

    fn error(title: String, e: &str) -> Detail {
        let mut d = Detail::new(title);
        d.push(Tone::Error, format!("failed: {}", safe_row(e)));
        d
    }

    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        let max = self.lines.len().saturating_sub(height.max(1)) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, max.max(0)) as usize;
    }
}

/// A row of the Resources tab: resources first, then templates.
pub enum Row<'a> {
    Resource(&'a Resource),
    Template(&'a Template),
}

#[derive(Debug, Default)]
pub struct ResourcesTab {
    pub resources: Listing<Resource>,
    pub templates: Listing<Template>,
    pub cursor: Cursor,
    pub detail: Option<Detail>,
}

impl ResourcesTab {
    pub fn len(&self) -> usize {
        self.resources.items.len() + self.templates.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn row(&self, i: usize) -> Option<Row<'_>> {
        let n = self.resources.items.len();
        if i < n {
            Some(Row::Resource(&self.resources.items[i]))
        } else {
            self.templates.items.get(i - n).map(Row::Template)
        }
    }

    pub fn selected(&self) -> Option<Row<'_>> {
        self.row(self.cursor.selected)
    }

    pub fn loading(&self) -> bool {
        self.resources.loading || self.templates.loading
    }
}

#[derive(Debug, Default)]
pub struct PromptsTab {
    pub list: Listing<Prompt>,
    pub cursor: Cursor,
    pub detail: Option<Detail>,
}

impl PromptsTab {
    pub fn selected(&self) -> Option<&Prompt> {
        self.list.items.get(self.cursor.selected)
    }
}

#[derive(Default)]
pub struct Browse {
    pub tab: Tab,
    pub resources: ResourcesTab,
    pub prompts: PromptsTab,
    /// Keys scroll the detail view instead of moving in the list.
    pub detail_focus: bool,
    /// The argument form (a prompt's arguments, a template's variables).
    pub form: Option<ArgForm>,
    pub caps: Caps,
    /// Requests the server's notifications asked for, sent on the next tick.
    pub queued: Vec<Req>,
    /// Store events looked at for notifications.
    scanned: u64,
}

fn text(v: &Value, k: &str, n: usize) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .map(|s| safe(s, n))
        .unwrap_or_default()
}

fn raw_str(v: &Value, k: &str) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Browse {
    /// The requests showing `tab` needs (its lists, once).
    pub fn show(&mut self, tab: Tab) -> Vec<Req> {
        self.tab = tab;
        self.detail_focus = false;
        match tab {
            Tab::Resources if !self.resources.resources.loaded && self.caps.resources => {
                self.load_resources()
            }
            Tab::Prompts if !self.prompts.list.loaded && self.caps.prompts => self.load_prompts(),
            _ => Vec::new(),
        }
    }

    pub fn load_resources(&mut self) -> Vec<Req> {
        if !self.caps.resources {
            return Vec::new();
        }
        self.resources.resources.loading = true;
        self.resources.templates.loading = true;
        vec![Req::ListResources, Req::ListTemplates]
    }

    pub fn load_prompts(&mut self) -> Vec<Req> {
        if !self.caps.prompts {
            return Vec::new();
        }
        self.prompts.list.loading = true;
        vec![Req::ListPrompts]
    }

    /// A reply to one of the tabs' requests. Returns a line for the status bar.
    pub fn on_reply(&mut self, req: Req, result: Result<Value, String>) -> Option<String> {
        match req {
            Req::ListResources => {
                // Subscriptions and update counts outlive a refresh.
                let old: Vec<Resource> = std::mem::take(&mut self.resources.resources.items);
                self.resources.resources.fill(result, "resources", |v| {
                    let uri = raw_str(v, "uri");
                    let prev = old.iter().find(|o| o.uri == uri);
                    Resource {
                        label: safe(&uri, 200),
                        name: text(v, "name", 80),
                        mime: text(v, "mimeType", 60),
                        size: v.get("size").and_then(Value::as_u64),
                        description: raw_str(v, "description"),
                        subscribed: prev.is_some_and(|p| p.subscribed),
                        updates: prev.map_or(0, |p| p.updates),
                        last_update_us: prev.and_then(|p| p.last_update_us),
                        uri,
                    }
                });
                let n = self.resources.len();
                self.resources.cursor.move_by(0, n);
                None
            }
            Req::ListTemplates => {
                self.resources
                    .templates
                    .fill(result, "resourceTemplates", |v| {
                        let template = raw_str(v, "uriTemplate");
                        Template {
                            label: safe(&template, 200),
                            name: text(v, "name", 80),
                            mime: text(v, "mimeType", 60),
                            description: raw_str(v, "description"),
                            template,
                        }
                    });
                let n = self.resources.len();
                self.resources.cursor.move_by(0, n);
                None
            }
            Req::ListPrompts => {
                self.prompts.list.fill(result, "prompts", prompt_of);
                let n = self.prompts.list.items.len();
                self.prompts.cursor.move_by(0, n);
                None
            }
            Req::Read { uri } => {
                let title = format!("resources/read {}", safe(&uri, 120));
                self.resources.detail = Some(match result {
                    Ok(v) => contents(title, &v),
                    Err(e) => Detail::error(title, &e),
                });
                None
            }
            Req::Subscribe { uri, on } => match result {
                Ok(_) => {
                    if let Some(r) = self
                        .resources
                        .resources
                        .items
                        .iter_mut()
                        .find(|r| r.uri == uri)
                    {
                        r.subscribed = on;
                    }
                    Some(format!(
                        "{} {}",
                        if on {
                            "subscribed to"
                        } else {
                            "unsubscribed from"
                        },
                        safe(&uri, 80)
                    ))
                }
                Err(e) => Some(format!("{}: {}", req_name(on), safe_row(&e))),
            },
            Req::GetPrompt { name, .. } => {
                let title = format!("prompts/get {}", safe(&name, 80));
                self.prompts.detail = Some(match result {
                    Ok(v) => messages(title, &v),
                    Err(e) => Detail::error(title, &e),
                });
                None
            }
            Req::Complete { round, .. } => {
                if let Some(f) = &mut self.form {
                    f.on_values(round, result);
                }
                None
            }
        }
    }

    /// Take in the server's notifications since the last look: updates
    /// count on their resource, list changes refetch a list once loaded.
    pub fn sync(&mut self, store: &Store) -> bool {
        let end = store.next_seq();
        let from = self.scanned.max(store.first_seq());
        self.scanned = end;
        let mut changed = false;
        let (mut relist_resources, mut relist_prompts) = (false, false);
        for ev in store.range(from, end) {
            if ev.dir != Dir::In {
                continue;
            }
            match ev.method {
                Some(RESOURCES_UPDATED) => {
                    let uri = ev
                        .frame()
                        .params
                        .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                        .and_then(|p| p.get("uri").and_then(Value::as_str).map(str::to_string));
                    if let Some(r) = uri.and_then(|u| {
                        self.resources
                            .resources
                            .items
                            .iter_mut()
                            .find(|r| r.uri == u)
                    }) {
                        r.updates += 1;
                        r.last_update_us = Some(ev.t_us);
                        changed = true;
                    }
                }
                Some(RESOURCES_LIST_CHANGED) => relist_resources = true,
                Some(PROMPTS_LIST_CHANGED) => relist_prompts = true,
                _ => {}
            }
        }
        if relist_resources && self.resources.resources.loaded && !self.resources.loading() {
            let reqs = self.load_resources();
            self.queued.extend(reqs);
        }
        if relist_prompts && self.prompts.list.loaded && !self.prompts.list.loading {
            let reqs = self.load_prompts();
            self.queued.extend(reqs);
        }
        changed || !self.queued.is_empty()
    }
}

fn req_name(on: bool) -> &'static str {
    if on {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    }
}

fn prompt_of(v: &Value) -> Prompt {
    let name = raw_str(v, "name");
    Prompt {
        label: safe(&name, 80),
        title: text(v, "title", 80),
        description: raw_str(v, "description"),
        args: v
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .take(crate::tui::argform::MAX_FIELDS)
            .map(|a| PromptArg {
                name: raw_str(a, "name"),
                description: raw_str(a, "description"),
                required: a.get("required").and_then(Value::as_bool) == Some(true),
            })
            .filter(|a| !a.name.is_empty())
            .collect(),
        name,
    }
}

/// A `ReadResourceResult` as lines: each content's URI and type, text as
/// written, a blob as its size, type and a hex preview.
pub fn contents(title: String, v: &Value) -> Detail {
    let mut d = Detail::new(title);
    let parts = v.get("contents").and_then(Value::as_array);
    let Some(parts) = parts else {
        d.push(Tone::Error, "the result has no contents list");
        return d;
    };
    if parts.is_empty() {
        d.push(Tone::Muted, "(no contents)");
    }
    for (i, c) in parts.iter().enumerate() {
        if i == MAX_PARTS {
            d.cut = true;
            d.push(
                Tone::Muted,
                format!("… {} more contents not shown", parts.len() - i),
            );
            break;
        }
        let mime = text(c, "mimeType", 60);
        let uri = text(c, "uri", 160);
        if let Some(t) = c.get("text").and_then(Value::as_str) {
            d.push(
                Tone::Head,
                format!("text, {} bytes · {} · {uri}", t.len(), or_unknown(&mime)),
            );
            d.text(t);
        } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
            blob(&mut d, &uri, &mime, b);
        } else {
            d.push(Tone::Error, format!("{uri}: neither text nor blob"));
        }
    }
    d
}

fn or_unknown(mime: &str) -> &str {
    if mime.is_empty() {
        "no MIME type"
    } else {
        mime
    }
}

fn blob(d: &mut Detail, uri: &str, mime: &str, b64: &str) {
    let bytes = match base64::engine::general_purpose::STANDARD.decode(b64.trim()) {
        Ok(b) => b,
        Err(e) => {
            d.push(Tone::Error, format!("{uri}: blob is not valid base64: {e}"));
            return;
        }
    };
    d.push(
        Tone::Head,
        format!(
            "binary, {} bytes · {} · {uri}",
            bytes.len(),
            or_unknown(mime)
        ),
    );
    for (i, chunk) in bytes.chunks(16).take(HEX_PREVIEW / 16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let ascii: String = chunk
            .iter()
            .map(|b| {
                if b.is_ascii_graphic() || *b == b' ' {
                    *b as char
                } else {
                    '.'
                }
            })
            .collect();
        d.push(
            Tone::Text,
            format!("{:04x}  {:<47}  {ascii}", i * 16, hex.join(" ")),
        );
    }
    if bytes.len() > HEX_PREVIEW {
        d.push(
            Tone::Muted,
            format!("… first {HEX_PREVIEW} of {} bytes shown", bytes.len()),
        );
    }
}

/// A `GetPromptResult` as lines: its description, then each message's role
/// and content (text as written; images, audio and resources summarised).
pub fn messages(title: String, v: &Value) -> Detail {
    let mut d = Detail::new(title);
    let desc = raw_str(v, "description");
    if !desc.is_empty() {
        d.push(Tone::Muted, safe_row(&desc));
    }
    let Some(msgs) = v.get("messages").and_then(Value::as_array) else {
        d.push(Tone::Error, "the result has no messages list");
        return d;
    };
    d.push(Tone::Muted, format!("{} message(s)", msgs.len()));
    for (i, m) in msgs.iter().enumerate() {
        if i == MAX_PARTS {
            d.cut = true;
            d.push(
                Tone::Muted,
                format!("… {} more messages not shown", msgs.len() - i),
            );
            break;
        }
        d.push(Tone::Head, format!("{}:", or_q(&text(m, "role", 20))));
        match m.get("content") {
            Some(Value::Array(parts)) => {
                for p in parts.iter().take(MAX_PARTS) {
                    part(&mut d, p);
                }
            }
            Some(c) => part(&mut d, c),
            None => d.push(Tone::Error, "  (no content)"),
        }
    }
    d
}

fn or_q(s: &str) -> &str {
    if s.is_empty() { "?" } else { s }
}

/// Bytes a base64 text decodes to (without decoding it).
fn b64_len(s: &str) -> usize {
    let s = s.trim_end_matches('=');
    s.len() * 3 / 4
}

fn part(d: &mut Detail, c: &Value) {
    let kind = c.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => d.text(c.get("text").and_then(Value::as_str).unwrap_or("")),
        "image" | "audio" => {
            let data = c.get("data").and_then(Value::as_str).unwrap_or("");
            d.push(
                Tone::Muted,
                format!(
                    "[{kind}: {}, {} bytes]",
                    or_unknown(&text(c, "mimeType", 60)),
                    b64_len(data)
                ),
            );
        }
        "resource" => {
            let r = c.get("resource").unwrap_or(&Value::Null);
            let what = if let Some(t) = r.get("text").and_then(Value::as_str) {
                format!("text, {} bytes", t.len())
            } else if let Some(b) = r.get("blob").and_then(Value::as_str) {
                format!("binary, {} bytes", b64_len(b))
            } else {
                "no text or blob".into()
            };
            d.push(
                Tone::Muted,
                format!(
                    "[resource {} · {} · {what}]",
                    text(r, "uri", 160),
                    or_unknown(&text(r, "mimeType", 60))
                ),
            );
            if let Some(t) = r.get("text").and_then(Value::as_str) {
                d.text(t);
            }
        }
        "resource_link" => d.push(
            Tone::Muted,
            format!(
                "[link {} · {}]",
                text(c, "uri", 160),
                or_q(&text(c, "name", 80))
            ),
        ),
        other => d.push(Tone::Muted, format!("[{} content]", or_q(&safe(other, 30)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_show_size_type_and_hex() {
        let b = base64::engine::general_purpose::STANDARD.encode([0u8, 1, 0x41, 0xff]);
        let d = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x://b", "mimeType": "application/octet-stream", "blob": b}]}),
        );
        assert_eq!(
            d.lines[0].1,
            "binary, 4 bytes · application/octet-stream · x://b"
        );
        assert!(
            d.lines[1].1.starts_with("0000  00 01 41 ff"),
            "{:?}",
            d.lines
        );
        assert!(d.lines[1].1.ends_with("..A."));
        let bad = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x", "blob": "!!"}]}),
        );
        assert_eq!(bad.lines[0].0, Tone::Error);
    }

    #[test]
    fn long_texts_are_cut_and_say_so() {
        let long = "line\n".repeat(MAX_LINES + 10);
        let d = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x", "text": long}]}),
        );
        assert_eq!(d.lines.len(), MAX_LINES);
        assert!(d.cut);
    }

    #[test]
    fn prompt_messages_are_summarised() {
        let d = messages(
            "t".into(),
            &json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "hi\nthere"}},
                {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "AAAA"}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "r://1", "text": "body"}}}
            ]}),
        );
        let text: Vec<&str> = d.lines.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            text,
            [
                "3 message(s)",
                "user:",
                "hi",
                "there",
                "assistant:",
                "[image: image/png, 3 bytes]",
                "user:",
                "[resource r://1 · no MIME type · text, 4 bytes]",
                "body"
            ]
        );
    }

    #[test]
    fn caps_follow_the_declaration() {
        let c = Caps::of(
            &json!({"resources": {"subscribe": true}, "completions": {}}),
            "2025-11-25",
        );
        assert!(c.resources && c.subscribe && c.completions && c.context && !c.prompts);
        let old = Caps::of(&json!({"resources": {}}), "2025-03-26");
        assert!(!old.subscribe && !old.context);
    }
}
