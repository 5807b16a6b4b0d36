//! A source file as the stream of tokens its language's real parser sees, with what students
//! change to hide a copy set aside: comments and layout are dropped, every identifier is one
//! token `I`, every string or character literal `S` and every number `N`. What is left is the
//! program's shape: keywords, operators, punctuation and the kinds of the parser's leaves.
//!
//! The parsers are tree-sitter's grammars, one per language of the harness's language table
//! ([`Grammar::named`] by the table's name); a file the parser cannot read whole still yields
//! the tokens of what it could, and says how much it could not.

use tree_sitter::{Node, Parser};

/// A language whose sources can be tokenised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grammar {
    C,
    Cpp,
    CSharp,
    Java,
    JavaScript,
    Python,
    Rust,
}

impl Grammar {
    /// Every grammar, in the order of the harness's language table.
    pub const ALL: [Grammar; 7] = [
        Grammar::C,
        Grammar::Cpp,
        Grammar::Java,
        Grammar::CSharp,
        Grammar::Rust,
        Grammar::Python,
        Grammar::JavaScript,
    ];

    /// The grammar of a language by its name in the language table (`cpp`, `csharp`, ...).
    pub fn named(name: &str) -> Option<Grammar> {
        Grammar::ALL.into_iter().find(|g| g.name() == name)
    }

    /// Its name in the language table.
    pub fn name(self) -> &'static str {
        match self {
            Grammar::C => "c",
            Grammar::Cpp => "cpp",
            Grammar::CSharp => "csharp",
            Grammar::Java => "java",
            Grammar::JavaScript => "javascript",
            Grammar::Python => "python",
            Grammar::Rust => "rust",
        }
    }

    fn language(self) -> tree_sitter::Language {
        match self {
            Grammar::C => tree_sitter_c::LANGUAGE.into(),
            Grammar::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Grammar::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
        }
    }
}

/// One token: its normalised kind, hashed, and the lines of the file it spans (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: u64,
    pub first_line: u32,
    pub last_line: u32,
}

/// A file's tokens, and how many of its bytes the parser could not read.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    pub tokens: Vec<Token>,
    /// Bytes under the parser's error nodes: a file that is not of its language, or is broken.
    pub unparsed_bytes: usize,
}

/// How deep brackets may nest in a file that is read: deeper, a file is counted as unparsed
/// (no program of a course nests so deep, and a hostile one would cost the parser).
pub const MAX_NESTING: usize = 256;

/// How many tokens a file may make: more, it is counted as unparsed, so that one file costs
/// the class's analysis what any file costs.
pub const MAX_TOKENS: usize = 100_000;

/// How deep `source`'s brackets nest, counted without reading it (strings and comments too).
fn nesting(source: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for byte in source.bytes() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The tokens of `source`, read as `grammar`; none, the whole file counted as unparsed, for a
/// file nested deeper than [`MAX_NESTING`] or of more than [`MAX_TOKENS`] tokens.
pub fn tokenize(grammar: Grammar, source: &str) -> Tokens {
    let unparsed = || Tokens {
        tokens: Vec::new(),
        unparsed_bytes: source.len(),
    };
    if nesting(source) > MAX_NESTING {
        return unparsed();
    }
    let mut parser = Parser::new();
    let mut out = Tokens::default();
    // Fails only for a grammar of another ABI than the library's; a test tokenises each one.
    if parser.set_language(&grammar.language()).is_err() {
        return out;
    }
    let Some(tree) = parser.parse(source, None) else {
        return out;
    };
    // An explicit stack: a deeply nested file must not exhaust the thread's stack.
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() {
            out.unparsed_bytes += node.byte_range().len();
        }
        match class_of(node) {
            Class::Skip => continue,
            Class::Emit(kind) => out.tokens.push(token(kind, node)),
            Class::Descend => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.children(&mut cursor).collect();
                if children.is_empty() {
                    if !node.is_missing() {
                        out.tokens.push(token(node.kind(), node));
                    }
                } else {
                    stack.extend(children.into_iter().rev());
                }
            }
        }
        if out.tokens.len() > MAX_TOKENS {
            return unparsed();
        }
    }
    out
}

/// The 64-bit FNV-1a hash of `bytes`: stable across runs, machines and compiler versions.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn token(kind: &str, node: Node) -> Token {
    Token {
        kind: fnv1a(kind.as_bytes()),
        first_line: node.start_position().row as u32,
        last_line: node.end_position().row as u32,
    }
}

