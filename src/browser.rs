//! Opening a URL in the user's browser, the one way every command does it
//! (the OAuth login, a page a server asks the user to visit). Never through
//! a shell: the platform's opener (`xdg-open` and its fallbacks, `open` on
//! macOS) gets the URL as one argument, detached, so no zombie stays.

/// Hand `url` to the platform's opener. It may take a fraction of a second
/// (an opener that fails at once is reported, the next one tried): off the
/// UI's thread.
pub fn open(url: &str) -> std::io::Result<()> {
    open::that_detached(url)
}
