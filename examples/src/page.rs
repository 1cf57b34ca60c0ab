//! `fetch-server`'s simplification of a web page: Markdown by `htmd`, or, for a page whose
//! elements nest too deep to convert safely, its text.
//!
//! `htmd` walks the parsed page recursively, a few stack frames per level of nesting: a
//! 55 KB page of 5,000 nested `<div>`s overflowed a thread's stack and aborted the whole
//! server. And html5ever's tree builder, which `htmd` parses with, looks through its stack
//! of open elements for most start tags: a page nested 100,000 deep takes it minutes.
//! So a page goes through three steps, none of them recursive:
//!
//! 1. **A scan of its tokens** (html5ever's tokenizer alone, linear in the page): an upper
//!    estimate of its depth (each start tag opens an element until its end tag, except void
//!    elements and a repeated `<li>`, `<p>`, `<td>` and their kin, which close their
//!    predecessor), and its count of elements. Past [`MAX_DEPTH`], or past
//!    [`MAX_ELEMENTS`] (`htmd`'s time grows with the square of adjacent inline elements:
//!    160,000 `<span>`s took 2 s, 2.5 MiB of them 18 s), the page is never built into a
//!    tree: its text is the answer (a second scan collects it, only then).
//! 2. **The tree**, parsed once, its exact depth measured with an explicit stack (nested
//!    tables, whose `<tbody>`, `<tr>` and `<td>` the estimate counts once, can go deeper than
//!    estimated). Past [`MAX_DEPTH`]: the text again.
//! 3. **Markdown** by `htmd`, from that tree.
//!
//! The text comes after a note that says why it is not Markdown. Callers run this on a
//! blocking thread (`tokio::task::spawn_blocking`), never on the async workers: a large
//! page takes a while, and the server's other requests must not wait for it.

use htmd::Node;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{LocalName, local_name};
use markup5ever_rcdom::NodeData;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The deepest nesting of elements converted to Markdown: the depth at which browsers' HTML
/// parsers stop nesting elements (Blink's and WebKit's tree builders cap the DOM at 512), so
/// no page meant to be read goes deeper. `htmd` converts it on a 2 MiB stack (a blocking
/// thread's) with room to spare, in a debug build too (a test checks it).
pub const MAX_DEPTH: usize = 512;

/// The most elements converted to Markdown: 100,000 adjacent `<span>`s, the worst case
/// measured, take `htmd` under a second (release build); a long article has a few
/// thousand elements, the largest pages of Wikipedia some tens of thousands.
pub const MAX_ELEMENTS: usize = 100_000;

/// Tags whose content is no part of what a page says.
pub const SKIPPED_TAGS: [&str; 9] = [
    "script", "style", "noscript", "template", "svg", "head", "nav", "footer", "iframe",
];

/// Elements that begin and end a line of text in the plain-text fallback.
const BLOCKS: [&str; 30] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "tr",
    "ul",
];

/// The page as Markdown, or as text after a note when its elements nest deeper than
/// [`MAX_DEPTH`].
///
/// ```
/// use mcp_examples::page::{MAX_DEPTH, simplify};
///
/// assert_eq!(simplify("<h1>Weather</h1><p>Sunny</p>"), "# Weather\n\nSunny");
/// let deep = format!("{}deep{}", "<div>".repeat(MAX_DEPTH * 4), "</div>".repeat(MAX_DEPTH * 4));
/// assert!(simplify(&deep).ends_with("deep"));
/// ```
pub fn simplify(html: &str) -> String {
    let shape = scan(html, false);
    if shape.depth > MAX_DEPTH {
        return text_only(html, Fallback::Deep);
    }
    if shape.elements > MAX_ELEMENTS {
        return text_only(html, Fallback::Large);
    }
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED_TAGS.to_vec())
        .build();
    // `html_to_tree` cannot fail: html5ever recovers from any input.
    let Ok(tree) = converter.html_to_tree(html) else {
        return "<error>Page failed to be simplified from HTML</error>".to_owned();
    };
    if depth_exceeds(&tree, MAX_DEPTH) {
        return text_only(html, Fallback::Deep);
    }
    converter.tree_to_markdown(&tree)
}

/// Why a page is answered with its text rather than Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fallback {
    /// Its elements nest deeper than [`MAX_DEPTH`].
    Deep,
    /// It has more than [`MAX_ELEMENTS`] elements.
    Large,
    /// Its conversion did not finish within the caller's time budget.
    Slow,
}

/// The page's text (one linear scan) after a note saying why it is not Markdown.
///
/// ```
/// use mcp_examples::page::{Fallback, text_only};
///
/// let out = text_only("<h1>Weather</h1><p>Sunny</p>", Fallback::Slow);
/// assert!(out.starts_with("<error>") && out.ends_with("Weather\nSunny"));
/// ```
pub fn text_only(html: &str, why: Fallback) -> String {
    let why = match why {
        Fallback::Deep => format!("nests elements more than {MAX_DEPTH} deep, too deep"),
        Fallback::Large => format!("has more than {MAX_ELEMENTS} elements, too many"),
        Fallback::Slow => "took too long".to_owned(),
    };
    format!(
        "<error>The page {why} to convert to Markdown; here is its text.</error>\n\n{}",
        fold(&scan(html, true).text)
    )
}

