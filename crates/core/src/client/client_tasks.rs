//! Client-side tasks (2025-11-25): a server may ask mcpscope to run its
//! `sampling/createMessage` or `elicitation/create` as a task (`params.task`),
//! then poll `tasks/get` and fetch `tasks/result`. Answers from the options
//! (`--sample`, `--elicit`) are ready at once, so those tasks are created
//! finished: `completed` with the answer, or `failed` with the error. A
//! request the user answers (the TUI's forms) is created `working`; the
//! user's answer completes it, and a `tasks/result` asked before then is
//! answered at that moment (it blocks until the task ends, as the spec says).
//! The store is bounded; the oldest task is forgotten first, and asking for
//! it then is an error the server sees.

use crate::protocol::IdKey;
use crate::protocol::meta;
use crate::protocol::methods::{self, codes};
use crate::protocol::task::TaskStatus;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Mutex;

/// Tasks kept for the server to fetch.
pub const MAX_TASKS: usize = 64;
/// `tasks/result` requests waiting for one working task, at most.
pub const MAX_WAITING: usize = 8;

type Outcome = Result<Value, (i64, String)>;

struct Task {
    id: String,
    created: String,
    updated: String,
    ttl: Value,
    /// `None` while the user has not answered.
    outcome: Option<Outcome>,
    cancelled: bool,
    /// The server request the task runs, when the user answers it.
    request: Option<IdKey>,
    /// `tasks/result` requests waiting for the task to end.
    waiting: Vec<IdKey>,
}

impl Task {
    fn status(&self) -> TaskStatus {
        match (&self.outcome, self.cancelled) {
            (_, true) => TaskStatus::Cancelled,
            (None, _) => TaskStatus::Working,
            (Some(Ok(_)), _) => TaskStatus::Completed,
            (Some(Err(_)), _) => TaskStatus::Failed,
        }
    }

    fn task(&self) -> Value {
        let mut t = json!({
            "taskId": self.id,
            "status": self.status().as_str(),
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttl": self.ttl,
            "pollInterval": 100,
        });
        if let Some(Err((_, m))) = &self.outcome {
            t["statusMessage"] = m.clone().into();
        }
        if self.cancelled {
            t["statusMessage"] = "cancelled by the server".into();
        }
        t
    }

    /// What `tasks/result` gets once the task has ended.
    fn result(&self) -> Outcome {
        if self.cancelled {
            return Err((
                codes::INVALID_PARAMS,
                format!("task {} was cancelled", self.id),
            ));
        }
        let related = json!({meta::RELATED_TASK: {"taskId": self.id}});
        match &self.outcome {
            Some(Ok(v)) => {
                let mut v = v.clone();
                if let Value::Object(m) = &mut v {
                    m.insert(meta::META.into(), related);
                }
                Ok(v)
            }
            Some(Err(e)) => Err(e.clone()),
            None => Err((codes::INTERNAL_ERROR, "the task has not ended".into())),
        }
    }
}

/// What to send after a task changed or was asked about: responses (to
/// the asking request, and to `tasks/result` requests that waited) and,
/// when the task's status changed, the task for `notifications/tasks/status`.
#[derive(Debug, Default, PartialEq)]
pub struct Sends {
    pub replies: Vec<(IdKey, Outcome)>,
    pub status: Option<Value>,
}

#[derive(Default)]
pub struct ClientTasks {
    tasks: Mutex<(u64, VecDeque<Task>)>,
}

/// The methods a server may ask to run as tasks here.
pub fn runs_as_task(method: &str) -> bool {
    matches!(method, methods::SAMPLING | methods::ELICIT)
}

impl ClientTasks {
    fn add(&self, ttl: Option<&Value>, outcome: Option<Outcome>, request: Option<IdKey>) -> Value {
        let mut g = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        g.0 += 1;
        let now = crate::format::rfc3339_now();
        let task = Task {
            id: format!("mcpscope-task-{}", g.0),
            created: now.clone(),
            updated: now,
            ttl: ttl.cloned().unwrap_or(Value::Null),
            outcome,
            cancelled: false,
            request,
            waiting: Vec::new(),
        };
        let created = json!({"task": task.task()});
        if g.1.len() >= MAX_TASKS {
            g.1.pop_front();
        }
        g.1.push_back(task);
        created
    }

    /// Store the answer to a task-augmented request; the `CreateTaskResult`.
    pub fn create(&self, ttl: Option<&Value>, outcome: Outcome) -> Value {
        self.add(ttl, Some(outcome), None)
    }

