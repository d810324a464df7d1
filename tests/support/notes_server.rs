//! A notes server written as rmcp's own examples write one (`#[tool_router]`, `#[tool]`,
//! `Parameters<T>` of `T: Deserialize + JsonSchema`, `#[tool_handler]` on the router kept in a
//! field), with nothing of guardrails in it but the one line that adopts it
//! ([`Notes::guarded`]).

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

/// How urgent a note is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Soon.
    Normal,
    /// Now.
    High,
}

/// A stored note.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Note {
    /// Its number.
    pub id: u32,
    /// Its title.
    pub title: String,
    /// Its tag.
    pub tag: String,
    /// Its priority.
    pub priority: Priority,
}

/// Arguments of `create_note`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CreateNote {
    /// The title, 1 to 80 characters.
    #[schemars(length(min = 1, max = 80))]
    pub title: String,
    /// A lowercase tag.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    pub tag: String,
    /// How urgent it is.
    pub priority: Priority,
    /// Days until it is due.
    #[schemars(range(min = 1, max = 365))]
    pub due_in_days: Option<u32>,
}

/// A window of note numbers.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IdRange {
    /// The first number.
    pub from: u32,
    /// The last number.
    pub to: u32,
}

/// Arguments of `list_notes`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListNotes {
    /// Only notes with this tag.
    pub tag: Option<String>,
    /// Only notes of this priority.
    pub priority: Option<Priority>,
    /// Only notes whose number is in this window.
    pub ids: Option<IdRange>,
}

/// The result of `list_notes`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct NoteList {
    /// The notes found.
    pub notes: Vec<Note>,
}

/// Arguments of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Echo {
    /// The text to send back.
    pub text: String,
}

/// The notes server.
#[derive(Clone)]
pub struct Notes {
    notes: Arc<Vec<Note>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router(vis = "pub")]
impl Notes {
    /// The server as rmcp alone serves it.
    #[must_use]
    pub fn new(count: u32) -> Self {
        Self::with_router(count, Self::tool_router())
    }

    /// The server with every tool guarded: the one line of adoption.
    #[must_use]
    pub fn guarded(count: u32) -> Self {
        Self::with_router(count, guardrails::mcp::guard_router(Self::tool_router()))
    }

    /// A server holding `count` notes, its router as given.
    #[must_use]
    pub fn with_router(count: u32, tool_router: ToolRouter<Self>) -> Self {
        let tags = ["work", "home", "ideas"];
        let priorities = [Priority::Low, Priority::Normal, Priority::High];
        let notes = (1..=count)
            .map(|id| Note {
                id,
                title: format!("Note {id}"),
                tag: tags[id as usize % 3].to_owned(),
                priority: priorities[id as usize % 3],
            })
            .collect();
        Self {
            notes: Arc::new(notes),
            tool_router,
        }
    }

    /// Creates a note.
    #[tool(description = "Creates a note")]
    fn create_note(&self, Parameters(args): Parameters<CreateNote>) -> Json<Note> {
        Json(Note {
            id: u32::try_from(self.notes.len()).unwrap_or(u32::MAX) + 1,
            title: args.title,
            tag: args.tag,
            priority: args.priority,
        })
    }

    /// Lists notes.
    #[tool(description = "Lists notes, oldest first")]
    fn list_notes(&self, Parameters(args): Parameters<ListNotes>) -> Json<NoteList> {
        let notes = self
            .notes
            .iter()
            .filter(|n| args.tag.as_ref().is_none_or(|t| &n.tag == t))
            .filter(|n| args.priority.is_none_or(|p| n.priority == p))
            .filter(|n| {
                args.ids
                    .as_ref()
                    .is_none_or(|r| (r.from..=r.to).contains(&n.id))
            })
            .cloned()
            .collect();
        Json(NoteList { notes })
    }

    /// Sends the text back.
    #[allow(clippy::unused_self, reason = "rmcp tools are methods")]
    #[tool(description = "Sends the text back")]
    fn echo(&self, Parameters(Echo { text }): Parameters<Echo>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
