//! A native rmcp server whose arguments take every shape serde gives real tools (internally
//! tagged newtype variants, flattened enums and maps, externally, adjacently tagged and
//! untagged enums, a recursive enum, tuples, chrono and uuid fields, integers of every width),
//! written as rmcp's examples write one, its tools echoing what serde read. Over stdio it is
//! guarded by `guard_router`, or served by rmcp alone with `--unguarded`: the server the Python
//! client tests compare (`tests/clients/test_guard_router_shapes.py`);
//! `tests/mcp/guard_router_shapes.rs` drives it in process.
//!
//! Beside it, `Lenient` (`--lenient`): tools under `#[guarded]` whose types read more than their
//! schemas say (field and variant aliases, a JSON string read as the struct it holds,
//! case-insensitive names, a shorthand), in every enum representation, flattened and in maps;
//! `tests/mcp/guard_reading.rs` holds the guard to serde's reading of them.
//!
//! ```sh
//! cargo run --example serde_shapes_server [-- --unguarded | --lenient]
//! ```
#![expect(
    dead_code,
    reason = "the tools echo what serde read through `Debug`, which dead-code analysis ignores"
)]

use std::collections::BTreeMap;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt as _, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Circle {
    radius: f64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Square {
    side: f64,
}

/// Internally tagged, with newtype variants: schemars writes a `$ref` with the tag beside it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Shape {
    Circle(Circle),
    Square(Square),
    Dot,
}

/// Externally tagged and recursive.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Expr {
    Num(i32),
    Add(Vec<Expr>),
    Neg(Box<Expr>),
    Zero,
}

/// Adjacently tagged.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
enum Step {
    Wait(u16),
    Move { dx: i8, dy: i8 },
}

/// Untagged.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Size {
    Points(u16),
    Named { name: String },
}

/// Flattened into the arguments of `search`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
enum Filter {
    Name { name: String },
    Id { id: u64 },
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct DrawArgs {
    shape: Shape,
    size: Option<Size>,
    steps: Option<Vec<Step>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EvalArgs {
    expr: Expr,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    #[serde(flatten)]
    filter: Filter,
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct LabelArgs {
    target: u8,
    #[serde(flatten)]
    labels: BTreeMap<String, u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ScheduleArgs {
    when: chrono::DateTime<chrono::Utc>,
    id: uuid::Uuid,
    slot: (u8, String),
    count: i32,
    total: u64,
}

/// A list that never ends: no finite value is valid, so no example can be built.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Chain {
    next: Box<Chain>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ChainArgs {
    chain: Chain,
}

/// A server written as rmcp's examples write one, whose tools echo what serde read.
#[derive(Clone)]
pub(crate) struct Shapes {
    tool_router: ToolRouter<Self>,
}

#[tool_router(vis = "pub(crate)")]
#[allow(clippy::unused_self, reason = "rmcp tools are methods")]
impl Shapes {
    pub(crate) fn new(tool_router: ToolRouter<Self>) -> Self {
        Self { tool_router }
    }

    #[tool(description = "Draws a shape")]
    fn draw(&self, Parameters(args): Parameters<DrawArgs>) -> String {
        format!("{args:?}")
    }

    #[tool(description = "Evaluates an expression")]
    fn eval(&self, Parameters(args): Parameters<EvalArgs>) -> String {
        format!("{args:?}")
    }

    #[tool(description = "Searches by name or id")]
    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        format!("{args:?}")
    }

    #[tool(description = "Labels a target")]
    fn label(&self, Parameters(args): Parameters<LabelArgs>) -> String {
        format!("{args:?}")
    }

    #[tool(description = "Schedules a slot")]
    fn schedule(&self, Parameters(args): Parameters<ScheduleArgs>) -> String {
        format!("{args:?}")
    }

    #[tool(description = "Follows a chain")]
    fn follow(&self, Parameters(args): Parameters<ChainArgs>) -> String {
        format!("{args:?}")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shapes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A finish, read in any case (`"MATTE"`, `"Gloss"`) by a `Deserialize` written by hand; its
/// schema names the lower-case forms.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Finish {
    Matte,
    Gloss,
}

impl<'de> Deserialize<'de> for Finish {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        match name.to_ascii_lowercase().as_str() {
            "matte" => Ok(Self::Matte),
            "gloss" => Ok(Self::Gloss),
            _ => Err(serde::de::Error::unknown_variant(
                &name,
                &["matte", "gloss"],
            )),
        }
    }
}

/// A colour, one variant with an alias.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Color {
    Red,
    #[serde(alias = "grey")]
    Gray,
}

/// Internally tagged, a variant with an alias and a field with one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Brush {
    Round {
        #[serde(alias = "radius")]
        size: u8,
    },
    #[serde(alias = "flat")]
    Wide { width: u8, finish: Finish },
}

/// Externally tagged, a variant with an alias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stroke {
    #[serde(alias = "line")]
    Straight {
        length: u16,
    },
    Dots(u8),
    Blank,
}

