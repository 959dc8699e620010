//! moto's S3 server for the object-storage tests: started from its own venv (`.ci/run` makes
//! `target/moto-venv` from `tests/interop/moto-requirements.txt`) on a free 127.0.0.1 port,
//! waited for until it answers, and killed on drop. Missing, it fails under `CI=true` and is
//! skipped, loudly, elsewhere.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::root;

pub struct Moto {
    pub endpoint: String,
    server: Child,
}

/// moto's server in its venv, or `None` (after saying so) when it is missing outside CI.
fn server_bin() -> Option<PathBuf> {
    let server_bin = std::env::var_os("FIELDGATE_TEST_MOTO")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/moto-venv/bin/moto_server"));
    if !server_bin.exists() {
        let message = format!(
            "the object-storage tests need moto's server at {} (.ci/run makes it from tests/interop/moto-requirements.txt)",
            server_bin.display()
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message}");
        }
        eprintln!("SKIPPED: {message}");
        return None;
    }
    Some(server_bin)
}

/// The Python of moto's venv, which has botocore (for `rest_server.py --sigv4-python`).
pub fn python() -> Option<PathBuf> {
    Some(server_bin()?.with_file_name("python"))
}

impl Moto {
    pub fn start() -> Option<Moto> {
        let server_bin = server_bin()?;
        // moto's server cannot report a port it chose itself, so a free one is found first.
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let server = Command::new(&server_bin)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto's server starts");
        let mut moto = Moto {
            endpoint: format!("http://127.0.0.1:{port}"),
            server,
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline || moto.server.try_wait().ok().flatten().is_some() {
                panic!("moto's server did not start on port {port}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    /// Makes the bucket `lake` and gives the `s3.*` properties the catalog writes its tables
    /// with (moto's own keys, never the ones fieldgate is meant to use).
    pub fn lake_bucket(&self) -> [(&'static str, &str); 4] {
        super::tool(&["make-bucket", "--endpoint", &self.endpoint, "lake"]);
        [
            ("s3.endpoint", self.endpoint.as_str()),
            ("s3.access-key-id", "writer"),
            ("s3.secret-access-key", "writer-secret"),
            ("s3.region", "us-east-1"),
        ]
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
