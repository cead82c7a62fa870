"""The play page's web server (`encore-sim play`): Starlette under uvicorn, on 127.0.0.1 alone.

    url = serve(session, port=None, browser=True)    # blocks until Ctrl-C; the URL is printed first

The page (sim/play/page/: plain HTML, SVG and JS, no build step) fetches the game's state as
JSON and posts the person's moves; a PlaySession (sim.play.session) holds the game and checks
every move. Here is what keeps another local user, or a web page open in the same browser, out:

- the socket is bound to 127.0.0.1 only: nothing off this machine reaches it;
- every URL starts with a token of 192 random bits (secrets), made anew for each server: a
  request without it is refused (403) before anything else is read, so another local user, who
  can reach the port but not read this process's output, cannot play or even see the game;
- the Host header must be 127.0.0.1:PORT or localhost:PORT, so a site whose DNS name is
  rebound to 127.0.0.1 cannot use the browser against the server;
- a request that changes the game must be a JSON POST (a cross-site one then needs a CORS
  preflight, which the server never grants) and must come from the page's own origin when the
  browser says where it comes from (Origin, Sec-Fetch-Site);
- the page may not be framed (clickjacking) and may load nothing but its own files (CSP), and
  the token leaves in no Referer.

Every refusal is a 4xx status with one line of text; the session's checks (sim.play.session)
refuse a stale or illegal move the same way, before anything changes.
"""
from __future__ import annotations

import json
import secrets
import socket
import sys
import threading
from importlib import resources

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from .session import MAX_BODY, Refused

#: The page's files, shipped in the package (pyproject.toml's package-data), read once.
PAGE_FILES = {"": ("index.html", "text/html; charset=utf-8"),
              "play.js": ("play.js", "text/javascript; charset=utf-8"),
              "play.css": ("play.css", "text/css; charset=utf-8"),
              "favicon.svg": ("favicon.svg", "image/svg+xml")}

SECURITY_HEADERS = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "cross-origin-resource-policy": "same-origin",
}


def page_file(name: str) -> bytes:
    return (resources.files("sim.play") / "page" / name).read_bytes()


def _line(status: int, message: str) -> Response:
    """A refusal: one line of text."""
    return PlainTextResponse(message.splitlines()[0] + "\n", status, headers=SECURITY_HEADERS)


class Guard:
    """ASGI middleware that checks every request before the app sees it: the Host, the token as
    the path's first segment (then cut off the path), the methods, and a state-changing request's
    origin and body type. See the module's docstring for why each."""

    def __init__(self, app, token: str, port: int):
        self.app = app
        self.token = token.encode()
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":          # a websocket: the page opens none, so it is closed at once
            await receive()
            return await send({"type": "websocket.close", "code": 1008})
        refusal, rest = self._check(scope)
        if refusal is not None:
            return await refusal(scope, receive, send)
        if rest is None:                      # /TOKEN without its slash: the page's relative URLs need it
            return await RedirectResponse(scope["path"] + "/", 308, headers=SECURITY_HEADERS)(scope, receive, send)
        inner = dict(scope, path=rest, raw_path=rest.encode(), root_path="")
        return await self.app(inner, receive, send)

    def _check(self, scope):
        headers = Headers(scope=scope)
        if headers.get("host") not in self.hosts:
            return _line(403, "forbidden: this server answers to 127.0.0.1:PORT and localhost:PORT alone"), None
        first, slash, rest = scope["path"].removeprefix("/").partition("/")
        if not secrets.compare_digest(first.encode(), self.token):
            return _line(403, "forbidden: no valid token in the URL (use the URL `encore-sim play` printed)"), None
        if not slash:
            return None, None
        method = scope["method"]
        if method not in ("GET", "HEAD", "POST"):
            return _line(405, f"method {method} not allowed"), None
        if method == "POST":
            origin = headers.get("origin")
            if origin is not None and origin not in self.origins:
                return _line(403, f"forbidden: a request from {origin[:60]} may not change this game"), None
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return _line(403, "forbidden: a request from another site may not change this game"), None
            if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
                return _line(415, "a move is sent as application/json"), None
        return None, "/" + rest


