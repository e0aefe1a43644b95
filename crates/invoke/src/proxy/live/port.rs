//! How a watcher reaches a proxy. On Unix, a Unix domain socket in the private folder (0600):
//! only its owner can connect. Elsewhere, a loopback TCP port, which any local user could reach,
//! so its number comes with a secret in a 0600 file beside where the socket would be, and the
//! watcher's first line must be that secret. The port way is built on Unix too (its tests run
//! everywhere); only non-Unix builds use it for real.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a watcher has to say the secret, and a listing to hear the first line.
pub const HANDSHAKE: Duration = Duration::from_secs(2);

/// A proxy's listener for watchers.
pub enum Listener {
    #[cfg(unix)]
    Unix(std::os::unix::net::UnixListener),
    #[cfg_attr(unix, allow(dead_code))]
    Port { listener: TcpListener, secret: String },
}

impl Listener {
    /// Listens at `path`: a socket made 0600 (Unix), else a port file (0600) naming a loopback
    /// port and its secret.
    pub fn bind(path: &Path) -> io::Result<Listener> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let listener = std::os::unix::net::UnixListener::bind(path)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            Ok(Listener::Unix(listener))
        }
        #[cfg(not(unix))]
        Listener::bind_port(path)
    }

    /// The port way: a loopback port, its number and a fresh secret written to `path` (made
    /// new: a file there already is another proxy's).
    #[cfg_attr(unix, allow(dead_code))]
    pub fn bind_port(path: &Path) -> io::Result<Listener> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let secret = uuid::Uuid::new_v4().simple().to_string();
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path)?;
        let port = listener.local_addr()?.port();
        let line =
            crate::json_out::to_line(&serde_json::json!({"port": port, "secret": secret})).map_err(io::Error::other)?;
        writeln!(file, "{line}")?;
        Ok(Listener::Port { listener, secret })
    }

    /// How to wake [`Listener::accept_each`] from its wait (to see `stop`): its address.
    pub fn knock(&self) -> io::Result<Knock> {
        match self {
            #[cfg(unix)]
            Listener::Unix(listener) => match listener.local_addr()?.as_pathname() {
                Some(path) => Ok(Knock::Unix(path.to_path_buf())),
                None => Err(io::Error::other("the socket has no path")),
            },
            Listener::Port { listener, .. } => Ok(Knock::Port(listener.local_addr()?)),
        }
    }

    /// Hands each watcher that connects (and, on a port, says the secret) to `welcome`: what it
    /// writes, and where to write to it. Until `stop` is set (seen at the next connection: see
    /// [`Knock`]).
    pub fn accept_each(self, stop: &AtomicBool, welcome: impl Fn(Box<dyn Read + Send>, Box<dyn Write + Send>)) {
        let stopped = || stop.load(Ordering::Acquire);
        match self {
            #[cfg(unix)]
            Listener::Unix(listener) => {
                for stream in listener.incoming().flatten() {
                    if stopped() {
                        return;
                    }
                    if let Ok(reading) = stream.try_clone() {
                        welcome(Box::new(reading), Box::new(stream));
                    }
                }
            }
            Listener::Port { listener, secret } => {
                for stream in listener.incoming().flatten() {
                    if stopped() {
                        return;
                    }
                    if let Ok(stream) = said_the_secret(stream, &secret)
                        && let Ok(reading) = stream.try_clone()
                    {
                        welcome(Box::new(reading), Box::new(stream));
                    }
                }
            }
        }
    }
}

/// A listener's address, to connect to once: a thread waiting for a connection there wakes (and
/// sees it is told to stop).
pub enum Knock {
    #[cfg(unix)]
    Unix(std::path::PathBuf),
    Port(SocketAddr),
}

impl Knock {
    /// Connects and hangs up; true when someone was there.
    pub fn knock(&self) -> bool {
        match self {
            #[cfg(unix)]
            Knock::Unix(path) => std::os::unix::net::UnixStream::connect(path).is_ok(),
            Knock::Port(address) => TcpStream::connect_timeout(address, HANDSHAKE).is_ok(),
        }
    }
}

