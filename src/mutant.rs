//! Deliberately wrong variants of the reference ("mutants"), one or more per rule of each spec
//! document, for measuring what the corpus proves: a rule whose variant no case tells apart from
//! the reference is a rule the corpus does not check (`cargo xtask adequacy`).
//!
//! Each variant is a [`Mutant`] with its place in the docs, and the game modules ask [`on`]
//! where they would go wrong. Only a build with the `mutants` feature can switch a variant on,
//! for the current thread, through [`with`]; in every other build [`on`] is a constant `false`,
//! so the shipped reference carries no trace of them and runs as fast.

/// Declares the variants and their table in one place.
macro_rules! mutants {
    ($($variant:ident: $spec:literal, $name:literal, $rule:literal, $what:literal;)*) => {
        /// One wrong variant of the reference.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Mutant {
            $($variant,)*
        }

        /// Every variant, with its spec, its name, the rule of the spec document it breaks
        /// and what it does.
        pub static MUTANTS: &[Info] = &[
            $(Info { mutant: Mutant::$variant, spec: $spec, name: $name, rule: $rule, what: $what },)*
        ];
    };
}

/// A variant as reports name it.
#[derive(Debug)]
pub struct Info {
    pub mutant: Mutant,
    pub spec: &'static str,
    /// `columns-no-diagonal-down`: one spelling, in reports and on the command line.
    pub name: &'static str,
    /// The rule of the spec document it breaks, as the document names it.
    pub rule: &'static str,
    /// What the variant does wrong.
    pub what: &'static str,
}

