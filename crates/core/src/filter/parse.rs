//! Tokens into a tree: `||` binds looser than `&&`, `!` binds tightest,
//! parentheses group. Each test's value is checked against its field here
//! (a level name for `level`, a duration for `time`…), so a filter that
//! parses can be evaluated without errors.

use super::ParseError;
use super::lex::{Op, Spanned, Tok};
use crate::protocol::views::LogLevel;

/// A filter's tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Test(Test),
}

impl Node {
    /// What a test costs, roughly: the event's own fields, then the frame's
    /// text, then its JSON or the call index.
    fn cost(&self) -> u8 {
        match self {
            Node::And(a, b) | Node::Or(a, b) => a.cost().max(b.cost()),
            Node::Not(a) => a.cost(),
            Node::Test(t) => match t.field {
                Field::Keyword(_)
                | Field::Dir
                | Field::Kind
                | Field::Method
                | Field::Seq
                | Field::Time
                | Field::Size => 0,
                Field::Text | Field::Id => 1,
                Field::Level | Field::Json(_) => 2,
                Field::Tool | Field::Token | Field::Call => 3,
            },
        }
    }

    /// The same filter with the cheaper side of each `&&` and `||` first:
    /// tests are pure, so the order changes the cost, never the answer.
    pub fn cheap_first(self) -> Node {
        match self {
            Node::And(a, b) => {
                let (a, b) = (a.cheap_first(), b.cheap_first());
                if b.cost() < a.cost() {
                    Node::And(Box::new(b), Box::new(a))
                } else {
                    Node::And(Box::new(a), Box::new(b))
                }
            }
            Node::Or(a, b) => {
                let (a, b) = (a.cheap_first(), b.cheap_first());
                if b.cost() < a.cost() {
                    Node::Or(Box::new(b), Box::new(a))
                } else {
                    Node::Or(Box::new(a), Box::new(b))
                }
            }
            Node::Not(a) => Node::Not(Box::new(a.cheap_first())),
            t @ Node::Test(_) => t,
        }
    }

    /// Whether any test reads the call index.
    /// What every message this node selects must have, read from its top
    /// `&&` chain: a direction (`in`, `out`, `dir == x`) and texts
    /// (a notification's `method == x` without a wildcard, `progress`,
    /// `log`, as JSON strings).
    pub fn needs(&self, dir: &mut Option<&'static str>, texts: &mut Vec<String>) {
        match self {
            Node::And(a, b) => {
                a.needs(dir, texts);
                b.needs(dir, texts);
            }
            Node::Test(t) => match (&t.field, &t.cmp) {
                (Field::Keyword(Keyword::In), None) => *dir = Some("in"),
                (Field::Keyword(Keyword::Out), None) => *dir = Some("out"),
                (Field::Dir, Some((Op::Eq, Lit::Name(n)))) => *dir = Some(*n),
                (Field::Method, Some((Op::Eq, Lit::Str(m)))) if !m.contains('*') => {
                    texts.push(serde_json::Value::from(m.as_str()).to_string());
                }
                (Field::Keyword(Keyword::Progress), None) => {
                    texts.push(format!("\"{}\"", crate::protocol::methods::PROGRESS));
                }
                (Field::Keyword(Keyword::Log), None) => {
                    texts.push(format!("\"{}\"", crate::protocol::methods::MESSAGE));
                }
                _ => {}
            },
            Node::Or(..) | Node::Not(_) => {}
        }
    }

    pub fn needs_calls(&self) -> bool {
        match self {
            Node::And(a, b) | Node::Or(a, b) => a.needs_calls() || b.needs_calls(),
            Node::Not(a) => a.needs_calls(),
            Node::Test(t) => matches!(t.field, Field::Tool | Field::Token | Field::Call),
        }
    }
}

