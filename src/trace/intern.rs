//! Small string interner for method and channel names: events store a u32.

use std::collections::HashMap;

pub const NONE: u32 = 0;
/// Used once the table is full; the view re-reads the name from the raw frame.
pub const OVERFLOW: u32 = u32::MAX;

pub struct Interner {
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
    /// The hot path sees the same method over and over.
    last: (u32, Box<str>),
}

impl Default for Interner {
    fn default() -> Self {
        Interner {
            names: vec!["".into()],
            ids: HashMap::new(),
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
            None if self.names.len() < OVERFLOW as usize => {
                let id = self.names.len() as u32;
                self.names.push(name.into());
                self.ids.insert(name.into(), id);
                id
            }
            None => return OVERFLOW,
        };
        self.last = (id, name.into());
        id
    }

    pub fn get(&self, id: u32) -> Option<&str> {
        if id == NONE || id == OVERFLOW {
            return None;
        }
        self.names.get(id as usize).map(|s| &**s)
    }
}
