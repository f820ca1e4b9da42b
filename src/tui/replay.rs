//! Playback of a recorded trace (`mcpscope replay FILE`): the recorded events
//! are fed into a fresh trace as playback time passes, scaled by the speed,
//! so every pane, gauge and check sees them arrive as they did live.
//!
//! Wall time comes in from the caller (`advance(elapsed)`): the runtime
//! passes the time between ticks, tests pass whatever they like, and nothing
//! here reads a clock. The trace's own clock is a `ManualClock` held at the
//! playback position, so elapsed times, "… ago" and the stall rule measure
//! recorded time, and stand still while paused.

use crate::trace::record::RecordedEvent;
use crate::trace::{ManualClock, Trace};
use std::sync::Arc;
use std::time::Duration;

/// Playback speeds, slowest first; faster/slower step through them.
pub const SPEEDS: [f64; 6] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

/// Events appended per store lock: a jump to the end of a long trace must
/// not hold the write lock for the whole file.
const FEED_BATCH: usize = 16_384;

/// What the header and status line show about the playback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaybackView {
    /// Recorded time reached (µs since the recording started).
    pub pos_us: u64,
    /// Time of the last recorded event.
    pub end_us: u64,
    /// Events fed so far, of `total`.
    pub fed: usize,
    pub total: usize,
    pub speed: f64,
    pub paused: bool,
    /// The trace file was cut mid-line: these are the events before the cut.
    pub cut: bool,
}

impl PlaybackView {
    pub fn done(&self) -> bool {
        self.fed >= self.total
    }
}

/// The playback engine: the recorded events, how many were fed, where the
/// playback clock stands.
pub struct Playback {
    events: Vec<RecordedEvent>,
    next: usize,
    pos_us: u64,
    speed: usize,
    paused: bool,
    trace: Trace,
    clock: Arc<ManualClock>,
    cut: bool,
}

impl Playback {
    /// Play `events` into `trace`, whose clock must be `clock`. Starts
    /// playing at ×1 from time 0.
    pub fn new(events: Vec<RecordedEvent>, trace: Trace, clock: Arc<ManualClock>) -> Playback {
        clock.set_us(0);
        Playback {
            events,
            next: 0,
            pos_us: 0,
            speed: 1,
            paused: false,
            trace,
            clock,
            cut: false,
        }
    }

    /// Mark the events as those before a cut in the trace file, so the
    /// header says the recording goes on beyond what can be played.
    pub fn cut_short(mut self) -> Playback {
        self.cut = true;
        self
    }

    pub fn view(&self) -> PlaybackView {
        PlaybackView {
            pos_us: self.pos_us,
            end_us: self.events.last().map_or(0, |e| e.t_us),
            fed: self.next,
            total: self.events.len(),
            speed: SPEEDS[self.speed],
            paused: self.paused,
            cut: self.cut,
        }
    }

    pub fn done(&self) -> bool {
        self.next >= self.events.len()
    }

    /// Let `wall` of real time pass at the current speed; feed what became
    /// due. Returns true when the trace or the position changed.
    pub fn advance(&mut self, wall: Duration) -> bool {
        if self.paused || self.done() {
            return false;
        }
        let step = (wall.as_micros() as f64 * SPEEDS[self.speed]) as u64;
        if step == 0 {
            return false;
        }
        self.pos_us = self.pos_us.saturating_add(step);
        let due = self.next + self.events[self.next..].partition_point(|e| e.t_us <= self.pos_us);
        self.feed_to(due);
        if self.done() {
            // The recording ends here: time stops with its last event.
            self.pos_us = self.view().end_us;
        }
        self.clock.set_us(self.pos_us);
        true
    }

    /// Feed exactly one event and pause there. Returns false at the end.
    pub fn step(&mut self) -> bool {
        self.paused = true;
        if self.done() {
            return false;
        }
        self.pos_us = self.pos_us.max(self.events[self.next].t_us);
        self.feed_to(self.next + 1);
        self.clock.set_us(self.pos_us);
        true
    }

    /// Go back one event and pause there: the trace starts over and the
    /// events before it are fed again (the store is append-only). Returns
    /// false at the start, where there is nothing to take back.
    pub fn step_back(&mut self) -> bool {
        self.paused = true;
        if self.next == 0 {
            return false;
        }
        let to = self.next - 1;
        self.trace.restart();
        self.next = 0;
        self.feed_to(to);
        self.pos_us = to.checked_sub(1).map_or(0, |i| self.events[i].t_us);
        self.clock.set_us(self.pos_us);
        true
    }

    /// Feed everything that is left; the position moves to the last event.
    pub fn jump_to_end(&mut self) {
        self.feed_to(self.events.len());
        self.pos_us = self.pos_us.max(self.view().end_us);
        self.clock.set_us(self.pos_us);
    }

    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
    }

    /// One step faster (`true`) or slower, within ×0.5–×16.
    pub fn change_speed(&mut self, faster: bool) {
        self.speed = if faster {
            (self.speed + 1).min(SPEEDS.len() - 1)
        } else {
            self.speed.saturating_sub(1)
        };
    }

    fn feed_to(&mut self, end: usize) {
        let end = end.min(self.events.len());
        while self.next < end {
            let stop = end.min(self.next + FEED_BATCH);
            let batch = &self.events[self.next..stop];
            self.trace.append(|s, _| {
                for e in batch {
                    s.append_recorded(e.dir, &e.channel, e.t_us, &e.bytes, e.in_batch);
                }
            });
            self.next = stop;
        }
    }
}
