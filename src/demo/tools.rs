//! The demo server's tool table: names, titles, descriptions and input
//! schemas for `tools/list` (paged), dispatch for `tools/call`, and the
//! argument parsing every tool shares. Behaviour lives in the submodules.

mod basic;
pub mod batch;
mod context;
pub mod fault;
mod flood;
mod polling;
mod report;
mod transfer;
mod wizard;

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::call::Call;
use super::conformance::Fixture;
use fault::Fault;

/// Tools per `tools/list` page: small enough that the tools need several
/// pages, so clients' cursor handling gets exercised.
pub const PAGE_SIZE: usize = 6;

/// Upper bound for every `*_ms` argument; keeps deadline arithmetic far from
/// overflow and a typo from parking a call for years.
pub const MAX_MS: u64 = 3_600_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    UploadFile,
    PublishPackage,
    PipelineWait,
    JobWait,
    InteractiveWizard,
    ContextBuilder,
    BuildReport,
    Echo,
    Sleep,
    Flood,
    BatchJob,
    /// A tool that breaks one protocol rule on purpose.
    Fault(Fault),
    /// A fixture of the conformance suite (`--conformance` only; not in [`ALL`]).
    Conformance(Fixture),
}

pub const ALL: &[Tool] = &[
    Tool::UploadFile,
    Tool::PublishPackage,
    Tool::PipelineWait,
    Tool::JobWait,
    Tool::InteractiveWizard,
    Tool::ContextBuilder,
    Tool::BuildReport,
    Tool::Echo,
    Tool::Sleep,
    Tool::Flood,
    Tool::BatchJob,
    Tool::Fault(Fault::NotIncreasing),
    Tool::Fault(Fault::AfterResponse),
    Tool::Fault(Fault::UnknownToken),
    Tool::Fault(Fault::InvalidParams),
    Tool::Fault(Fault::ExceedsTotal),
    Tool::Fault(Fault::TotalChanged),
    Tool::Fault(Fault::Flood),
    Tool::Fault(Fault::Buffered),
    Tool::Fault(Fault::Stall),
    Tool::Fault(Fault::LogBelowLevel),
    Tool::Fault(Fault::LogInvalidLevel),
    Tool::Fault(Fault::StdoutGarbage),
    Tool::Fault(Fault::NotJsonRpc),
    Tool::Fault(Fault::DuplicateResponse),
    Tool::Fault(Fault::UnknownResponse),
    Tool::Fault(Fault::Crash),
    Tool::Fault(Fault::Hang),
];

impl Tool {
    pub fn by_name(name: &str) -> Option<Tool> {
        ALL.iter().copied().find(|t| t.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Tool::UploadFile => "upload_file",
            Tool::PublishPackage => "publish_package",
            Tool::PipelineWait => "pipeline_wait",
            Tool::JobWait => "job_wait",
            Tool::InteractiveWizard => "interactive_wizard",
            Tool::ContextBuilder => "context_builder",
            Tool::BuildReport => "build_report",
            Tool::Echo => "echo",
            Tool::Sleep => "sleep",
            Tool::Flood => "flood",
            Tool::BatchJob => "batch_job",
            Tool::Fault(f) => f.name(),
            Tool::Conformance(f) => f.name(),
        }
    }