enum Class {
    /// Not part of the program's shape (a comment): dropped with what it holds.
    Skip,
    /// One token for the whole node (an identifier, a literal), its parts not looked into.
    Emit(&'static str),
    /// Its children's tokens, or its own kind if it has none.
    Descend,
}

fn class_of(node: Node) -> Class {
    let kind = node.kind();
    if kind.contains("comment") {
        return Class::Skip;
    }
    if kind == "identifier" || kind.ends_with("_identifier") || kind == "name" {
        return Class::Emit("I");
    }
    if is_literal(kind) {
        if kind.contains("string") || kind.contains("char") {
            return Class::Emit("S");
        }
        if kind.contains("true") || kind.contains("false") || kind.contains("bool") {
            return Class::Emit("B");
        }
        if kind.contains("null") || kind.contains("none") {
            return Class::Descend;
        }
        return Class::Emit("N");
    }
    Class::Descend
}

fn is_literal(kind: &str) -> bool {
    kind.ends_with("_literal")
        || matches!(
            kind,
            "string" | "concatenated_string" | "template_string" | "integer" | "float" | "number"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(grammar: Grammar, source: &str) -> Vec<u64> {
        tokenize(grammar, source)
            .tokens
            .iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn every_grammar_parses_a_program_of_its_language() {
        let programs = [
            (Grammar::C, "int main(void) { int x = 1; return x; }"),
            (
                Grammar::Cpp,
                "int main() { std::vector<int> v{1}; return v[0]; }",
            ),
            (Grammar::Java, "class A { void f() { int x = 1; } }"),
            (Grammar::CSharp, "class A { void F() { int x = 1; } }"),
            (Grammar::Rust, "fn main() { let x = 1; }"),
            (Grammar::Python, "def f(x):\n    return x + 1\n"),
            (Grammar::JavaScript, "function f(x) { return x + 1; }"),
        ];
        for (grammar, program) in programs {
            let tokens = tokenize(grammar, program);
            assert!(tokens.tokens.len() > 8, "{grammar:?}: {:?}", tokens.tokens);
            assert_eq!(tokens.unparsed_bytes, 0, "{grammar:?}");
        }
    }

    #[test]
    fn names_literals_comments_and_layout_do_not_count() {
        let a = "def area(w, h):\n    # width times height\n    return w * h + 1\nprint(area(2, 'x'))\n";
        let b = "def f(a,b):\n    return a*b+42\n\n\n\nprint( f(3, \"yy\") )  # done\n";
        assert_eq!(kinds(Grammar::Python, a), kinds(Grammar::Python, b));
        let c = "/* c */ int sq(int n) { return n * n; }";
        let d = "int\nsquare(int value)\n{\n  // d\n  return value*value;\n}\n";
        assert_eq!(kinds(Grammar::C, c), kinds(Grammar::C, d));
    }

    #[test]
    fn the_shape_counts() {
        let a = "def f(w, h):\n    return w * h\n";
        let b = "def f(w, h):\n    return w + h\n";
        let c = "def f(w, h):\n    while w:\n        return h\n";
        assert_ne!(kinds(Grammar::Python, a), kinds(Grammar::Python, b));
        assert_ne!(kinds(Grammar::Python, a), kinds(Grammar::Python, c));
    }

    #[test]
    fn a_broken_file_says_how_much_could_not_be_read() {
        let tokens = tokenize(Grammar::Python, "def f(:\n    return )))\nx = 1\n");
        assert!(tokens.unparsed_bytes > 0);
        assert!(!tokens.tokens.is_empty());
    }

    #[test]
    fn tokens_carry_their_lines() {
        let tokens = tokenize(Grammar::Python, "x = 1\n\ny = 'a\\\nb'\n");
        assert_eq!(tokens.tokens.first().map(|t| t.first_line), Some(0));
        let last = tokens.tokens.last().copied();
        assert_eq!(last.map(|t| (t.first_line, t.last_line)), Some((2, 3)));
    }

    #[test]
    fn fnv1a_is_the_published_function() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    /// A hostile file (brackets nested a million deep, or a million tokens) is counted as
    /// unparsed and makes no token; a file nested as programs are is read.
    #[test]
    fn a_hostile_file_is_unparsed_and_makes_no_token() {
        let deep = "int f() ".to_string() + &"{".repeat(1 << 20);
        let read = tokenize(Grammar::C, &deep);
        assert!(read.tokens.is_empty());
        assert_eq!(read.unparsed_bytes, deep.len());
        let long = "x = 1\n".repeat(MAX_TOKENS);
        let read = tokenize(Grammar::Python, &long);
        assert!(read.tokens.is_empty());
        assert_eq!(read.unparsed_bytes, long.len());
        let fine = "int f() { return g((1 + 2) * h[3]); }\n";
        let read = tokenize(Grammar::C, fine);
        assert!(read.tokens.len() > 10 && read.unparsed_bytes == 0);
        assert_eq!(nesting(fine), 3);
    }
}
