//! Network input: cursor and follow mode over the HTTP exchanges, and
//! Enter narrowing the timeline to the selected exchange's channel.

use super::NetworkState;
use crate::tui::command::{Command, Commands};
use crate::tui::pane::Pane;
use crate::tui::panes::{Cx, PaneInput};
use crate::tui::views::ChannelLane;

impl PaneInput for NetworkState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let len = self.view.len();
        self.cursor.move_by(delta, len);
        self.follow = self.cursor.selected + 1 >= len;
        vec![Command::RawFollows(Pane::Network)]
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        let len = self.view.len();
        if let Some(i) = item.filter(|i| *i < len) {
            self.cursor.selected = i;
            self.follow = i + 1 == len;
        }
        Vec::new()
    }

    fn follow(&mut self) -> bool {
        self.follow = true;
        true
    }
}

impl NetworkState {
    /// Narrow the timeline to the selected exchange's channel: the request,
    /// the stream's priming, frames, resumption and end, in arrival order.
    /// Seeded from the Network view's index, so no store scan.
    pub fn show_channel(&self) -> Commands {
        let Some(x) = self.view.rows.get(self.cursor.selected) else {
            return vec![Command::Notice("no HTTP exchange selected".into())];
        };
        let name = x.channel.clone();
        let (seqs, upto) = self.view.channel_seqs(&name);
        let lane = ChannelLane::new(&name, seqs.to_vec(), upto);
        let n = lane.seqs.len();
        vec![
            Command::ShowChannel(lane),
            Command::RawFollows(Pane::Timeline),
            Command::Notice(format!(
                "timeline: channel {name} ({} so far) · a or Esc shows every event",
                crate::tui::format::count(n as u64, "event", "events")
            )),
            Command::Focus(Pane::Timeline),
        ]
    }

    /// Sync step: follow mode and the window (`h` rows).
    pub fn settle(&mut self, h: usize) {
        self.cursor.refit(self.view.len(), h, self.follow);
    }
}
