//! The MCP server the eval tests run against: rmcp over Streamable HTTP, on its own thread, with
//! `to_kelvin` (read-only; its description set per server, to change it between runs),
//! `delete_all` (marked destructive) and `plain` (no annotations: destructive by the spec's
//! default, so refused over HTTP). It counts the calls that reached it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};

#[derive(Clone)]
pub struct EvalServer {
    pub description: String,
    pub calls: Arc<AtomicUsize>,
    pub deletes: Arc<AtomicUsize>,
}

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    Arc::new(value.as_object().cloned().unwrap())
}

impl ServerHandler for EvalServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let kelvin = json!({"type": "object", "properties": {
            "celsius": {"type": "number", "description": "Degrees Celsius"},
            "precision": {"type": "integer", "default": 2}
        }, "required": ["celsius"]});
        let to_kelvin = Tool::new("to_kelvin", self.description.clone(), schema(kelvin))
            .annotate(ToolAnnotations::new().read_only(true));
        let delete_all = Tool::new("delete_all", "Deletes every record", schema(json!({"type": "object"})))
            .annotate(ToolAnnotations::new().read_only(false).destructive(true));
        let plain = Tool::new("plain", "Says hello", schema(json!({"type": "object"})));
        Ok(ListToolsResult::with_all_items(vec![to_kelvin, delete_all, plain]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let text = match &*request.name {
            "to_kelvin" => match arguments["celsius"].as_f64() {
                Some(c) => format!("{:.2}", c + 273.15),
                None => return Ok(CallToolResult::error(vec![ContentBlock::text("celsius is a number")]).into()),
            },
            "delete_all" => {
                self.deletes.fetch_add(1, Ordering::SeqCst);
                "deleted everything".to_string()
            }
            _ => "hello".to_string(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// A running server; dropping it stops it.
pub struct Running {
    pub url: String,
    pub server: EvalServer,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Serves an [`EvalServer`] whose `to_kelvin` says `description`.
pub fn start(description: &str) -> Running {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let server = EvalServer { description: description.to_string(), calls: Arc::default(), deletes: Arc::default() };
    let served = server.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let handle = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let service = StreamableHttpService::new(
                move || Ok(served.clone()),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
    });
    let address = rx.recv().unwrap();
    Running { url: format!("http://{address}/mcp"), server, stop: Some(stop), handle: Some(handle) }
}