mutants! {
    ColumnsShortEmptyField: "columns", "columns-short-empty-field", "checklist 1: an empty field of the correct size", "an empty field is displayed one row short";
    ColumnsMirroredContents: "columns", "columns-mirrored-contents", "checklist 2: the contents of the field specified", "the given contents are read right to left";
    ColumnsHolesStay: "columns", "columns-holes-stay", "checklist 3: holes in the given contents fill at once", "jewels of the given contents do not fall into holes";
    ColumnsQuitDisplays: "columns", "columns-quit-displays", "checklist 4: quit with Q", "Q displays the field once more before quitting";
    ColumnsFallerUpsideDown: "columns", "columns-faller-upside-down", "checklist 5: only the bottom jewel is visible at first", "the faller is displayed top jewel first, so its top jewel shows first";
    ColumnsLandedCannotMove: "columns", "columns-landed-cannot-move", "checklist 6: fallers move at any point until frozen", "a landed faller cannot move sideways";
    ColumnsBlockedAboveTop: "columns", "columns-blocked-above-top", "checklist 7: blocked by frozen jewels (the cells of the visible jewels)", "jewels above the top are checked against the bottom rows, as negative indices do";
    ColumnsRotateBackwards: "columns", "columns-rotate-backwards", "checklist 8: rotation (top, middle, bottom) -> (bottom, top, middle)", "rotation turns the other way";
    ColumnsLandedCannotRotate: "columns", "columns-landed-cannot-rotate", "checklist 8: rotated at any point until frozen", "a landed faller cannot rotate";
    ColumnsLandsTickLate: "columns", "columns-lands-tick-late", "checklist 9: fallers land when they cannot move down", "a faller reaching support stays falling until the next tick";
    ColumnsFreezesOnLanding: "columns", "columns-freezes-on-landing", "checklist 10: fallers freeze at the next tick after landing", "a faller freezes in the tick it lands";
    ColumnsLandedAfterMove: "columns", "columns-landed-after-move", "checklist 11: moving a landed faller over a hole postpones freezing", "landed status is not recomputed after a sideways move";
    ColumnsNoGameOver: "columns", "columns-no-game-over", "checklist 12: the game ends when a faller freezes without fitting", "a faller that freezes partly above the top loses its hidden jewels and play goes on";
    ColumnsNoHorizontal: "columns", "columns-no-horizontal", "checklist 13: horizontal matching", "horizontal runs never match";
    ColumnsNoVertical: "columns", "columns-no-vertical", "checklist 14: vertical matching", "vertical runs never match";
    ColumnsNoDiagonalDown: "columns", "columns-no-diagonal-down", "checklist 15: diagonal matching", "runs down to the right never match";
    ColumnsNoDiagonalUp: "columns", "columns-no-diagonal-up", "checklist 15: diagonal matching", "runs up to the right never match";
    ColumnsRunsOfThree: "columns", "columns-runs-of-three", "checklist 16: matched sequences longer than three", "a run longer than three marks only its first three jewels";
    ColumnsOneRun: "columns", "columns-one-run", "checklist 17: several matching sequences at the same time", "only the first run found is marked";
    ColumnsGameOverDespiteMatch: "columns", "columns-game-over-despite-match", "checklist 18 (ruled): game over is postponed by a match that makes everything fit", "GAME OVER whenever a faller freezes partly above the top";
    ColumnsNoStartMatch: "columns", "columns-no-start-match", "checklist 19: matching triggered by the given contents", "the given contents are never matched at the start";
    ColumnsStartMatchBeforeFall: "columns", "columns-start-match-before-fall", "checklist 20: matching after the given contents' holes are filled", "the given contents are matched before their holes fill";
    ColumnsNoChains: "columns", "columns-no-chains", "timing 1: after a removal, new matches show in the same display", "matches made by the fall after a removal are not marked";
    ColumnsNoFallAfterRemoval: "columns", "columns-no-fall-after-removal", "timing 1: jewels above removed ones move down", "jewels above removed ones stay where they are";
    ColumnsCreatedOnSupportFalls: "columns", "columns-created-on-support-falls", "ruled: a faller created on support is landed at once", "a faller created on support shows as falling until the next tick";
    ColumnsCommandsTickWhileMatching: "columns", "columns-commands-tick-while-matching", "ruled: `R`, `<` and `>` have no effect while matches show", "`R`, `<` and `>` make time pass while matches show";
    ColumnsCreateReplaces: "columns", "columns-create-replaces", "ruled: `F` has no effect while a faller exists", "`F` replaces the faller that exists";
    ColumnsCreateOwnColumn: "columns", "columns-create-own-column", "ruled: `F` has no effect while a faller exists", "`F` into the existing faller's own column restarts it from the top";
    ColumnsCreateNearlyFull: "columns", "columns-create-nearly-full", "ruled: `F` has no effect while a faller exists", "`F` while a faller exists ends the game when the named column has its second cell taken";
    ColumnsCreateOwnColumnNearlyFull: "columns", "columns-create-own-column-nearly-full", "ruled: `F` has no effect while a faller exists", "`F` into the faller's own column ends the game when the column, counting the faller's jewels, has no room for three";
    ColumnsCreateOwnColumnFewEmpty: "columns", "columns-create-own-column-few-empty", "ruled: `F` has no effect while a faller exists", "`F` into a falling faller's own column ends the game when the column has at most three empty cells, the faller's own counted as empty";
    ColumnsMinRunFour: "columns", "columns-min-run-four", "matching: three or more equal jewels in a line match", "a run needs four jewels to match";
    ColumnsRemovalSameTick: "columns", "columns-removal-same-tick", "timing 1: matched jewels show as matched until the next tick", "matched jewels are removed, and the jewels above fall, in the tick they match";
    ColumnsColumnOffByOne: "columns", "columns-column-off-by-one", "input: columns are numbered from 1", "a column number is taken as a 0-based index (the last column's number wraps to the first)";
    ColumnsWrapVertical: "columns", "columns-wrap-vertical", "matching: runs lie inside the field", "a vertical run continues from the bottom row to the top row";
    ColumnsWrapDiagonalUp: "columns", "columns-wrap-diagonal-up", "matching: runs lie inside the field", "a `/` diagonal run continues past the top row into the bottom row";
    ColumnsMarkPastGap: "columns", "columns-mark-past-gap", "matching: a run is consecutive equal jewels", "marking a run goes on past one empty cell to an equal jewel";
    ColumnsRowBrokenByVertical: "columns", "columns-row-broken-by-vertical", "matching: all runs are marked at once; a jewel may be in several runs", "a row stops at jewels already marked by a vertical run";
    ColumnsRowEndsInColumns: "columns", "columns-row-ends-in-columns", "matching: all runs are marked at once; a jewel may be in several runs", "a row whose first and last jewels are both already in vertical runs is not marked";
    ColumnsBottomLineNoSpace: "columns", "columns-bottom-line-no-space", "display: the bottom line ends with a space", "the bottom line has no trailing space";
    ColumnsNoDisplayWithoutEffect: "columns", "columns-no-display-without-effect", "display: every command but `Q` is followed by a display", "`R`, `<` and `>` without a faller print nothing";
    ColumnsLandedAsFalling: "columns", "columns-landed-as-falling", "display: a landed faller shows as `|X|`", "a landed faller shows as `[X]`";
    ColumnsFirstDigitColumn: "columns", "columns-first-digit-column", "input: a column number may have several digits", "a column number is read by its first digit";
    ColumnsNoGameOverLine: "columns", "columns-no-game-over-line", "display: `GAME OVER` on its own line", "`GAME OVER` is not printed";
    CollapseThree: "collapse", "collapse-three", "a group of 4 or more is removed", "a group of 3 is removed too";
    CollapseFiveOrMore: "collapse", "collapse-five-or-more", "a group of 4 or more is removed", "a group of exactly 4 stays";
    CollapseEightConnected: "collapse", "collapse-eight-connected", "groups are 4-connected", "diagonal neighbours join a group";
    CollapseStraightLines: "collapse", "collapse-straight-lines", "groups need not be in a straight line", "only blocks in a straight line from the selected one count";
    CollapseAnyColor: "collapse", "collapse-any-color", "groups connect through blocks of the same colour only", "a group grows through blocks of any colour";
    CollapseNoFall: "collapse", "collapse-no-fall", "blocks above removed ones fall", "blocks do not fall";
    CollapseShiftBeforeFall: "collapse", "collapse-shift-before-fall", "ruled: blocks fall before columns shift", "columns close up before blocks fall";
    CollapseNoShift: "collapse", "collapse-no-shift", "empty columns are filled by shifting columns in", "empty columns stay";
    CollapseAllShiftLeft: "collapse", "collapse-all-shift-left", "left-half empty columns are filled from the left", "every empty column is filled from its right";
    CollapseWideLeftHalf: "collapse", "collapse-wide-left-half", "ruled: the left half is columns 0..C/2-1", "the left half takes one column more";
    CollapseReversedHalf: "collapse", "collapse-reversed-half", "ruled: each half keeps the order of its non-empty columns", "the left half's columns come back in reverse order";
    CollapseSwappedSelection: "collapse", "collapse-swapped-selection", "input: the selection is `r c`, row first", "the selection is read column first";
    CollapseSilentWhenUnchanged: "collapse", "collapse-silent-when-unchanged", "output: an unchanged board is printed", "nothing is printed when nothing is removed";
    Connect4NoHorizontal: "connect4", "connect4-no-horizontal", "four in a row horizontally wins", "horizontal lines never win";
    Connect4NoVertical: "connect4", "connect4-no-vertical", "four in a row vertically wins", "vertical lines never win";
    Connect4NoDiagonalDown: "connect4", "connect4-no-diagonal-down", "four in a row diagonally wins", "lines down to the right never win";
    Connect4NoDiagonalUp: "connect4", "connect4-no-diagonal-up", "four in a row diagonally wins", "lines up to the right never win";
    Connect4ThreeWins: "connect4", "connect4-three-wins", "four in a row wins", "three in a row wins";
    Connect4NoTie: "connect4", "connect4-no-tie", "a full grid ends the game", "a full grid without four in a row does not end the game";
    Connect4WrapsColumns: "connect4", "connect4-wraps-columns", "ruled: `8` and `9` are invalid", "`8` and `9` are columns 0 and 1";
    Connect4FirstCharacter: "connect4", "connect4-first-character", "ruled: exactly one character `0`..`7`", "a line is read by its first character";
    Connect4EmptyLineIgnored: "connect4", "connect4-empty-line-ignored", "ruled: an empty line is invalid", "an empty line is skipped without a message";
    Connect4InvalidShowsBoard: "connect4", "connect4-invalid-shows-board", "invalid input: the message and `Enter a column: ` only", "an invalid input is followed by the whole turn again";
    Connect4FullColumnLosesTurn: "connect4", "connect4-full-column-loses-turn", "a full column is an invalid move", "a move into a full column passes the turn";
    Connect4OFirst: "connect4", "connect4-o-first", "X moves first", "O moves first";
    Connect4NoBlankLine: "connect4", "connect4-no-blank-line", "the board starts with a blank line", "no blank line before the board";
    Connect4WinnerMessage: "connect4", "connect4-winner-message", "no winner message", "a win prints `X wins!` before `Game finished.`";
    GoDiagonalLiberties: "go", "go-diagonal-liberties", "liberties are N, S, E, W only", "diagonal empty intersections count as liberties";
    GoStoneLiberties: "go", "go-stone-liberties", "a group shares its liberties", "each stone shows its own liberties";
    GoRepeatedLiberties: "go", "go-repeated-liberties", "a group's liberties are distinct", "a liberty next to two stones of a group counts twice";
    GoNoLibertyCap: "go", "go-no-liberty-cap", "more than 99 liberties print 99", "liberties above 99 print in full";
    GoDiagonalGroups: "go", "go-diagonal-groups", "groups connect N, S, E, W", "diagonal stones join a group";
    GoColumnOrder: "go", "go-column-order", "groups are numbered in left-to-right, top-to-bottom order", "groups are numbered column by column";
    GoNoGroupModulo: "go", "go-no-group-modulo", "group numbers print modulo 100", "group numbers of 100 and more print in full";
    GoSkipsI: "go", "go-skips-i", "column labels are consecutive letters (no skipped I)", "the column labels skip `I`";
    GoLeftJustifiedRows: "go", "go-left-justified-rows", "row numbers are right-justified in 2 characters", "row numbers are left-justified";
    GoLineFromZero: "go", "go-line-from-zero", "the illegal-character line counts the first board line as 1", "the illegal-character line is counted from 0";
    GoAnySize: "go", "go-any-size", "sizes other than 9, 13 and 19 are illegal", "any size is accepted when the board lines match it";
    GoLowercaseStones: "go", "go-lowercase-stones", "lowercase letters are illegal characters", "`b` and `w` are read as stones";
    GoBlankEmpty: "go", "go-blank-empty", "an empty intersection prints ` .. `", "an empty intersection prints blank in the tables";
    GoNoBlankLines: "go", "go-no-blank-lines", "a blank line before each table", "no blank line between the printings";
}

