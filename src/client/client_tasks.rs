//! Client-side tasks (2025-11-25): a server may ask mcpscope to run its
//! `sampling/createMessage` or `elicitation/create` as a task (`params.task`),
//! then poll `tasks/get` and fetch `tasks/result`. mcpscope's answers are
//! ready at once, so each task is created finished: `completed` with the
//! answer, or `failed` with the error. The store is bounded; the oldest task
//! is forgotten first, and asking for it then is an error the server sees.

use crate::protocol::methods::codes;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Mutex;

/// Tasks kept for the server to fetch.
pub const MAX_TASKS: usize = 64;

struct Done {
    id: String,
    created: String,
    ttl: Value,
    outcome: Result<Value, (i64, String)>,
}

impl Done {
    fn task(&self) -> Value {
        let (status, message) = match &self.outcome {
            Ok(_) => ("completed", None),
            Err((_, m)) => ("failed", Some(m.clone())),
        };
        let mut t = json!({
            "taskId": self.id,
            "status": status,
            "createdAt": self.created,
            "lastUpdatedAt": self.created,
            "ttl": self.ttl,
            "pollInterval": 100,
        });
        if let Some(m) = message {
            t["statusMessage"] = m.into();
        }
        t
    }
}

#[derive(Default)]
pub struct ClientTasks {
    done: Mutex<(u64, VecDeque<Done>)>,
}

/// The methods a server may ask to run as tasks here.
pub fn runs_as_task(method: &str) -> bool {
    matches!(
        method,
        crate::protocol::methods::SAMPLING | crate::protocol::methods::ELICIT
    )
}

impl ClientTasks {
    /// Store the answer to a task-augmented request; the `CreateTaskResult`.
    pub fn create(&self, ttl: Option<&Value>, outcome: Result<Value, (i64, String)>) -> Value {
        let mut g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        g.0 += 1;
        let done = Done {
            id: format!("mcpscope-task-{}", g.0),
            created: crate::format::rfc3339_now(),
            ttl: ttl.cloned().unwrap_or(Value::Null),
            outcome,
        };
        let task = done.task();
        if g.1.len() >= MAX_TASKS {
            g.1.pop_front();
        }
        g.1.push_back(done);
        json!({"task": task})
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`; `None`
    /// for any other method.
    pub fn answer(&self, method: &str, params: &Value) -> Option<Result<Value, (i64, String)>> {
        use crate::protocol::methods;
        let g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let find = || {
            let id = params.get("taskId").and_then(Value::as_str);
            g.1.iter()
                .find(|d| Some(d.id.as_str()) == id)
                .ok_or_else(|| {
                    (
                        codes::INVALID_PARAMS,
                        format!("no task {}", params.get("taskId").unwrap_or(&Value::Null)),
                    )
                })
        };
        Some(match method {
            methods::TASKS_GET => find().map(Done::task),
            methods::TASKS_RESULT => find().and_then(|d| {
                let related = json!({"io.modelcontextprotocol/related-task": {"taskId": d.id}});
                match &d.outcome {
                    Ok(v) => {
                        let mut v = v.clone();
                        if let Value::Object(m) = &mut v {
                            m.insert("_meta".into(), related);
                        }
                        Ok(v)
                    }
                    Err(e) => Err(e.clone()),
                }
            }),
            methods::TASKS_CANCEL => find().and_then(|d| {
                Err((
                    codes::INVALID_PARAMS,
                    format!(
                        "task {} is already {}",
                        d.id,
                        d.task()["status"].as_str().unwrap_or("")
                    ),
                ))
            }),
            methods::TASKS_LIST => {
                Ok(json!({"tasks": g.1.iter().map(Done::task).collect::<Vec<_>>()}))
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_created_finished_and_fetched() {
        let t = ClientTasks::default();
        let created = t.create(Some(&json!(5000)), Ok(json!({"role": "assistant"})));
        let id = created["task"]["taskId"].as_str().unwrap().to_string();
        assert_eq!(created["task"]["status"], "completed");
        assert_eq!(created["task"]["ttl"], 5000);
        let p = json!({"taskId": id});
        let got = t.answer("tasks/get", &p).unwrap().unwrap();
        assert_eq!(got["status"], "completed");
        let r = t.answer("tasks/result", &p).unwrap().unwrap();
        assert_eq!(r["role"], "assistant");
        assert_eq!(
            r["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str()
        );
        assert!(t.answer("tasks/cancel", &p).unwrap().is_err());
        assert!(
            t.answer("tasks/get", &json!({"taskId": "x"}))
                .unwrap()
                .is_err()
        );
        assert!(t.answer("ping", &p).is_none());

        let failed = t.create(None, Err((-1, "User rejected sampling request".into())));
        assert_eq!(failed["task"]["status"], "failed");
        let p = json!({"taskId": failed["task"]["taskId"]});
        assert_eq!(t.answer("tasks/result", &p).unwrap().unwrap_err().0, -1);
        assert_eq!(
            t.answer("tasks/list", &json!({})).unwrap().unwrap()["tasks"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn the_store_is_bounded() {
        let t = ClientTasks::default();
        for _ in 0..MAX_TASKS + 3 {
            t.create(None, Ok(json!({})));
        }
        let all = t.answer("tasks/list", &json!({})).unwrap().unwrap();
        assert_eq!(all["tasks"].as_array().unwrap().len(), MAX_TASKS);
        assert!(
            t.answer("tasks/get", &json!({"taskId": "mcpscope-task-1"}))
                .unwrap()
                .is_err()
        );
    }
}