/// Whether any element lies more than `limit` elements deep (the document node not
/// counted); stops at the first one that does.
fn depth_exceeds(root: &Rc<Node>, limit: usize) -> bool {
    let mut stack: Vec<(Rc<Node>, usize)> = vec![(root.clone(), 0)];
    while let Some((node, depth)) = stack.pop() {
        let depth = depth + usize::from(matches!(node.data, NodeData::Element { .. }));
        if depth > limit {
            return true;
        }
        stack.extend(node.children.borrow().iter().map(|c| (c.clone(), depth)));
    }
    false
}

/// What one pass over a page's tokens found.
#[derive(Debug, Default)]
struct Scan {
    /// The estimated depth: see the module documentation.
    depth: usize,
    /// Start tags of elements that have content (void ones not counted).
    elements: usize,
    /// The text outside skipped elements, a line break at each block element's start and
    /// end; collected only when asked for.
    text: String,
}

/// The running state of [`scan`].
#[derive(Default)]
struct Scanner {
    scan: Scan,
    /// Open elements by name, and their total.
    open: HashMap<LocalName, usize>,
    total: usize,
    /// Open `svg` and `math` elements: inside them `<x/>` closes itself.
    foreign: usize,
    /// Open skipped elements: their text is left out.
    skipped: usize,
    /// Whether to collect the text.
    with_text: bool,
}

/// Elements without content.
const VOID: [LocalName; 14] = [
    local_name!("area"),
    local_name!("base"),
    local_name!("br"),
    local_name!("col"),
    local_name!("embed"),
    local_name!("hr"),
    local_name!("img"),
    local_name!("input"),
    local_name!("link"),
    local_name!("meta"),
    local_name!("param"),
    local_name!("source"),
    local_name!("track"),
    local_name!("wbr"),
];

/// Elements whose start tag closes an open one of the same name (or whose end tag may be
/// left out), so a repetition is no deeper.
const SELF_CLOSING_ON_REPEAT: [LocalName; 20] = [
    local_name!("li"),
    local_name!("p"),
    local_name!("dt"),
    local_name!("dd"),
    local_name!("option"),
    local_name!("optgroup"),
    local_name!("tr"),
    local_name!("td"),
    local_name!("th"),
    local_name!("thead"),
    local_name!("tbody"),
    local_name!("tfoot"),
    local_name!("colgroup"),
    local_name!("caption"),
    local_name!("rb"),
    local_name!("rt"),
    local_name!("rp"),
    local_name!("html"),
    local_name!("head"),
    local_name!("body"),
];

/// Tags left out of the text: [`SKIPPED_TAGS`], with `title` for `head` (whose end tag a
/// page may leave out, which would leave out the whole page here).
fn skipped_in_text(name: &LocalName) -> bool {
    *name == local_name!("title")
        || (*name != local_name!("head") && SKIPPED_TAGS.contains(&&**name))
}

impl Scanner {
    fn start(&mut self, name: &LocalName, self_closing: bool) -> TokenSinkResult<()> {
        if self.with_text && BLOCKS.contains(&&**name) {
            self.scan.text.push('\n');
        }
        let closes_itself = VOID.contains(name)
            || (self_closing && self.foreign > 0)
            || (SELF_CLOSING_ON_REPEAT.contains(name) && self.open.contains_key(name));
        if closes_itself {
            return TokenSinkResult::Continue;
        }
        *self.open.entry(name.clone()).or_default() += 1;
        self.total += 1;
        self.scan.elements += 1;
        self.scan.depth = self.scan.depth.max(self.total);
        if *name == local_name!("svg") || *name == local_name!("math") {
            self.foreign += 1;
        }
        if skipped_in_text(name) {
            self.skipped += 1;
        }
        if self.foreign > 0 {
            return TokenSinkResult::Continue;
        }
        // The tokenizer states the tree builder would switch to, so that `<div>` inside a
        // script is text, as it is to a browser.
        match &**name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }

    fn end(&mut self, name: &LocalName) {
        if self.with_text && BLOCKS.contains(&&**name) {
            self.scan.text.push('\n');
        }
        let Some(open) = self.open.get_mut(name) else {
            return;
        };
        *open -= 1;
        if *open == 0 {
            self.open.remove(name);
        }
        self.total -= 1;
        if *name == local_name!("svg") || *name == local_name!("math") {
            self.foreign -= 1;
        }
        if skipped_in_text(name) {
            self.skipped -= 1;
        }
    }
}

