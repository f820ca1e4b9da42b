//! The filter language's tokens, each with the column it starts at (in
//! characters, from 1), so an error can point at it.

use super::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A bare word: a field, a JSON path, a keyword or an unquoted value
    /// (`method`, `params.progress`, `tools/call`, `warning`, `12`, `2s`).
    Word(String),
    /// A quoted string, its escapes resolved.
    Str(String),
    Op(Op),
    And,
    Or,
    Not,
    Open,
    Close,
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    /// Contains (case-insensitive), for text.
    Has,
    NotHas,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Has => "~",
            Op::NotHas => "!~",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }
}

/// A token and its column (1-based, in characters).
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub tok: Tok,
    pub col: usize,
}

/// Characters a bare word may hold besides letters and digits: paths
/// (`params._meta.x`, `tools/call`, `notifications/*`), numbers (`-1.5`),
/// durations, and `[`…`]` for a JSON key with dots in it.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '*' | '-' | '+' | '#' | ':' | '$' | '@')
}

pub fn lex(src: &str) -> Result<Vec<Spanned>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        let next = chars.get(i + 1).copied();
        let mut push = |tok: Tok, len: usize, i: &mut usize| {
            out.push(Spanned { tok, col });
            *i += len;
        };
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => push(Tok::Open, 1, &mut i),
            ')' => push(Tok::Close, 1, &mut i),
            '&' if next == Some('&') => push(Tok::And, 2, &mut i),
            '|' if next == Some('|') => push(Tok::Or, 2, &mut i),
            '=' if next == Some('=') => push(Tok::Op(Op::Eq), 2, &mut i),
            '=' => push(Tok::Op(Op::Eq), 1, &mut i),
            '!' if next == Some('=') => push(Tok::Op(Op::Ne), 2, &mut i),
            '!' if next == Some('~') => push(Tok::Op(Op::NotHas), 2, &mut i),
            '!' => push(Tok::Not, 1, &mut i),
            '~' => push(Tok::Op(Op::Has), 1, &mut i),
            '>' if next == Some('=') => push(Tok::Op(Op::Ge), 2, &mut i),
            '>' => push(Tok::Op(Op::Gt), 1, &mut i),
            '<' if next == Some('=') => push(Tok::Op(Op::Le), 2, &mut i),
            '<' => push(Tok::Op(Op::Lt), 1, &mut i),
            '"' | '\'' => {
                let (s, len) = string(&chars, i)?;
                push(Tok::Str(s), len, &mut i);
            }
            c if word_char(c) || c == '[' => {
                let start = i;
                let mut j = i;
                while j < chars.len() && (word_char(chars[j]) || chars[j] == '[') {
                    if chars[j] == '[' {
                        // `["key.with.dots"]` or `[0]`, inside a word.
                        j = bracket(&chars, j)?;
                    } else {
                        j += 1;
                    }
                }
                let w: String = chars[start..j].iter().collect();
                let tok = match w.to_ascii_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    _ => Tok::Word(w),
                };
                push(tok, j - start, &mut i);
            }
            '&' | '|' => {
                return Err(ParseError::at(
                    col,
                    format!("`{c}` alone is not an operator: `{c}{c}`"),
                ));
            }
            c => {
                return Err(ParseError::at(
                    col,
                    format!("unexpected character `{}`", c.escape_debug()),
                ));
            }
        }
    }
    Ok(out)
}

/// A quoted string from `chars[at]` (its quote); returns the text and the
/// characters it took, quotes included. `\"`, `\'`, `\\`, `\n` and `\t`
/// are escapes.
fn string(chars: &[char], at: usize) -> Result<(String, usize), ParseError> {
    let quote = chars[at];
    let mut s = String::new();
    let mut j = at + 1;
    while j < chars.len() {
        match chars[j] {
            c if c == quote => return Ok((s, j + 1 - at)),
            '\\' if j + 1 < chars.len() => {
                s.push(match chars[j + 1] {
                    'n' => '\n',
                    't' => '\t',
                    c => c,
                });
                j += 2;
            }
            c => {
                s.push(c);
                j += 1;
            }
        }
    }
    Err(ParseError::at(
        at + 1,
        format!("the string opened here has no closing {quote}"),
    ))
}

/// The end (one past `]`) of a `[…]` inside a word starting at `at`.
fn bracket(chars: &[char], at: usize) -> Result<usize, ParseError> {
    let mut j = at + 1;
    if matches!(chars.get(j), Some('"' | '\'')) {
        let (_, len) = string(chars, j)?;
        j += len;
    } else {
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
    }
    if chars.get(j) == Some(&']') {
        Ok(j + 1)
    } else {
        Err(ParseError::at(
            at + 1,
            "`[` takes a quoted key or an index and then `]`: params[\"a.b\"], content[0]",
        ))
    }
}