/// One test: a field alone (it is there, or a keyword) or compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    pub field: Field,
    pub cmp: Option<(Op, Lit)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// `in` (from the server), `out` (to it), `stderr`, `meta`.
    Dir,
    /// request, notification, response, error, batch, invalid.
    Kind,
    Method,
    /// The JSON-RPC id.
    Id,
    /// The tool of the call a message belongs to.
    Tool,
    /// The progress token (a progress notification's, a request's).
    Token,
    /// A log message's level.
    Level,
    /// The call a message belongs to, by its request's seq (`#12`).
    Call,
    /// The frame's text.
    Text,
    /// The frame's size in bytes.
    Size,
    /// When it arrived, from the session's start.
    Time,
    /// The event's seq.
    Seq,
    /// A JSON path from the message's root: `params.progress`.
    Json(Vec<Seg>),
    /// A bare keyword: `in`, `progress`, `request`…
    Keyword(Keyword),
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    In,
    Out,
    Stderr,
    Meta,
    Request,
    Notification,
    Response,
    /// A message that is not JSON-RPC (or not JSON, or not UTF-8).
    Invalid,
    /// `notifications/progress`.
    Progress,
    /// `notifications/message`.
    Log,
}

/// A compared value, already in its field's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
    Level(LogLevel),
    /// Microseconds (`time`).
    Micros(u64),
    /// One of the `Dir` or `Kind` names, as written.
    Name(&'static str),
}

pub const DIRS: [&str; 4] = ["in", "out", "stderr", "meta"];
pub const KINDS: [&str; 6] = [
    "request",
    "notification",
    "response",
    "error",
    "batch",
    "invalid",
];

pub fn parse(toks: &[Spanned], len: usize) -> Result<Node, ParseError> {
    let mut p = Parser {
        toks,
        at: 0,
        end: len + 1,
    };
    if toks.is_empty() {
        return Err(ParseError::at(1, "the filter is empty"));
    }
    let node = p.or()?;
    if let Some(t) = p.peek() {
        let what = match &t.tok {
            Tok::Close => "a `)` with no `(` before it".to_string(),
            Tok::Word(_) | Tok::Str(_) | Tok::Open | Tok::Not => {
                "two tests in a row: join them with `&&` or `||`".to_string()
            }
            other => format!("unexpected {}", describe(other)),
        };
        return Err(ParseError::at(t.col, what));
    }
    Ok(node)
}

struct Parser<'a> {
    toks: &'a [Spanned],
    at: usize,
    /// The column just past the end, for errors at the end.
    end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Spanned> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<&Spanned> {
        let t = self.toks.get(self.at);
        self.at += 1;
        t
    }

    fn col(&self) -> usize {
        self.peek().map_or(self.end, |t| t.col)
    }

    fn or(&mut self) -> Result<Node, ParseError> {
        let mut left = self.and()?;
        while matches!(self.peek().map(|t| &t.tok), Some(Tok::Or)) {
            self.at += 1;
            let right = self.and()?;
            left = Node::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Node, ParseError> {
        let mut left = self.unary()?;
        while matches!(self.peek().map(|t| &t.tok), Some(Tok::And)) {
            self.at += 1;
            let right = self.unary()?;
            left = Node::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Node, ParseError> {
        let col = self.col();
        match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Not) => Ok(Node::Not(Box::new(self.unary()?))),
            Some(Tok::Open) => {
                let inner = self.or()?;
                match self.next().map(|t| &t.tok) {
                    Some(Tok::Close) => Ok(inner),
                    _ => Err(ParseError::at(col, "this `(` is never closed")),
                }
            }
            Some(Tok::Word(w)) => self.test(&w, col),
            Some(Tok::Str(s)) => Err(ParseError::at(
                col,
                format!("a test starts with a field, not a string: text ~ {s:?}"),
            )),
            Some(other) => Err(ParseError::at(
                col,
                format!("expected a test here, not {}", describe(&other)),
            )),
            None => Err(ParseError::at(
                col,
                "the filter ends where a test is expected",
            )),
        }
    }

    fn test(&mut self, word: &str, col: usize) -> Result<Node, ParseError> {
        let field = field(word, col)?;
        let op = match self.peek().map(|t| &t.tok) {
            Some(Tok::Op(op)) => *op,
            _ => {
                if let Field::Keyword(_) = field {
                    return Ok(Node::Test(Test { field, cmp: None }));
                }
                return match field {
                    Field::Dir
                    | Field::Kind
                    | Field::Level
                    | Field::Time
                    | Field::Size
                    | Field::Seq
                    | Field::Text
                    | Field::Method => Err(ParseError::at(
                        col,
                        format!("`{word}` needs a comparison: {word} == …"),
                    )),
                    _ => Ok(Node::Test(Test { field, cmp: None })),
                };
            }
        };
        let op_col = self.col();
        self.at += 1;
        let val_col = self.col();
        let (raw, quoted) = match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Word(w)) => (w, false),
            Some(Tok::Str(s)) => (s, true),
            _ => {
                return Err(ParseError::at(
                    val_col,
                    format!("expected a value after `{}`", op.as_str()),
                ));
            }
        };
        let lit = value(&field, &raw, quoted, val_col)?;
        check_op(&field, op, &lit, word, op_col)?;
        Ok(Node::Test(Test {
            field,
            cmp: Some((op, lit)),
        }))
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Str(s) => format!("{s:?}"),
        Tok::Op(op) => format!("`{}`", op.as_str()),
        Tok::And => "`&&`".into(),
        Tok::Or => "`||`".into(),
        Tok::Not => "`!`".into(),
        Tok::Open => "`(`".into(),
        Tok::Close => "`)`".into(),
    }
}

