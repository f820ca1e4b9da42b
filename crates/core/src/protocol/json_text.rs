//! JSON handled as text: re-laid out token by token instead of through
//! `serde_json::Value`.
//!
//! `Value` cannot hold a number beyond f64 (`1e999` makes the whole parse
//! fail), sorts keys, folds duplicate keys and rounds big integers — but the
//! headless result must be the server's exact JSON. So numbers, keys and
//! escapes are copied as written and only whitespace changes; characters a
//! terminal would not show (bidi overrides, zero-width spaces, controls)
//! are written as `\u` escapes, which keeps the JSON value identical.

use super::sanitize::escape_in_json;
use serde_json::Value;
use std::fmt::Write;

/// Deeper than any real result; stops a hostile text from exhausting the stack.
const MAX_DEPTH: usize = 256;
/// Out-of-range numbers described per text; the rest are only counted.
pub const MAX_DESCRIBED: usize = 16;

/// A number the server wrote that no 64-bit float can hold.
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfRange {
    /// As written, e.g. `1e999`.
    pub number: String,
    /// JSON Pointer to it (`/structuredContent/big`; empty for the whole text).
    pub pointer: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the top level"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{} at {at} (line {} column {})",
            self.number, self.line, self.column
        )
    }
}

/// Every out-of-range number of a text: the first `MAX_DESCRIBED` described.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RangeReport {
    pub described: Vec<OutOfRange>,
    pub total: usize,
}

