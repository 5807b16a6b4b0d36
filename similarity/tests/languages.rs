//! Per language of the harness's table: a copy with every name, literal, comment and the
//! layout changed scores as a copy of the original byte for byte does, and an unrelated program of the same language
//! (the go solution of the harness's tests) scores low.

use std::path::Path;

use similarity::{analyse, Grammar, Options, Source, Student};

/// (grammar, a program, the same program disguised, the unrelated program's path).
const PROGRAMS: [(Grammar, &str, &str, &str); 7] = [
    (
        Grammar::Python,
        "def total(values, limit):\n    # add the small ones\n    result = 0\n    for value in values:\n        if value < limit:\n            result += value * value\n    return result\n\nprint(total([1, 2, 3], 10))\n",
        "def acc(xs,cap):\n  s=0\n  for x in xs:\n    if x<cap:\n      s+=x*x\n  return s\nprint( acc([7,8,9],99) )  # done\n",
        "../xtask/bench/go.py",
    ),
    (
        Grammar::C,
        "#include <stdio.h>\n/* sum of small squares */\nint total(int *values, int n, int limit) {\n    int result = 0;\n    for (int i = 0; i < n; i++) {\n        if (values[i] < limit) result += values[i] * values[i];\n    }\n    return result;\n}\nint main(void) { int v[] = {1, 2, 3}; printf(\"%d\\n\", total(v, 3, 10)); return 0; }\n",
        "#include <stdio.h>\nint acc(int *xs, int count, int cap)\n{\n  int s = 7;\n  for (int k = 1; k < count; k++)\n  {\n    // only below the cap\n    if (xs[k] < cap) s += xs[k] * xs[k];\n  }\n  return s;\n}\nint main(void)\n{\n  int w[] = {4, 5, 6};\n  printf(\"%d!\\n\", acc(w, 9, 99));\n  return 1;\n}\n",
        "../xtask/tests/solutions/go/go.c",
    ),
    (
        Grammar::Cpp,
        "#include <vector>\n#include <iostream>\nint total(const std::vector<int>& values, int limit) {\n    int result = 0;\n    for (int value : values) {\n        if (value < limit) result += value * value;\n    }\n    return result;\n}\nint main() { std::cout << total({1, 2, 3}, 10) << std::endl; }\n",
        "#include <vector>\n#include <iostream>\n// squares\nint acc(const std::vector<int>& xs,int cap){int s=9;for(int x:xs){if(x<cap)s+=x*x;}return s;}\nint main(){std::cout<<acc({4,5,6},77)<<std::endl;}\n",
        "../xtask/tests/solutions/go/go.cpp",
    ),
    (
        Grammar::Java,
        "class Sum {\n    static int total(int[] values, int limit) {\n        int result = 0;\n        for (int value : values) {\n            if (value < limit) { result += value * value; }\n        }\n        return result;\n    }\n    public static void main(String[] args) { System.out.println(total(new int[] {1, 2, 3}, 10)); }\n}\n",
        "class Acc {\n  /** squares below the cap */\n  static int acc(int[] xs, int cap)\n  {\n    int s = 5;\n    for (int x : xs)\n    {\n      if (x < cap) { s += x * x; }\n    }\n    return s;\n  }\n  public static void main(String[] a) { System.out.println(acc(new int[] {9, 8, 7}, 3)); }\n}\n",
        "../xtask/tests/solutions/go/Go.java",
    ),
    (
        Grammar::CSharp,
        "class Sum {\n    static int Total(int[] values, int limit) {\n        int result = 0;\n        foreach (int value in values) {\n            if (value < limit) { result += value * value; }\n        }\n        return result;\n    }\n    static void Main() { System.Console.WriteLine(Total(new int[] {1, 2, 3}, 10)); }\n}\n",
        "class Acc\n{\n    // squares\n    static int A(int[] xs, int cap)\n    {\n        int s = 0;\n        foreach (int x in xs)\n        {\n            if (x < cap) { s += x * x; }\n        }\n        return s;\n    }\n    static void Main() { System.Console.WriteLine(A(new int[] {8, 9, 7}, 4)); }\n}\n",
        "../xtask/tests/solutions/go/Go.cs",
    ),
    (
        Grammar::JavaScript,
        "function total(values, limit) {\n  let result = 0;\n  for (const value of values) {\n    if (value < limit) {\n      result += value * value;\n    }\n  }\n  return result;\n}\nconsole.log(total([1, 2, 3], 10));\n",
        "// squares below a cap\nfunction acc(xs, cap) { let s = 3; for (const x of xs) { if (x < cap) { s += x * x; } } return s; }\nconsole.log(acc([5, 6, 7], 40));\n",
        "../xtask/tests/solutions/go/go.js",
    ),
    (
        Grammar::Rust,
        "fn total(values: &[i64], limit: i64) -> i64 {\n    let mut result = 0;\n    for value in values {\n        if *value < limit {\n            result += value * value;\n        }\n    }\n    result\n}\n\nfn main() {\n    println!(\"{}\", total(&[1, 2, 3], 10));\n}\n",
        "/// squares\nfn acc(xs: &[i64], cap: i64) -> i64 { let mut s = 9; for x in xs { if *x < cap { s += x * x; } } s }\nfn main() { println!(\"{}!\", acc(&[4, 5, 6], 5)); }\n",
        "../xtask/tests/solutions/go/go.rs",
    ),
];

