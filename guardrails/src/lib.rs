#![doc = include_str!("../README.md")]
// docs.rs (`--cfg docsrs`) marks each feature-gated item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod call;
pub mod contract;
#[cfg(feature = "rmcp")]
pub mod mcp;
pub(crate) mod message;
pub mod operate;
pub mod policy;
pub mod profile;
pub mod render;
mod server;
mod text;
pub mod tool;
pub mod validation;

#[path = "tool/present.rs"]
pub mod present;

/// Derives [`ToolArgs`](trait@ToolArgs) for a struct with named fields: a strict one-pass
/// validator, per-field fix texts, a valid example and a JSON Schema, all from the same
/// declarations. On an enum with data it derives a field type (see
/// [Enums with data](#enums-with-data)).
///
/// Derive serde's `Deserialize` beside it as usual; the derive reads serde's `rename`,
/// `rename_all`, `default` (on fields and on the struct) and `skip` / `skip_deserializing`, so the
/// names and defaults it enforces are the ones serde uses. `with` and
/// `deserialize_with` are compile errors: each field is read by its [`ArgValue`]
/// implementation; `flatten` is read as serde reads it (see
/// [Flattened structs](#flattened-structs)). Doc comments become descriptions.
///
/// # Guards
///
/// Constraints are declared with `#[guard(...)]` on a field; several guards may share one
/// attribute or be spread over several. Each is checked at compile time (bounds in order,
/// patterns that compile, known formats, a guard that fits the field's type) and enforced on the
/// JSON value exactly as the emitted JSON Schema keyword says.
///
/// | guard | applies to | JSON Schema | example |
/// |---|---|---|---|
/// | `length(min = A, max = B)`, `length(equal = N)` | strings (characters), arrays (items), maps (entries) | `minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties` | `#[guard(length(min = 3, max = 20))]` |
/// | `non_empty` | strings, arrays, maps | `minLength: 1` / `minItems: 1` / `minProperties: 1` | `#[guard(non_empty)]` |
/// | `range(min, max, exclusive_min, exclusive_max)` | numbers | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | `#[guard(range(min = 18, max = 120))]` |
/// | `multiple_of = N` | numbers | `multipleOf` | `#[guard(multiple_of = 0.25)]` |
/// | `pattern = "regex"` | strings | `pattern` (unanchored, as in JSON Schema) | `#[guard(pattern = "^[a-z0-9_]+$")]` |
/// | `format = "…"` | strings | `format`: `email`, `uri` (`url`), `uuid`, `date`, `date-time`, `time`, `ipv4`, `ipv6`, `hostname` | `#[guard(format = "email")]` |
/// | `one_of(…)` | strings, numbers, booleans: values of the field's own kind | `enum` | `#[guard(one_of("EUR", "USD"))]` |
/// | `unique` | arrays | `uniqueItems` | `#[guard(unique)]` |
/// | `custom = path` | any | (not expressible) | `#[guard(custom = no_weekends)]` with `fn(&T) -> Result<(), String>` |
/// | `policy = "profile"`, `policy = path` | strings, and `Option`, `Box`, `Vec` of them | (not expressible) | `#[guard(policy = "decision")]`, `#[guard(policy = house_rules)]` with `fn() -> &'static Policy` |
/// | `acknowledges_policy` | one `bool` (or `Option<bool>`) field | (none: an ordinary boolean) | `#[serde(default)] #[guard(acknowledges_policy)] acknowledge_warnings: bool` |
/// | `sensitive` | strings, numbers, booleans, `ToolEnum`s, and `Option`, `Box`, `Vec`, maps of them | `writeOnly: true` | `#[guard(sensitive, length(min = 12))] password: String` |
/// | `no_repair` | any | (none) | `#[guard(no_repair)] amount_cents: u64`: a tool that repairs slips ([`RepairPolicy`]) never touches this field's value, nor anything inside it |
/// | `example = literal` | any | `examples` | `#[guard(example = "john_doe")]` |
/// | `description = "…"` | any | `description` | overrides the doc comment |
///
/// An explicit `example` that breaks its own field's guards is a compile error. Without one, the
/// example is built from the guards (a string matching the pattern, a number inside the range
/// and on the step, the first allowed value, …). A `custom` check runs on the typed value after
/// the declared guards pass; on an `Option<T>` field it may take `&T` and then runs only when a
/// value is present. The derive cannot read a `custom` check, so no example can be built to
/// pass it: a field with one states its example (`#[guard(custom = f, example = ..)]`, or the
/// struct's), or it does not compile, as a struct-level `check` without one does not.
///
/// # Struct-level rules
///
/// `#[guard(..)]` on the struct itself takes these guards:
///
/// | guard | what it does | example |
/// |---|---|---|
/// | `check(path, fields(a, ..))` (repeatable) | a rule across the fields it names: `fn(A, ..) -> Result<(), E>`, given each named field's typed value in the order named, taken as `&T`, as `T` when `Copy` or as `Option<&U>` for an `Option<U>` (see [`FieldArg`]), with `E` a [`FieldIssue`] or a `Vec<FieldIssue>`; runs in the same pass whenever those fields passed their own guards, whatever else failed, so a call with several mistakes hears about the rule too; each issue reported at the field it names, with what was sent there and the field's fix text | `#[guard(check(end_after_start, fields(start, end)))]` |
/// | `check = path` (repeatable) | a rule across fields: `fn(&Self) -> Result<(), E>` with `E` a [`FieldIssue`] or a `Vec<FieldIssue>`; runs in the same pass once every field passed its own guards (unknown keys do not stop it), each issue reported at the field it names, with what was sent there and the field's fix text | `#[guard(check = end_after_start)]` |
/// | `example = "{…}"` | the struct's example, a JSON object: the fields it sets take its values, the others keep the example built from their guards | `#[guard(example = r#"{"start": 9, "end": 10}"#)]` |
///
/// Prefer `check(f, fields(..))`: a `check = f` needs the whole struct, so it is heard only once
/// every field is right, one more round trip for a call with several mistakes. A struct with a
/// `check` of either form must state its example (on the struct, or `example` on a field), or
/// it does not compile: no example can be built to pass a rule the derive cannot read.
///
/// **The example guarantee.** No rejection shows, and no schema advertises, an example that the
/// type's own validator rejects. What the derive can see it proves at compile time; a `custom`
/// check or a struct-level `check` is proven at run time by
/// [`ToolArgs::checked_example`](trait@ToolArgs), which validates the example with every rule,
/// once per type. [`Server::tool`] refuses a tool whose example a rule rejects (a panic at
/// startup that names the tool and each issue), and a rejection or schema of such a type shows
/// no example rather than a wrong one. Patterns use the `regex` crate's syntax; prefer constructs that mean the
/// same in ECMA-262 (which clients read the schema with): explicit classes such as `[0-9]`
/// rather than `\d`, no inline flags.
///
/// # Sensitive fields
///
/// A field marked `sensitive` (passwords, tokens, card numbers, personal data) is checked like
/// any other, but its value is never echoed: an issue about it says what kind of value was sent
/// and its size, `You sent: (withheld: a string of 7 characters)`, never the content, in every
/// format; so does an issue about a misspelt or misplaced key that names it (`pasword`, or a
/// card's `number` sent at the top level), and the keys of a sensitive map. Its example is a
/// placeholder (asterisks, when they pass its guards) and its schema says `writeOnly: true`.
/// The guard fits values without fields of their own: on a nested arguments struct, mark the
/// struct's own sensitive fields (a compile error says so). It cannot be combined with `policy`,
/// whose findings quote the text they flag; a `custom` check's message is yours, so do not put
/// the value in it. A server that must echo no value at all, sensitive or not, turns
/// [`RenderOptions::with_echo_values`] off.
///
/// ```
/// use guardrails::ToolArgs;
///
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct Login {
///     user: String,
///     #[guard(sensitive, length(min = 12))]
///     password: String,
/// }
///
/// let call = serde_json::json!({"user": "ada", "password": "hunter2"});
/// let report = Login::validate_value(call).err().unwrap();
/// let issue = report.at("password").unwrap();
/// assert_eq!(issue.received.as_deref(), Some("(withheld: a string of 7 characters)"));
/// assert_eq!(Login::example()["password"], "************");
/// assert_eq!(Login::schema().get("properties").unwrap()["password"]["writeOnly"], true);
/// ```
///
/// # Misplaced fields
///
/// A model often sends a field at the wrong level: `quantity` beside `lines` when it belongs in
/// each line, `search` beside `filter` instead of inside it, a top-level field inside a nested
/// object. An unknown key that is the name of a field at another level of the arguments (or
/// close to one, by the same did-you-mean as misspelt keys, after a near miss at its own level)
/// is pointed to its place: "`quantity` is a field of each item of `lines`: move it there",
/// with the fix "send it as `lines[i].quantity`"; and a missing-field issue at that place says
/// where it was sent instead.
///
/// ```
/// use guardrails::ToolArgs;
///
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct Line {
///     sku: String,
///     quantity: u32,
/// }
///
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct Order {
///     lines: Vec<Line>,
/// }
///
/// let call = serde_json::json!({"lines": [{"sku": "A-1"}], "quantity": 2});
/// let report = Order::validate_value(call).err().unwrap();
/// let misplaced = report.at("quantity").unwrap();
/// assert!(misplaced.message.contains("`quantity` is a field of each item of `lines`: move it there."));
/// let missing = report.at("lines[0].quantity").unwrap();
/// assert!(missing.message.ends_with("It was sent as `quantity` instead: move it here."));
/// ```
///
/// # Output policies on text arguments
///
/// `policy` checks the text an agent writes into a field against an output
/// [`Policy`](policy::Policy): a built-in profile by name (`"base"`, `"observation"`,
/// `"decision"`; a misspelt name is a compile error with a suggestion), or the path of a
/// `fn() -> &'static Policy`, for instance one that returns a policy kept in a `LazyLock`.
///
/// The built-in profiles are for **analysis and decision documents**: the findings,
/// recommendations and plans that reasoning agents write, where an invented figure or an
/// unsourced claim misleads whoever acts on it. They hold every figure to its methodology or
/// source, which is wrong for business text: on an invoice, "A late fee of $25 applies" is a
/// fact, and every profile (`base` included) blocks its dollar amount. For invoices, receipts,
/// notices and the like, give the field a **custom policy** with the rules that text needs
/// (built with [`Policy::builder`](policy::Policy::builder), as below, or read from a TOML file
/// with [`Policy::from_toml_str`](policy::Policy::from_toml_str)).
///
/// | profile | for | what it catches |
/// |---|---|---|
/// | `base` | every analysis or decision document | critical: a dollar amount, a percentage, or a figure phrase ("ROI of 40%", "saves $50,000", "costs $9,000", "40% reduction", "3x improvement", "25% faster") not followed by an `[AI estimation …]` or `[Source: …]` tag; a quotation without `[Source: …]`; an empty `[Source: ]`. Warnings: "guaranteed results", overconfident words (will, definitely, …), an estimate without its tag, a vague source (`[Source: internal]`), "according to …" without a source, an inference, assumption or uncertainty without its `[Inference: …]`, `[Assumption: …]` or `[Uncertain: …]` tag |
/// | `observation` | agents that analyse: facts only | `base`, plus critical: speculation (suggests, implies, likely, …), a text with no `[Source: …]` at all, and the document-claim and inference tags |
/// | `decision` | agents that propose: controlled estimation | `base`, plus critical: guarantees ("guaranteed", "certain to"); a warning when no estimate states its methodology (`[AI estimation based on …]`); advisories on ROI wording and unjustified timelines |
///
/// A figure with its tag passes every figure rule: "a 40% reduction [AI estimation based on
/// pilot volumes]" and "$120,000 [Source: budget.md]" are accepted, "a 40% reduction" is not.
/// [`Profile`](policy::Profile) lists every rule by name.
///
/// A policy runs once the field's other guards (and its `custom` check) have passed, on each
/// string the field holds (each item of a list at its own path, `items[2]`), and its issues
/// are reported in the same pass as every other issue:
///
/// - each **critical** violation is an issue with code `policy`, whose message names the rule
///   and quotes the text found (with its line and column; "You sent" shows the part of a long
///   text around it), and whose fix gives the approved alternative (and the automatic
///   replacement, when the rule has one): the model rewrites its text and calls again;
/// - **warnings** follow the PENDING status of a verdict: they hold the call back only when
///   the struct has a field marked `acknowledges_policy` and the call did not send it `true`.
///   Each is then a `policy` issue whose fix says to rewrite the text or, if the wording is
///   intentional, to call again with that field set to `true`. Without an acknowledgement
///   field, warnings do not block. An acknowledgement covers the policy fields of its own
///   struct, never a critical violation;
/// - **advisories** never block.
///
/// At most one field acknowledges, it must be a `bool` or `Option<bool>` (give it
/// `#[serde(default)]`, so that calls without warnings need not send it), and the struct must
/// have a field with a policy. The acknowledgement is the model's decision, so the valid
/// example and the schema's `examples` show it `false` (every generated boolean example is
/// `false`, the value a flag has when not sent); do not give it an `example = true`. A policy
/// does not change the JSON Schema: what it checks cannot be expressed there, so clients learn
/// it from the issues. It is part of the tool's [`contract`]: adding, changing or
/// removing it shows in the lockfile. The generated example of a policy field is the generic
/// one (`"example"`); when the policy requires text it lacks (the `observation` profile
/// requires a `[Source: …]` tag, and `decision` warns without an `[AI estimation based on …]`
/// one, a warning the example does not acknowledge), give the field an `example` that
/// satisfies the policy, so that the arguments' example still validates.
///
/// ```
/// use std::sync::LazyLock;
///
/// use guardrails::policy::{Policy, Rule};
/// use guardrails::{IssueCode, ToolArgs};
///
/// /// What an invoice's notes may say: amounts are facts there, card numbers and
/// /// placeholders are not welcome, promises need a second look.
/// static INVOICE_TEXT: LazyLock<Policy> = LazyLock::new(|| {
///     Policy::builder()
///         .critical(
///             Rule::forbidden("card_number", r"\b(?:\d[ -]?){13,16}\b")
///                 .message("Card numbers never go into invoice text.")
///                 .alternative("The last four digits: \"card ending 4242\""),
///         )
///         .critical(Rule::forbidden_words("placeholder", ["TODO", "TBD", "lorem ipsum"]))
///         .warning(Rule::forbidden_words("promise", ["guaranteed", "always", "never"]))
///         .build()
///         .expect("the rules compile")
/// });
///
/// fn invoice_text() -> &'static Policy {
///     &INVOICE_TEXT
/// }
///
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct CreateInvoice {
///     #[guard(length(max = 2000), policy = invoice_text)]
///     notes: String,
///     /// Set to true to keep wording the output policy warned about.
///     #[serde(default)]
///     #[guard(acknowledges_policy)]
///     acknowledge_warnings: bool,
/// }
///
/// let fee = serde_json::json!({"notes": "A late fee of $25 applies after 30 days."});
/// assert!(CreateInvoice::validate_value(fee).is_ok());
///
/// let card = serde_json::json!({"notes": "Paid with 4242 4242 4242 4242."});
/// let Err(report) = CreateInvoice::validate_value(card) else { unreachable!() };
/// assert_eq!(report.issues()[0].code, IssueCode::Policy);
///
/// let pending = serde_json::json!({"notes": "Delivery is guaranteed by Friday."});
/// assert!(CreateInvoice::validate_value(pending).is_err());
/// let acknowledged = serde_json::json!({"notes": "Delivery is guaranteed by Friday.", "acknowledge_warnings": true});
/// assert!(CreateInvoice::validate_value(acknowledged).is_ok());
/// // The example never acknowledges in advance.
/// assert_eq!(CreateInvoice::example()["acknowledge_warnings"], false);
///
/// // A decision document, by contrast, holds each figure to its methodology or source.
/// #[derive(serde::Deserialize, ToolArgs)]
/// struct Recommend {
///     #[guard(policy = "decision")]
///     summary: String,
/// }
/// let untagged = serde_json::json!({"summary": "Expect a 40% reduction in handling time."});
/// assert!(Recommend::validate_value(untagged).is_err());
/// let tagged = serde_json::json!({
///     "summary": "Expect a 40% reduction [AI estimation based on pilot volumes] in handling time."
/// });
/// assert!(Recommend::validate_value(tagged).is_ok());
/// ```
///
/// # Field types
///
/// Field types are decided by the [`ArgValue`] trait: strings, booleans, every integer and
/// float type (each with its own range: `300` for a `u8` is a range issue, `1.5` for an integer
/// a type issue; an integer field accepts at most ±(2^53 - 1), 9,007,199,254,740,991, whatever
/// its Rust type: the integers every JSON client holds exactly, since JavaScript and every client
/// that reads numbers as doubles rounds larger ones, so an identifier that needs all 64 bits
/// belongs in a string field), `Option<T>` (absent or `null`), `Option<Option<T>>` (absent, `null` or a value: see below), `Vec<T>`, `Box<T>`, string-keyed maps,
/// [`serde_json::Value`], other `ToolArgs` structs (nested, with paths like `items[2].name`),
/// `ToolArgs` enums with data and [`ToolEnum`](trait@ToolEnum) enums. Dates and times (features `chrono`, `time`), `Uuid`
/// (`uuid`), `Url` (`url`) and `Decimal` (`rust_decimal`) are strings in their JSON Schema
/// format; a type of your own, a newtype say, implements [`ArgValue`] (its docs show how).
///
/// ```
/// use guardrails::{ToolArgs, ToolEnum};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, ToolEnum)]
/// #[serde(rename_all = "lowercase")]
/// enum Role { Admin, User }
///
/// /// Create a user.
/// #[derive(Deserialize, ToolArgs)]
/// struct CreateUser {
///     /// Login name.
///     #[guard(length(min = 3, max = 20), pattern = "^[a-zA-Z0-9_]+$", example = "john_doe")]
///     username: String,
///     #[guard(format = "email")]
///     email: String,
///     #[guard(range(min = 18, max = 120))]
///     age: u8,
///     role: Role,
///     #[guard(length(min = 1, max = 5), unique)]
///     tags: Option<Vec<String>>,
/// }
///
/// let args = serde_json::json!({"username": "ab", "email": "x", "age": 300, "role": "root"});
/// let Err(report) = CreateUser::validate_value(args) else { unreachable!() };
/// assert_eq!(report.len(), 4);
/// assert!(CreateUser::validate_value(CreateUser::example().clone()).is_ok());
/// ```
///
/// # Enums with data
///
/// On an enum, the derive implements [`ArgValue`]: the enum is the type of a field, read in the
/// same pass as the rest. Every serde representation is read as serde reads it: externally
/// tagged (the default, `{"weekly": {..}}`, a unit variant as its name), internally tagged
/// (`#[serde(tag = "kind")]`, the fields beside the tag), adjacently tagged (`tag` and
/// `content`) and `untagged` (the first variant the value fits). Variants are unit, struct (their
/// fields take guards and serde attributes as a struct's do) or newtype of a `ToolArgs` struct;
/// `rename`, `rename_all` and `rename_all_fields` name them. What the model reads:
///
/// - a missing or unknown tag is one issue that lists the variants, with a did-you-mean
///   (`"weekyl"`: did you mean `"weekly"`?);
/// - the chosen variant's fields are checked at their paths (`recurrence.count`), every issue in
///   the same pass;
/// - a field of another variant says so: "`until` belongs to kind `daily`; you chose `weekly`";
///   a variant's field sent beside the enum is pointed to its place (`recurrence.count`);
/// - an untagged value that fits no variant is reported against the variant it comes closest to
///   (the fewest issues), named, with what was sent and that variant's issues;
/// - a rule across the fields of a struct variant is `#[guard(check(f, fields(from, until)))]` on
///   the variant, as on a struct (see [Struct-level rules](#struct-level-rules)): it runs
///   whenever those fields passed their own guards and reports at the variant's paths
///   (`recurrence.until`). `#[guard(check = f)]` on a variant takes the whole enum,
///   `fn f(&Recurrence) -> Result<(), FieldIssue>`, and runs once the variant's fields passed.
///   A variant's example is built from its fields, so the fields a rule compares take an
///   `example` (an `example` on the variant is a compile error).
///
/// The schema is a `oneOf` of closed objects, each tag a `const` (`anyOf` when untagged, since
/// serde may find several variants that fit); the contract records the variants, so that a
/// removed variant is a BREAKING change and a new one SAFE. Tuple variants, variant `alias`,
/// `other` and `untagged`, and `tag` with `untagged` are compile errors that say what to do.
///
/// ```
/// use guardrails::ToolArgs;
/// use serde::Deserialize;
///
/// /// How often a task comes back.
/// #[derive(Deserialize, ToolArgs)]
/// #[serde(tag = "kind", rename_all = "snake_case")]
/// enum Recurrence {
///     Weekly {
///         #[guard(range(min = 1, max = 52))]
///         count: u8,
///     },
///     Daily {
///         #[guard(format = "date")]
///         until: String,
///     },
///     Never,
/// }
///
/// #[derive(Deserialize, ToolArgs)]
/// struct Schedule {
///     recurrence: Recurrence,
/// }
///
/// let call = serde_json::json!({"recurrence": {"kind": "weekly", "count": 3}});
/// assert!(Schedule::validate_value(call).is_ok());
///
/// let call = serde_json::json!({"recurrence": {"kind": "weekly", "count": 0, "until": "2026-12-01"}});
/// let Err(report) = Schedule::validate_value(call) else { unreachable!() };
/// assert_eq!(report.len(), 2);
/// assert_eq!(
///     report.at("recurrence.until").unwrap().message,
///     "`until` belongs to kind `daily`; you chose `weekly`."
/// );
///
/// let call = serde_json::json!({"recurrence": {"kind": "weekyl", "count": 3}});
/// let Err(report) = Schedule::validate_value(call) else { unreachable!() };
/// assert!(report.at("recurrence.kind").unwrap().message.contains("Did you mean \"weekly\"?"));
/// ```
///
/// # Flattened structs
///
/// `#[serde(flatten)]` on a field whose type is a `ToolArgs` struct puts that struct's fields in
/// the object of the struct that holds it, as serde does: shared paging or filter parameters
/// declared once. Both structs' fields are checked in the one pass; a key that neither declares
/// is an unknown field, with a did-you-mean over the fields of both. The schema lists the
/// fields of both as its properties and stays closed (`additionalProperties: false`), and the
/// example, the contract and the misplaced-field search see them where the model sends them. A
/// flattened field takes no guards and no `default` (its struct's fields do).
///
/// An enum with data tagged internally (`tag`) or adjacently (`tag` and `content`) flattens
/// too: its tag (and its content key, or its variant's fields) sit beside the holder's fields,
/// read with the same coaching as in a field of its own. The schema adds the enum's variants as
/// a `oneOf` beside the properties and closes the object with `unevaluatedProperties: false`
/// (a key is allowed when the chosen variant declares it); the contract records the enum under
/// its tag. An externally tagged or untagged enum is not flattened (a compile error): give it a
/// `tag`, or hold it in a field of its own.
///
/// ```
/// use guardrails::ToolArgs;
/// use serde::Deserialize;
///
/// /// Paging, shared by the listing tools.
/// #[derive(Deserialize, ToolArgs)]
/// struct Paging {
///     #[serde(default)]
///     offset: u32,
///     #[guard(range(min = 1, max = 100))]
///     limit: u8,
/// }
///
/// #[derive(Deserialize, ToolArgs)]
/// struct ListNotes {
///     tag: Option<String>,
///     #[serde(flatten)]
///     page: Paging,
/// }
///
/// let call = serde_json::json!({"tag": "work", "limit": 500, "ofset": 3});
/// let Err(report) = ListNotes::validate_value(call) else { unreachable!() };
/// assert_eq!(report.len(), 2);
/// assert!(report.at("ofset").unwrap().message.contains("Did you mean \"offset\"?"));
/// assert_eq!(ListNotes::schema().as_value()["properties"]["limit"]["maximum"], 100);
///
/// /// Where a note goes, tagged by `place`.
/// #[derive(Deserialize, ToolArgs)]
/// #[serde(tag = "place", rename_all = "lowercase")]
/// enum Destination {
///     Inbox,
///     Folder { name: String },
/// }
///
/// #[derive(Deserialize, ToolArgs)]
/// struct MoveNote {
///     id: u32,
///     #[serde(flatten)]
///     destination: Destination,
/// }
///
/// let call = serde_json::json!({"id": 4, "place": "folder", "name": "work"});
/// assert!(MoveNote::validate_value(call).is_ok());
/// let call = serde_json::json!({"id": 4, "place": "inbox", "name": "work"});
/// let Err(report) = MoveNote::validate_value(call) else { unreachable!() };
/// assert_eq!(
///     report.at("name").unwrap().message,
///     "`name` belongs to place `folder`; you chose `inbox`."
/// );
/// ```
///
/// ## Partial updates: `Option<Option<T>>`
///
/// A field that a call may leave as it is, set, or clear is an `Option<Option<T>>`: absent is
/// `None` (leave it), `null` is `Some(None)` (clear it), a value is `Some(Some(v))` (set it).
/// Its schema is `T`'s or `null`, and it is never required. The derived validator builds the
/// value itself, so the three cases hold without any serde attribute; a handler deserializing
/// the same struct with serde alone needs serde's `default` with `deserialize_with` to tell
/// `null` from absent. Clippy's pedantic `option_option` lint flags the type: allow it on the
/// field, where the three states are meant.
///
/// ```
/// use guardrails::ToolArgs;
///
/// /// Changes a task.
/// #[derive(Debug, serde::Deserialize, ToolArgs)]
/// struct UpdateTask {
///     id: u64,
///     /// The new due date; `null` removes it.
///     #[guard(format = "date")]
///     due: Option<Option<String>>,
/// }
///
/// let keep = UpdateTask::validate_value(serde_json::json!({"id": 1})).unwrap();
/// assert_eq!(keep.due, None);
/// let clear = UpdateTask::validate_value(serde_json::json!({"id": 1, "due": null})).unwrap();
/// assert_eq!(clear.due, Some(None));
/// let set = UpdateTask::validate_value(serde_json::json!({"id": 1, "due": "2026-03-01"})).unwrap();
/// assert_eq!(set.due, Some(Some("2026-03-01".to_owned())));
/// let schema = serde_json::to_value(UpdateTask::schema()).unwrap();
/// assert_eq!(schema["properties"]["due"]["type"], serde_json::json!(["string", "null"]));
/// assert_eq!(schema["required"], serde_json::json!(["id"]));
/// ```
///
/// # Serde attributes
///
/// The validator builds the struct itself, so each serde attribute that changes what is read
/// is either honoured exactly as serde honours it or a compile error; none is silently dropped.
///
/// | attribute | where | treatment |
/// |---|---|---|
/// | `rename`, `rename(deserialize = ..)` | field, variant | honoured: the wire name |
/// | `rename_all`, `rename_all(deserialize = ..)` | struct, enum | honoured |
/// | `alias` | field | honoured: the field is read under each alias; two of its names in one call are refused (serde's "duplicate field"); the schema lists each name, requires one and forbids two; a did-you-mean names the field's own name |
/// | `alias` | `ToolEnum` variant | compile error: the schema lists one name per variant |
/// | `default`, `default = "path"` | field | honoured: the field is not required |
/// | `default` | struct | honoured; `default = "path"` on a struct is a compile error |
/// | `skip`, `skip_deserializing` | field, variant | honoured: never read, unknown on the wire |
/// | `other` | variant | compile error: it would accept any name |
/// | `tag`, `content`, `untagged` | enum with data | honoured: see [Enums with data](#enums-with-data) |
/// | `rename_all_fields` | enum with data | honoured |
/// | `flatten` | field | honoured on a `ToolArgs` struct and on an internally or adjacently tagged enum with data (see [Flattened structs](#flattened-structs)); on any other type a compile error |
/// | `alias`, `other`, `untagged` | variant of an enum with data | compile error |
/// | `with`, `deserialize_with`, `borrow` | field | compile error: each field is read by its [`ArgValue`] |
/// | `transparent`, `from`, `try_from` | struct | compile error |
/// | `deny_unknown_fields` | struct | nothing to do: unknown keys are always refused |
/// | `serialize_with`, `skip_serializing`, `skip_serializing_if`, `into`, `getter`, `bound`, `crate`, `expecting`, `remote` | any | ignored: they change serialization, bounds, paths or serde's own error text, not what is read |
///
/// # The JSON Schema is derived too
///
/// The derive also implements `schemars::JsonSchema`, with the schema the validator enforces
/// (the one `tools/list` advertises): so an arguments struct nests in another one's schema,
/// and a tool can return it with an `outputSchema`. Deriving `schemars::JsonSchema` as well is
/// therefore an error, "conflicting implementations of trait `JsonSchema`" at `ToolArgs`: two
/// schemas for one type could disagree. Inside another schema the type is its object schema
/// alone, without the root's `$schema` and input `examples`. Output schemas carry only the
/// formats JSON Schema 2020-12 defines, so that strict validators (AJV's `Ajv2020`) compile
/// them: schemars' integer formats (`uint8`, `int32`, …) become the `minimum` and `maximum`
/// they stand for, other formats of its own (`double`) are dropped. Drop `JsonSchema` from the derive list; a type that must
/// describe itself differently as an output (without the guards, say) is a second type, with a
/// `From` between the two.
///
/// ```
/// use guardrails::ToolArgs;
/// use schemars::JsonSchema;
///
/// /// An address, as arguments take it and as results return it.
/// #[derive(serde::Deserialize, serde::Serialize, ToolArgs)] // no `JsonSchema` here
/// struct Address {
///     #[guard(length(min = 1, max = 80))]
///     street: String,
/// }
///
/// #[derive(serde::Serialize, JsonSchema)]
/// struct Customer {
///     name: String,
///     address: Address, // its schema is the one the validator enforces
/// }
///
/// let schema = schemars::schema_for!(Customer);
/// assert_eq!(schema.as_value()["properties"]["address"]["properties"]["street"]["maxLength"], 80);
/// ```
pub use guardrails_derive::ToolArgs;

pub use call::{GuardConfig, Tool};
/// Derives [`ToolEnum`](trait@ToolEnum) (and [`ArgValue`]) for an enum of unit variants: each
/// variant is accepted as its serde name (honouring `rename` and `rename_all`), and any other
/// value is an `enum` issue that lists the allowed names. Use it for fields with a fixed set of
/// values; the schema says `"enum": [...]` and teaching blocks list the names.
///
/// ```
/// use guardrails::ToolEnum;
///
/// #[derive(serde::Deserialize, ToolEnum)]
/// #[serde(rename_all = "snake_case")]
/// enum Status { Todo, InProgress, Done }
///
/// assert_eq!(Status::VARIANTS, ["todo", "in_progress", "done"]);
/// assert_eq!(Status::InProgress.as_str(), "in_progress");
/// ```
pub use guardrails_derive::ToolEnum;
pub use message::tool_error::{ErrorCode, ToolError};
pub use render::options::{RenderFormat, RenderOptions};
pub use server::{Server, UnknownTool};
pub use tool::leniency::{IgnoreKeys, RepairPolicy};
pub use tool::output::CallOutput;
pub use tool::run::StateRef;
pub use tool::spec::{OutputCheck, OutputVerdict, ToolSpec};
pub use validation::args::{ToolArgs, ToolEnum};
pub use validation::report::{Issue, IssueCode, Report};
pub use validation::rules::{FieldArg, FieldIssue};
pub use validation::value::ArgValue;

#[doc = include_str!("tool_attr.md")]
pub use guardrails_derive::tool;

#[cfg(feature = "rmcp")]
#[doc = include_str!("guarded_attr.md")]
pub use guardrails_derive::guarded;

/// Items used by generated code. Not part of the public API: no stability guarantees.
#[doc(hidden)]
pub mod __private {
    pub use serde_json::{Map, Value};
    pub use std::sync::OnceLock;
    pub use {schemars, serde_json};

    pub use crate::RepairPolicy;
    pub use crate::ToolSpec;
    pub use crate::call::{Served, run, run_paged};
    pub use crate::policy::{Policy, Profile};
    /// The escapers the `guardrails` command line shares with the renderers, and the set of
    /// invisible characters they replace.
    pub use crate::text::{escape_json_text, is_invisible, plain};
    pub use crate::tool::cursor::with_cursor;
    pub use crate::tool::presenter::{present_collection, present_value};
    pub use crate::tool::probe::{
        ListingOf, NotListing, Opaque, Probe, WithDeserialize, WithSchema, WithoutDeserialize,
        WithoutSchema, phantom_of,
    };
    pub use crate::tool::run::BoxFuture;
    pub use crate::tool::run::outcome::{FallibleKind, UnconvertibleKind, ValueKind};
    pub use crate::tool::run::{CallSettings, Presented, Presenter, blocking};
    pub use crate::tool::spec::{AgentLimit, Annotations, Teaching};
    pub use crate::validation::aliases::{alias_root_schema, alias_schema, take_alias};
    pub use crate::validation::args::example_rejection;
    pub use crate::validation::constraint::{CustomCheck, PresentValue, WholeValue};
    pub use crate::validation::constraint::{Literal, Pattern};
    pub use crate::validation::example::variants_example;
    pub use crate::validation::example::{
        build_example, enum_example, lasting_example, nested_example,
    };
    pub use crate::validation::flatten::{
        EnumVariants, FlatCells, Flatten, Flattened, StructFields, flattened_info,
        read_flattened_enum,
    };
    pub use crate::validation::hooks::{
        enum_mismatch, nested, run_custom, take_field, take_field_or,
    };
    pub use crate::validation::info::{EnumInfo, FieldInfo, Tagging, VariantInfo};
    pub use crate::validation::number::{Bound, Num};
    pub use crate::validation::policy_text::{Acknowledgement, PolicyText};
    pub use crate::validation::policy_text::{WarningGate, policy_from, run_policy, warning_gate};
    pub use crate::validation::quick::QuickCheck;
    pub use crate::validation::rules::{
        FieldArg, build_example_over, run_fields_check, run_struct_check,
    };
    pub use crate::validation::rules::{IntoFieldIssues, StructCheck};
    pub use crate::validation::schema::variants_schema;
    pub use crate::validation::schema::{enum_schema, nested_schema, root_schema};
    pub use crate::validation::string_format::StringFormat as Format;
    pub use crate::validation::variants::{NewtypeVariant, read_variant};
    pub use crate::validation::{ArgsInfo, Constraints, Cx, Kind};
    pub use crate::{ArgValue, CallOutput, Report, StateRef, Tool, ToolArgs, ToolEnum};
    pub use core::marker::PhantomData;
    /// The derive's table of string formats, `[(name, Format)]`, for the test that holds it
    /// against [`Format::from_name`](crate::validation::StringFormat::from_name).
    pub use guardrails_derive::string_formats;
    pub use std::boxed::Box;

    /// What `#[guarded]` makes `Self::tool_router()` return.
    #[cfg(feature = "rmcp")]
    pub use crate::mcp::{RouterGuard, guarded_router, reads, with_readers};
    /// What a `#[tool]` method of an rmcp `#[tool_router]` impl returns to rmcp (and the
    /// `guardrails` command line's proxy answers with).
    #[cfg(feature = "rmcp")]
    #[must_use]
    pub fn mcp_call_result(output: CallOutput) -> rmcp::model::CallToolResult {
        crate::mcp::call_result(output)
    }

    /// The MCP definition of a tool, its schemas in the portable profile: what a `#[tool]`
    /// method of an rmcp `#[tool_router]` impl gives rmcp.
    #[cfg(feature = "rmcp")]
    #[must_use]
    pub fn mcp_definition(spec: &ToolSpec) -> rmcp::model::Tool {
        crate::mcp::definition(spec)
    }
    #[cfg(feature = "rmcp")]
    pub use rmcp::handler::server::router::tool::ToolRouter;
    #[cfg(feature = "rmcp")]
    pub use rmcp::model::{CallToolResult as McpCallToolResult, Tool as McpTool};

    /// Marker traits that say which guards fit a field's type; generated code asserts them
    /// so that a guard on the wrong type is a compile error at the guard.
    pub mod guards {
        use std::collections::{BTreeMap, HashMap};

        use serde_json::Value;

        /// Types whose length can be bounded: strings (characters), arrays (items) and maps
        /// (entries).
        #[diagnostic::on_unimplemented(
            message = "`length` and `non_empty` need a string, an array or a map field, not `{Self}`"
        )]
        pub trait Length {}
        /// Types that hold numbers: `range` and `multiple_of` apply.
        #[diagnostic::on_unimplemented(
            message = "`range`, `multiple_of` and `one_of` with numbers need a numeric field, not `{Self}`"
        )]
        pub trait Numeric {}
        /// Types that hold strings: `pattern` and `format` apply.
        #[diagnostic::on_unimplemented(
            message = "`pattern`, `format` and `one_of` with strings need a string field, not `{Self}`"
        )]
        pub trait Text {}
        /// Types that hold arrays: `unique` applies.
        #[diagnostic::on_unimplemented(message = "`unique` needs an array field, not `{Self}`")]
        pub trait Items {}
        /// Types that hold booleans: `one_of` with booleans applies.
        #[diagnostic::on_unimplemented(
            message = "`one_of` with booleans needs a boolean field, not `{Self}`"
        )]
        pub trait Boolean {}
        impl Boolean for bool {}
        impl Boolean for Value {}
        impl<T: Boolean> Boolean for Option<T> {}
        impl<T: Boolean> Boolean for Box<T> {}

        impl Length for String {}
        impl<T> Length for Vec<T> {}
        impl Text for String {}
        impl<T> Items for Vec<T> {}
        macro_rules! numeric {
            ($($t:ty),*) => {$(impl Numeric for $t {})*};
        }
        numeric!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
        impl Length for Value {}
        impl Numeric for Value {}
        impl Text for Value {}
        impl Items for Value {}
        impl<T: Length> Length for Option<T> {}
        impl<T: Numeric> Numeric for Option<T> {}
        impl<T: Text> Text for Option<T> {}
        impl<T: Items> Items for Option<T> {}
        impl<T: Length> Length for Box<T> {}
        impl<T: Numeric> Numeric for Box<T> {}
        impl<T: Text> Text for Box<T> {}
        impl<T: Items> Items for Box<T> {}
        impl<T> Length for BTreeMap<String, T> {}
        impl<T, S> Length for HashMap<String, T, S> {}

        /// Types with no declared fields of their own: `sensitive` applies, and withholds
        /// the whole value. A struct deriving `ToolArgs` is not one: mark its own fields
        /// instead. `#[derive(ToolEnum)]` implements it.
        #[diagnostic::on_unimplemented(
            message = "`sensitive` needs a field without fields of its own (a string, a number, a boolean, a `ToolEnum`, or an array, map or option of them), not `{Self}`",
            note = "mark the sensitive fields of the nested arguments type instead"
        )]
        pub trait Leaf {}
        macro_rules! leaf {
            ($($t:ty),*) => {$(impl Leaf for $t {})*};
        }
        leaf!(
            String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, Value
        );
        impl<T: Leaf> Leaf for Option<T> {}
        impl<T: Leaf> Leaf for Box<T> {}
        impl<T: Leaf> Leaf for Vec<T> {}
        impl<T: Leaf> Leaf for BTreeMap<String, T> {}
        impl<T: Leaf, S> Leaf for HashMap<String, T, S> {}

        /// Asserts at compile time that `T` satisfies the guard trait `G`.
        pub const fn assert_length<T: ?Sized + Length>() {}
        /// Asserts at compile time that `T` is numeric.
        pub const fn assert_numeric<T: ?Sized + Numeric>() {}
        /// Asserts at compile time that `T` holds strings.
        pub const fn assert_text<T: ?Sized + Text>() {}
        /// Asserts at compile time that `T` holds arrays.
        pub const fn assert_items<T: ?Sized + Items>() {}
        /// Asserts at compile time that `T` holds booleans.
        pub const fn assert_boolean<T: ?Sized + Boolean>() {}
        /// Asserts at compile time that `T` has no declared fields of its own.
        pub const fn assert_leaf<T: ?Sized + Leaf>() {}
    }
}
