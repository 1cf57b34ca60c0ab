//! The service against servers on loopback only. "Public" names resolve, through an injected
//! resolver, to a public-looking address that the injected connector maps to a loopback
//! server; the connector refuses every other non-loopback address, so a bug in the checks
//! cannot send traffic anywhere but this machine.

use super::*;
use futures::future::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Public by the policy's table; the test connector sends it to 127.0.0.1, same port.
const PUBLIC: IpAddr = IpAddr::V4(Ipv4Addr::new(93, 184, 216, 34));

/// Names and their answers, in order; the last answer repeats.
#[derive(Clone, Default)]
struct Names(Arc<Mutex<HashMap<String, VecDeque<Vec<IpAddr>>>>>);

impl Names {
    fn set(&self, name: &str, answers: &[&[IpAddr]]) {
        self.0.lock().unwrap().insert(
            name.to_owned(),
            answers.iter().map(|a| a.to_vec()).collect(),
        );
    }
}

impl Resolve for Names {
    fn resolve(&self, host: &str, port: u16) -> BoxFuture<'static, io::Result<Vec<SocketAddr>>> {
        let mut names = self.0.lock().unwrap();
        let answer = names.get_mut(host).map(|q| {
            if q.len() > 1 {
                q.pop_front().unwrap()
            } else {
                q[0].clone()
            }
        });
        Box::pin(async move {
            let ips =
                answer.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such name"))?;
            Ok(ips
                .into_iter()
                .map(|ip| SocketAddr::new(ip, port))
                .collect())
        })
    }
}

/// Connects to loopback (and `PUBLIC`, redirected to loopback) only; records every address
/// it is handed.
#[derive(Clone, Default)]
struct LoopbackOnly(Arc<Mutex<Vec<SocketAddr>>>);

impl LoopbackOnly {
    fn dialed(&self) -> Vec<SocketAddr> {
        self.0.lock().unwrap().clone()
    }
}

impl Connect for LoopbackOnly {
    fn connect(&self, addr: SocketAddr) -> BoxFuture<'static, io::Result<TcpStream>> {
        self.0.lock().unwrap().push(addr);
        Box::pin(async move {
            let target = match addr.ip() {
                ip if ip == PUBLIC || ip.is_loopback() => {
                    SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port())
                }
                _ => {
                    return Err(io::Error::other(format!(
                        "test connector refuses {addr}: only loopback"
                    )));
                }
            };
            TcpStream::connect(target).await
        })
    }
}

/// What the loopback server answers.
#[derive(Clone)]
enum Reply {
    /// These bytes, then close.
    Raw(Vec<u8>),
    /// A head, then `count` chunks of `chunk`, `pause` apart.
    Stream {
        head: Vec<u8>,
        chunk: Vec<u8>,
        count: usize,
        pause: Duration,
    },
    /// Reads the request and says nothing.
    Silent,
}

fn ok(body: &[u8], headers: &str) -> Reply {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    Reply::Raw(out)
}

fn redirect(status: u16, location: &str) -> Reply {
    Reply::Raw(
        format!(
            "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .into_bytes(),
    )
}

struct TestServer {
    port: u16,
    hits: Arc<AtomicUsize>,
    written: Arc<AtomicUsize>,
}

/// A server on 127.0.0.1 answering every request with `reply(path)`.
async fn server(reply: impl Fn(&str) -> Reply + Send + Sync + 'static) -> TestServer {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let written = Arc::new(AtomicUsize::new(0));
    let reply = Arc::new(reply);
    let (h, w) = (hits.clone(), written.clone());
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let (reply, hits, written) = (reply.clone(), h.clone(), w.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                hits.fetch_add(1, Ordering::SeqCst);
                let text = String::from_utf8_lossy(&head);
                let path = text.split(' ').nth(1).unwrap_or("/").to_owned();
                match reply(&path) {
                    Reply::Raw(bytes) => {
                        let _ = conn.write_all(&bytes).await;
                    }
                    Reply::Stream {
                        head,
                        chunk,
                        count,
                        pause,
                    } => {
                        if conn.write_all(&head).await.is_err() {
                            return;
                        }
                        for _ in 0..count {
                            if conn.write_all(&chunk).await.is_err() {
                                return;
                            }
                            written.fetch_add(chunk.len(), Ordering::SeqCst);
                            if !pause.is_zero() {
                                tokio::time::sleep(pause).await;
                            }
                        }
                    }
                    Reply::Silent => tokio::time::sleep(Duration::from_secs(3600)).await,
                }
                let _ = conn.shutdown().await;
            });
        }
    });
    TestServer {
        port,
        hits,
        written,
    }
}