    fn title(self) -> &'static str {
        match self {
            Tool::UploadFile => "Upload a file",
            Tool::PublishPackage => "Publish a package",
            Tool::PipelineWait => "Wait for a CI pipeline",
            Tool::JobWait => "Wait for a CI job",
            Tool::InteractiveWizard => "New project wizard",
            Tool::ContextBuilder => "Build model context",
            Tool::BuildReport => "Build report",
            Tool::Echo => "Echo",
            Tool::Sleep => "Sleep",
            Tool::Flood => "Progress flood",
            Tool::BatchJob => "Batch job (task)",
            Tool::Fault(f) => f.title(),
            Tool::Conformance(f) => f.title(),
        }
    }

    fn description(self) -> &'static str {
        match self {
            Tool::UploadFile => {
                "Reads a (simulated) file chunk by chunk while preparing an upload; \
                 progress counts bytes read against the file size."
            }
            Tool::PublishPackage => {
                "Streams a (simulated) package to a registry; progress counts bytes sent \
                 against the package size."
            }
            Tool::PipelineWait => {
                "Polls a CI pipeline until it finishes. Progress has no total: it is the poll \
                 number. outcome=failed makes the result an error."
            }
            Tool::JobWait => {
                "Polls a CI job until it finishes. Progress has no total: it is the poll \
                 number. outcome=failed makes the result an error."
            }
            Tool::InteractiveWizard => {
                "Asks a few questions to create a project, via elicitation when the client \
                 supports it (defaults otherwise). Progress steps count from 0."
            }
            Tool::ContextBuilder => {
                "Builds a model context in phases (discovering, generating, processing) with \
                 heartbeats in between. Progress is an event counter without a total."
            }
            Tool::BuildReport => {
                "Runs build tasks, reporting progress per task and log messages (logger \
                 \"tracker\") from debug up to error; the run succeeds regardless."
            }
            Tool::Echo => "Returns its arguments as JSON text.",
            Tool::Sleep => {
                "Sleeps for the given time, reporting elapsed milliseconds about every 250 ms."
            }
            Tool::Flood => {
                "Throughput benchmark: sends `count` progress notifications as fast as \
                 possible (only when a progressToken is given), then the result."
            }
            Tool::BatchJob => {
                "Runs a batch of steps. In the 2026-07-28 era, when the request declares the \
                 tasks extension (io.modelcontextprotocol/tasks), it answers with a task that \
                 tasks/get follows (statusMessage per step); confirm=true asks once, halfway, \
                 through an elicitation inputRequest answered with tasks/update; fail=true \
                 ends in a failed task. Otherwise it runs inline with progress per step."
            }
            Tool::Fault(f) => f.description(),
            Tool::Conformance(f) => f.description(),
        }
    }

    fn input_schema(self) -> Value {
        match self {
            Tool::UploadFile => transfer::UPLOAD.schema(),
            Tool::PublishPackage => transfer::PUBLISH.schema(),
            Tool::PipelineWait => polling::PIPELINE.schema(),
            Tool::JobWait => polling::JOB.schema(),
            Tool::InteractiveWizard => wizard::schema(),
            Tool::ContextBuilder => context::schema(),
            Tool::BuildReport => report::schema(),
            Tool::Echo => basic::echo_schema(),
            Tool::Sleep => basic::sleep_schema(),
            Tool::Flood => flood::schema(),
            Tool::BatchJob => batch::schema(),
            Tool::Fault(f) => f.schema(),
            Tool::Conformance(f) => f.input_schema(),
        }
    }

    fn describe(self) -> Value {
        json!({
            "name": self.name(),
            "title": self.title(),
            "description": self.description(),
            "inputSchema": self.input_schema(),
        })
    }

    pub async fn run(self, call: &Call, args: &Map<String, Value>) -> Outcome {
        let args = Args(args);
        let result = match self {
            Tool::UploadFile => transfer::UPLOAD.run(call, &args).await,
            Tool::PublishPackage => transfer::PUBLISH.run(call, &args).await,
            Tool::PipelineWait => polling::PIPELINE.run(call, &args).await,
            Tool::JobWait => polling::JOB.run(call, &args).await,
            Tool::InteractiveWizard => wizard::run(call, &args).await,
            Tool::ContextBuilder => context::run(call, &args).await,
            Tool::BuildReport => report::run(call, &args).await,
            Tool::Echo => Ok(basic::echo(args.0)),
            Tool::Sleep => basic::sleep(call, &args).await,
            Tool::Flood => flood::run(call, &args).await,
            Tool::BatchJob => batch::run(call, &args).await,
            Tool::Fault(f) => f.run(call, &args).await,
            Tool::Conformance(f) => Ok(f.run(call, args.0).await),
        };
        result.unwrap_or_else(|ArgError(message)| Outcome::error(message))
    }
}

/// Why a `tools/list` cursor is refused; the text is the JSON-RPC error's
/// message.
#[derive(Debug, thiserror::Error)]
pub enum CursorError {
    #[error("cursor must be a string")]
    NotString,
    #[error("invalid cursor {0:?}")]
    Invalid(String),
}

