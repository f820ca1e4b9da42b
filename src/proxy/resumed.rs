//! Streams a host resumes through the HTTP proxy (GET + `Last-Event-ID`).
//!
//! Each SSE event id the server sent is remembered with the trace channel
//! of the stream that carried it, per host session (ids are unique within
//! a session only). A GET resuming from one of them is recorded on that
//! channel, after a `resume` event, as mcpscope's own client records a
//! resumption: the request's progress then arrives on the request's own
//! stream, which it does. What the server replays on it that the proxy had
//! already relayed (the host lost it on the way, or the proxy closed the
//! stream) is the same message: it is said (`sse-replay`, naming the frame
//! recorded first) instead of being recorded, and judged, twice. A replay
//! whose data differs from the first is recorded as a frame of its own.
//!
//! Remembered ids are bounded (`MAX_IDS`, oldest forgotten first, counted):
//! a resume from a forgotten id is recorded on a channel of its own, as
//! before.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Event ids remembered at most.
const MAX_IDS: usize = 65_536;

type Key = (Option<String>, String);

/// One event id the server sent.
struct Sent {
    ch: Arc<str>,
    /// The frame its data was recorded as, and the data's digest; `None`
    /// for an event without data (a priming event).
    frame: Option<(u64, u64)>,
}

/// One exchange being observed.
struct Route {
    session: Option<String>,
    /// The channel its events are recorded on (the stream it resumes).
    ch: Arc<str>,
}

/// What to record when an exchange starts.
pub struct Start {
    /// The channel to record the exchange on.
    pub ch: Arc<str>,
    /// This GET resumes the stream on `ch`: its attempt, from 1.
    pub resume: Option<u32>,
}

/// A frame of a resumed stream, against what was relayed before.
pub enum Seen {
    /// New: record it (then `recorded`).
    New,
    /// The server replayed the frame recorded as this seq.
    Replay(u64),
}

#[derive(Default)]
pub struct Resumptions {
    ids: HashMap<Key, Sent>,
    order: VecDeque<Key>,
    routes: HashMap<u64, Route>,
    /// Resumes of each channel so far (channels that were resumed only).
    attempts: HashMap<Arc<str>, u32>,
    /// Ids forgotten to keep within `MAX_IDS`.
    pub forgotten: u64,
}

impl Resumptions {
    /// Exchange `id` starts on channel `ch` in host session `session`; a
    /// GET with `last_event_id` resumes the stream that carried it.
    pub fn start(
        &mut self,
        id: u64,
        ch: Arc<str>,
        session: Option<&str>,
        last_event_id: Option<&str>,
    ) -> Start {
        let session = session.map(str::to_string);
        let resumed = last_event_id
            .and_then(|last| self.ids.get(&(session.clone(), last.to_string())))
            .map(|s| s.ch.clone());
        let (ch, resume) = match resumed {
            Some(of) => {
                let n = self.attempts.entry(of.clone()).or_insert(0);
                *n += 1;
                (of, Some(*n))
            }
            None => (ch, None),
        };
        self.routes.insert(
            id,
            Route {
                session,
                ch: ch.clone(),
            },
        );
        Start { ch, resume }
    }

    /// The channel exchange `id` is recorded on, if it was started.
    pub fn channel(&self, id: u64) -> Option<Arc<str>> {
        self.routes.get(&id).map(|r| r.ch.clone())
    }

    /// An SSE event of exchange `id`, with its `event_id` and `data`
    /// (`None` for a priming event): a replay of a frame recorded before?
    pub fn seen(&self, id: u64, event_id: Option<&str>, data: Option<&str>) -> Seen {
        let (Some(r), Some(eid), Some(data)) = (self.routes.get(&id), event_id, data) else {
            return Seen::New;
        };
        match self.ids.get(&(r.session.clone(), eid.to_string())) {
            Some(Sent {
                ch,
                frame: Some((seq, digest)),
            }) if *ch == r.ch && *digest == digest_of(data) => Seen::Replay(*seq),
            _ => Seen::New,
        }
    }

    /// An SSE event of exchange `id` was recorded (as frame `seq`, with
    /// `data`; a priming event has neither).
    pub fn recorded(&mut self, id: u64, event_id: &str, frame: Option<(u64, &str)>) {
        let Some(r) = self.routes.get(&id) else {
            return;
        };
        let key = (r.session.clone(), event_id.to_string());
        let sent = Sent {
            ch: r.ch.clone(),
            frame: frame.map(|(seq, data)| (seq, digest_of(data))),
        };
        if self.ids.insert(key.clone(), sent).is_none() {
            self.order.push_back(key);
        }
        while self.ids.len() > MAX_IDS {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if self.ids.remove(&old).is_some() {
                self.forgotten += 1;
            }
        }
        if self.attempts.len() > MAX_IDS {
            // Only channels still named by a remembered id can be resumed.
            let live: std::collections::HashSet<&Arc<str>> =
                self.ids.values().map(|s| &s.ch).collect();
            self.attempts.retain(|ch, _| live.contains(ch));
        }
    }

    /// Exchange `id` is over.
    pub fn end(&mut self, id: u64) {
        self.routes.remove(&id);
    }
}

fn digest_of(data: &str) -> u64 {
    let mut h = DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resume_continues_the_stream_that_carried_its_event_in_its_session() {
        let mut r = Resumptions::default();
        let post: Arc<str> = "post:3".into();
        assert!(r.start(1, post.clone(), Some("s1"), None).resume.is_none());
        r.recorded(1, "7-0", None);
        r.recorded(1, "7-1", Some((12, "{\"a\":1}")));
        r.end(1);
        // Another session's id of the same name is another stream.
        let other = r.start(2, "get:2".into(), Some("s2"), Some("7-1"));
        assert_eq!((&*other.ch, other.resume), ("get:2", None));
        let again = r.start(3, "get:3".into(), Some("s1"), Some("7-0"));
        assert_eq!((&*again.ch, again.resume), ("post:3", Some(1)));
        assert_eq!(r.channel(3).as_deref(), Some("post:3"));
        assert!(matches!(
            r.seen(3, Some("7-1"), Some("{\"a\":1}")),
            Seen::Replay(12)
        ));
        // Other data under the same id is no replay; nor is a new id.
        assert!(matches!(
            r.seen(3, Some("7-1"), Some("{\"a\":2}")),
            Seen::New
        ));
        assert!(matches!(r.seen(3, Some("7-2"), Some("{}")), Seen::New));
        let third = r.start(4, "get:4".into(), Some("s1"), Some("7-1"));
        assert_eq!(third.resume, Some(2));
    }

    #[test]
    fn remembered_ids_are_bounded_and_the_forgotten_counted() {
        let mut r = Resumptions::default();
        r.start(1, "post:1".into(), None, None);
        for n in 0..MAX_IDS + 10 {
            r.recorded(1, &n.to_string(), None);
        }
        assert_eq!(r.ids.len(), MAX_IDS);
        assert_eq!(r.forgotten, 10);
        let old = r.start(2, "get:2".into(), None, Some("3"));
        assert_eq!((&*old.ch, old.resume), ("get:2", None));
        let kept = r.start(3, "get:3".into(), None, Some(&(MAX_IDS + 9).to_string()));
        assert_eq!(kept.resume, Some(1));
    }
}
