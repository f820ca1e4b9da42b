//! What goes wrong in a test file's variables, in writing a test file from
//! a recording, and where a case's answer differs from what it expects
//! (each text is the sentence the test's result shows).

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    // `${NAME}` in a test file's server.
    #[error("unclosed ${{ in {text:?}")]
    Unclosed { text: String },
    #[error("${{{name}}} is not set")]
    NotSet { name: String },

    // A test file from a recording (`from`: where the recording is).
    #[error("{from}: the recording has no tools/call to make a case of")]
    NoCalls { from: String },
    #[error("{from}: cannot write TOML: {error}")]
    Toml {
        from: String,
        #[source]
        error: toml::ser::Error,
    },

    // An expected value against the answer's (`path` names the place).
    #[error("{path} is missing")]
    Missing { path: String },
    #[error("{path} has {got} element(s), expected at least {want}")]
    TooFew {
        path: String,
        got: usize,
        want: usize,
    },
    /// `got` and `want` are JSON texts, clipped.
    #[error("{path} is {got}, expected {want}")]
    Differs {
        path: String,
        got: String,
        want: String,
    },

    // An expected order of arrivals.
    #[error("{item:?} did not arrive after {prev:?} (#{prev_seq}); it arrived before it (#{seq})")]
    Before {
        item: String,
        prev: String,
        prev_seq: u64,
        seq: u64,
    },
    #[error("{item:?} never arrived (expected after {prev:?}, #{prev_seq})")]
    NeverAfter {
        item: String,
        prev: String,
        prev_seq: u64,
    },
    #[error("{item:?} never arrived")]
    Never { item: String },
}
