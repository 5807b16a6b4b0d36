//! SQL written once for every query that needs it.

/// The SQL test "not final yet", for the queries that must leave a recorded result alone
/// (a macro, so that every query stays one static string).
macro_rules! not_final {
    () => {
        "status NOT IN ('graded', 'could not build', 'could not run')"
    };
}
