//! The handout section a rule of a built-in spec belongs to: what a failure no consistent
//! misreading explains is grouped by. One bug shows under several rules of one section (a
//! minimum run of four shows under horizontal, vertical and diagonal matching), and a rule's
//! span is where the expected output went wrong, not necessarily the rule the program breaks:
//! the section is as far as the trace can be trusted.

/// The section of the handout the rule `slug` (a trace's span) belongs to, as the words that
/// end "where the handout's rules on ... decide the output".
pub(super) fn family(slug: &str) -> &'static str {
    match slug {
        // Columns.
        "1-empty-field" | "2-contents" | "3-holes" => "the field at the start",
        "5-created"
        | "6-moved"
        | "7-blocked"
        | "8-rotated"
        | "ruled-create-ignored"
        | "ruled-while-matching" => "creating, moving and rotating the faller",
        "timing-3-falls"
        | "9-lands"
        | "10-freezes"
        | "11-postponed"
        | "ruled-created-landed"
        | "timing-idle" => "falling, landing and freezing",
        "4-quit" | "12-game-over" | "18-postponed" => "the end of the game",
        "13-horizontal"
        | "14-vertical"
        | "15-diagonal"
        | "16-longer"
        | "19-start-match"
        | "20-match-after-holes"
        | "timing-1-removal"
        | "timing-1-chain" => "matching and removing jewels",
        "display-no-faller" | "display-bottom" | "display-cells" => "the display",
        // Collapse.
        "unchanged" | "group" => "which blocks are removed",
        "fall" | "shift-left" | "shift-right" | "rest" => "how the board closes up",
        // Connect Four.
        "blank-line" | "header" | "prompt" => "the board's layout and the prompt",
        "grid" | "x-first" | "turns" => "moves and turns",
        "invalid" | "invalid-empty" | "invalid-8-9" | "invalid-length" | "invalid-full"
        | "after-invalid" => "invalid input",
        "win-horizontal" | "win-vertical" | "win-diagonal" | "tie" => "the end of the game",
        // Go.
        "size" | "illegal-character" | "illegal-line-number" => "illegal input",
        "titles" | "blank-lines" | "column-labels" | "row-numbers" | "stones" | "empty" => {
            "the tables' layout"
        }
        "liberties" => "liberties",
        "groups" => "groups",
        _ => "the output",
    }
}

/// The built-in spec whose rule `slug` is; `None` for a slug of none.
pub(super) fn spec(slug: &str) -> Option<&'static str> {
    if super::command::columns_rule(slug) {
        return Some("columns");
    }
    if super::command::connect4_rule(slug) {
        return Some("connect4");
    }
    match family(slug) {
        "which blocks are removed" | "how the board closes up" => Some("collapse"),
        "illegal input" | "the tables' layout" | "liberties" | "groups" => Some("go"),
        _ => None,
    }
}

#[cfg(all(test, feature = "reference"))]
mod tests {
    use super::{family, spec};

    #[test]
    fn every_rule_of_a_built_in_spec_has_a_section() {
        let all = [
            gridjudge::columns::rules::ALL,
            gridjudge::collapse::rules::ALL,
            gridjudge::connect4::rules::ALL,
            gridjudge::go::rules::ALL,
        ];
        let names = ["columns", "collapse", "connect4", "go"];
        for (rules, name) in all.into_iter().zip(names) {
            for rule in rules {
                assert_ne!(family(rule.slug), "the output", "{}", rule.slug);
                assert_eq!(spec(rule.slug), Some(name), "{}", rule.slug);
            }
        }
    }
}