/// The watcher's first line, read within [`HANDSHAKE`] and bounded, is the secret. Read a byte
/// at a time: what the watcher writes after it (its breakpoints) is its own, not read here.
fn said_the_secret(stream: TcpStream, secret: &str) -> io::Result<TcpStream> {
    stream.set_read_timeout(Some(HANDSHAKE))?;
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 128 && (&stream).read(&mut byte)? == 1 && byte[0] != b'\n' {
        line.push(byte[0]);
    }
    if String::from_utf8_lossy(&line).trim_end() != secret {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "not the secret"));
    }
    stream.set_read_timeout(None)?;
    Ok(stream)
}

/// A connection to a proxy, to read its feed.
pub type Stream = Box<dyn Read + Send>;

/// Sets how long a read of the connection may wait.
pub type Timing = Box<dyn Fn(Duration) -> io::Result<()> + Send>;

/// The same connection, to write control lines to the proxy (breakpoints).
pub type Writer = Box<dyn Write + Send>;

/// How long a control line may wait to be written: a proxy that stopped reading is not waited for.
const WRITE_WAIT: Duration = Duration::from_secs(2);

/// Connects to the proxy at `path` (its socket, or its port file and secret).
pub fn connect(path: &Path) -> io::Result<(Stream, Timing, Writer)> {
    #[cfg(unix)]
    if path.extension().is_some_and(|e| e == "sock") {
        let stream = std::os::unix::net::UnixStream::connect(path)?;
        let timing = stream.try_clone()?;
        let writer = stream.try_clone()?;
        writer.set_write_timeout(Some(WRITE_WAIT))?;
        return Ok((Box::new(stream), Box::new(move |t| timing.set_read_timeout(Some(t))), Box::new(writer)));
    }
    connect_port(path)
}

/// The port way: the port and secret read from the 0600 file, the secret said first.
fn connect_port(path: &Path) -> io::Result<(Stream, Timing, Writer)> {
    let text = crate::files::read_bounded(path, 4096)?;
    let about: serde_json::Value = serde_json::from_slice(&text).map_err(io::Error::other)?;
    let port = about["port"].as_u64().and_then(|p| u16::try_from(p).ok());
    let (Some(port), Some(secret)) = (port, about["secret"].as_str()) else {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a proxy's port file"));
    };
    let mut stream = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), HANDSHAKE)?;
    writeln!(stream, "{secret}")?;
    let timing = stream.try_clone()?;
    let writer = stream.try_clone()?;
    writer.set_write_timeout(Some(WRITE_WAIT))?;
    Ok((Box::new(stream), Box::new(move |t| timing.set_read_timeout(Some(t))), Box::new(writer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::{BufRead, BufReader};

    #[test]
    fn the_port_way_takes_only_a_watcher_that_says_the_secret() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.port");
        let listener = Listener::bind_port(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let Listener::Port { listener: tcp, .. } = &listener else { panic!("a port") };
        let port = tcp.local_addr().unwrap().port();
        std::thread::spawn(move || {
            listener.accept_each(&AtomicBool::new(false), |reading, mut stream| {
                // What the watcher writes after the secret is its own: said back here.
                let mut line = String::new();
                let _ = BufReader::new(reading).read_line(&mut line);
                let _ = stream.write_all(format!("hello, you said {line}").as_bytes());
            })
        });
        // A stranger who does not know the secret hears nothing.
        let mut stranger = TcpStream::connect(("127.0.0.1", port)).unwrap();
        writeln!(stranger, "guess").unwrap();
        let mut heard = String::new();
        let _ = stranger.read_to_string(&mut heard);
        assert_eq!(heard, "");
        let (stream, _, mut control) = connect_port(&path).unwrap();
        control.write_all(b"{\"clear\": \"breakpoints\"}\n").unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        assert_eq!(line, "hello, you said {\"clear\": \"breakpoints\"}\n");
    }
}
