//! A native rmcp server whose arguments take every shape serde gives real tools (internally
//! tagged newtype variants, flattened enums and maps, externally, adjacently tagged and
//! untagged enums, a recursive enum, tuples, chrono and uuid fields, integers of every width),
//! written as rmcp's examples write one, its tools echoing what serde read. Over stdio it is
//! guarded by `guard_router`, or served by rmcp alone with `--unguarded`: the server the Python
//! client tests compare (`tests/clients/test_guard_router_shapes.py`);
//! `tests/mcp/guard_router_shapes.rs` drives it in process.
//!
//! ```sh
//! cargo run --example serde_shapes_server [-- --unguarded]
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
use serde::Deserialize;

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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
