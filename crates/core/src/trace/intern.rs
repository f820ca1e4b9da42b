//! Small string interner for method and channel names: events store a u32.
//!
//! A name is held by the events naming it and released with them when they
//! are evicted: a name no stored event names any more is forgotten and its
//! id reused, so the names stay bounded by the store however many channels
//! a session opens (a proxy's `post:N`, one per exchange the host makes) or
//! however many method names a server makes up.

use std::collections::HashMap;

pub const NONE: u32 = 0;
/// Used once the table is full; the view re-reads the name from the raw frame.
pub const OVERFLOW: u32 = u32::MAX;

pub struct Interner {
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
    /// Events holding each id (`hold`), by id.
    uses: Vec<u64>,
    /// Ids of released names, for reuse.
    free: Vec<u32>,
    /// The hot path sees the same method over and over.
    last: (u32, Box<str>),
}

impl Default for Interner {
    fn default() -> Self {
        Interner {
            names: vec!["".into()],
            ids: HashMap::new(),
            uses: vec![0],
            free: Vec::new(),
            last: (NONE, "".into()),
        }
    }
}

impl Interner {
    pub fn intern(&mut self, name: &str) -> u32 {
        if *self.last.1 == *name {
            return self.last.0;
        }
        let id = match self.ids.get(name) {
            Some(id) => *id,
            None => {
                let id = match self.free.pop() {
                    Some(id) => {
                        self.names[id as usize] = name.into();
                        id
                    }
                    None if self.names.len() < OVERFLOW as usize => {
                        self.names.push(name.into());
                        self.uses.push(0);
                        (self.names.len() - 1) as u32
                    }
                    None => return OVERFLOW,
                };
                self.ids.insert(name.into(), id);
                id
            }
        };
        self.last = (id, name.into());
        id
    }

    /// Intern `name` for one more event naming it; `release` the id when
    /// that event goes.
    pub fn hold(&mut self, name: &str) -> u32 {
        let id = self.intern(name);
        if let Some(n) = self.uses.get_mut(id as usize)
            && id != NONE
        {
            *n += 1;
        }
        id
    }

    /// One more event names `id` (interned before).
    pub fn retain(&mut self, id: u32) {
        if let Some(n) = self.uses.get_mut(id as usize)
            && id != NONE
        {
            *n += 1;
        }
    }

    /// An event holding `id` is gone; the last one takes the name with it.
    pub fn release(&mut self, id: u32) {
        if id == NONE {
            return;
        }
        // A name never held is not released.
        let Some(n) = self.uses.get_mut(id as usize).filter(|n| **n > 0) else {
            return;
        };
        *n -= 1;
        if *n == 0 {
            let name = std::mem::take(&mut self.names[id as usize]);
            self.ids.remove(&name);
            self.free.push(id);
            if self.last.0 == id {
                self.last = (NONE, "".into());
            }
        }
    }

    /// Names known now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn get(&self, id: u32) -> Option<&str> {
        if id == NONE || id == OVERFLOW {
            return None;
        }
        self.names.get(id as usize).map(|s| &**s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_no_event_holds_is_forgotten_and_its_id_reused() {
        let mut i = Interner::default();
        let a = i.hold("post:1");
        assert_eq!(i.hold("post:1"), a);
        let b = i.hold("post:2");
        i.release(a);
        assert_eq!(i.get(a), Some("post:1"), "one event still names it");
        i.release(a);
        assert_eq!(i.len(), 1);
        let c = i.hold("post:3");
        assert_eq!(c, a, "the id is reused");
        assert_eq!((i.get(c), i.get(b)), (Some("post:3"), Some("post:2")));
        // The name released is a new one when it comes back.
        let d = i.hold("post:1");
        assert_ne!(d, c);
        assert_eq!(i.get(d), Some("post:1"));
        // Names only interned are never released.
        let m = i.intern("tools/call");
        i.release(m);
        assert_eq!(i.get(m), Some("tools/call"));
    }
}
