//! The faces of an MCP server besides its tools, for the app and the headless commands alike:
//! resources, prompts, completions and the session's traffic. An OTC endpoint has none of them,
//! and says so.

use serde_json::{Map, Value};

use super::mcp::completion::{Reference, Suggestions};
use super::mcp::prompts::{GotPrompt, Prompt};
use super::mcp::resources::{ReadResult, Resource, ResourceTemplate};
use super::mcp::{McpEndpoint, traffic::Traffic};
use super::{Endpoint, Exchange, InvokeError, Outcome};

/// Resources and templates of a server, with what could not be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceListing {
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub warnings: Vec<String>,
    /// True when the server did not say it offers resources (an empty list is no surprise).
    pub not_offered: bool,
}

/// Everything a server offers besides its tools, for the app's list: a face the server does
/// not declare is empty and asked nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Faces {
    pub listing: ResourceListing,
    pub prompts: Vec<Prompt>,
    /// Why a list could not be read, entries that could not be read.
    pub warnings: Vec<String>,
    /// The server declares `completions`: forms ask it for suggestions.
    pub completes: bool,
    /// The server declares `resources.subscribe`.
    pub subscribes: bool,
}

impl Endpoint {
    /// Resources, templates and prompts, each list read whole; one that fails is a warning and
    /// the others are kept. None from an endpoint that is not MCP.
    pub async fn list_faces(&self) -> Option<Faces> {
        let mcp = self.connection("resources").await.ok()?;
        let mut faces =
            Faces { completes: mcp.offers("completions"), subscribes: mcp.offers_subscriptions(), ..Faces::default() };
        match self.list_resources().await {
            Ok(listing) => faces.listing = listing,
            Err(e) => faces.warnings.push(format!("resources could not be listed: {e}")),
        }
        faces.warnings.append(&mut faces.listing.warnings);
        if mcp.offers("prompts") {
            match mcp.list_prompts().await {
                Ok((prompts, warnings)) => {
                    faces.prompts = prompts;
                    faces.warnings.extend(warnings);
                }
                Err(e) => faces.warnings.push(format!("prompts could not be listed: {e}")),
            }
        }
        Some(faces)
    }

    /// `resources/read` as a result (content items, the exchange), for the app's result pane.
    pub async fn read_as_result(&self, uri: &str, call_id: &str) -> Result<(Outcome, Exchange), InvokeError> {
        self.connection("resources").await?.read_as_result(uri, call_id).await
    }

    /// `prompts/get` as a result (each message's blocks with its role), for the result pane.
    pub async fn get_prompt_as_result(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        call_id: &str,
    ) -> Result<(Outcome, Exchange), InvokeError> {
        self.connection("prompts").await?.get_prompt_as_result(name, arguments, call_id).await
    }

    /// The live MCP connection, or why there is none.
    async fn connection(&self, what: &str) -> Result<std::sync::Arc<McpEndpoint>, InvokeError> {
        match self {
            Endpoint::Otc(_) => Err(InvokeError::NotSent(format!("{what} are MCP's: this endpoint speaks OTC"))),
            Endpoint::Mcp(e) => match e.current().await {
                Some(connection) => Ok(connection),
                None => Err(InvokeError::NotSent(format!("not connected to {} yet (it wants a token?)", e.label()))),
            },
        }
    }

    /// Every resource and template. A server that does not offer resources gets no request
    /// (some older servers end the session on an unknown method).
    pub async fn list_resources(&self) -> Result<ResourceListing, InvokeError> {
        let mcp = self.connection("resources").await?;
        if !mcp.offers("resources") {
            return Ok(ResourceListing { not_offered: true, ..ResourceListing::default() });
        }
        let (resources, mut warnings) = mcp.list_resources().await?;
        // Templates came later than resources: a server without them is not an error.
        let templates = match mcp.list_resource_templates().await {
            Ok((templates, more)) => {
                warnings.extend(more);
                templates
            }
            Err(why) if why.is_answer() => {
                warnings.push(format!("no templates: {why}"));
                Vec::new()
            }
            Err(other) => return Err(other),
        };
        Ok(ResourceListing { resources, templates, warnings, not_offered: false })
    }

    /// `resources/read`, with its contents as results show them.
    pub async fn read(&self, uri: &str) -> Result<ReadResult, InvokeError> {
        self.connection("resources").await?.read(uri).await
    }

    pub async fn subscribe(&self, uri: &str) -> Result<(), InvokeError> {
        self.connection("resources").await?.subscribe(uri).await
    }

    pub async fn unsubscribe(&self, uri: &str) -> Result<(), InvokeError> {
        self.connection("resources").await?.unsubscribe(uri).await
    }

    /// Every prompt (none, without a request, from a server that does not offer prompts).
    pub async fn list_prompts(&self) -> Result<(Vec<Prompt>, Vec<String>), InvokeError> {
        let mcp = self.connection("prompts").await?;
        if !mcp.offers("prompts") {
            return Ok((Vec::new(), vec!["the server does not offer prompts".to_string()]));
        }
        mcp.list_prompts().await
    }

    pub async fn get_prompt(&self, name: &str, arguments: &Map<String, Value>) -> Result<GotPrompt, InvokeError> {
        self.connection("prompts").await?.get_prompt(name, arguments).await
    }

    /// Suggestions from `completion/complete` (none from a server that does not offer it),
    /// waited for at most `within`.
    pub async fn complete(
        &self,
        reference: &Reference,
        argument: &str,
        typed: &str,
        context: &Map<String, Value>,
        within: std::time::Duration,
    ) -> Result<Suggestions, InvokeError> {
        let mcp = self.connection("completions").await?;
        if !mcp.offers("completions") {
            return Ok(Suggestions::default());
        }
        mcp.complete_within(reference, argument, typed, context, within).await
    }

    /// The session's traffic log (MCP only).
    pub fn traffic(&self) -> Option<Traffic> {
        self.events().map(|events| events.traffic())
    }
}