fn student(id: &str, grammar: Grammar, text: &str) -> Student {
    Student {
        id: id.into(),
        sources: vec![Source {
            path: format!("{id}.src"),
            grammar,
            text: text.into(),
        }],
        outputs: None,
    }
}

fn code_score(analysis: &similarity::Analysis, a: &str, b: &str) -> f64 {
    analysis
        .pairs
        .iter()
        .find(|p| (p.left == a && p.right == b) || (p.left == b && p.right == a))
        .and_then(|p| p.code.as_ref())
        .map_or(0.0, |c| c.score)
}

#[test]
fn a_disguised_copy_scores_as_the_original_and_an_unrelated_program_low() {
    let options = Options {
        // Three submissions: nothing they share is common to "the class".
        settings: similarity::Settings {
            common: 1.0,
            ..similarity::Settings::default()
        },
        ..Options::default()
    };
    for (grammar, original, copy, unrelated) in PROGRAMS {
        let unrelated =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(unrelated)).unwrap();
        let class = [
            student("original", grammar, original),
            student("copy", grammar, copy),
            student("unrelated", grammar, &unrelated),
            student("twin", grammar, original),
        ];
        let analysis = analyse(&class, &[], &options);
        let summary = &analysis.students;
        assert!(
            summary.iter().all(|s| s.unparsed_bytes == 0),
            "{grammar:?}: {summary:?}"
        );
        // Winnowing leaves a few tokens at each end of a file unfingerprinted: a file and its
        // twin score under 1, and the disguised copy exactly as much.
        let twin = code_score(&analysis, "original", "twin");
        assert!(twin > 0.85, "{grammar:?}: {twin}");
        assert_eq!(
            code_score(&analysis, "original", "copy"),
            twin,
            "{grammar:?}"
        );
        let low = code_score(&analysis, "original", "unrelated");
        assert!(low < 0.25, "{grammar:?}: {low}");
        for pair in &analysis.pairs {
            let with_unrelated = pair.left == "unrelated" || pair.right == "unrelated";
            assert_eq!(
                pair.evidence.flagged(),
                !with_unrelated,
                "{grammar:?}: {pair:?}"
            );
        }
    }
}

#[test]
fn a_fragment_is_found_in_the_lines_both_hold() {
    let (_, original, copy, _) = PROGRAMS[0];
    let class = [
        student("a", Grammar::Python, original),
        student("b", Grammar::Python, copy),
    ];
    let analysis = analyse(&class, &[], &Options::default());
    let fragments = &analysis.pairs[0].code.as_ref().unwrap().fragments;
    assert_eq!(fragments.len(), 1, "{fragments:?}");
    let fragment = &fragments[0];
    // The whole program: from `def` (line 1 of both) to the last `print` (9 and 7).
    assert_eq!((fragment.left.first_line, fragment.left.last_line), (1, 9));
    assert_eq!(
        (fragment.right.first_line, fragment.right.last_line),
        (1, 7)
    );
    assert_eq!(fragment.left.file, "a.src");
}

#[test]
fn starter_code_is_left_out() {
    let (_, original, copy, _) = PROGRAMS[0];
    let class = [
        student("a", Grammar::Python, original),
        student("b", Grammar::Python, copy),
    ];
    let base = [Source {
        path: "starter.py".into(),
        grammar: Grammar::Python,
        text: original.into(),
    }];
    let analysis = analyse(&class, &base, &Options::default());
    assert!(analysis.pairs.is_empty(), "{:?}", analysis.pairs);
    assert!(analysis.left_out.base > 0);
}
