//! Which rule of the spec produced each part of the output: the reference's own account of
//! what it was doing, for a harness that groups a wrong program's failures by the rule whose
//! output went wrong first.
//!
//! A program that keeps [`Spans`] marks, while it writes, the byte ranges of its output with the
//! [`Rule`] that decided them (a cell of a board, a line, a whole display). Spans may nest; the
//! innermost one containing a byte is its rule. Recording is off unless the driver asks for it
//! (`--trace`), so a normal run pays one branch per display.

/// A rule of a spec document, in the handout's words.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// A stable short name, unique within its spec: what causes are keyed on.
    pub slug: &'static str,
    /// The section of the handout the rule belongs to, as the words that end "the handout's
    /// rules on ...": what a failure no misreading explains is told under. One bug shows
    /// under several rules of one section (a minimum run of four under horizontal, vertical
    /// and diagonal matching), and a rule's span is where the expected output went wrong, not
    /// necessarily the rule a program breaks: the section is as far as the trace can be
    /// trusted.
    pub section: &'static str,
    /// The rule as the spec document states it.
    pub words: &'static str,
}

/// A command of a spec's input, as its handout names it: what an input line is to the spec
/// (a rotation, a tick, a move). A failure no misreading explains is told by the command its
/// first difference shows after.
#[derive(Debug, PartialEq, Eq)]
pub struct Command {
    /// Its short form, as a key names it (`R`, `F`, `tick`).
    pub key: &'static str,
    /// In words, with the handout's section that defines it.
    pub words: &'static str,
}

/// Declares a spec's rules as `pub static` items of one module: each with its slug, its
/// handout section and its words.
#[macro_export]
macro_rules! rules {
    ($($name:ident = $slug:literal, $section:literal, $words:literal;)*) => {
        $(pub static $name: $crate::rule::Rule = $crate::rule::Rule {
            slug: $slug,
            section: $section,
            words: $words,
        };)*
        /// Every rule of the module, in the order declared.
        #[allow(dead_code)]
        pub static ALL: &[&$crate::rule::Rule] = &[$(&$name,)*];
    };
}

/// Declares a spec's commands as `pub static` items of one module, each with its key and words.
#[macro_export]
macro_rules! commands {
    ($($name:ident = $key:literal, $words:literal;)*) => {
        $(pub static $name: $crate::rule::Command = $crate::rule::Command {
            key: $key,
            words: $words,
        };)*
    };
}

/// Output bytes `start..end` (offsets into the buffer of one `feed`) were decided by `rule`.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub rule: &'static Rule,
}

/// The spans recorded since the driver last took them.
#[derive(Debug, Default)]
pub struct Spans {
    on: bool,
    list: Vec<Span>,
}

impl Spans {
    /// Starts recording.
    pub fn record(&mut self) {
        self.on = true;
    }

    /// Whether spans are being recorded: a program skips its bookkeeping when not.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Marks `start..end` as decided by `rule`. A span that goes on where the last one of the
    /// same rule ended extends it: a row of cells of one rule is one span.
    pub fn mark(&mut self, start: usize, end: usize, rule: &'static Rule) {
        if !self.on {
            return;
        }
        match self.list.last_mut() {
            Some(last) if std::ptr::eq(last.rule, rule) && last.end == start && start < end => {
                last.end = end;
            }
            _ => self.list.push(Span { start, end, rule }),
        }
    }

    /// Appends `text` to `out`, marked as decided by `rule`.
    pub fn append(&mut self, out: &mut Vec<u8>, text: &[u8], rule: &'static Rule) {
        let at = out.len();
        out.extend_from_slice(text);
        self.mark(at, out.len(), rule);
    }

    /// The spans recorded since the last call.
    pub fn take(&mut self) -> Vec<Span> {
        std::mem::take(&mut self.list)
    }
}
