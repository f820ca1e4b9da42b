//! The filter language: one way to select messages, wherever mcpscope
//! selects them (`--only` of `check`, `export` and `replay --print`; the
//! TUI's Timeline filter). docs/filters.md is its manual.
//!
//! ```text
//! filter := or
//! or     := and ( ("||" | "or") and )*
//! and    := unary ( ("&&" | "and") unary )*
//! unary  := ("!" | "not") unary | "(" or ")" | test
//! test   := keyword | field | field op value
//! op     := "==" | "!=" | "~" | "!~" | ">" | ">=" | "<" | "<="
//! value  := a bare word (tools/call, warning, 2s, 12, true) | "quoted" | 'quoted'
//! field  := dir | kind | method | id | tool | token | level | call | text
//!         | size | time | seq | a JSON path (params.progress,
//!           result.content[0].text, params._meta["a.b"])
//! keyword := in | out | stderr | meta | request | notification | response
//!          | invalid | progress | log
//! ```
//!
//! A comparison is false where its field is absent (`tool != x` selects
//! the messages of other tools' calls; `!(tool == x)` every other message
//! too). `==` on text takes `*` as a wildcard; `~` is "contains", ignoring
//! case. Errors name the column they are at.
//!
//! A filter selects; it never changes what is judged: the checks always
//! run over the whole session.

mod calls;
mod eval;
mod find;
mod lex;
mod parse;
#[cfg(test)]
mod tests;

pub use calls::{CallIndex, CallRef};

use crate::trace::EventRef;
use std::fmt;

/// A parsed filter.
#[derive(Debug, Clone)]
pub struct Filter {
    root: parse::Node,
    source: String,
    /// It reads the call a message belongs to (`tool`, `token`, `call`):
    /// only then are requests indexed.
    needs_calls: bool,
}

/// Why a filter does not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

impl ParseError {
    fn at(column: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            column,
            message: message.into(),
        }
    }

    /// The filter with a caret under the column and the message: for a
    /// terminal (the filter is the user's own text, made one safe line).
    pub fn pointed(&self, source: &str) -> String {
        let line = crate::protocol::sanitize::one_line(source);
        let pad = " ".repeat(self.column.saturating_sub(1));
        format!("{line}\n{pad}^ {}", self.message)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Filter {
    pub fn parse(source: &str) -> Result<Filter, ParseError> {
        let toks = lex::lex(source)?;
        let root = parse::parse(&toks, source.chars().count())?.cheap_first();
        Ok(Filter {
            needs_calls: root.needs_calls(),
            root,
            source: source.to_string(),
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// What a message must have to match, told without parsing it: its
    /// direction, and texts (JSON strings) a notification's line holds
    /// when it matches. The texts hold only for a line without backslash
    /// escapes that is no request or response (a response's `method` is
    /// its request's): the caller checks that first.
    pub fn needs(&self) -> Needs {
        let mut dir = None;
        let mut texts = Vec::new();
        self.root.needs(&mut dir, &mut texts);
        Needs {
            dir: dir.and_then(crate::trace::Dir::parse),
            texts,
        }
    }

    /// Whether `ev` matches, its call looked up in `calls` (which must
    /// have observed every event before it, and `ev` itself).
    pub fn matches(&self, ev: &EventRef<'_>, calls: &CallIndex) -> bool {
        let mut s = eval::Subject::new(ev, calls);
        eval::eval(&self.root, &mut s)
    }
}

/// See [`Filter::needs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needs {
    pub dir: Option<crate::trace::Dir>,
    pub texts: Vec<String>,
}

/// A filter over a session's events in order: it keeps the call index the
/// `tool`, `token` and `call` fields read.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub filter: Filter,
    calls: CallIndex,
}

impl Matcher {
    pub fn new(filter: Filter) -> Matcher {
        Matcher {
            filter,
            calls: CallIndex::default(),
        }
    }

    /// The next event: taken into the call index, then tested.
    pub fn test(&mut self, ev: &EventRef<'_>) -> bool {
        if self.filter.needs_calls {
            self.calls.observe(ev);
        }
        self.filter.matches(ev, &self.calls)
    }

    /// Requests the call index forgot to stay bounded.
    pub fn forgotten(&self) -> u64 {
        self.calls.forgotten
    }
}