/// Why a text could not be read as JSON: what was wrong and at which
/// byte (this module's reader), or serde_json's reason.
#[derive(Debug, thiserror::Error)]
pub enum JsonTextError {
    #[error("{what} at byte {at}")]
    At { what: &'static str, at: usize },
    #[error(transparent)]
    Serde(#[from] serde_json::Error),
}

/// Re-lay `raw` out: two-space indents when `pretty`, no whitespace otherwise.
pub fn reformat(raw: &str, pretty: bool) -> Result<String, JsonTextError> {
    let mut w = Walker::new(raw, Mode::Write { pretty });
    w.document()?;
    Ok(w.out)
}

/// JSON text (as serde_json writes it) with the characters a terminal or a
/// review would not show — bidi controls such as U+202E, C1 controls such
/// as U+009B, zero-width characters — as `\u` escapes: the same value,
/// visible. Such characters can only be inside strings (serde_json already
/// escapes C0 controls there), so every one outside a layout newline is
/// escaped.
pub fn escape_invisible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && escape_in_json(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The numbers of `raw` that overflow a 64-bit float, with where they are.
pub fn out_of_range(raw: &str) -> Result<RangeReport, JsonTextError> {
    let mut w = Walker::new(raw, Mode::Scan);
    w.document()?;
    Ok(w.report)
}

/// `raw` as a `Value`, even when it holds numbers a `Value` cannot: those
/// become strings of their text (`"1e999"`) and are reported.
pub fn lenient_value(raw: &str) -> Result<(Value, RangeReport), JsonTextError> {
    let first = match serde_json::from_str::<Value>(raw) {
        Ok(v) => return Ok((v, RangeReport::default())),
        Err(e) => e,
    };
    let mut w = Walker::new(raw, Mode::Scan);
    w.document()?;
    if w.report.total == 0 {
        return Err(first.into());
    }
    let mut patched = String::with_capacity(raw.len() + 2 * w.spans.len());
    let mut at = 0;
    for (start, end) in &w.spans {
        patched.push_str(&raw[at..*start]);
        patched.push('"');
        patched.push_str(&raw[*start..*end]);
        patched.push('"');
        at = *end;
    }
    patched.push_str(&raw[at..]);
    let v = serde_json::from_str(&patched)?;
    Ok((v, w.report))
}

enum Mode {
    Write { pretty: bool },
    Scan,
}

enum Seg {
    Key(String),
    Index(usize),
}

struct Walker<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    mode: Mode,
    out: String,
    path: Vec<Seg>,
    report: RangeReport,
    /// Byte spans of every out-of-range number (scan mode).
    spans: Vec<(usize, usize)>,
}

impl<'a> Walker<'a> {
    fn new(s: &'a str, mode: Mode) -> Walker<'a> {
        let cap = match mode {
            Mode::Write { .. } => s.len() + s.len() / 4,
            Mode::Scan => 0,
        };
        Walker {
            s,
            b: s.as_bytes(),
            i: 0,
            mode,
            out: String::with_capacity(cap),
            path: Vec::new(),
            report: RangeReport::default(),
            spans: Vec::new(),
        }
    }

    fn err<T>(&self, what: &'static str) -> Result<T, JsonTextError> {
        Err(JsonTextError::At { what, at: self.i })
    }

    fn put(&mut self, s: &str) {
        if let Mode::Write { .. } = self.mode {
            self.out.push_str(s);
        }
    }

    fn newline(&mut self, indent: usize) {
        if let Mode::Write { pretty: true } = self.mode {
            self.out.push('\n');
            for _ in 0..indent {
                self.out.push_str("  ");
            }
        }
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn document(&mut self) -> Result<(), JsonTextError> {
        self.value(0, 0)?;
        self.ws();
        if self.i != self.b.len() {
            return self.err("unexpected text after the JSON value");
        }
        Ok(())
    }

    fn value(&mut self, depth: usize, indent: usize) -> Result<(), JsonTextError> {
        if depth > MAX_DEPTH {
            return self.err("nested too deeply");
        }
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => self.container(depth, indent, true),
            Some(b'[') => self.container(depth, indent, false),
            Some(b'"') => {
                let span = self.string()?;
                self.put_string(span);
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            _ => self.err("expected a JSON value"),
        }
    }

    fn container(
        &mut self,
        depth: usize,
        indent: usize,
        object: bool,
    ) -> Result<(), JsonTextError> {
        let (open, close) = if object { ("{", b'}') } else { ("[", b']') };
        self.i += 1;
        self.put(open);
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            self.put(if object { "}" } else { "]" });
            return Ok(());
        }
        let scan = matches!(self.mode, Mode::Scan);
        for n in 0.. {
            self.newline(indent + 1);
            if object {
                self.ws();
                if self.b.get(self.i) != Some(&b'"') {
                    return self.err("expected a key");
                }
                let span = self.string()?;
                self.put_string(span);
                if scan {
                    let key = serde_json::from_str::<String>(&self.s[span.0..span.1])
                        .unwrap_or_else(|_| self.s[span.0 + 1..span.1 - 1].to_string());
                    self.path.push(Seg::Key(key));
                }
                self.ws();
                if self.b.get(self.i) != Some(&b':') {
                    return self.err("expected ':'");
                }
                self.i += 1;
                self.put(if matches!(self.mode, Mode::Write { pretty: true }) {
                    ": "
                } else {
                    ":"
                });
            } else if scan {
                self.path.push(Seg::Index(n));
            }
            self.value(depth + 1, indent + 1)?;
            if scan {
                self.path.pop();
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.put(",");
                }
                Some(c) if *c == close => {
                    self.i += 1;
                    self.newline(indent);
                    self.put(if object { "}" } else { "]" });
                    return Ok(());
                }
                _ => return self.err("expected ',' or a closing bracket"),
            }
        }
        unreachable!("the loop only ends by returning")
    }

    /// The span of a string token, quotes included.
    fn string(&mut self) -> Result<(usize, usize), JsonTextError> {
        let start = self.i;
        self.i += 1;
        loop {
            match self.b.get(self.i) {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok((start, self.i));
                }
                // The escaped byte is ASCII; `\uXXXX` continues with plain hex digits.
                Some(b'\\') => self.i += 2,
                Some(_) => self.i += 1,
            }
        }
    }

    fn put_string(&mut self, (start, end): (usize, usize)) {
        if let Mode::Scan = self.mode {
            return;
        }
        let text = &self.s[start..end];
        if !text.chars().any(escape_in_json) {
            self.out.push_str(text);
            return;
        }
        for c in text.chars() {
            if escape_in_json(c) {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(self.out, "\\u{u:04x}");
                }
            } else {
                self.out.push(c);
            }
        }
    }

