//! `interactive_wizard`: a GitLab-style project wizard. Steps count from 0
//! (question 1 of 3 is progress 0 of 3) because that is what such servers
//! send, and clients must not assume progress starts at 1. Each step asks a
//! form (text with length limits and formats, an integer, a number, a
//! boolean, single-choice enums, required fields, defaults) through
//! `elicitation/create` when the client declared elicitation (at 2026-07-28
//! as an `input_required` round), and takes the defaults otherwise.

use serde_json::{Map, Value, json};

use super::{ArgError, Args, MAX_MS, Outcome, ToolResult, object_schema, pause, uint_prop};
use crate::demo::call::Call;
use crate::demo::era::Modern;
use crate::demo::request_state;
use crate::protocol::meta::ResultType;

/// One step of the wizard: a form of typed fields, each with a default.
struct Question {
    prompt: &'static str,
    /// `(field, JSON Schema property)`; the property carries its default.
    fields: fn() -> Vec<(&'static str, Value)>,
    required: &'static [&'static str],
}

const VISIBILITY: [(&str, &str); 3] = [
    ("private", "Private: only members"),
    ("internal", "Internal: any signed-in user"),
    ("public", "Public: everyone"),
];

fn choices(options: &[(&str, &str)]) -> Value {
    options
        .iter()
        .map(|(v, t)| json!({"const": v, "title": t}))
        .collect()
}

const QUESTIONS: [Question; 6] = [
    Question {
        prompt: "What should the project be called?",
        fields: || {
            vec![
                (
                    "project_name",
                    json!({"type": "string", "title": "Project name", "minLength": 1, "maxLength": 64,
                           "description": "Letters, digits, dashes and underscores", "default": "mcpscope-demo"}),
                ),
                (
                    "summary",
                    json!({"type": "string", "title": "Description", "maxLength": 200,
                           "default": "A project created by the mcpscope demo wizard"}),
                ),
            ]
        },
        required: &["project_name"],
    },
    Question {
        prompt: "Who can see it?",
        fields: || {
            vec![
                (
                    "visibility",
                    json!({"type": "string", "title": "Visibility", "oneOf": choices(&VISIBILITY), "default": "private"}),
                ),
                (
                    "with_readme",
                    json!({"type": "boolean", "title": "Create a README", "default": true}),
                ),
            ]
        },
        required: &["visibility"],
    },
    Question {
        prompt: "How are its branches set up?",
        fields: || {
            vec![
                (
                    "default_branch",
                    json!({"type": "string", "title": "Default branch", "minLength": 1, "default": "main"}),
                ),
                (
                    "protected_branches",
                    json!({"type": "integer", "title": "Protected branches", "minimum": 0, "maximum": 20, "default": 1}),
                ),
            ]
        },
        required: &["default_branch"],
    },
    Question {
        prompt: "Which license should it use?",
        fields: || {
            vec![(
                "license",
                json!({"type": "string", "title": "License", "enum": ["MIT", "Apache-2.0", "GPL-3.0-only", "none"], "default": "MIT"}),
            )]
        },
        required: &["license"],
    },
    Question {
        prompt: "How should CI start?",
        fields: || {
            vec![
                (
                    "ci_template",
                    json!({"type": "string", "title": "CI template", "enum": ["rust", "node", "python", "none"], "default": "rust"}),
                ),
                (
                    "coverage_target",
                    json!({"type": "number", "title": "Coverage target (%)", "minimum": 0, "maximum": 100, "default": 80}),
                ),
            ]
        },
        required: &[],
    },
    Question {
        prompt: "Who looks after it?",
        fields: || {
            vec![
                (
                    "maintainer_email",
                    json!({"type": "string", "title": "Maintainer e-mail", "format": "email", "default": "dev@example.com"}),
                ),
                (
                    "homepage",
                    json!({"type": "string", "title": "Homepage", "format": "uri", "default": "https://example.com"}),
                ),
            ]
        },
        required: &["maintainer_email"],
    },
];

impl Question {
    /// The `elicitation/create` params of this step's form.
    fn params(&self) -> Value {
        json!({"message": self.prompt, "requestedSchema": self.schema()})
    }

    fn schema(&self) -> Value {
        let properties: Map<String, Value> = (self.fields)()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        json!({"type": "object", "properties": properties, "required": self.required})
    }

    fn defaults(&self) -> Vec<(&'static str, Value)> {
        (self.fields)()
            .into_iter()
            .map(|(k, p)| (k, p.get("default").cloned().unwrap_or(Value::Null)))
            .collect()
    }
}

const QUESTIONS_DEFAULT: u64 = 3;
const DELAY_DEFAULT: u64 = 800;

pub fn schema() -> Value {
    object_schema(vec![
        (
            "questions",
            uint_prop(
                "How many questions to ask.",
                QUESTIONS_DEFAULT,
                1,
                QUESTIONS.len() as u64,
            ),
        ),
        (
            "delay_ms",
            uint_prop(
                "Think time per step in milliseconds.",
                DELAY_DEFAULT,
                0,
                MAX_MS,
            ),
        ),
    ])
}

