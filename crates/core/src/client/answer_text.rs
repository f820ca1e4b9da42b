//! Reading an answer's text where the store's classification stops short:
//! the request a frame answers when the frame is not UTF-8 or was cut to
//! the size cap (the store keeps such frames but routes them nowhere), and
//! keys written twice inside a result (serde_json keeps the last one, other
//! clients the first, so such an answer means different things to
//! different readers).

use crate::protocol::IdKey;
use crate::protocol::frame::{FrameKind, classify};
use std::collections::HashSet;

/// The request a frame that is not UTF-8 answers, read from its text with
/// the bad bytes replaced; `None` for anything that is not an answer.
pub fn undecodable_answer(bytes: &[u8]) -> Option<IdKey> {
    let text = String::from_utf8_lossy(bytes);
    let f = classify(text.as_bytes());
    match f.kind {
        FrameKind::Response | FrameKind::ErrorResponse => f.id.filter(IdKey::is_valid),
        _ => None,
    }
}

/// Where the first invalid byte of `bytes` is, for the error.
pub fn utf8_problem(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes)
        .err()
        .map(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))
}

/// What the kept start of a cut frame says it is.
#[derive(Debug, PartialEq)]
pub enum CutFrame {
    /// An answer (`result` or `error` at its top level) to this request.
    Answer(IdKey),
    /// An answer whose id, if it has one, is past the cut.
    Unnamed,
    /// A request, a notification, or text that is not a JSON object.
    Other,
}

/// Read the top-level keys of the kept start of a frame cut to the size
/// cap, up to the cut.
pub fn cut_frame(kept: &[u8]) -> CutFrame {
    let text = String::from_utf8_lossy(kept);
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    s.ws();
    if !s.eat(b'{') {
        return CutFrame::Other;
    }
    let (mut id, mut answer) = (None, false);
    loop {
        s.ws();
        let Some(key) = s.string() else { break };
        s.ws();
        if !s.eat(b':') {
            break;
        }
        s.ws();
        let start = s.i;
        let complete = s.skip_value();
        match key {
            "method" => return CutFrame::Other,
            "result" | "error" => answer = true,
            "id" if complete => id = Some(IdKey::from_raw(&text[start..s.i])),
            _ => {}
        }
        s.ws();
        if !s.eat(b',') {
            break;
        }
    }
    match (answer, id) {
        (true, Some(id)) if id.is_valid() => CutFrame::Answer(id),
        (true, _) => CutFrame::Unnamed,
        (false, _) => CutFrame::Other,
    }
}

/// The first key written twice in one object of a JSON text: the JSON
/// Pointer of that object and the key. The text is one the parser already
/// accepted; anything unexpected ends the search.
pub fn first_duplicate_key(text: &str) -> Option<(String, String)> {
    enum Open {
        Object {
            keys: HashSet<String>,
            current: Option<String>,
            want_key: bool,
        },
        Array {
            index: usize,
        },
    }
    let pointer = |open: &[Open]| {
        let mut p = String::new();
        for o in open {
            p.push('/');
            match o {
                Open::Object { current, .. } => {
                    let k = current.as_deref().unwrap_or("");
                    p.push_str(&k.replace('~', "~0").replace('/', "~1"));
                }
                Open::Array { index } => p.push_str(&index.to_string()),
            }
        }
        p
    };
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    let mut open: Vec<Open> = Vec::new();
    while s.i < s.b.len() {
        match s.b[s.i] {
            b'{' => open.push(Open::Object {
                keys: HashSet::new(),
                current: None,
                want_key: true,
            }),
            b'[' => open.push(Open::Array { index: 0 }),
            b'}' | b']' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Open::Object { want_key, .. }) => *want_key = true,
                Some(Open::Array { index }) => *index += 1,
                None => {}
            },
            b'"' => {
                let start = s.i;
                s.string()?;
                if let Some(Open::Object {
                    keys,
                    current,
                    want_key: want_key @ true,
                }) = open.last_mut()
                {
                    let key = decode_key(&text[start..s.i]);
                    if !keys.insert(key.clone()) {
                        let at = pointer(&open[..open.len() - 1]);
                        return Some((at, key));
                    }
                    *current = Some(key);
                    *want_key = false;
                }
                continue;
            }
            _ => {}
        }
        s.i += 1;
    }
    None
}

