//! The one place that talks HTTP: a blocking client on rustls with the system's roots, a
//! deadline per request, and bounded bodies. Everything above sees [`Request`] and [`Reply`].

use std::time::Duration;

use ureq::tls::{RootCerts, TlsConfig};

/// The largest body read from a catalog: LoadTableResult of a table with a long history is a few
/// megabytes; anything far larger is a misbehaving server, not a table.
const MAX_BODY: u64 = 256 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// The body with its content type.
    pub body: Option<(Vec<u8>, &'static str)>,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// `Retry-After`, in seconds, when the server sent one.
    pub retry_after: Option<u64>,
    pub body: Vec<u8>,
}

/// Why no reply came: `sent` says whether the request may have reached the server, which
/// decides whether a commit's outcome is unknown.
#[derive(Debug, Clone)]
pub struct TransportError {
    pub message: String,
    pub sent: bool,
}

pub trait Http {
    fn send(&self, request: &Request) -> Result<Reply, TransportError>;
}

pub struct UreqHttp {
    agent: ureq::Agent,
}

impl UreqHttp {
    pub fn new(timeout: Duration) -> UreqHttp {
        let tls = TlsConfig::builder()
            .root_certs(RootCerts::PlatformVerifier)
            .build();
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .tls_config(tls)
            .user_agent(concat!("fieldgate/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        UreqHttp { agent }
    }
}

impl Http for UreqHttp {
    fn send(&self, request: &Request) -> Result<Reply, TransportError> {
        let result = match (request.method, &request.body) {
            (Method::Get, _) => {
                let mut builder = self.agent.get(&request.url);
                for (name, value) in &request.headers {
                    builder = builder.header(name, value);
                }
                builder.call()
            }
            (Method::Post, body) => {
                let mut builder = self.agent.post(&request.url);
                for (name, value) in &request.headers {
                    builder = builder.header(name, value);
                }
                let (bytes, kind) = body.clone().unwrap_or_default();
                builder.header("Content-Type", kind).send(&bytes[..])
            }
        };
        let mut response = result.map_err(transport_error)?;
        let retry_after = response
            .headers()
            .get("Retry-After")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_vec()
            .map_err(|e| TransportError {
                message: format!("the reply could not be read: {e}"),
                sent: true,
            })?;
        Ok(Reply {
            status,
            retry_after,
            body,
        })
    }
}

fn transport_error(error: ureq::Error) -> TransportError {
    // A failure to resolve or connect happens before anything is sent; after that (a timeout,
    // a connection dropped mid-way) the server may have acted on the request.
    let sent = !matches!(
        error,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::BadUri(_)
    ) && !matches!(&error, ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionRefused);
    let message = match &error {
        ureq::Error::Timeout(_) => "no answer before the timeout".to_string(),
        ureq::Error::Io(e) => e.to_string(),
        other => other.to_string(),
    };
    TransportError { message, sent }
}
