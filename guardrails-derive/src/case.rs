//! Serde's `rename_all` rules, applied to field names (`snake_case` in Rust) and variant names
//! (`PascalCase` in Rust) exactly as serde applies them, so the names the validator accepts are
//! the names serde would read.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// The rules serde accepts, by the name `rename_all` gives them.
pub(crate) const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    pub(crate) fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                lower_first(&pascal)
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    pub(crate) fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => lower_first(variant),
            Self::Snake => {
                let mut out = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::RULES;

    #[test]
    fn fields_follow_serde() {
        let cases = [
            ("lowercase", "due_before"),
            ("UPPERCASE", "DUE_BEFORE"),
            ("PascalCase", "DueBefore"),
            ("camelCase", "dueBefore"),
            ("snake_case", "due_before"),
            ("SCREAMING_SNAKE_CASE", "DUE_BEFORE"),
            ("kebab-case", "due-before"),
            ("SCREAMING-KEBAB-CASE", "DUE-BEFORE"),
        ];
        for (rule, want) in cases {
            assert_eq!(
                crate::names::lookup(RULES, rule)
                    .unwrap()
                    .apply_to_field("due_before"),
                want,
                "{rule}"
            );
        }
    }

    #[test]
    fn variants_follow_serde() {
        let cases = [
            ("lowercase", "inprogress"),
            ("UPPERCASE", "INPROGRESS"),
            ("PascalCase", "InProgress"),
            ("camelCase", "inProgress"),
            ("snake_case", "in_progress"),
            ("SCREAMING_SNAKE_CASE", "IN_PROGRESS"),
            ("kebab-case", "in-progress"),
            ("SCREAMING-KEBAB-CASE", "IN-PROGRESS"),
        ];
        for (rule, want) in cases {
            assert_eq!(
                crate::names::lookup(RULES, rule)
                    .unwrap()
                    .apply_to_variant("InProgress"),
                want,
                "{rule}"
            );
        }
    }
}