/// A key token (quotes included) as the string it stands for.
fn decode_key(token: &str) -> String {
    if token.contains('\\') {
        serde_json::from_str(token).unwrap_or_else(|_| token.to_string())
    } else {
        token[1..token.len() - 1].to_string()
    }
}

/// A cursor over JSON text that may end anywhere.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        if hit {
            self.i += 1;
        }
        hit
    }

    /// A string token's content (escapes kept), the cursor after it; `None`
    /// when there is none here or it is cut.
    fn string(&mut self) -> Option<&'a str> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let mut j = start;
        loop {
            match self.b.get(j)? {
                b'"' => break,
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        self.i = j + 1;
        std::str::from_utf8(&self.b[start..j]).ok()
    }

    /// Skip one value; false when the text ends inside it.
    fn skip_value(&mut self) -> bool {
        match self.b.get(self.i) {
            None => false,
            Some(b'"') => self.string().is_some(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                while let Some(&c) = self.b.get(self.i) {
                    match c {
                        b'"' => {
                            if self.string().is_none() {
                                return false;
                            }
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return true;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
                false
            }
            Some(_) => {
                // A number or a literal ends at the next delimiter.
                while let Some(c) = self.b.get(self.i) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        return true;
                    }
                    self.i += 1;
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undecodable_answer_names_its_request() {
        let bad = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"t\":\"\xff\"}}";
        assert_eq!(undecodable_answer(bad), Some(IdKey::Int(7)));
        assert_eq!(
            utf8_problem(bad).as_deref(),
            Some("invalid UTF-8 at byte 39")
        );
        let request =
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"t\":\"\xff\"}}";
        assert_eq!(undecodable_answer(request), None);
        assert_eq!(undecodable_answer(b"\xff\xfe"), None);
    }

    #[test]
    fn a_cut_frame_is_read_up_to_the_cut() {
        let cut = |t: &str| cut_frame(t.as_bytes());
        assert_eq!(
            cut(r#"{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"text":"xx"#),
            CutFrame::Answer(IdKey::Str("a-1".into()))
        );
        assert_eq!(
            cut(r#" { "id" : 3 , "error":{"code":1,"message":"m"#),
            CutFrame::Answer(IdKey::Int(3))
        );
        // The TypeScript SDK writes the result first: its id is past the cut.
        assert_eq!(
            cut(r#"{"result":{"content":[{"text":"x}]\"xx"#),
            CutFrame::Unnamed
        );
        assert_eq!(
            cut(r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"#),
            CutFrame::Other
        );
        assert_eq!(
            cut(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"da"#),
            CutFrame::Other
        );
        assert_eq!(cut("not json at all"), CutFrame::Other);
        // An id cut in the middle is no id.
        assert_eq!(cut(r#"{"result":{},"id":12"#), CutFrame::Unnamed);
    }

    #[test]
    fn a_key_written_twice_is_found_with_where_it_is() {
        let dup = |t: &str| first_duplicate_key(t);
        assert_eq!(dup(r#"{"a":1,"b":{"a":2},"c":[1,"a"]}"#), None);
        assert_eq!(
            dup(r#"{"content":[],"content":[]}"#),
            Some((String::new(), "content".into()))
        );
        assert_eq!(
            dup(r#"{"content":[{"type":"text"},{"text":"a","te\u0078t":"b"}]}"#),
            Some(("/content/1".into(), "text".into()))
        );
        assert_eq!(
            dup(r#"{"a/b":{"x":{"k":1,"k":2}}}"#),
            Some(("/a~1b/x".into(), "k".into()))
        );
        // A string value equal to a key is not a key; keys of sibling objects are their own.
        assert_eq!(dup(r#"{"k":"k","o":[{"k":1},{"k":2}]}"#), None);
        assert_eq!(dup(r#"{"s":"},{\"k\":1,\"k\":2}"}"#), None);
    }
}
