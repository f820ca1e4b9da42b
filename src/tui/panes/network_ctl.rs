//! Network input: cursor and follow mode over the HTTP exchanges, and
//! Enter narrowing the timeline to the selected exchange's channel.

use crate::tui::layout;
use crate::tui::panes::ctl::{self, Controller, Out};
use crate::tui::state::{Cursor, Pane, State};
use crate::tui::views::ChannelLane;

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let nw = &mut st.network;
        let len = nw.view.len();
        nw.cursor.move_by(delta, len);
        nw.follow = nw.cursor.selected + 1 >= len;
        st.raw_source = Pane::Network;
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        let nw = &mut st.network;
        let len = nw.view.len();
        if let Some(i) = item.filter(|i| *i < len) {
            nw.cursor.selected = i;
            nw.follow = i + 1 == len;
        }
    }

    fn follow(&self, st: &mut State) {
        st.network.follow = true;
    }
}

/// Narrow the timeline to the selected exchange's channel: the request,
/// the stream's priming, frames, resumption and end, in arrival order.
/// Seeded from the Network view's index, so no store scan.
pub fn show_channel(st: &mut State, out: &mut Out) {
    let Some(x) = st.network.view.rows.get(st.network.cursor.selected) else {
        st.notice = Some("no HTTP exchange selected".into());
        return;
    };
    let name = x.channel.clone();
    let (seqs, upto) = st.network.view.channel_seqs(&name);
    let lane = ChannelLane::new(&name, seqs.to_vec(), upto);
    let n = lane.seqs.len();
    let tl = &mut st.timeline;
    tl.view.lane = None;
    tl.view.channel = Some(lane);
    tl.follow = false;
    tl.cursor = Cursor::default();
    st.raw_source = Pane::Timeline;
    st.notice = Some(format!(
        "timeline: channel {name} ({n} events so far) · a or Esc shows every event"
    ));
    ctl::focus(st, Pane::Timeline, out);
}

/// Sync step: follow mode and the window.
pub fn settle(st: &mut State) {
    let h = layout::list_height(st, Pane::Network);
    let nw = &mut st.network;
    nw.cursor.refit(nw.view.len(), h, nw.follow);
}
