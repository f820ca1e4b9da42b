//! `interactive_wizard`: a GitLab-style project wizard. Steps count from 0
//! (question 1 of 3 is progress 0 of 3) because that is what such servers
//! send, and clients must not assume progress starts at 1. Answers come from
//! `elicitation/create` when the client declared elicitation, defaults
//! otherwise.

use serde_json::{Map, Value, json};

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, pause, uint_prop};
use crate::demo::call::Call;

struct Question {
    key: &'static str,
    prompt: &'static str,
    default: &'static str,
}

const QUESTIONS: [Question; 6] = [
    Question {
        key: "project_name",
        prompt: "What should the project be called?",
        default: "mcpscope-demo",
    },
    Question {
        key: "visibility",
        prompt: "Who can see it (private, internal or public)?",
        default: "private",
    },
    Question {
        key: "default_branch",
        prompt: "What is the default branch called?",
        default: "main",
    },
    Question {
        key: "description",
        prompt: "Describe the project in one line.",
        default: "A project created by the mcpscope demo wizard",
    },
    Question {
        key: "license",
        prompt: "Which license should it use?",
        default: "MIT",
    },
    Question {
        key: "ci_template",
        prompt: "Which CI template should it start from?",
        default: "rust",
    },
];

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
    let elicit = call.supports_elicitation();
    let mut answers = Map::new();
    for (step, question) in (0..total).zip(&QUESTIONS) {
        call.progress(
            step,
            Some(total),
            format!("Step {} of {total}: {}", step + 1, question.prompt),
        );
        let answer = if elicit {
            ask(call, question).await
        } else {
            question.default.to_owned()
        };
        answers.insert(question.key.into(), answer.into());
        pause(delay).await;
    }
    call.progress(total, Some(total), "Creating the project");
    pause(delay).await;

    let field = |key: &str, default: &str| {
        answers
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_owned()
    };
    let name = field("project_name", QUESTIONS[0].default);
    let mut text = format!("Created project {name}");
    let details: Vec<String> = answers
        .iter()
        .filter(|(k, _)| *k != "project_name")
        .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or_default()))
        .collect();
    if !details.is_empty() {
        text.push_str(&format!(" ({})", details.join(", ")));
    }
    Ok(Outcome::ok(
        text,
        json!({"answers": answers, "elicited": elicit}),
    ))
}

/// Accept → the answer given; decline, cancel, an error or an unusable
/// answer → the default, so the wizard always completes.
async fn ask(call: &Call, question: &Question) -> String {
    let params = json!({
        "message": question.prompt,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "answer": {
                    "type": "string",
                    "title": question.key,
                    "description": question.prompt,
                    "default": question.default,
                },
            },
            "required": ["answer"],
        },
    });
    let Some(result) = call.elicit(params).await else {
        return question.default.to_owned();
    };
    if result.get("action").and_then(Value::as_str) != Some("accept") {
        return question.default.to_owned();
    }
    match result.pointer("/content/answer").and_then(Value::as_str) {
        Some(answer) if !answer.trim().is_empty() => answer.to_owned(),
        _ => question.default.to_owned(),
    }
}