struct Fixture {
    net: NetService,
    names: Names,
    dialer: LoopbackOnly,
}

fn fixture(policy: NetPolicy) -> Fixture {
    let names = Names::default();
    names.set("public.test", &[&[PUBLIC]]);
    let dialer = LoopbackOnly::default();
    let net = NetService::builder(policy)
        .resolver(names.clone())
        .connector(dialer.clone())
        .build()
        .unwrap();
    Fixture { net, names, dialer }
}

fn refused(result: Result<NetResponse, NetError>) -> String {
    match result {
        Err(NetError::Refused(why)) => why,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_public_name_is_fetched() {
    let srv = server(|_| ok(b"hello", "Content-Type: text/plain; charset=utf-8\r\n")).await;
    let f = fixture(NetPolicy::new());
    let page = f
        .net
        .get(&format!("http://public.test:{}/x", srv.port))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(&page.body()[..], b"hello");
    assert_eq!(page.content_type().as_deref(), Some("text/plain"));
    assert_eq!(f.dialer.dialed(), [SocketAddr::new(PUBLIC, srv.port)]);
}

#[tokio::test]
async fn loopback_in_every_spelling_is_refused_before_connecting() {
    let srv = server(|_| ok(b"secret", "")).await;
    let f = fixture(NetPolicy::new());
    let p = srv.port;
    for url in [
        format!("http://127.0.0.1:{p}/"),
        format!("http://0x7f000001:{p}/"),
        format!("http://2130706433:{p}/"),
        format!("http://0177.0.0.1:{p}/"),
        format!("http://127.1:{p}/"),
        format!("http://[::ffff:127.0.0.1]:{p}/"),
        format!("http://[::1]:{p}/"),
        format!("http://0.0.0.0:{p}/"),
    ] {
        let why = refused(f.net.get(&url).await);
        assert!(
            why.contains("loopback") || why.contains("unspecified"),
            "{url}: {why}"
        );
    }
    assert!(f.dialer.dialed().is_empty(), "{:?}", f.dialer.dialed());
    assert_eq!(srv.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn names_resolving_to_private_or_metadata_addresses_are_refused() {
    let f = fixture(NetPolicy::new());
    f.names
        .set("internal.test", &[&["10.0.0.5".parse().unwrap()]]);
    f.names
        .set("metadata.test", &[&["169.254.169.254".parse().unwrap()]]);
    f.names
        .set("mixed.test", &[&[PUBLIC, "192.168.1.1".parse().unwrap()]]);
    let why = refused(f.net.get("http://internal.test/").await);
    assert!(why.contains("internal.test resolves to a private"), "{why}");
    let why = refused(f.net.get("http://metadata.test/latest/meta-data/").await);
    assert!(why.contains("link-local"), "{why}");
    let why = refused(f.net.get("http://mixed.test/").await);
    assert!(why.contains("private"), "{why}");
    let why = refused(f.net.get("http://169.254.169.254/latest/meta-data/").await);
    assert!(why.contains("metadata"), "{why}");
    assert!(f.dialer.dialed().is_empty(), "{:?}", f.dialer.dialed());
}

#[tokio::test]
async fn an_origin_allowed_exactly_reaches_loopback_and_nothing_else_does() {
    let srv = server(|_| ok(b"local", "")).await;
    let other = server(|_| ok(b"other", "")).await;
    let f = fixture(
        NetPolicy::new()
            .allow_origin(format!("http://127.0.0.1:{}", srv.port))
            .unwrap(),
    );
    let page = f
        .net
        .get(&format!("http://127.0.0.1:{}/", srv.port))
        .await
        .unwrap();
    assert_eq!(&page.body()[..], b"local");
    refused(
        f.net
            .get(&format!("http://127.0.0.1:{}/", other.port))
            .await,
    );
    refused(f.net.get(&format!("https://127.0.0.1:{}/", srv.port)).await);
    // The same server by another name is another origin.
    f.names
        .set("localhost", &[&[IpAddr::V4(Ipv4Addr::LOCALHOST)]]);
    let why = refused(f.net.get(&format!("http://localhost:{}/", srv.port)).await);
    assert!(why.contains("localhost resolves to a loopback"), "{why}");
    assert_eq!(srv.hits.load(Ordering::SeqCst), 1);
    assert_eq!(other.hits.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn rebinding_is_checked_at_each_connection() {
    let srv = server(|_| ok(b"first", "")).await;
    let f = fixture(NetPolicy::new());
    // First answer public, then loopback: the server closes each connection, so the second
    // request resolves again, and the address it would connect to is the one checked.
    f.names.set(
        "rebind.test",
        &[&[PUBLIC], &[IpAddr::V4(Ipv4Addr::LOCALHOST)]],
    );
    let url = format!("http://rebind.test:{}/", srv.port);
    assert_eq!(&f.net.get(&url).await.unwrap().body()[..], b"first");
    let why = refused(f.net.get(&url).await);
    assert!(why.contains("rebind.test resolves to a loopback"), "{why}");
    assert_eq!(f.dialer.dialed(), [SocketAddr::new(PUBLIC, srv.port)]);
    assert_eq!(srv.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn redirects_are_checked_at_every_hop() {
    let secret = server(|_| ok(b"secret", "")).await;
    let secret_port = secret.port;
    let srv = server(move |path| match path {
        "/to-loopback" => redirect(302, &format!("http://127.0.0.1:{secret_port}/")),
        "/to-metadata" => redirect(301, "http://169.254.169.254/latest/meta-data/"),
        "/to-userinfo" => redirect(307, "http://user:pw@public.test/"),
        "/loop" => redirect(302, "/loop"),
        "/hop" => redirect(308, "/final"),
        _ => ok(b"landed", ""),
    })
    .await;
    let f = fixture(NetPolicy::new().max_redirects(3));
    let base = format!("http://public.test:{}", srv.port);
    let why = refused(f.net.get(&format!("{base}/to-loopback")).await);
    assert!(why.contains("loopback"), "{why}");
    let why = refused(f.net.get(&format!("{base}/to-metadata")).await);
    assert!(why.contains("link-local"), "{why}");
    let why = refused(f.net.get(&format!("{base}/to-userinfo")).await);
    assert!(why.contains("credentials"), "{why}");
    match f.net.get(&format!("{base}/loop")).await {
        Err(NetError::TooManyRedirects { limit: 3 }) => {}
        other => panic!("{other:?}"),
    }
    let page = f.net.get(&format!("{base}/hop")).await.unwrap();
    assert_eq!(&page.body()[..], b"landed");
    assert!(page.url().ends_with("/final"), "{}", page.url());
    assert_eq!(secret.hits.load(Ordering::SeqCst), 0);
    assert!(
        f.dialer.dialed().iter().all(|a| a.ip() == PUBLIC),
        "{:?}",
        f.dialer.dialed()
    );
}

#[tokio::test]
async fn userinfo_schemes_hosts_and_ports_follow_the_policy() {
    let f = fixture(
        NetPolicy::new()
            .allow_host("*.allowed.test")
            .allow_port(443)
            .schemes(["https"]),
    );
    let why = refused(f.net.get("https://user:pw@a.allowed.test/").await);
    assert!(why.contains("credentials"), "{why}");
    assert!(refused(f.net.get("http://a.allowed.test/").await).contains("scheme"));
    assert!(refused(f.net.get("https://allowed.test/").await).contains("host"));
    assert!(refused(f.net.get("https://a.allowed.test:8443/").await).contains("port"));
    assert!(matches!(
        f.net.get("file:///etc/passwd").await,
        Err(NetError::Refused(_) | NetError::InvalidUrl(_))
    ));
    assert!(matches!(
        f.net.get("not a url").await,
        Err(NetError::InvalidUrl(_))
    ));
    assert!(f.dialer.dialed().is_empty());
}

#[tokio::test]
async fn a_hundred_megabyte_body_stops_at_the_cap() {
    let chunk = vec![b'x'; 64 << 10];
    let count = (100 << 20) / chunk.len();
    let srv = server(move |_| Reply::Stream {
        head: format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            100 << 20
        )
        .into_bytes(),
        chunk: chunk.clone(),
        count,
        pause: Duration::ZERO,
    })
    .await;
    let f = fixture(NetPolicy::new().max_response_bytes(1 << 20));
    let url = format!("http://public.test:{}/", srv.port);
    match f.net.get(&url).await {
        Err(NetError::TooLarge { limit }) => assert_eq!(limit, 1 << 20),
        other => panic!("{other:?}"),
    }
    let page = f
        .net
        .send(NetRequest::get(&url).allow_truncation())
        .await
        .unwrap();
    assert!(page.truncated());
    assert_eq!(page.body().len(), 1 << 20);
    // The client stopped reading: the server could not push the whole body.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(srv.written.load(Ordering::SeqCst) < 40 << 20);
}

#[tokio::test]
async fn a_gzip_bomb_is_cut_after_inflation() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&vec![0u8; 64 << 20]).unwrap();
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let small = {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"inflated fine").unwrap();
        gz.finish().unwrap()
    };
    let srv = server(move |path| {
        if path == "/small" {
            ok(&small, "Content-Encoding: gzip\r\n")
        } else {
            ok(&bomb, "Content-Encoding: gzip\r\n")
        }
    })
    .await;
    let f = fixture(NetPolicy::new().max_response_bytes(1 << 20));
    let base = format!("http://public.test:{}", srv.port);
    assert_eq!(
        &f.net.get(&format!("{base}/small")).await.unwrap().body()[..],
        b"inflated fine"
    );
    match f.net.get(&format!("{base}/bomb")).await {
        Err(NetError::TooLarge { .. }) => {}
        other => panic!("{other:?}"),
    }
    let page = f
        .net
        .send(NetRequest::get(format!("{base}/bomb")).allow_truncation())
        .await
        .unwrap();
    assert!(page.truncated());
    assert_eq!(page.body().len(), 1 << 20);
}

#[tokio::test]
async fn a_trickling_server_runs_into_the_overall_timeout() {
    let srv = server(|_| Reply::Stream {
        head: b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n".to_vec(),
        chunk: b"x".to_vec(),
        count: 100_000,
        pause: Duration::from_millis(20),
    })
    .await;
    let f = fixture(NetPolicy::new().total_timeout(Duration::from_millis(500)));
    match f
        .net
        .get(&format!("http://public.test:{}/", srv.port))
        .await
    {
        Err(NetError::Timeout {
            phase: "overall", ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_silent_server_runs_into_the_header_timeout() {
    let srv = server(|_| Reply::Silent).await;
    let f = fixture(NetPolicy::new().header_timeout(Duration::from_millis(300)));
    match f
        .net
        .get(&format!("http://public.test:{}/", srv.port))
        .await
    {
        Err(NetError::Timeout { phase, .. }) => assert!(phase.contains("headers"), "{phase}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_header_flood_is_refused() {
    let mut head = String::from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n");
    for i in 0..1000 {
        head.push_str(&format!("X-Flood-{i}: {}\r\n", "y".repeat(40)));
    }
    head.push_str("\r\nok");
    let srv = server(move |_| Reply::Raw(head.clone().into_bytes())).await;
    let f = fixture(NetPolicy::new());
    match f
        .net
        .get(&format!("http://public.test:{}/", srv.port))
        .await
    {
        Err(NetError::Transport(why)) => assert!(why.contains("too large"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn credentials_do_not_follow_a_redirect_to_another_origin() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let other_port = listener.local_addr().unwrap().port();
    let log = seen.clone();
    tokio::spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 8192];
        let n = conn.read(&mut buf).await.unwrap();
        log.lock()
            .unwrap()
            .push(String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase());
        let _ = conn
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            .await;
    });
    let srv = server(move |_| redirect(302, &format!("http://other.test:{other_port}/"))).await;
    let f = fixture(NetPolicy::new());
    f.names.set("other.test", &[&[PUBLIC]]);
    let page = f
        .net
        .send(
            NetRequest::get(format!("http://public.test:{}/", srv.port))
                .header("Authorization", "Bearer sk-secret")
                .header("Cookie", "session=secret"),
        )
        .await
        .unwrap();
    assert_eq!(&page.body()[..], b"ok");
    let seen = seen.lock().unwrap();
    assert!(!seen[0].contains("authorization"), "{}", seen[0]);
    assert!(!seen[0].contains("secret"), "{}", seen[0]);
}

#[test]
fn every_exchange_is_audited_without_paths_queries_or_headers() {
    let (captured, _guard) = crate::test_log::Captured::install();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let port = rt.block_on(async {
        let srv = server(|path| {
            if path.starts_with("/hop") {
                redirect(302, "/page")
            } else {
                ok(b"12345", "")
            }
        })
        .await;
        let f = fixture(NetPolicy::new());
        let net = f.net.for_tool("fetch");
        net.send(
            NetRequest::get(format!(
                "http://public.test:{}/hop?token=sk-query",
                srv.port
            ))
            .header("Authorization", "Bearer sk-header"),
        )
        .await
        .unwrap();
        net.get("http://10.1.2.3/private").await.unwrap_err();
        srv.port
    });
    let text = captured.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let origin = format!("origin=\"http://public.test:{port}\"");
    for (line, fields) in [
        (lines[0], vec!["status=302", "bytes=0", "outcome=\"ok\""]),
        (lines[1], vec!["status=200", "bytes=5", "outcome=\"ok\""]),
    ] {
        for field in fields.iter().chain(&[
            "mcp::audit",
            "operation=\"http_request\"",
            "tool=\"fetch\"",
            "method=\"GET\"",
            origin.as_str(),
            "duration_ms=",
        ]) {
            assert!(line.contains(field), "{field} in {line}");
        }
    }
    assert!(
        lines[2].contains("WARN") && lines[2].contains("outcome=\"denied\""),
        "{}",
        lines[2]
    );
    assert!(
        lines[2].contains("origin=\"http://10.1.2.3:80\""),
        "{}",
        lines[2]
    );
    assert!(
        !text.contains("sk-") && !text.contains("/page") && !text.contains("hop"),
        "{text}"
    );
}

#[tokio::test]
async fn https_checks_the_certificate_against_the_roots_and_the_name() {
    let key = rcgen::generate_simple_self_signed(vec!["public.test".to_owned()]).unwrap();
    let cert_pem = key.cert.pem();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![key.cert.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(key.signing_key.serialize_der().into()),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(conn).await else {
                    return;
                };
                let mut buf = [0u8; 4096];
                let _ = tls.read(&mut buf).await;
                let _ = tls
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecure",
                    )
                    .await;
                let _ = tls.shutdown().await;
            });
        }
    });
    let url = format!("https://public.test:{port}/");
    // Mozilla's roots alone do not know this certificate.
    let f = fixture(NetPolicy::new());
    match f.net.get(&url).await {
        Err(NetError::Transport(why)) => assert!(why.contains("certificate"), "{why}"),
        other => panic!("{other:?}"),
    }
    let f = fixture(
        NetPolicy::new()
            .add_root_certificates_pem(cert_pem.as_bytes())
            .unwrap(),
    );
    assert_eq!(&f.net.get(&url).await.unwrap().body()[..], b"secure");
    // The same certificate for another name is refused.
    f.names.set("other.test", &[&[PUBLIC]]);
    match f.net.get(&format!("https://other.test:{port}/")).await {
        Err(NetError::Transport(why)) => assert!(why.contains("certificate"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(
        NetPolicy::new()
            .add_root_certificates_pem(b"not a pem")
            .is_err()
    );
}