    /// A task for server request `request`, which the user is to answer:
    /// created `working`; the `CreateTaskResult`.
    pub fn create_working(&self, ttl: Option<&Value>, request: IdKey) -> Value {
        self.add(ttl, None, Some(request))
    }

    /// The user answered server request `request`. `None` when no task runs
    /// it (the answer is the request's response); otherwise what to send:
    /// the waiting `tasks/result` responses and the new status (nothing when
    /// the task had already ended: cancelled, or forgotten).
    pub fn complete(&self, request: &IdKey, outcome: Outcome) -> Option<Sends> {
        let mut g = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let t =
            g.1.iter_mut()
                .find(|t| t.request.as_ref() == Some(request))?;
        if t.outcome.is_some() || t.cancelled {
            return Some(Sends::default());
        }
        t.outcome = Some(outcome);
        t.updated = crate::format::rfc3339_now();
        let result = t.result();
        Some(Sends {
            replies: t.waiting.drain(..).map(|id| (id, result.clone())).collect(),
            status: Some(t.task()),
        })
    }

    /// Whether server request `request` runs as a task still waiting for
    /// the user's answer (created when it came, so its response was the
    /// `CreateTaskResult`; a cancelled one waits too, and takes the answer
    /// without sending it). Once answered, the id is free again: a later
    /// request that reuses it is answered as any other.
    pub fn runs(&self, request: &IdKey) -> bool {
        let g = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        g.1.iter()
            .any(|t| t.request.as_ref() == Some(request) && t.outcome.is_none())
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` asked by
    /// request `from`; `None` for any other method.
    pub fn answer(&self, method: &str, params: &Value, from: &IdKey) -> Option<Sends> {
        let mut g = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let wanted = params.get("taskId").and_then(Value::as_str);
        let missing = || -> Outcome {
            Err((
                codes::INVALID_PARAMS,
                format!("no task {}", params.get("taskId").unwrap_or(&Value::Null)),
            ))
        };
        let one = |outcome: Outcome| Sends {
            replies: vec![(from.clone(), outcome)],
            status: None,
        };
        if method == methods::TASKS_LIST {
            let all: Vec<Value> = g.1.iter().map(Task::task).collect();
            return Some(one(Ok(json!({"tasks": all}))));
        }
        if !matches!(
            method,
            methods::TASKS_GET | methods::TASKS_RESULT | methods::TASKS_CANCEL
        ) {
            return None;
        }
        let Some(t) = g.1.iter_mut().find(|t| Some(t.id.as_str()) == wanted) else {
            return Some(one(missing()));
        };
        let ended = t.outcome.is_some() || t.cancelled;
        Some(match method {
            methods::TASKS_GET => one(Ok(t.task())),
            methods::TASKS_RESULT if ended => one(t.result()),
            methods::TASKS_RESULT if t.waiting.len() >= MAX_WAITING => one(Err((
                codes::INTERNAL_ERROR,
                format!("too many tasks/result requests wait for task {}", t.id),
            ))),
            methods::TASKS_RESULT => {
                // Answered when the user has answered.
                t.waiting.push(from.clone());
                Sends::default()
            }
            _ if ended => one(Err((
                codes::INVALID_PARAMS,
                format!("task {} is already {}", t.id, t.status()),
            ))),
            _ => {
                t.cancelled = true;
                t.updated = crate::format::rfc3339_now();
                let result = t.result();
                let mut replies: Vec<(IdKey, Outcome)> =
                    t.waiting.drain(..).map(|id| (id, result.clone())).collect();
                replies.push((from.clone(), Ok(t.task())));
                Sends {
                    replies,
                    status: Some(t.task()),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one reply to request 99 asking `method`.
    fn ask(t: &ClientTasks, method: &str, p: &Value) -> Option<Outcome> {
        let mut sends = t.answer(method, p, &IdKey::Int(99))?;
        assert_eq!(sends.replies.len(), 1, "{sends:?}");
        let (id, outcome) = sends.replies.pop().unwrap();
        assert_eq!(id, IdKey::Int(99));
        Some(outcome)
    }

    #[test]
    fn a_task_is_created_finished_and_fetched() {
        let t = ClientTasks::default();
        let created = t.create(Some(&json!(5000)), Ok(json!({"role": "assistant"})));
        let id = created["task"]["taskId"].as_str().unwrap().to_string();
        assert_eq!(created["task"]["status"], "completed");
        assert_eq!(created["task"]["ttl"], 5000);
        let p = json!({"taskId": id});
        let got = ask(&t, "tasks/get", &p).unwrap().unwrap();
        assert_eq!(got["status"], "completed");
        let r = ask(&t, "tasks/result", &p).unwrap().unwrap();
        assert_eq!(r["role"], "assistant");
        assert_eq!(
            r["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str()
        );
        assert!(ask(&t, "tasks/cancel", &p).unwrap().is_err());
        assert!(
            ask(&t, "tasks/get", &json!({"taskId": "x"}))
                .unwrap()
                .is_err()
        );
        assert!(ask(&t, "ping", &p).is_none());

        let failed = t.create(None, Err((-1, "User rejected sampling request".into())));
        assert_eq!(failed["task"]["status"], "failed");
        let p = json!({"taskId": failed["task"]["taskId"]});
        assert_eq!(ask(&t, "tasks/result", &p).unwrap().unwrap_err().0, -1);
        assert_eq!(
            ask(&t, "tasks/list", &json!({})).unwrap().unwrap()["tasks"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn a_task_the_user_answers_holds_tasks_result_until_then() {
        let t = ClientTasks::default();
        let request = IdKey::Str("s1".into());
        let created = t.create_working(None, request.clone());
        assert_eq!(created["task"]["status"], "working");
        assert!(t.runs(&request));
        let p = json!({"taskId": created["task"]["taskId"]});
        assert_eq!(
            ask(&t, "tasks/get", &p).unwrap().unwrap()["status"],
            "working"
        );
        // Two fetches before the answer: both held.
        for n in [1, 2] {
            let held = t.answer("tasks/result", &p, &IdKey::Int(n)).unwrap();
            assert_eq!(held, Sends::default());
        }
        assert!(
            t.complete(&IdKey::Int(7), Ok(json!({}))).is_none(),
            "not a task's request"
        );
        let sends = t
            .complete(&request, Ok(json!({"action": "accept"})))
            .unwrap();
        assert_eq!(sends.status.as_ref().unwrap()["status"], "completed");
        let ids: Vec<&IdKey> = sends.replies.iter().map(|r| &r.0).collect();
        assert_eq!(ids, [&IdKey::Int(1), &IdKey::Int(2)]);
        assert_eq!(sends.replies[0].1.as_ref().unwrap()["action"], "accept");
        // Afterwards the result is at hand, and answering again does nothing.
        assert_eq!(
            ask(&t, "tasks/result", &p).unwrap().unwrap()["action"],
            "accept"
        );
        assert_eq!(t.complete(&request, Ok(json!({}))), Some(Sends::default()));
        // The id is free again: a later request reusing it is not the task's.
        assert!(!t.runs(&request));
    }

    #[test]
    fn cancelling_a_working_task_answers_whoever_waited() {
        let t = ClientTasks::default();
        let request = IdKey::Int(5);
        let created = t.create_working(Some(&json!(1000)), request.clone());
        let p = json!({"taskId": created["task"]["taskId"]});
        t.answer("tasks/result", &p, &IdKey::Int(1)).unwrap();
        let sends = t.answer("tasks/cancel", &p, &IdKey::Int(2)).unwrap();
        assert_eq!(sends.status.as_ref().unwrap()["status"], "cancelled");
        assert_eq!(sends.replies.len(), 2);
        assert!(sends.replies[0].1.is_err(), "the held fetch gets an error");
        assert_eq!(sends.replies[1].1.as_ref().unwrap()["status"], "cancelled");
        // The user's late answer changes nothing, and is not sent.
        assert!(t.runs(&request));
        assert_eq!(t.complete(&request, Ok(json!({}))), Some(Sends::default()));
        assert!(ask(&t, "tasks/cancel", &p).unwrap().is_err());
    }

    #[test]
    fn held_fetches_are_bounded() {
        let t = ClientTasks::default();
        let created = t.create_working(None, IdKey::Int(1));
        let p = json!({"taskId": created["task"]["taskId"]});
        for n in 0..MAX_WAITING as i64 {
            assert_eq!(
                t.answer("tasks/result", &p, &IdKey::Int(n)).unwrap(),
                Sends::default()
            );
        }
        assert!(ask(&t, "tasks/result", &p).unwrap().is_err());
    }

    #[test]
    fn the_store_is_bounded() {
        let t = ClientTasks::default();
        for _ in 0..MAX_TASKS + 3 {
            t.create(None, Ok(json!({})));
        }
        let all = ask(&t, "tasks/list", &json!({})).unwrap().unwrap();
        assert_eq!(all["tasks"].as_array().unwrap().len(), MAX_TASKS);
        assert!(
            ask(&t, "tasks/get", &json!({"taskId": "mcpscope-task-1"}))
                .unwrap()
                .is_err()
        );
    }
}