/// The field a word names.
fn field(word: &str, col: usize) -> Result<Field, ParseError> {
    Ok(match word.to_ascii_lowercase().as_str() {
        "dir" => Field::Dir,
        "kind" => Field::Kind,
        "method" => Field::Method,
        "id" => Field::Id,
        "tool" => Field::Tool,
        "token" => Field::Token,
        "level" => Field::Level,
        "call" => Field::Call,
        "text" => Field::Text,
        "size" => Field::Size,
        "time" => Field::Time,
        "seq" => Field::Seq,
        "in" => Field::Keyword(Keyword::In),
        "out" => Field::Keyword(Keyword::Out),
        "stderr" => Field::Keyword(Keyword::Stderr),
        "meta" => Field::Keyword(Keyword::Meta),
        "request" | "requests" => Field::Keyword(Keyword::Request),
        "notification" | "notifications" => Field::Keyword(Keyword::Notification),
        "response" | "responses" => Field::Keyword(Keyword::Response),
        "invalid" => Field::Keyword(Keyword::Invalid),
        "progress" => Field::Keyword(Keyword::Progress),
        "log" | "logs" => Field::Keyword(Keyword::Log),
        _ => match json_path(word, col)? {
            Some(path) => Field::Json(path),
            None => {
                return Err(ParseError::at(
                    col,
                    format!(
                        "unknown field `{word}`: dir, kind, method, id, tool, token, level, call, text, size, time, seq, a JSON path (params.…, result.…, error.…) or a keyword (in, out, request, response, notification, progress, log, invalid)"
                    ),
                ));
            }
        },
    })
}

/// `params.progress`, `result.content[0].text`, `params._meta["a.b"]`:
/// a path from one of the message's own keys; None for another word.
fn json_path(word: &str, col: usize) -> Result<Option<Vec<Seg>>, ParseError> {
    let root_end = word.find(['.', '[']).unwrap_or(word.len());
    let root = &word[..root_end];
    if !matches!(root, "params" | "result" | "error" | "jsonrpc") {
        return Ok(None);
    }
    let chars: Vec<char> = word.chars().collect();
    let mut segs = vec![Seg::Key(root.to_string())];
    let mut i = root.chars().count();
    let bad = |at: usize, why: &str| ParseError::at(col + at, why.to_string());
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j] != '.' && chars[j] != '[' {
                    j += 1;
                }
                if j == start {
                    return Err(bad(i, "a `.` must be followed by a key"));
                }
                let key: String = chars[start..j].iter().collect();
                segs.push(match key.parse::<usize>() {
                    Ok(n) => Seg::Index(n),
                    Err(_) => Seg::Key(key),
                });
                i = j;
            }
            '[' => {
                let close = (i..chars.len())
                    .find(|&j| chars[j] == ']')
                    .ok_or_else(|| bad(i, "`[` is never closed"))?;
                let inner: String = chars[i + 1..close].iter().collect();
                let seg = if let Some(q) = inner.strip_prefix('"').and_then(|s| s.strip_suffix('"'))
                {
                    Seg::Key(q.to_string())
                } else if let Some(q) = inner.strip_prefix('\'').and_then(|s| s.strip_suffix('\''))
                {
                    Seg::Key(q.to_string())
                } else {
                    Seg::Index(
                        inner
                            .parse()
                            .map_err(|_| bad(i, "`[…]` holds a quoted key or an index"))?,
                    )
                };
                segs.push(seg);
                i = close + 1;
            }
            _ => return Err(bad(i, "expected `.` or `[` in the JSON path")),
        }
    }
    Ok(Some(segs))
}