/// The sink [`scan`] hands the tokenizer (which takes `&self`).
struct Sink(RefCell<Scanner>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut scanner = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return scanner.start(&tag.name, tag.self_closing),
                TagKind::EndTag => scanner.end(&tag.name),
            },
            // Line breaks in text are white space, as a browser shows them.
            Token::CharacterTokens(text) if scanner.with_text && scanner.skipped == 0 => {
                let spaced = text
                    .chars()
                    .map(|c| if c.is_whitespace() { ' ' } else { c });
                scanner.scan.text.extend(spaced);
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// One pass over the page's tokens: its estimated depth, its elements, and its text when
/// `with_text`.
fn scan(html: &str, with_text: bool) -> Scan {
    let scanner = Scanner {
        with_text,
        ..Scanner::default()
    };
    let tokenizer = Tokenizer::new(Sink(RefCell::new(scanner)), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    // Only `Script` stops the tokenizer early, and this sink never asks for it.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.0.take().scan
}

/// Folds white space within each line to single spaces, and drops empty lines.
fn fold(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.lines() {
        for (i, word) in line.split_whitespace().enumerate() {
            if i > 0 {
                out.push(' ');
            } else if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "<div>".repeat(depth), "</div>".repeat(depth))
    }

    /// Runs `f` on a thread with a blocking thread's stack (tokio's default: 2 MiB).
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn a_page_at_the_limit_is_markdown_on_a_blocking_threads_stack() {
        // `html`, `body`, the divs and `b`: the deepest element is MAX_DEPTH deep.
        let page = nested(MAX_DEPTH - 3, "<b>bold</b>");
        let md = on_small_stack(move || simplify(&page));
        assert_eq!(md, "**bold**");
    }

    #[test]
    fn a_page_past_the_limit_is_text_with_a_note() {
        let note = "<error>The page nests elements more than 512 deep, too deep to convert to \
                    Markdown; here is its text.</error>\n\n";
        // Told by the scan (5,000 and 100,000 deep: never built into a tree), or by the tree
        // (512 divs in `html` and `body`; tables nested 200 deep, each with its implied
        // `tbody` and its `tr` and `td`, which the scan counts once).
        let tables = format!(
            "{}<p>deep <b>bold</b> text</p>{}",
            "<table><tr><td>".repeat(200),
            "</td></tr></table>".repeat(200)
        );
        let pages = [MAX_DEPTH, 5_000, 100_000].map(|depth| {
            nested(
                depth,
                "<p>deep <b>bold</b> text</p><script>x('<div>')</script>",
            )
        });
        for page in pages.into_iter().chain([tables]) {
            let scanned = scan(&page, false).depth;
            let out = on_small_stack(move || simplify(&page));
            assert_eq!(out, format!("{note}deep bold text"), "estimated {scanned}");
        }
    }

    #[test]
    fn the_estimate_is_not_fooled_into_deep_by_ordinary_pages() {
        // Thousands of unclosed list items and paragraphs, scripts and styles full of tags,
        // an inline SVG of self-closing shapes: shallow, as a browser builds them.
        let page = format!(
            "<!doctype html><html><head><title>t</title><style>{}</style></head><body>\
             <ul>{}</ul>{}<script>{}</script><svg>{}</svg><img><br><input></body></html>",
            "div > p {}".repeat(1000),
            "<li>item".repeat(5000),
            "<p>para".repeat(5000),
            "document.write('<div>');".repeat(1000),
            "<path d='M0 0'/>".repeat(5000),
        );
        let scan = scan(&page, false);
        assert!(scan.depth <= 6, "{}", scan.depth);
        assert!(!simplify(&page).starts_with("<error>"));
    }

    #[test]
    fn text_keeps_lines_and_folds_space() {
        let page = format!(
            "<head><title>T</title></head><body><h1>Title</h1>  <p>one\n  two</p>\
             <ul><li>a</li><li>b</li></ul>x<br>y<nav>menu</nav>{}",
            nested(MAX_DEPTH, "end")
        );
        let out = simplify(&page);
        let text = out.split_once("</error>\n\n").unwrap().1;
        assert_eq!(text, "Title\none two\na\nb\nx\ny\nend");
    }

    #[test]
    fn a_page_of_too_many_elements_is_text_and_text_is_collected_only_then() {
        let spans = |n: usize| format!("<div>{}</div>", "<span>x</span>".repeat(n));
        let many = simplify(&spans(MAX_ELEMENTS + 1));
        assert!(
            many.starts_with("<error>The page has more than 100000 elements"),
            "{}",
            &many[..200]
        );
        assert!(many.ends_with("xxxx"));
        assert!(!simplify(&spans(1000)).starts_with("<error>"));
        assert!(scan(&spans(10), false).text.is_empty());
        assert_eq!(scan(&spans(10), false).elements, 11);
        assert_eq!(scan(&spans(3), true).text, "\nxxx\n");
    }

    #[test]
    fn depth_counts_elements_only() {
        let converter = htmd::HtmlToMarkdown::new();
        let tree = converter.html_to_tree(&nested(10, "text")).unwrap();
        // html, body and ten divs.
        assert!(!depth_exceeds(&tree, 12));
        assert!(depth_exceeds(&tree, 11));
    }
}
