//! What the reference's trace says of each spec beside its output: every rule's handout
//! section, and the command each input line is, which the harness tells a failure by.

use gridjudge::spec::find;

#[test]
fn every_rule_of_a_spec_names_its_handout_section() {
    let all = [
        gridjudge::columns::rules::ALL,
        gridjudge::collapse::rules::ALL,
        gridjudge::connect4::rules::ALL,
        gridjudge::go::rules::ALL,
    ];
    for rules in all {
        for rule in rules {
            assert!(!rule.section.is_empty(), "{}", rule.slug);
            assert_ne!(rule.section, "the output", "{}", rule.slug);
        }
    }
}

#[test]
fn an_input_line_is_its_spec_s_command() {
    let key = |spec: &str, line: &str| {
        let program = (find(spec).unwrap().program)();
        program.command(line.as_bytes()).map(|command| command.key)
    };
    assert_eq!(key("columns", "R"), Some("R"));
    assert_eq!(key("columns", ""), Some("tick"));
    assert_eq!(key("columns", "F 3 S T V"), Some("F"));
    assert_eq!(key("columns", ">"), Some("<>"));
    assert_eq!(key("columns", "XY Z"), Some("start"));
    assert_eq!(key("connect4", "4"), Some("move"));
    // The handout's columns are 0 to 7, and a move is exactly one such character.
    assert_eq!(key("connect4", "0"), Some("move"));
    assert_eq!(key("connect4", "7"), Some("move"));
    assert_eq!(key("connect4", "8"), Some("invalid"));
    assert_eq!(key("connect4", "9"), Some("invalid"));
    assert_eq!(key("connect4", " 3"), Some("invalid"));
    assert_eq!(key("connect4", "10"), Some("invalid"));
    assert_eq!(key("go", "x"), None);
    assert_eq!(key("collapse", "x"), None);
}

/// A trace names each rule's section once, after its words, and each input line's command
/// before the line's `LINE OFFSET` entry, with the command's words once.
#[test]
fn a_trace_names_sections_and_commands() {
    let spec = find("columns").unwrap();
    let (mut output, mut trace) = (Vec::new(), Vec::new());
    let input = &b"4\n3\nEMPTY\nF 1 S T V\n\nR\nQ\n"[..];
    gridjudge::driver::run(spec, input, &mut output, Some(&mut trace)).unwrap();
    let trace = String::from_utf8(trace).unwrap();
    let lines: Vec<&str> = trace.lines().collect();
    let words = lines
        .iter()
        .position(|l| l.starts_with("= 5-created "))
        .unwrap();
    assert_eq!(
        lines[words + 1],
        ": 5-created creating, moving and rotating the faller"
    );
    assert_eq!(trace.matches(": 5-created ").count(), 1, "{trace}");
    // Line 4 is `F 1 S T V`: its command comes right before its entry.
    let entry = lines.iter().position(|l| l.starts_with("4 ")).unwrap();
    assert_eq!(lines[entry - 1], "> F");
    assert!(
        trace.contains("\n! F `F`, the creation of a faller (the handout's commands)\n"),
        "{trace}"
    );
    let entry = lines.iter().position(|l| l.starts_with("6 ")).unwrap();
    assert_eq!(lines[entry - 1], "> R");
    // Go answers its whole input at once: no commands.
    let (mut output, mut trace) = (Vec::new(), Vec::new());
    let go = find("go").unwrap();
    let _ = gridjudge::driver::run(go, &b"9\n.........\n"[..], &mut output, Some(&mut trace));
    assert!(!String::from_utf8(trace).unwrap().contains("> "));
}
