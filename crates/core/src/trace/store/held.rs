//! How a frame's bytes reach the store: lent, or handed over.

/// A frame's bytes as handed to the store: borrowed (copied into a chunk),
/// or owned, which a frame of a chunk's size or more becomes as a chunk of
/// its own, never copied: a huge frame read from a trace is held once.
pub(super) enum Held<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Held<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Held::Borrowed(b) => b,
            Held::Owned(v) => v,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.bytes().len()
    }
}

impl<'a> From<&'a [u8]> for Held<'a> {
    fn from(b: &'a [u8]) -> Held<'a> {
        Held::Borrowed(b)
    }
}