/// The value in its field's terms.
fn value(field: &Field, raw: &str, quoted: bool, col: usize) -> Result<Lit, ParseError> {
    let lower = raw.to_ascii_lowercase();
    Ok(match field {
        Field::Dir => match DIRS.iter().find(|d| **d == lower) {
            Some(d) => Lit::Name(d),
            None => {
                return Err(ParseError::at(
                    col,
                    format!("dir is one of {}", DIRS.join(", ")),
                ));
            }
        },
        Field::Kind => match KINDS.iter().find(|d| **d == lower) {
            Some(d) => Lit::Name(d),
            None => {
                return Err(ParseError::at(
                    col,
                    format!("kind is one of {}", KINDS.join(", ")),
                ));
            }
        },
        Field::Level => match lower.parse::<LogLevel>() {
            Ok(l) => Lit::Level(l),
            Err(_) => {
                return Err(ParseError::at(
                    col,
                    "level is one of debug, info, notice, warning, error, critical, alert, emergency",
                ));
            }
        },
        Field::Time => Lit::Micros(crate::format::parse_duration_us(&lower).ok_or_else(|| {
            ParseError::at(
                col,
                "time takes a duration: 250ms, 2s, 1.5m, 100us (a bare number is seconds)",
            )
        })?),
        Field::Size => Lit::Num(
            size(&lower)
                .ok_or_else(|| ParseError::at(col, "size takes bytes: 512, 4KiB, 2MiB, 10kB"))?,
        ),
        Field::Call | Field::Seq => Lit::Num(
            lower
                .trim_start_matches('#')
                .parse::<u64>()
                .map_err(|_| ParseError::at(col, "takes a sequence number: 12 or #12"))?
                as f64,
        ),
        Field::Method | Field::Tool | Field::Token | Field::Text => Lit::Str(raw.to_string()),
        Field::Id | Field::Json(_) if quoted => Lit::Str(raw.to_string()),
        Field::Id | Field::Json(_) => match lower.as_str() {
            "true" => Lit::Bool(true),
            "false" => Lit::Bool(false),
            "null" => Lit::Null,
            _ => match raw.parse::<f64>() {
                Ok(n) if n.is_finite() => Lit::Num(n),
                _ => Lit::Str(raw.to_string()),
            },
        },
        Field::Keyword(_) => {
            return Err(ParseError::at(col, "a keyword takes no value"));
        }
    })
}

/// Whether `op` makes sense for the field and value.
fn check_op(field: &Field, op: Op, lit: &Lit, word: &str, col: usize) -> Result<(), ParseError> {
    let ordered = matches!(op, Op::Gt | Op::Ge | Op::Lt | Op::Le);
    let contains = matches!(op, Op::Has | Op::NotHas);
    let ok = match field {
        Field::Dir | Field::Kind => matches!(op, Op::Eq | Op::Ne),
        Field::Level | Field::Time | Field::Size | Field::Call | Field::Seq => !contains,
        Field::Method | Field::Tool | Field::Token | Field::Text => !ordered,
        Field::Id => !ordered || matches!(lit, Lit::Num(_)),
        Field::Json(_) => match lit {
            Lit::Bool(_) | Lit::Null => matches!(op, Op::Eq | Op::Ne),
            _ => true,
        },
        Field::Keyword(_) => false,
    };
    if ok {
        return Ok(());
    }
    let why = if ordered {
        format!("`{word}` is not ordered: use == or ~")
    } else if contains {
        format!("`~` finds text; `{word}` is compared with == < > …")
    } else {
        format!("`{}` does not apply to `{word}`", op.as_str())
    };
    Err(ParseError::at(col, why))
}

/// `512`, `4kib`, `2mib`, `10kb`, `1mb` → bytes (lower case already).
fn size(s: &str) -> Option<f64> {
    let units = [
        ("kib", 1024.0),
        ("mib", 1048576.0),
        ("kb", 1e3),
        ("mb", 1e6),
        ("b", 1.0),
    ];
    let (num, mult) = units
        .iter()
        .find_map(|(u, m)| s.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((s, 1.0));
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * mult)
}
