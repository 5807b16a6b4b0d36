//! Serving HTTP: each connection accepted from the listener is served by hyper with a header
//! read timeout (a client that never finishes its request's headers is dropped, so that
//! connections held open that way cost the server nothing for long), the peer's address in the
//! request's extensions (`ConnectInfo`, as axum's own `serve` puts it there), and a graceful
//! stop: no new connection once `stop` resolves, and the requests under way finish.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tower::ServiceExt;

/// Serves `app` on `listener` until `stop` resolves, then waits for the connections under way
/// (at most `patience`). A client gets `header_timeout` to send its request's headers.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    header_timeout: Duration,
    stop: impl std::future::Future<Output = ()>,
    patience: Duration,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let mut stop = std::pin::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors, say: the next accept may do better.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            request
                .extensions_mut()
                .insert(ConnectInfo::<SocketAddr>(peer));
            app.clone().oneshot(request.map(axum::body::Body::new))
        });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        tokio::spawn(graceful.watch(connection));
    }
    let _ = tokio::time::timeout(patience, graceful.shutdown()).await;
}