def app(session, token: str, port: int) -> Guard:
    """The page's application for `session` behind its Guard, at http://127.0.0.1:port/token/."""

    def refused(handler):
        async def wrapped(request: Request):
            try:
                return await handler(request)
            except Refused as e:
                return _line(e.status, e.message)
        return wrapped

    async def static(request: Request):
        name, kind = PAGE_FILES[request.url.path.removeprefix("/")]
        return Response(files[name], media_type=kind, headers=SECURITY_HEADERS)

    async def body(request: Request):
        if int(request.headers.get("content-length") or 0) > MAX_BODY:
            raise Refused(413, f"request too large: a move is under {MAX_BODY} bytes")
        data = await request.body()
        if len(data) > MAX_BODY:
            raise Refused(413, f"request too large: a move is under {MAX_BODY} bytes")
        try:
            return json.loads(data)
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "bad request: the body is not JSON") from None

    def answer(x) -> Response:
        return JSONResponse(x, headers=SECURITY_HEADERS)

    # The game's calls run in Starlette's thread pool (run_in_threadpool) through the session's
    # lock: a move steps the bots' Numba kernels, and the event loop keeps answering meanwhile.
    from starlette.concurrency import run_in_threadpool

    async def state(request: Request):
        return answer(await run_in_threadpool(session.state))

    def decision(request: Request, usage: str) -> int:
        try:
            return int(request.query_params.get("decision", ""))
        except ValueError:
            raise Refused(400, f"bad request: {usage}") from None

    def seat(request: Request, usage: str) -> int | None:
        if "seat" not in request.query_params:
            return None
        try:
            return int(request.query_params["seat"])
        except ValueError:
            raise Refused(400, f"bad request: {usage}") from None

    async def hint(request: Request):
        n = decision(request, "hint?game=ID&decision=N")
        k = seat(request, "hint?game=ID&decision=N&seat=S")
        return answer(await run_in_threadpool(session.hint, request.query_params.get("game"), n, k))

    async def play(request: Request):
        return answer(await run_in_threadpool(session.play, await body(request)))

    async def coach(request: Request):
        return answer(await run_in_threadpool(session.set_coach, await body(request)))

    async def review(request: Request):
        return answer(await run_in_threadpool(session.review, decision(request, "review?decision=N"),
                                              seat(request, "review?decision=N&seat=S")))

    async def saved(request: Request):
        n = decision(request, "saved?folder=NAME&decision=N")
        k = seat(request, "saved?folder=NAME&decision=N&seat=S")
        return answer(await run_in_threadpool(session.saved_review, request.query_params.get("folder", ""), n, k))

    async def games(request: Request):
        return answer(await run_in_threadpool(session.games))

    async def undo(request: Request):
        return answer(await run_in_threadpool(session.take_back, await body(request)))

    async def people(request: Request):
        return answer(await run_in_threadpool(session.set_people, await body(request)))

    async def practice(request: Request):
        return answer(await run_in_threadpool(session.set_practice, await body(request)))

    async def not_found(request: Request, exc):
        return _line(exc.status_code, f"{exc.status_code}: {request.url.path} is not part of the play page")

    files = {name: page_file(name) for name, _ in PAGE_FILES.values()}
    routes = [Route("/" + path, static, methods=["GET"]) for path in PAGE_FILES]
    routes += [Route("/api/state", refused(state), methods=["GET"]),
               Route("/api/hint", refused(hint), methods=["GET"]),
               Route("/api/play", refused(play), methods=["POST"]),
               Route("/api/coach", refused(coach), methods=["POST"]),
               Route("/api/undo", refused(undo), methods=["POST"]),
               Route("/api/games", refused(games), methods=["GET"]),
               Route("/api/review", refused(review), methods=["GET"]),
               Route("/api/saved", refused(saved), methods=["GET"]),
               Route("/api/practice", refused(practice), methods=["POST"]),
               Route("/api/people", refused(people), methods=["POST"])]
    inner = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})
    return Guard(inner, token, port)


def listen(port: int | None = None) -> socket.socket:
    """A listening socket on 127.0.0.1:port (None or 0: a free port the system picks)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port or 0))
    except OSError as e:
        sock.close()
        raise ValueError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}") from None
    sock.listen(64)
    return sock


class Server:
    """The page's server on its socket: `url`, `run()` (blocks), `start()` / `stop()` (a thread)."""

    def __init__(self, session, port: int | None = None, sock: socket.socket | None = None):
        import uvicorn
        self.sock = sock if sock is not None else listen(port)
        self.port = self.sock.getsockname()[1]
        self.token = secrets.token_urlsafe(24)
        self.url = f"http://127.0.0.1:{self.port}/{self.token}/"
        config = uvicorn.Config(app(session, self.token, self.port), lifespan="off", log_level="warning",
                                access_log=False, server_header=False)
        self.server = uvicorn.Server(config)
        self._thread = None

    def run(self) -> None:
        self.server.run(sockets=[self.sock])

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self.run, name="play-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.sock.close()


def serve(session, sock: socket.socket, browser: bool = True, say=print, tell=None) -> None:
    """Serve `session`'s page on `sock` (listen()) until Ctrl-C: say(url) first (the command prints it
    as the first line of stdout, flushed: a script or test reads it there), then tell() (the
    command's notes, on stderr), then the browser opened on the URL unless `browser` is False.
    A session still being prepared (sim.play.session.Starting) is started once the URL is out; if
    its game cannot be made (a bad strategy, a damaged folder), the server stops and that error is
    raised (ValueError, one line)."""
    server = Server(session, sock=sock)
    say(server.url)
    sys.stdout.flush()
    if tell is not None:
        tell()
    starting = getattr(session, "thread", None) is not None
    if starting:
        def failed(error):
            server.server.should_exit = True
        session._failed = failed
        session.start()
    if browser:
        import webbrowser
        # The socket already listens: a browser faster than uvicorn's start waits in its backlog.
        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    server.run()
    if starting and session.error is not None and session.session is None:
        raise ValueError(session.error)
