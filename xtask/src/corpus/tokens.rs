//! The flags of the problem package format's default output validator (`case_sensitive`,
//! `space_change_sensitive`, `float_relative_tolerance`, `float_absolute_tolerance`,
//! `float_tolerance`): how a package's group compares outputs. The comparison itself is the
//! judge's.

/// The default validator's flags.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tokens {
    pub case_sensitive: bool,
    pub space_change_sensitive: bool,
    pub relative: Option<f64>,
    pub absolute: Option<f64>,
}

impl Tokens {
    /// The flags of a `validator_flags` list; `Err` names a flag the default validator does
    /// not take, or a tolerance that is not a number.
    pub fn parse(flags: &[String]) -> Result<Tokens, String> {
        let mut tokens = Tokens::default();
        let mut words = flags.iter();
        while let Some(flag) = words.next() {
            let mut tolerance = || -> Result<f64, String> {
                let value = words
                    .next()
                    .ok_or_else(|| format!("`{flag}` needs a number after it"))?;
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| format!("`{flag} {value}`: not a tolerance"))
            };
            match flag.as_str() {
                "case_sensitive" => tokens.case_sensitive = true,
                "space_change_sensitive" => tokens.space_change_sensitive = true,
                "float_relative_tolerance" => tokens.relative = Some(tolerance()?),
                "float_absolute_tolerance" => tokens.absolute = Some(tolerance()?),
                "float_tolerance" => {
                    let value = tolerance()?;
                    (tokens.relative, tokens.absolute) = (Some(value), Some(value));
                }
                other => {
                    return Err(format!(
                        "`{other}` is not a flag of the default output validator"
                    ))
                }
            }
        }
        Ok(tokens)
    }

    /// Whether numbers are compared within a tolerance (then equal outputs need not be equal
    /// texts, and no hash of the answer can judge them).
    pub fn has_tolerance(&self) -> bool {
        self.relative.is_some() || self.absolute.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_and_unknown_ones_or_missing_numbers_refused_by_name() {
        let words = |w: &str| -> Vec<String> { w.split_whitespace().map(String::from).collect() };
        let tokens = Tokens::parse(&words("case_sensitive float_tolerance 1e-6")).unwrap();
        assert!(tokens.case_sensitive && !tokens.space_change_sensitive);
        assert_eq!((tokens.relative, tokens.absolute), (Some(1e-6), Some(1e-6)));
        let parse = |w: &str| Tokens::parse(&[w.to_string()]).unwrap_err();
        assert!(parse("float_tolerance").contains("needs a number"));
        assert!(parse("ignore_everything").contains("ignore_everything"));
    }
}
