//! Realistic argument types, covering every guard and every supported field type.

use std::collections::BTreeMap;

use guardrails::ToolArgs;
use serde::Deserialize;
use serde_json::Value;

// The examples' own argument types, declared once, in the examples, and tested from there: the
// create-user tool's arguments, and the task tracker's `list_tasks` filters and status.
pub use crate::create_user::{CreateUser, Role};
pub use crate::task_tracker::{ListTasks, Status};

/// A line of an order.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct OrderLine {
    /// Stock-keeping unit.
    #[guard(pattern = "^[A-Z]{3}-[0-9]{4}$")]
    pub sku: String,
    /// How many units.
    #[guard(range(min = 1, max = 1000))]
    pub quantity: u32,
    /// Unit price in currency units, in steps of 0.25.
    #[guard(range(exclusive_min = 0.0, max = 100_000.0), multiple_of = 0.25)]
    pub unit_price: f64,
}

/// Where an order ships.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    /// Street and number.
    #[guard(non_empty, length(max = 200))]
    pub street_line: String,
    /// ISO 3166-1 alpha-2 country code.
    #[guard(pattern = "^[A-Z]{2}$")]
    pub country_code: String,
    /// Postal code, if the country has them.
    #[guard(length(min = 3, max = 10))]
    pub postal_code: Option<String>,
}

fn default_currency() -> String {
    "EUR".to_owned()
}

/// A custom check receives the field's typed value after every declared guard has passed; on an
/// `Option` field it may take the inner value and runs only when one is present.
fn no_new_year(day: &String) -> Result<(), String> {
    if day.ends_with("-01-01") {
        return Err(format!("no deliveries on {day}; pick another day"));
    }
    Ok(())
}

/// Place an order of several lines.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct PlaceOrder {
    /// The customer placing the order.
    #[guard(format = "uuid")]
    pub customer_id: String,
    /// The lines of the order.
    #[guard(length(min = 1, max = 50))]
    pub lines: Vec<OrderLine>,
    /// Where to ship.
    pub ship_to: Address,
    /// Currency of the prices.
    #[serde(default = "default_currency")]
    #[guard(one_of("EUR", "USD", "GBP"))]
    pub currency: String,
    /// Delivery date.
    #[guard(format = "date", custom = no_new_year, example = "2026-03-02")]
    pub deliver_on: Option<String>,
    /// A note for the courier.
    #[serde(rename = "note")]
    #[guard(length(max = 280))]
    pub courier_note: Option<String>,
    /// Rush delivery.
    #[serde(default)]
    pub rush: bool,
    /// Filled by the server, never sent.
    #[serde(skip)]
    pub received_by: Option<String>,
}

/// Create a task: a realistic six-field argument type (used by the benchmarks).
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct NewTask {
    /// Short title.
    #[guard(length(min = 3, max = 120))]
    pub title: String,
    /// Who works on it: a lowercase handle.
    #[guard(pattern = "^[a-z][a-z0-9_]{2,31}$")]
    pub assignee: String,
    /// Initial status.
    pub status: Status,
    /// Due date.
    #[guard(format = "date")]
    pub due: String,
    /// Priority from 1 (highest) to 5.
    #[guard(range(min = 1, max = 5))]
    pub priority: u8,
    /// Labels.
    #[guard(length(max = 10), unique)]
    pub labels: Vec<String>,
}

/// Every scalar and container type, for differential and fuzz testing.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct Everything {
    /// A small signed integer.
    pub tiny: i8,
    /// A byte.
    pub byte: u8,
    /// A 32-bit unsigned integer with a step.
    #[guard(multiple_of = 3)]
    pub step: u32,
    /// A 64-bit integer in a range.
    #[guard(range(min = -1000, exclusive_max = 1000))]
    pub wide: i64,
    /// An unbounded 64-bit unsigned integer.
    pub big: Option<u64>,
    /// A single-precision float.
    pub single: Option<f32>,
    /// A ratio strictly between 0 and 1.
    #[guard(range(exclusive_min = 0.0, exclusive_max = 1.0))]
    pub ratio: f64,
    /// A flag.
    pub flag: bool,
    /// A code from a fixed list of numbers.
    #[guard(one_of(1, 2, 3, 5, 8))]
    pub fib: Option<i32>,
    /// Free-form JSON.
    pub extra: Option<Value>,
    /// A string map.
    pub labels: Option<BTreeMap<String, String>>,
    /// Nested lists.
    #[guard(length(max = 4))]
    pub matrix: Option<Vec<Vec<i16>>>,
    /// A link.
    #[guard(format = "url")]
    pub link: Option<String>,
    /// A timestamp.
    #[guard(format = "date-time")]
    pub at: Option<String>,
    /// A role.
    pub role: Option<Role>,
    /// Addresses.
    #[guard(unique)]
    pub addresses: Option<Vec<Address>>,
}