#[cfg(feature = "mutants")]
thread_local! {
    static ACTIVE: std::cell::Cell<Option<Mutant>> = const { std::cell::Cell::new(None) };
}

/// Whether `mutant` is switched on for this thread: never, without the `mutants` feature.
#[inline(always)]
pub fn on(mutant: Mutant) -> bool {
    #[cfg(feature = "mutants")]
    {
        ACTIVE.with(|active| active.get() == Some(mutant))
    }
    #[cfg(not(feature = "mutants"))]
    {
        let _ = mutant;
        false
    }
}

/// Runs `work` with `mutant` switched on for this thread, and off again afterwards, even if
/// `work` panics.
#[cfg(feature = "mutants")]
pub fn with<R>(mutant: Mutant, work: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ACTIVE.with(|active| active.set(None));
        }
    }
    ACTIVE.with(|active| active.set(Some(mutant)));
    let _reset = Reset;
    work()
}

/// The variant called `name`.
pub fn find(name: &str) -> Option<&'static Info> {
    MUTANTS.iter().find(|info| info.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_start_with_their_spec() {
        let mut names: Vec<&str> = MUTANTS.iter().map(|m| m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), MUTANTS.len());
        for info in MUTANTS {
            assert!(
                info.name.starts_with(&format!("{}-", info.spec)),
                "{}",
                info.name
            );
            assert!(crate::spec::find(info.spec).is_some(), "{}", info.name);
        }
    }
}