/// One `tools/list` page of `first` (the conformance fixtures, or nothing)
/// followed by the demo tools. The fixtures come first because the suite's
/// scenarios look for them on the first page only. The cursor is the index
/// of the page's first tool, as text; anything else is rejected so clients
/// notice a mangled cursor.
pub fn list_page(cursor: Option<&str>, first: &[Value]) -> Result<Value, CursorError> {
    let len = first.len() + ALL.len();
    let start = match cursor {
        None => 0,
        Some(c) => match c.parse::<usize>() {
            Ok(n) if n < len && n % PAGE_SIZE == 0 => n,
            _ => return Err(CursorError::Invalid(c.to_string())),
        },
    };
    let end = (start + PAGE_SIZE).min(len);
    let tools: Vec<Value> = (start..end)
        .map(|i| match first.get(i) {
            Some(fixture) => fixture.clone(),
            None => ALL[i - first.len()].describe(),
        })
        .collect();
    let mut page = json!({ "tools": tools });
    if end < len {
        page["nextCursor"] = end.to_string().into();
    }
    Ok(page)
}

/// What a tool hands back; becomes a `CallToolResult`.
pub struct Outcome {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
    /// The whole result, for tools whose content is not one text (the
    /// conformance fixtures); `text` and `structured` are then unused.
    pub raw: Option<Value>,
}

impl Outcome {
    pub fn ok(text: impl Into<String>, structured: Value) -> Self {
        Outcome {
            text: text.into(),
            structured: Some(structured),
            is_error: false,
            raw: None,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Outcome {
            text: text.into(),
            structured: None,
            is_error: true,
            raw: None,
        }
    }

    pub fn raw(result: Value) -> Self {
        Outcome {
            text: String::new(),
            structured: None,
            is_error: false,
            raw: Some(result),
        }
    }
}

/// A bad argument; reported as a tool result with `isError`, not a protocol
/// error, so the model (or the person at the inspector) can correct it.
pub struct ArgError(pub String);

pub type ToolResult = Result<Outcome, ArgError>;

pub struct Args<'a>(pub &'a Map<String, Value>);

impl Args<'_> {
    /// `null` counts as absent: some forms send it for an empty field.
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// A non-negative integer in `min..=max`. Integral floats (`5.0`) are
    /// accepted because some clients only have one number type.
    pub fn uint(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, ArgError> {
        let Some(value) = self.get(name) else {
            return Ok(default);
        };
        let n = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
                .map(|f| f as u64)
        });
        match n {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(ArgError(format!(
                "argument `{name}` must be an integer between {min} and {max}, got {value}"
            ))),
        }
    }

    pub fn boolean(&self, name: &str, default: bool) -> Result<bool, ArgError> {
        match self.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(ArgError(format!(
                "argument `{name}` must be a boolean, got {other}"
            ))),
        }
    }

    pub fn string(&self, name: &str, default: &str) -> Result<String, ArgError> {
        match self.get(name) {
            None => Ok(default.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(ArgError(format!(
                "argument `{name}` must be a string, got {other}"
            ))),
        }
    }

    pub fn choice(&self, name: &str, default: &str, allowed: &[&str]) -> Result<String, ArgError> {
        let s = self.string(name, default)?;
        if allowed.contains(&s.as_str()) {
            Ok(s)
        } else {
            Err(ArgError(format!(
                "argument `{name}` must be one of {}, got {s:?}",
                allowed.join(", ")
            )))
        }
    }
}

/// Schema builders, so each tool states a parameter's default once.
pub fn uint_prop(description: &str, default: u64, min: u64, max: u64) -> Value {
    json!({
        "type": "integer",
        "description": description,
        "default": default,
        "minimum": min,
        "maximum": max,
    })
}

pub fn string_prop(description: &str, default: &str) -> Value {
    json!({"type": "string", "description": description, "default": default})
}

pub fn enum_prop(description: &str, default: &str, allowed: &[&str]) -> Value {
    json!({"type": "string", "description": description, "default": default, "enum": allowed})
}

pub fn object_schema(properties: Vec<(&str, Value)>) -> Value {
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    json!({"type": "object", "properties": properties})
}

/// Simulated work. A zero delay still yields, so a tight loop stays
/// cancellable and lets other calls run.
pub async fn pause(ms: u64) {
    if ms == 0 {
        tokio::task::yield_now().await;
    } else {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}