/// The examples of every argument type in this package (the fixtures and the task tracker's), each
/// with the result of validating it against its own validator.
#[must_use]
pub fn all_examples() -> Vec<(&'static str, Value, Result<(), guardrails::Report>)> {
    fn one<T: ToolArgs>() -> (&'static str, Value, Result<(), guardrails::Report>) {
        let example = T::example().clone();
        let result = T::validate_value(example.clone()).map(|_| ());
        (std::any::type_name::<T>(), example, result)
    }
    vec![
        one::<CreateUser>(),
        one::<OrderLine>(),
        one::<Address>(),
        one::<PlaceOrder>(),
        one::<NewTask>(),
        one::<ListTasks>(),
        one::<crate::task_tracker::CreateTask>(),
        one::<crate::task_tracker::UpdateTask>(),
        one::<crate::task_tracker::DeleteTask>(),
        one::<crate::task_tracker::TaskReport>(),
        one::<Everything>(),
    ]
}

/// Monthly options: the struct a newtype variant holds.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct MonthlyOn {
    /// The day of the month.
    #[guard(range(min = 1, max = 28))]
    pub day: u8,
}

/// How often a task repeats: internally tagged, with struct, newtype and unit variants.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Repeat {
    /// A number of weeks, on some days.
    Weekly {
        /// How many weeks.
        #[guard(range(min = 1, max = 52))]
        count: u8,
        /// Days of the week.
        #[guard(length(min = 1, max = 7), unique)]
        week_days: Vec<String>,
    },
    /// Every day until a date.
    Daily {
        /// The last day, `YYYY-MM-DD`.
        #[guard(format = "date")]
        until: String,
    },
    /// On a day of each month.
    Monthly(MonthlyOn),
    /// Never again.
    Never,
}

/// A notification channel: adjacently tagged.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "via", content = "to")]
pub enum Notify {
    /// By email.
    Email {
        /// The address.
        #[guard(format = "email")]
        address: String,
    },
    /// Nobody is notified.
    Nobody,
}

/// A change to a record: externally tagged (serde's default).
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Renames the record.
    Rename {
        /// The new name.
        #[guard(length(min = 2, max = 20))]
        name: String,
    },
    /// Moves the record.
    Move {
        /// The position.
        #[guard(range(min = 0, max = 99))]
        to: u32,
        /// Before or after.
        after: Option<bool>,
    },
    /// Archives the record.
    Archive,
}

/// Which record: untagged, the first variant the value fits.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(untagged)]
pub enum Pick {
    /// By number.
    ById {
        /// The record number.
        #[guard(range(min = 1))]
        id: u32,
    },
    /// By name and team.
    ByName {
        /// The name.
        #[guard(length(min = 3))]
        name: String,
        /// The team.
        #[guard(one_of("core", "web"))]
        team: String,
    },
}

/// How urgent: internally tagged, flattened into the arguments that use it.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
#[serde(tag = "urgency", rename_all = "lowercase")]
pub enum Urgency {
    /// Whenever.
    Low,
    /// Soon, at a level.
    High {
        /// From 1 to 3.
        #[guard(range(min = 1, max = 3))]
        level: u8,
        /// Why.
        #[guard(length(min = 2))]
        reason: Option<String>,
    },
}

/// A window of results, flattened into the arguments that use it.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct Window {
    /// How many to skip.
    #[serde(default)]
    pub offset: u32,
    /// How many to return.
    #[guard(range(min = 1, max = 100))]
    pub limit: u8,
}

/// Every representation of an enum with data in one arguments type, and a flattened struct.
#[derive(Debug, Clone, PartialEq, Deserialize, ToolArgs)]
pub struct Schedule {
    /// The window of results, its fields beside these.
    #[serde(flatten)]
    pub window: Window,
    /// How urgent, its tag and fields beside these.
    #[serde(flatten)]
    pub urgency: Urgency,
    /// The channel, its tag and content beside these.
    #[serde(flatten)]
    pub channel: Notify,
    /// How often.
    pub repeat: Repeat,
    /// Who hears of it.
    pub notify: Option<Notify>,
    /// What to change.
    #[guard(length(max = 3))]
    pub changes: Vec<Change>,
    /// Which record.
    pub pick: Pick,
}