/// Adjacently tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
pub(crate) enum Fill {
    Solid(Color),
    Gradient {
        from: Color,
        #[serde(alias = "until")]
        to: Color,
    },
}

/// Untagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum Edge {
    Width(u8),
    Styled { style: Finish, width: u8 },
}

/// Flattened into the arguments of `paint`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Canvas {
    #[serde(alias = "w")]
    pub(crate) canvas_width: u16,
    pub(crate) canvas_height: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct PaintArgs {
    /// The paint's title.
    #[schemars(length(min = 1, max = 40))]
    pub(crate) title: String,
    #[serde(alias = "colour")]
    pub(crate) color: Color,
    pub(crate) finish: Finish,
    pub(crate) brush: Brush,
    pub(crate) stroke: Stroke,
    pub(crate) fill: Option<Fill>,
    pub(crate) edge: Edge,
    #[serde(flatten)]
    pub(crate) canvas: Canvas,
    /// The finish of each layer, by name.
    pub(crate) layers: BTreeMap<String, Finish>,
}

/// Where to deploy: sent as an object or as the JSON string of one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Host {
    pub(crate) name: String,
    pub(crate) port: u16,
}

impl std::str::FromStr for Host {
    type Err = serde_json::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        serde_json::from_str(text)
    }
}

/// Reads a struct, or a string that holds one (serde's `string_or_struct` recipe).
fn string_or_struct<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: Deserialize<'de> + std::str::FromStr<Err = serde_json::Error>,
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either<T> {
        Text(String),
        Struct(T),
    }
    match Either::<T>::deserialize(deserializer)? {
        Either::Text(text) => text.parse().map_err(serde::de::Error::custom),
        Either::Struct(value) => Ok(value),
    }
}

/// How often to retry: `{"count": 3, "backoff_ms": 250}`, or the count alone (`3`), which waits
/// 100 ms between tries; the schema names the object.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct Retry {
    pub(crate) count: u8,
    pub(crate) backoff_ms: u32,
}

impl<'de> Deserialize<'de> for Retry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Full {
            count: u8,
            backoff_ms: u32,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shorthand {
            Count(u8),
            Full(Full),
        }
        Ok(match Shorthand::deserialize(deserializer)? {
            Shorthand::Count(count) => Self {
                count,
                backoff_ms: 100,
            },
            Shorthand::Full(Full { count, backoff_ms }) => Self { count, backoff_ms },
        })
    }
}

/// How to roll out, flattened into the arguments of `deploy`: internally tagged, a variant with
/// an alias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "strategy", rename_all = "snake_case")]
pub(crate) enum Rollout {
    Rolling {
        batch: u8,
    },
    #[serde(alias = "bluegreen")]
    BlueGreen {
        #[serde(alias = "warm")]
        warmup_s: u16,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct DeployArgs {
    #[serde(deserialize_with = "string_or_struct")]
    pub(crate) host: Host,
    pub(crate) retry: Retry,
    /// Each region's hosts.
    pub(crate) regions: BTreeMap<String, Vec<Host>>,
    #[serde(alias = "dry")]
    pub(crate) dry_run: Option<bool>,
    #[serde(flatten)]
    pub(crate) rollout: Rollout,
}

/// Tools whose argument types read more than their schemas say, under `#[guarded]`: the guard
/// asks each tool's own type before refusing a call its schema does not describe.
#[derive(Clone)]
pub(crate) struct Lenient;

#[guardrails::guarded(guard = guardrails::mcp::RouterGuard::new().config(
    guardrails::GuardConfig::new().loop_breaker(guardrails::operate::LoopBreaker::off())
))]
#[tool_router(vis = "pub(crate)")]
#[allow(clippy::unused_self, reason = "rmcp tools are methods")]
impl Lenient {
    #[tool(description = "Paints")]
    fn paint(&self, Parameters(args): Parameters<PaintArgs>) -> String {
        serde_json::to_string(&args).unwrap_or_default()
    }

    #[tool(name = "deploy-app", description = "Deploys")]
    fn deploy(&self, Parameters(args): Parameters<DeployArgs>) -> String {
        serde_json::to_string(&args).unwrap_or_default()
    }
}

#[tool_handler]
impl ServerHandler for Lenient {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--lenient") {
        Lenient
            .serve(rmcp::transport::stdio())
            .await?
            .waiting()
            .await?;
        return Ok(());
    }
    let router = if std::env::args().any(|a| a == "--unguarded") {
        Shapes::tool_router()
    } else {
        guardrails::mcp::guard_router(Shapes::tool_router())
    };
    Shapes::new(router)
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