pub async fn run(call: &Call, args: &Args<'_>) -> ToolResult {
    let total = args.uint("questions", QUESTIONS_DEFAULT, 1, QUESTIONS.len() as u64)?;
    let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
    if let Some(modern) = call.modern() {
        return rounds(call, modern, total, delay).await;
    }
    let elicit = call.supports_elicitation();
    let mut answers = Map::new();
    for (step, question) in (0..total).zip(&QUESTIONS) {
        announce(call, step, total);
        let answer = if elicit {
            answer_of(question, call.elicit(question.params()).await)
        } else {
            question.defaults()
        };
        fill(&mut answers, answer);
        pause(delay).await;
    }
    Ok(finish(call, total, delay, answers, elicit).await)
}

/// 2026-07-28 has no requests mid-call: each form is an `input_required`
/// result (SEP-2322), and the client calls again with its answer and the
/// signed state this round handed out (the step reached, the answers so
/// far), from which the wizard goes on. A client that did not declare
/// elicitation gets the defaults at once, as in the handshake era.
async fn rounds(call: &Call, modern: &Modern, total: u64, delay: u64) -> ToolResult {
    let elicit = modern
        .capabilities
        .as_ref()
        .and_then(|c| c.get("elicitation"))
        .is_some_and(|e| !e.is_null());
    let (mut step, mut answers) = match &modern.request_state {
        None | Some(Value::Null) => (0, Map::new()),
        Some(Value::String(raw)) => {
            let state = request_state::verify(raw).map_err(|e| ArgError(e.into()))?;
            let step = state.get("step").and_then(Value::as_u64).unwrap_or(total);
            let mut answers = match state.get("answers") {
                Some(Value::Object(a)) => a.clone(),
                _ => Map::new(),
            };
            // The answer to this round's form, then on to the next step.
            let question = QUESTIONS.get(step as usize).filter(|_| step < total);
            if let Some(question) = question {
                let result = modern
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get(round_key(step)))
                    .cloned();
                fill(&mut answers, answer_of(question, result));
                pause(delay).await;
                (step + 1, answers)
            } else {
                (total, answers)
            }
        }
        Some(_) => {
            return Err(ArgError(
                "requestState must be the string the server sent".into(),
            ));
        }
    };
    while step < total {
        let question = &QUESTIONS[step as usize];
        announce(call, step, total);
        if elicit {
            let state = json!({"step": step, "answers": answers});
            return Ok(Outcome {
                raw: Some(json!({
                    ResultType::KEY: ResultType::InputRequired.as_str(),
                    "inputRequests": {round_key(step): {
                        "method": "elicitation/create",
                        "params": question.params(),
                    }},
                    "requestState": request_state::sign(&state),
                })),
                ..Outcome::ok("", Value::Null)
            });
        }
        fill(&mut answers, question.defaults());
        pause(delay).await;
        step += 1;
    }
    Ok(finish(call, total, delay, answers, elicit).await)
}

/// Take one form's fields into the answers so far.
fn fill(answers: &mut Map<String, Value>, fields: Vec<(&'static str, Value)>) {
    answers.extend(fields.into_iter().map(|(k, v)| (k.to_owned(), v)));
}

fn round_key(step: u64) -> String {
    format!("step-{}", step + 1)
}

fn announce(call: &Call, step: u64, total: u64) {
    if let Some(question) = QUESTIONS.get(step as usize) {
        call.progress(
            step,
            Some(total),
            format!("Step {} of {total}: {}", step + 1, question.prompt),
        );
    }
}

async fn finish(
    call: &Call,
    total: u64,
    delay: u64,
    answers: Map<String, Value>,
    elicit: bool,
) -> Outcome {
    call.progress(total, Some(total), "Creating the project");
    pause(delay).await;

    let name = answers
        .get("project_name")
        .and_then(Value::as_str)
        .unwrap_or("mcpscope-demo")
        .to_owned();
    let mut text = format!("Created project {name}");
    let details: Vec<String> = answers
        .iter()
        .filter(|(k, _)| *k != "project_name")
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}: {s}"),
            other => format!("{k}: {other}"),
        })
        .collect();
    if !details.is_empty() {
        text.push_str(&format!(" ({})", details.join(", ")));
    }
    Outcome::ok(text, json!({"answers": answers, "elicited": elicit}))
}

/// One form's answer. Accept → each field the answer gives that passes the
/// field's schema, the default for the others; decline, cancel, an error
/// or no answer → every default, so the wizard always completes.
fn answer_of(question: &Question, result: Option<Value>) -> Vec<(&'static str, Value)> {
    let defaults = question.defaults();
    let Some(result) = result else {
        return defaults;
    };
    if result.get("action").and_then(Value::as_str) != Some("accept") {
        return defaults;
    }
    let schema = question.schema();
    let content = result.get("content").and_then(Value::as_object);
    let fields = crate::protocol::elicit::form(&schema).unwrap_or_default();
    defaults
        .into_iter()
        .map(|(k, default)| {
            let given = content.and_then(|c| c.get(k)).filter(|v| {
                fields
                    .iter()
                    .find(|f| f.key == k)
                    .is_some_and(|f| f.check(v).is_ok())
                    && v.as_str().is_none_or(|s| !s.trim().is_empty())
            });
            (k, given.cloned().unwrap_or(default))
        })
        .collect()
}
