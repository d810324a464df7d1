//! What the validator is sure an unknown key meant, in the structured form the corrected call
//! of a repeated call applies ([`correction`](super::correction)); the issues word the same in
//! text.

/// One step of a place in the arguments as sent: a key of an object, an item of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// One step of a declared field's place: a field, or each item of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlaceStep {
    Field(String),
    Each,
}

/// What the server is sure an unknown key meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Meant {
    /// The field of the same object with this name.
    Rename(String),
    /// The field at this declared place (its last step is the field).
    Move(Vec<PlaceStep>),
}

/// An unknown key and what the validator said it meant: the structured form of a
/// did-you-mean or a misplaced field's place, kept beside the issue that words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suggestion {
    /// The place of the unknown key itself.
    pub(crate) key: Vec<Step>,
    pub(crate) meant: Meant,
}

impl Suggestion {
    /// The key `key` of the object at the JSON pointer `container` (as a validator of JSON
    /// Schemas reports it), meant as the field `to` of that object.
    pub(crate) fn rename_at_pointer(container: &str, key: &str, to: &str) -> Self {
        let mut steps: Vec<Step> = container
            .split('/')
            .skip(1)
            .map(|s| Step::Key(s.replace("~1", "/").replace("~0", "~")))
            .collect();
        steps.push(Step::Key(key.to_owned()));
        Self {
            key: steps,
            meant: Meant::Rename(to.to_owned()),
        }
    }
}
