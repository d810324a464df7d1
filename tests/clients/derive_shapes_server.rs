//! A server of guardrails' own `#[tool]`s whose arguments and results take the shapes model
//! clients read worst: options, an internally tagged enum, a flattened tagged enum, a map, a
//! `u64`, a free `serde_json::Value` argument, and results holding an option, a tagged enum, a
//! tuple and a `serde_json::Value` (whose output schema is the boolean `true`), over stdio: the
//! server the consumer tests (`tests/consumers`) run through each client's own code.
//!
//! ```sh
//! cargo run --example derive_shapes_server
//! ```

use std::collections::BTreeMap;

use guardrails::{Server, ToolArgs, ToolEnum, tool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A kind of place.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToolEnum, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// A museum.
    Museum,
    /// A park.
    Park,
    /// A restaurant.
    Restaurant,
}

/// How the trip is made: `mode` names the variant, and each has its own fields.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "mode", rename_all = "snake_case")]
enum Transport {
    /// By train, in a class.
    Train {
        /// First or second class.
        #[guard(range(min = 1, max = 2))]
        class: u8,
    },
    /// By car, with a number of seats.
    Car {
        /// Seats needed, from 1 to 9.
        #[guard(range(min = 1, max = 9))]
        seats: u8,
        /// The car's plate, when already booked.
        plate: Option<String>,
    },
    /// On foot.
    Walk,
}

/// Arguments of `plan_trip`.
#[derive(Debug, Deserialize, ToolArgs)]
struct PlanTrip {
    /// Where to.
    #[guard(length(min = 1, max = 80))]
    destination: String,
    /// The budget, in cents.
    budget_cents: u64,
    /// How to get there.
    transport: Transport,
    /// How many nights, when staying over.
    #[guard(range(min = 1, max = 30))]
    nights: Option<u32>,
    /// Labels for the trip, each once.
    #[guard(length(max = 5), unique)]
    labels: Option<Vec<String>>,
}

/// A leg of a trip, tagged as the arguments are.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
enum Leg {
    /// By train.
    Train {
        /// Its class.
        class: u8,
    },
    /// By car.
    Car {
        /// Its seats.
        seats: u8,
        /// Its plate, when booked.
        plate: Option<String>,
    },
    /// On foot.
    Walk,
}

/// What `plan_trip` returns.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Trip {
    /// The trip's identifier.
    id: u64,
    /// Where to.
    destination: String,
    /// The leg there.
    leg: Leg,
    /// Nights, when staying over.
    nights: Option<u32>,
    /// The first and the last day, as day numbers and a note.
    window: (u16, u16, String),
    /// Its labels.
    labels: Vec<String>,
}

/// Plans a trip.
#[tool(read_only)]
fn plan_trip(args: PlanTrip) -> Trip {
    let leg = match args.transport {
        Transport::Train { class } => Leg::Train { class },
        Transport::Car { seats, plate } => Leg::Car { seats, plate },
        Transport::Walk => Leg::Walk,
    };
    let nights = args.nights;
    let last = 1 + u16::try_from(nights.unwrap_or(0)).unwrap_or(u16::MAX);
    Trip {
        id: args.budget_cents % 1000,
        destination: args.destination,
        leg,
        nights,
        window: (1, last, "day numbers".to_owned()),
        labels: args.labels.unwrap_or_default(),
    }
}

/// How to find places: `by` names the way; flattened into the arguments of `find_places`.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "by", rename_all = "snake_case")]
enum Finder {
    /// By name.
    Name {
        /// A part of the name.
        #[guard(length(min = 1, max = 40))]
        name: String,
    },
    /// By identifier.
    Id {
        /// The place's identifier.
        id: u64,
    },
    /// By kind.
    Kind {
        /// The kind.
        kind: Kind,
    },
}

/// Arguments of `find_places`.
#[derive(Debug, Deserialize, ToolArgs)]
struct FindPlaces {
    /// How to find them.
    #[serde(flatten)]
    finder: Finder,
    /// At most this many, 10 when absent.
    #[guard(range(min = 1, max = 50))]
    limit: Option<u8>,
}

/// A place.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Place {
    /// Its identifier.
    id: u64,
    /// Its name.
    name: String,
    /// Its kind.
    kind: Kind,
    /// Its rating, when rated.
    rating: Option<f64>,
}

/// What `find_places` returns.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Found {
    /// The places found.
    places: Vec<Place>,
    /// The ratings by name.
    ratings: BTreeMap<String, f64>,
}

/// Finds places.
#[tool(read_only)]
fn find_places(args: FindPlaces) -> Found {
    let (id, name, kind) = match args.finder {
        Finder::Name { name } => (1, name, Kind::Museum),
        Finder::Id { id } => (id, format!("place {id}"), Kind::Park),
        Finder::Kind { kind } => (2, "somewhere".to_owned(), kind),
    };
    let places: Vec<Place> = (0..args.limit.unwrap_or(10).min(2))
        .map(|i| Place {
            id: id + u64::from(i),
            name: name.clone(),
            kind,
            rating: (i == 0).then_some(4.5),
        })
        .collect();
    let ratings = places
        .iter()
        .filter_map(|p| Some((p.name.clone(), p.rating?)))
        .collect();
    Found { places, ratings }
}

/// Arguments of `label_place`.
#[derive(Debug, Deserialize, ToolArgs)]
struct LabelPlace {
    /// The place's identifier.
    id: u64,
    /// Scores by label.
    scores: BTreeMap<String, u32>,
    /// Whatever the caller wants kept with the place.
    note: Value,
}

/// What `label_place` returns: the note as sent, whatever its shape.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Labelled {
    /// The place's identifier.
    id: u64,
    /// How many labels it has now.
    labels: usize,
    /// The note kept.
    note: Value,
    /// Extra fields, by name.
    extra: BTreeMap<String, Value>,
    /// The notes kept before, oldest first.
    history: Vec<Value>,
    // Without a doc comment, as many output types are written: its schema is the bare `true`.
    raw: Value,
}

/// Labels a place and keeps a note with it.
#[tool(idempotent)]
fn label_place(args: LabelPlace) -> Labelled {
    let mut extra = BTreeMap::new();
    extra.insert(
        "total".to_owned(),
        Value::from(args.scores.values().sum::<u32>()),
    );
    Labelled {
        id: args.id,
        labels: args.scores.len(),
        history: vec![Value::Null, args.note.clone()],
        raw: serde_json::json!({"scores": args.scores}),
        note: args.note,
        extra,
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // `--schema-profile NAME`: the tools' schemas in that profile (portable by default).
    let args: Vec<String> = std::env::args().collect();
    let profile = args
        .iter()
        .position(|a| a == "--schema-profile")
        .and_then(|at| args.get(at + 1))
        .map_or(Ok(guardrails::profile::SchemaProfile::Portable), |name| {
            name.parse()
        })
        .map_err(std::io::Error::other)?;
    Server::new(())
        .config(guardrails::GuardConfig::new().schema_profile(profile))
        .name("derive-shapes")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(plan_trip)
        .tool(find_places)
        .tool(label_place)
        .serve_stdio()
        .await
}
