//! The cursor every list (a pane's or a tab's) moves with.

/// A selection in a list plus the first visible row (a hint: the visible
/// window is derived from both when drawing; clicks use what was drawn).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// First visible row for a list of `len` rows shown `height` at a time.
    pub fn window(&self, len: usize, height: usize) -> usize {
        if height == 0 || len <= height {
            return 0;
        }
        let sel = self.selected.min(len - 1);
        let mut start = self.offset.min(len - height);
        if sel < start {
            start = sel;
        } else if sel >= start + height {
            start = sel + 1 - height;
        }
        start
    }

    pub fn move_by(&mut self, delta: isize, len: usize) {
        if len == 0 {
            self.selected = 0;
            return;
        }
        let s = self.selected.min(len - 1) as isize + delta;
        self.selected = s.clamp(0, len as isize - 1) as usize;
    }

    /// Keep `offset` equal to what is drawn, so later moves scroll smoothly.
    pub fn settle(&mut self, len: usize, height: usize) {
        self.offset = self.window(len, height);
    }

    /// After the list changed: follow its end if asked, keep the selection
    /// in range and the window around it.
    pub fn refit(&mut self, len: usize, height: usize, follow: bool) {
        if follow {
            self.selected = len.saturating_sub(1);
        }
        self.move_by(0, len);
        self.settle(len, height);
    }
}