    fn number(&mut self) -> Result<(), JsonTextError> {
        let start = self.i;
        while matches!(
            self.b.get(self.i),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.i += 1;
        }
        let token = &self.s[start..self.i];
        let Ok(v) = token.parse::<f64>() else {
            self.i = start;
            return self.err("malformed number");
        };
        if v.is_infinite() && matches!(self.mode, Mode::Scan) {
            self.out_of_range(start, token);
        }
        self.put(token);
        Ok(())
    }

    fn out_of_range(&mut self, start: usize, token: &str) {
        self.report.total += 1;
        self.spans.push((start, start + token.len()));
        if self.report.described.len() >= MAX_DESCRIBED {
            return;
        }
        let before = &self.s[..start];
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        let mut pointer = String::new();
        for seg in &self.path {
            pointer.push('/');
            match seg {
                Seg::Key(k) => pointer.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Seg::Index(n) => {
                    let _ = write!(pointer, "{n}");
                }
            }
        }
        self.report.described.push(OutOfRange {
            number: token.to_string(),
            pointer,
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        });
    }

    fn literal(&mut self, word: &str) -> Result<(), JsonTextError> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            self.put(word);
            Ok(())
        } else {
            self.err("expected a JSON value")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reformatting_keeps_every_token_as_written() {
        let raw = r#" {"b":1e999,"a":[1.0, -0, 12345678901234567890123],"e":{},"l":[],"s":"\u0041\"x","a":null} "#;
        assert_eq!(
            reformat(raw, false).unwrap(),
            r#"{"b":1e999,"a":[1.0,-0,12345678901234567890123],"e":{},"l":[],"s":"\u0041\"x","a":null}"#
        );
        let pretty = reformat(r#"{"a":[1,{"b":true}],"c":{}}"#, true).unwrap();
        assert_eq!(
            pretty,
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": true\n    }\n  ],\n  \"c\": {}\n}"
        );
        // Pretty output is what serde_json would print for the same value.
        let v: Value = serde_json::from_str(r#"{"a":[1,{"b":true}],"c":{}}"#).unwrap();
        assert_eq!(pretty, serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn invisible_characters_become_escapes_with_the_same_value() {
        let raw = "{\"t\":\"evil\u{202E}txt\u{200B}\u{E0041}\u{7f}é\"}";
        let out = reformat(raw, false).unwrap();
        assert_eq!(out, r#"{"t":"evil\u202etxt\u200b\udb40\udc41\u007fé"}"#);
        let a: Value = serde_json::from_str(raw).unwrap();
        let b: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn out_of_range_numbers_are_found_and_placed() {
        let raw = "{\"x\":[1,\n {\"a/b\": -1E400}],\"y\":2e308,\"z\":1e308}";
        let r = out_of_range(raw).unwrap();
        assert_eq!(r.total, 2);
        assert_eq!(r.described[0].number, "-1E400");
        assert_eq!(r.described[0].pointer, "/x/1/a~1b");
        assert_eq!((r.described[0].line, r.described[0].column), (2, 10));
        assert_eq!(r.described[1].pointer, "/y");
        let (v, rep) = lenient_value(raw).unwrap();
        assert_eq!(rep.total, 2);
        assert_eq!(v["x"][1]["a/b"], "-1E400");
        assert_eq!(v["z"], 1e308);
        assert!(lenient_value("{\"a\":").is_err());
        assert!(lenient_value("[1e999]").unwrap().1.described[0].pointer == "/0");
    }

    #[test]
    fn damaged_text_is_an_error_not_a_panic() {
        for bad in [
            "",
            "{",
            "[1,",
            "{\"a\" 1}",
            "\"abc",
            "\"\\",
            "tru",
            "1.2.3x",
            "{}x",
            "[-]",
            "{1:2}",
        ] {
            assert!(reformat(bad, true).is_err(), "{bad:?}");
            assert!(out_of_range(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(100_000);
        assert!(reformat(&deep, false).is_err());
        let many = format!("[{}1]", "1e999,".repeat(1000));
        let r = out_of_range(&many).unwrap();
        assert_eq!((r.total, r.described.len()), (1000, MAX_DESCRIBED));
    }
}
