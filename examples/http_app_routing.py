"""A small WSGI-style HTTP application framework and an example application.

The framework part provides:

* ``Headers``, a case-insensitive multi-value header mapping;
* ``MultiDict`` plus query-string, urlencoded-form and multipart parsing;
* cookie parsing and ``Set-Cookie`` rendering through ``http.cookies``;
* ``Request`` and ``Response`` objects (with JSON, HTML and redirect variants);
* a ``Router`` with typed path parameters such as ``/users/<int:user_id>``;
* ``Blueprint`` sub-routers that can nest, error handlers and request hooks;
* a middleware chain (logging, CORS, error handling, signed-cookie sessions);
* an ``App`` that is a WSGI callable, and a ``TestClient`` that drives it
  in-process without sockets.

The second half of the file is a tiny notes service built on top of it, and
``main()`` exercises that service with a scripted series of requests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.cookies
import io
import itertools
import json
import re
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from fnmatch import fnmatchcase
from functools import cached_property, partialmethod, wraps
from http import HTTPStatus
from typing import Any, ClassVar, TypeVar
from urllib.parse import parse_qs as _parse_qs
from urllib.parse import quote, unquote_to_bytes, urlencode

Environ = dict[str, Any]
StartResponse = Callable[..., Callable[[bytes], object]]
Handler = Callable[..., Any]
F = TypeVar("F", bound=Callable[..., Any])

EPOCH_EXPIRES = "Thu, 01 Jan 1970 00:00:00 GMT"


# --- HTTP errors -----------------------------------------------------------

class HTTPException(Exception):
    """An exception that maps directly onto an HTTP error response."""

    code: ClassVar[int] = 500
    default_description: ClassVar[str] = "The server encountered an internal error."
    def __init__(self, description: str | None = None, *,
                 headers: Mapping[str, str] | None = None) -> None:
        self.description = description or self.default_description
        self.extra_headers = dict(headers or {})
        super().__init__(self.description)

    @property
    def name(self) -> str:
        return status_phrase(self.code)

    def get_headers(self) -> dict[str, str]:
        return dict(self.extra_headers)

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "name": self.name,
                          "description": self.description}}

    def get_response(self, request: Request | None = None) -> Response:
        """Render the error as JSON or HTML depending on what the client accepts."""
        response: Response
        if request is not None and request.wants_json:
            response = JSONResponse(self.to_dict(), self.code)
        else:
            page = render_error_page(self.code, self.name, self.description)
            response = HTMLResponse(page, self.code)
        for name, value in self.get_headers().items():
            response.headers[name] = value
        return response


class BadRequest(HTTPException):
    code = 400
    default_description = "The browser sent a request this server could not understand."


class Unauthorized(HTTPException):
    code = 401
    default_description = "Authentication is required to access this resource."


class Forbidden(HTTPException):
    code = 403
    default_description = "You do not have permission to access this resource."


class NotFound(HTTPException):
    code = 404
    default_description = "The requested URL was not found on the server."


class MethodNotAllowed(HTTPException):
    code = 405
    default_description = "The method is not allowed for the requested URL."

    def __init__(self, valid_methods: Iterable[str], description: str | None = None) -> None:
        super().__init__(description)
        self.valid_methods = sorted(set(valid_methods))

    def get_headers(self) -> dict[str, str]:
        return {**super().get_headers(), "Allow": ", ".join(self.valid_methods)}


class UnsupportedMediaType(HTTPException):
    code = 415
    default_description = "The request body has an unsupported content type."


class UnprocessableEntity(HTTPException):
    code = 422
    default_description = "The request body failed validation."

    def __init__(self, errors: Mapping[str, str], description: str | None = None) -> None:
        super().__init__(description)
        self.errors = dict(errors)

    def to_dict(self) -> dict[str, Any]:
        payload = super().to_dict()
        payload["error"]["fields"] = self.errors
        return payload


class InternalServerError(HTTPException):
    code = 500


class BuildError(LookupError):
    """Raised when ``url_for`` cannot build a URL for an endpoint."""


def status_phrase(code: int) -> str:
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return "Unknown Status"


ERROR_PAGE_TEMPLATE = """<!doctype html>
<html lang="en">
<head><title>{code} {name}</title></head>
<body>
<h1>{name}</h1>
<p>{description}</p>
</body>
</html>
"""


def escape_html(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def render_error_page(code: int, name: str, description: str) -> str:
    return ERROR_PAGE_TEMPLATE.format(code=code, name=escape_html(name),
                                      description=escape_html(description))


# --- Headers, multi-value dictionaries and content negotiation -------------

class Headers(MutableMapping[str, str]):
    """Case-insensitive header mapping that keeps repeated headers in order.

    Item access returns the first value; ``add`` appends another value and
    ``get_all`` returns every value for a name (as needed for Set-Cookie).
    """

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] | None = None
                 ) -> None:
        self._items: list[tuple[str, str]] = []
        if items is not None:
            pairs = items.items() if isinstance(items, Mapping) else items
            for name, value in pairs:
                self.add(name, value)

    @staticmethod
    def _check(name: str, value: str) -> None:
        if any(ch in value or ch in name for ch in "\r\n"):
            raise ValueError(f"header {name!r} must not contain line breaks")

    def __getitem__(self, name: str) -> str:
        key = name.lower()
        for item_name, value in self._items:
            if item_name.lower() == key:
                return value
        raise KeyError(name)

    def __setitem__(self, name: str, value: str) -> None:
        self._check(name, value)
        key = name.lower()
        positions = [i for i, (n, _) in enumerate(self._items) if n.lower() == key]
        if not positions:
            self._items.append((name, value))
            return
        self._items[positions[0]] = (name, value)
        for index in reversed(positions[1:]):
            del self._items[index]

    def __delitem__(self, name: str) -> None:
        key = name.lower()
        kept = [(n, v) for n, v in self._items if n.lower() != key]
        if len(kept) == len(self._items):
            raise KeyError(name)
        self._items = kept

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for name, _ in self._items:
            if name.lower() not in seen:
                seen.add(name.lower())
                yield name

    def __len__(self) -> int:
        return len({name.lower() for name, _ in self._items})

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"

    def add(self, name: str, value: str) -> None:
        self._check(name, value)
        self._items.append((name, value))

    def get_all(self, name: str) -> list[str]:
        key = name.lower()
        return [value for item_name, value in self._items if item_name.lower() == key]

    def to_wsgi_list(self) -> list[tuple[str, str]]:
        return list(self._items)

    def copy(self) -> Headers:
        return Headers(self._items)

    @classmethod
    def from_environ(cls, environ: Mapping[str, Any]) -> Headers:
        """Rebuild request headers from CGI-style ``HTTP_*`` environ keys."""
        headers = cls()
        for key, value in environ.items():
            if key.startswith("HTTP_"):
                headers.add(key[5:].replace("_", "-").title(), value)
            elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
                headers.add(key.replace("_", "-").title(), value)
        return headers


_PARAM_RE = re.compile(r';\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


def parse_header_options(value: str) -> tuple[str, dict[str, str]]:
    """Split ``text/html; charset=utf-8`` into ``("text/html", {"charset": ...})``."""
    main, _, rest = value.partition(";")
    options: dict[str, str] = {}
    for match in _PARAM_RE.finditer(";" + rest):
        key, raw = match.group(1).lower(), match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        options[key] = raw
    return main.strip().lower(), options


class MultiDict(Mapping[str, str]):
    """A mapping in which every key may hold several values (query strings, forms)."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self._data: dict[str, list[str]] = {}
        for key, value in pairs:
            self.add(key, value)

    def __getitem__(self, key: str) -> str:
        return self._data[key][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"MultiDict({list(self.items_multi())!r})"

    def add(self, key: str, value: str) -> None:
        self._data.setdefault(key, []).append(value)

    def get(self, key: str, default: Any = None,  # type: ignore[override]
            type: Callable[[str], Any] | None = None) -> Any:
        """Return the first value, converted with ``type``; ``default`` if absent or invalid."""
        if key not in self._data:
            return default
        value = self._data[key][0]
        if type is None:
            return value
        try:
            return type(value)
        except (TypeError, ValueError):
            return default

    def getlist(self, key: str, type: Callable[[str], Any] | None = None) -> list[Any]:
        values = self._data.get(key, [])
        if type is None:
            return list(values)
        converted = []
        for value in values:
            try:
                converted.append(type(value))
            except (TypeError, ValueError):
                continue
        return converted

    def items_multi(self) -> Iterator[tuple[str, str]]:
        for key, values in self._data.items():
            for value in values:
                yield key, value

    def to_dict(self, flat: bool = True) -> dict[str, Any]:
        if flat:
            return {key: values[0] for key, values in self._data.items()}
        return {key: list(values) for key, values in self._data.items()}


def parse_query_string(query: str, max_fields: int = 1000) -> MultiDict:
    """Parse ``a=1&a=2&b=`` into a MultiDict, keeping blank values."""
    try:
        parsed = _parse_qs(query, keep_blank_values=True, max_num_fields=max_fields)
    except ValueError as exc:
        raise BadRequest(f"Malformed query string: {exc}") from None
    return MultiDict((key, value) for key, values in parsed.items() for value in values)


# --- Form bodies and uploads -----------------------------------------------

# --- Cookies, signing and JSON ---------------------------------------------

def parse_cookie_header(header: str | None) -> dict[str, str]:
    """Parse a ``Cookie`` request header; malformed pairs are skipped."""
    if not header:
        return {}
    jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    jar.load(header)
    return {name: morsel.value for name, morsel in jar.items()}


def dump_cookie(name: str, value: str, *, max_age: int | None = None, path: str = "/",
                domain: str | None = None, secure: bool = False, httponly: bool = True,
                samesite: str | None = "Lax", expires: str | None = None) -> str:
    """Render a ``Set-Cookie`` header value using ``http.cookies.Morsel``."""
    jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    jar[name] = value
    morsel = jar[name]
    morsel["path"] = path
    if max_age is not None:
        morsel["max-age"] = str(max_age)
    if expires is not None:
        morsel["expires"] = expires
    if domain:
        morsel["domain"] = domain
    if secure:
        morsel["secure"] = True
    if httponly:
        morsel["httponly"] = True
    if samesite:
        morsel["samesite"] = samesite
    return morsel.OutputString()


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(value: bytes, key: str) -> str:
    """Return ``value`` base64-encoded with an HMAC-SHA256 signature appended."""
    payload = _b64encode(value)
    digest = hmac.new(key.encode(), payload.encode(), hashlib.sha256).digest()
    return f"{payload}.{_b64encode(digest)}"


def unsign(token: str, key: str) -> bytes | None:
    """Verify a token produced by ``sign``; return the value or ``None`` if tampered."""
    payload, sep, signature = token.rpartition(".")
    if not sep:
        return None
    expected = _b64encode(hmac.new(key.encode(), payload.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(expected, signature):
        return None
    try:
        return _b64decode(payload)
    except ValueError:
        return None


class JSONEncoder(json.JSONEncoder):
    """JSON encoder that understands dataclasses, dates, decimals, sets and UUIDs."""

    def default(self, o: Any) -> Any:
        if hasattr(o, "__json__"):
            return o.__json__()
        if is_dataclass(o) and not isinstance(o, type):
            return asdict(o)
        if isinstance(o, (date, datetime)):
            return o.isoformat()
        if isinstance(o, Decimal):
            return str(o)
        if isinstance(o, (set, frozenset)):
            return sorted(o)
        if isinstance(o, uuid.UUID):
            return str(o)
        return super().default(o)


def dumps(obj: Any, *, indent: int | None = None) -> str:
    separators = None if indent else (",", ":")
    return json.dumps(obj, cls=JSONEncoder, indent=indent, separators=separators,
                      ensure_ascii=False)


def loads(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"Invalid JSON body: {exc}") from None


# --- Requests and responses ------------------------------------------------

def normalize_path(path: str) -> str:
    """Collapse duplicate slashes and resolve ``.`` / ``..`` without escaping root."""
    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    trailing = "/" if path.endswith("/") and segments else ""
    return "/" + "/".join(segments) + trailing


def join_paths(prefix: str, rule: str) -> str:
    if not prefix:
        return rule
    return prefix.rstrip("/") + "/" + rule.lstrip("/") if rule != "/" else prefix + "/"


class Request:
    """An incoming HTTP request, built from a WSGI environ."""

    max_content_length: ClassVar[int] = 1 << 20
    charset: ClassVar[str] = "utf-8"

    def __init__(self, environ: Environ) -> None:
        self.environ = environ
        self.method: str = environ.get("REQUEST_METHOD", "GET").upper()
        raw_path = environ.get("PATH_INFO", "") or "/"
        self.path = normalize_path(raw_path.encode("latin-1").decode(self.charset, "replace"))
        self.query_string: str = environ.get("QUERY_STRING", "")
        self.headers = Headers.from_environ(environ)
        self.app: App | None = None
        self.route: Route | None = None
        self.path_params: dict[str, Any] = {}
        self.state: dict[str, Any] = {}
        self._body: bytes | None = None
        self._json: Any = None

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.full_path}>"

    @classmethod
    def from_values(cls, method: str = "GET", path: str = "/", *, query: str = "",
                    headers: Mapping[str, str] | None = None, body: bytes = b"") -> Request:
        return cls(make_environ(method, path, query, Headers(headers), body))

    @property
    def full_path(self) -> str:
        return f"{self.path}?{self.query_string}" if self.query_string else self.path

    @property
    def host(self) -> str:
        if "Host" in self.headers:
            return self.headers["Host"]
        port = self.environ.get("SERVER_PORT", "80")
        name = self.environ.get("SERVER_NAME", "localhost")
        return name if port in ("80", "443") else f"{name}:{port}"

    @property
    def url(self) -> str:
        scheme = self.environ.get("wsgi.url_scheme", "http")
        return f"{scheme}://{self.host}{self.environ.get('SCRIPT_NAME', '')}{self.full_path}"

    @property
    def endpoint(self) -> str | None:
        return self.route.endpoint if self.route else None

    @property
    def blueprints(self) -> list[str]:
        """Blueprint names for the matched endpoint, innermost first."""
        if self.endpoint is None or "." not in self.endpoint:
            return []
        parts = self.endpoint.split(".")[:-1]
        return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]

    @property
    def content_length(self) -> int:
        try:
            return max(0, int(self.environ.get("CONTENT_LENGTH") or 0))
        except ValueError:
            raise BadRequest("Invalid Content-Length header.") from None

    @cached_property
    def _content_type(self) -> tuple[str, dict[str, str]]:
        return parse_header_options(self.headers.get("Content-Type", ""))

    @property
    def mimetype(self) -> str:
        return self._content_type[0]

    @property
    def body(self) -> bytes:
        """The raw request body, read once from ``wsgi.input``."""
        if self._body is None:
            length = self.content_length
            if length > self.max_content_length:
                raise PayloadTooLarge(f"Body of {length} bytes exceeds "
                                      f"{self.max_content_length} bytes.")
            stream = self.environ.get("wsgi.input")
            self._body = stream.read(length) if stream is not None and length else b""
        return self._body

    @cached_property
    def args(self) -> MultiDict:
        return parse_query_string(self.query_string)

    @cached_property
    def cookies(self) -> dict[str, str]:
        return parse_cookie_header(self.headers.get("Cookie"))

    @cached_property
    def _form_and_files(self) -> tuple[MultiDict, dict[str, FileUpload]]:
        mimetype, options = self._content_type
        charset = options.get("charset", self.charset)
        if mimetype == "application/x-www-form-urlencoded":
            return parse_query_string(self.body.decode(charset, "replace")), {}
        if mimetype == "multipart/form-data":
            if "boundary" not in options:
                raise BadRequest("Multipart body without a boundary.")
            return parse_multipart(self.body, options["boundary"], charset)
        return MultiDict(), {}

    @property
    def form(self) -> MultiDict:
        return self._form_and_files[0]

    @property
    def files(self) -> dict[str, FileUpload]:
        return self._form_and_files[1]

    @property
    def is_json(self) -> bool:
        return self.mimetype == "application/json" or self.mimetype.endswith("+json")

    def get_json(self, silent: bool = False) -> Any:
        """Decode the body as JSON; raise 415/400 unless ``silent``."""
        if not self.is_json:
            if silent:
                return None
            raise UnsupportedMediaType("Expected an application/json body.")
        if self._json is None:
            try:
                self._json = loads(self.body)
            except BadRequest:
                if silent:
                    return None
                raise
        return self._json

    @cached_property
    def accept_mimetypes(self) -> list[tuple[str, float]]:
        return parse_accept(self.headers.get("Accept"))

    @property
    def wants_json(self) -> bool:
        return best_match(self.accept_mimetypes,
                          ["text/html", "application/json"]) == "application/json"

    @property
    def session(self) -> Session:
        try:
            return self.state["session"]
        except KeyError:
            raise RuntimeError("SessionMiddleware is not installed") from None


def make_environ(method: str, path: str, query_string: str = "",
                 headers: Headers | None = None, body: bytes = b"") -> Environ:
    """Build a PEP 3333 environ for an in-process request."""
    environ: Environ = {
        "REQUEST_METHOD": method.upper(),
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query_string,
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_LENGTH": str(len(body)) if body else "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in (headers or Headers()).to_wsgi_list():
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            environ[key] = value
        else:
            environ[f"HTTP_{key}"] = value
    return environ


class Response:
    """An outgoing HTTP response; also a WSGI application in its own right."""

    default_mimetype: ClassVar[str] = "text/plain"
    charset: ClassVar[str] = "utf-8"

    def __init__(self, body: str | bytes = b"", status: int | HTTPStatus = 200,
                 headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
                 content_type: str | None = None) -> None:
        self.status_code = int(status)
        self.headers = Headers(headers)
        if content_type is None and "Content-Type" not in self.headers:
            content_type = self.default_mimetype
            if content_type.startswith("text/"):
                content_type += f"; charset={self.charset}"
        if content_type is not None:
            self.headers["Content-Type"] = content_type
        self.data = body  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status} {len(self.data)} bytes>"

    @property
    def data(self) -> bytes:
        return self._data

    @data.setter
    def data(self, body: str | bytes) -> None:
        self._data = body.encode(self.charset) if isinstance(body, str) else bytes(body)
        self.headers["Content-Length"] = str(len(self._data))

    @property
    def text(self) -> str:
        return self._data.decode(self.charset, errors="replace")

    @property
    def status(self) -> str:
        return f"{self.status_code} {status_phrase(self.status_code)}"

    @property
    def mimetype(self) -> str:
        return parse_header_options(self.headers.get("Content-Type", ""))[0]

    def set_cookie(self, name: str, value: str, **options: Any) -> None:
        self.headers.add("Set-Cookie", dump_cookie(name, value, **options))

    def delete_cookie(self, name: str, path: str = "/") -> None:
        self.set_cookie(name, "", max_age=0, path=path, expires=EPOCH_EXPIRES)

    def _body_allowed(self) -> bool:
        return not (100 <= self.status_code < 200 or self.status_code in (204, 304))

    def __call__(self, environ: Environ, start_response: StartResponse) -> list[bytes]:
        if not self._body_allowed():
            self._data = b""
            for name in ("Content-Type", "Content-Length"):
                self.headers.pop(name, None)
        start_response(self.status, self.headers.to_wsgi_list())
        if environ.get("REQUEST_METHOD") == "HEAD":
            return []
        return [self._data]


class HTMLResponse(Response):
    default_mimetype = "text/html"


class JSONResponse(Response):
    """A response whose body is ``payload`` serialised with ``dumps``."""

    default_mimetype = "application/json"

    def __init__(self, payload: Any, status: int | HTTPStatus = 200,
                 headers: Mapping[str, str] | None = None, *,
                 indent: int | None = None) -> None:
        super().__init__(dumps(payload, indent=indent), status, headers)

    @property
    def json(self) -> Any:
        return json.loads(self.data)


class RedirectResponse(HTMLResponse):
    def __init__(self, location: str, status: int = 302) -> None:
        target = escape_html(location)
        body = f'<p>Redirecting to <a href="{target}">{target}</a>.</p>\n'
        super().__init__(body, status, {"Location": location})


def make_response(rv: Any) -> Response:
    """Turn a handler's return value into a Response.

    Accepts a Response, ``str`` (HTML), ``bytes``, ``dict``/``list`` (JSON), or
    a tuple of ``(body, status)``, ``(body, headers)`` or ``(body, status, headers)``.
    """
    status: int | None = None
    headers: Mapping[str, str] | None = None
    if isinstance(rv, tuple):
        if len(rv) == 3:
            rv, status, headers = rv
        elif len(rv) == 2 and isinstance(rv[1], Mapping):
            rv, headers = rv
        elif len(rv) == 2:
            rv, status = rv
        else:
            raise TypeError(f"handler returned a tuple of length {len(rv)}")
    if rv is None:
        raise TypeError("handler returned None; return a response or body")
    if isinstance(rv, Response):
        response = rv
    elif isinstance(rv, str):
        response = HTMLResponse(rv)
    elif isinstance(rv, (bytes, bytearray)):
        response = Response(bytes(rv), content_type="application/octet-stream")
    elif isinstance(rv, (dict, list)) or is_dataclass(rv):
        response = JSONResponse(rv)
    else:
        raise TypeError(f"cannot make a response from {type(rv).__name__}")
    if status is not None:
        response.status_code = int(status)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# --- Routing ---------------------------------------------------------------

CONVERTERS: dict[str, type[BaseConverter]] = {}


def register_converter(name: str) -> Callable[[type[BaseConverter]], type[BaseConverter]]:
    """Class decorator that makes a converter available as ``<name:var>``."""
    def decorator(cls: type[BaseConverter]) -> type[BaseConverter]:
        CONVERTERS[name] = cls
        return cls
    return decorator


@register_converter("default")
@register_converter("string")
class BaseConverter:
    """Matches one path segment and converts it to and from a Python value."""

    regex = "[^/]+"
    weight = 100

    def __init__(self, *args: str, **kwargs: str) -> None:
        self.args = args
        self.kwargs = kwargs
        if "length" in kwargs:
            self.regex = f"[^/]{{{int(kwargs['length'])}}}"

    def to_python(self, value: str) -> Any:
        return value

    def to_url(self, value: Any) -> str:
        return quote(str(value), safe="")


@register_converter("int")
class IntConverter(BaseConverter):
    regex = r"\d+"
    weight = 50

    def to_python(self, value: str) -> int:
        number = int(value)
        if "min" in self.kwargs and number < int(self.kwargs["min"]):
            raise ValueError("below minimum")
        if "max" in self.kwargs and number > int(self.kwargs["max"]):
            raise ValueError("above maximum")
        return number

    def to_url(self, value: Any) -> str:
        return str(int(value))


@register_converter("float")
class FloatConverter(BaseConverter):
    regex = r"\d+\.\d+"
    weight = 50

    def to_python(self, value: str) -> float:
        return float(value)


@register_converter("path")
class PathConverter(BaseConverter):
    regex = "[^/].*?"
    weight = 200

    def to_url(self, value: Any) -> str:
        return quote(str(value), safe="/")


@register_converter("slug")
class SlugConverter(BaseConverter):
    regex = "[a-z0-9]+(?:-[a-z0-9]+)*"
    weight = 60


@register_converter("uuid")
class UUIDConverter(BaseConverter):
    regex = "[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"
    weight = 40

    def to_python(self, value: str) -> uuid.UUID:
        return uuid.UUID(value)


@register_converter("any")
class AnyConverter(BaseConverter):
    """``<any(daily, weekly):period>`` matches one of a fixed set of words."""

    weight = 30

    def __init__(self, *items: str, **kwargs: str) -> None:
        super().__init__(*items, **kwargs)
        if not items:
            raise ValueError("the any converter needs at least one item")
        self.regex = "(?:" + "|".join(re.escape(item) for item in items) + ")"


_RULE_RE = re.compile(r"<(?:(?P<converter>[a-zA-Z_]\w*)(?:\((?P<args>[^)]*)\))?:)?"
                      r"(?P<variable>[a-zA-Z_]\w*)>")


def parse_converter_args(text: str) -> tuple[tuple[str, ...], dict[str, str]]:
    args: list[str] = []
    kwargs: dict[str, str] = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, value = part.partition("=")
        if sep:
            kwargs[key.strip()] = value.strip()
        else:
            args.append(part.strip("'\""))
    return tuple(args), kwargs


def parse_rule(rule: str) -> Iterator[tuple[str | None, str, str]]:
    """Yield ``(converter, args, variable)`` for dynamic parts, ``(None, "", text)``
    for static text."""
    position = 0
    for match in _RULE_RE.finditer(rule):
        if match.start() > position:
            yield None, "", rule[position:match.start()]
        yield (match.group("converter") or "default", match.group("args") or "",
               match.group("variable"))
        position = match.end()
    if position < len(rule):
        remainder = rule[position:]
        if "<" in remainder or ">" in remainder:
            raise ValueError(f"malformed rule {rule!r}")
        yield None, "", remainder


@dataclass
class Route:
    """A compiled URL rule bound to an endpoint name and handler."""

    rule: str
    endpoint: str
    handler: Handler
    methods: frozenset[str]
    converters: Mapping[str, type[BaseConverter]] = field(default_factory=lambda: CONVERTERS,
                                                          repr=False)
    strict_slashes: bool = True

    def __post_init__(self) -> None:
        if not self.rule.startswith("/"):
            raise ValueError(f"rules must start with '/': {self.rule!r}")
        methods = {method.upper() for method in self.methods}
        if "GET" in methods:
            methods.add("HEAD")
        self.methods = frozenset(methods)
        self._parts: list[tuple[str, BaseConverter | None]] = []
        self._variables: dict[str, BaseConverter] = {}
        pattern = []
        for converter_name, args, text in parse_rule(self.rule):
            if converter_name is None:
                self._parts.append((text, None))
                pattern.append(re.escape(text))
                continue
            if text in self._variables:
                raise ValueError(f"variable {text!r} used twice in {self.rule!r}")
            try:
                converter_class = self.converters[converter_name]
            except KeyError:
                raise LookupError(f"unknown converter {converter_name!r}") from None
            positional, keywords = parse_converter_args(args)
            converter = converter_class(*positional, **keywords)
            self._variables[text] = converter
            self._parts.append((text, converter))
            pattern.append(f"(?P<{text}>{converter.regex})")
        self._regex = re.compile("^" + "".join(pattern) + "$")

    @property
    def arguments(self) -> frozenset[str]:
        return frozenset(self._variables)

    @property
    def sort_key(self) -> tuple[int, int]:
        """Static rules before dynamic ones; lighter converters first."""
        static_length = sum(len(text) for text, conv in self._parts if conv is None)
        return sum(conv.weight for conv in self._variables.values()), -static_length

    def allows(self, method: str) -> bool:
        return method in self.methods

    def match(self, path: str) -> dict[str, Any] | None:
        found = self._regex.match(path)
        if found is None:
            return None
        values = {}
        for name, raw in found.groupdict().items():
            try:
                values[name] = self._variables[name].to_python(raw)
            except (ValueError, TypeError):
                return None
        return values

    def build(self, values: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Return the path for ``values`` and the values not used by the rule."""
        missing = self.arguments - values.keys()
        if missing:
            raise BuildError(f"{self.endpoint} needs {', '.join(sorted(missing))}")
        path = "".join(text if conv is None else conv.to_url(values[text])
                       for text, conv in self._parts)
        return path, {k: v for k, v in values.items() if k not in self.arguments}


class Router:
    """Holds routes, matches request paths and builds URLs."""

    def __init__(self, converters: Mapping[str, type[BaseConverter]] | None = None) -> None:
        self.converters: dict[str, type[BaseConverter]] = {**CONVERTERS, **(converters or {})}
        self._routes: list[Route] = []
        self._by_endpoint: dict[str, Route] = {}

    @property
    def routes(self) -> list[Route]:
        return sorted(self._routes, key=lambda route: route.sort_key)

    def add(self, rule: str, endpoint: str, handler: Handler,
            methods: Iterable[str] = ("GET",), strict_slashes: bool = True) -> Route:
        if endpoint in self._by_endpoint:
            raise ValueError(f"endpoint {endpoint!r} is already registered")
        route = Route(rule, endpoint, handler, frozenset(methods), self.converters,
                      strict_slashes)
        self._routes.append(route)
        self._by_endpoint[endpoint] = route
        return route

    def match(self, method: str, path: str) -> tuple[Route, dict[str, Any]]:
        """Find the route for ``method`` and ``path``.

        Raises ``NotFound``, ``MethodNotAllowed`` (with the allowed methods)
        or ``RequestRedirect`` when only the slash-terminated URL exists.
        """
        allowed: set[str] = set()
        redirect_to: str | None = None
        for route in self.routes:
            params = route.match(path)
            if params is None:
                if (route.strict_slashes and not path.endswith("/")
                        and route.match(path + "/") is not None):
                    redirect_to = path + "/"
                continue
            if route.allows(method):
                return route, params
            allowed |= route.methods
        if allowed:
            raise MethodNotAllowed(allowed | {"OPTIONS"})
        if redirect_to is not None:
            raise RequestRedirect(redirect_to)
        raise NotFound()

    def url_for(self, endpoint: str, values: Mapping[str, Any]) -> str:
        try:
            route = self._by_endpoint[endpoint]
        except KeyError:
            raise BuildError(f"no endpoint named {endpoint!r}") from None
        path, extra = route.build(values)
        if extra:
            path += "?" + urlencode(extra, doseq=True)
        return path


# --- Applications and blueprints -------------------------------------------

ErrorHandler = Callable[["Request", Exception], Any]
BeforeHook = Callable[["Request"], Any]
AfterHook = Callable[["Request", "Response"], "Response"]


@dataclass(frozen=True)
class RouteSpec:
    rule: str
    endpoint: str
    handler: Handler
    methods: tuple[str, ...]
    strict_slashes: bool = True


class Scaffold:
    """Behaviour shared by ``App`` and ``Blueprint``: routes, hooks, error handlers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.error_handlers: dict[int | type[Exception], ErrorHandler] = {}
        self.before_request_funcs: list[BeforeHook] = []
        self.after_request_funcs: list[AfterHook] = []

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",), strict_slashes: bool = True) -> None:
        raise NotImplementedError

    def route(self, rule: str, *, methods: Sequence[str] | None = None,
              endpoint: str | None = None, strict_slashes: bool = True
              ) -> Callable[[F], F]:
        """Decorator registering the decorated function for ``rule``."""
        def decorator(handler: F) -> F:
            self.add_url_rule(rule, endpoint or handler.__name__, handler,
                              tuple(methods or ("GET",)), strict_slashes)
            return handler
        return decorator

    def _method_route(self, method: str, rule: str, **options: Any) -> Callable[[F], F]:
        return self.route(rule, methods=[method], **options)

    get = partialmethod(_method_route, "GET")
    post = partialmethod(_method_route, "POST")
    put = partialmethod(_method_route, "PUT")
    patch = partialmethod(_method_route, "PATCH")
    delete = partialmethod(_method_route, "DELETE")

    def errorhandler(self, key: int | type[Exception]) -> Callable[[F], F]:
        def decorator(handler: F) -> F:
            self.error_handlers[key] = handler
            return handler
        return decorator

    def before_request(self, func: F) -> F:
        self.before_request_funcs.append(func)
        return func

    def after_request(self, func: F) -> F:
        self.after_request_funcs.append(func)
        return func

    def find_error_handler(self, exc: Exception) -> ErrorHandler | None:
        keys: list[int | type[Exception]] = []
        if isinstance(exc, HTTPException):
            keys.append(exc.code)
        keys.extend(cls for cls in type(exc).__mro__ if issubclass(cls, Exception))
        for key in keys:
            if key in self.error_handlers:
                return self.error_handlers[key]
        return None


class Blueprint(Scaffold):
    """A group of routes registered on an app under a URL prefix and name."""

    def __init__(self, name: str, url_prefix: str = "") -> None:
        if "." in name:
            raise ValueError("blueprint names may not contain dots")
        super().__init__(name)
        self.url_prefix = url_prefix.rstrip("/")
        self.specs: list[RouteSpec] = []
        self.children: list[tuple[Blueprint, str | None]] = []

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",), strict_slashes: bool = True) -> None:
        self.specs.append(RouteSpec(rule, endpoint, handler, tuple(methods), strict_slashes))

    def register_blueprint(self, child: Blueprint, url_prefix: str | None = None) -> None:
        self.children.append((child, url_prefix))

    def register(self, app: App, url_prefix: str | None = None, parent: str = "") -> None:
        full_name = f"{parent}.{self.name}" if parent else self.name
        prefix = self.url_prefix if url_prefix is None else url_prefix.rstrip("/")
        app.blueprints[full_name] = self
        for spec in self.specs:
            app.router.add(join_paths(prefix, spec.rule), f"{full_name}.{spec.endpoint}",
                           spec.handler, spec.methods, spec.strict_slashes)
        for child, child_prefix in self.children:
            nested = join_paths(prefix, child.url_prefix if child_prefix is None
                                else child_prefix)
            child.register(app, nested, parent=full_name)


class App(Scaffold):
    """The application: a router, blueprints, middleware and the WSGI entry point."""

    def __init__(self, name: str, *, secret_key: str | None = None,
                 debug: bool = False) -> None:
        super().__init__(name)
        self.router = Router()
        self.blueprints: dict[str, Blueprint] = {}
        self.middleware: list[Middleware] = []
        self.config: dict[str, Any] = {"SECRET_KEY": secret_key, "DEBUG": debug}
        self.extensions: dict[str, Any] = {}
        self._chain: Callable[[Request], Response] | None = None

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",), strict_slashes: bool = True) -> None:
        self.router.add(rule, endpoint, handler, methods, strict_slashes)

    def register_blueprint(self, blueprint: Blueprint, url_prefix: str | None = None) -> None:
        blueprint.register(self, url_prefix)

    def add_middleware(self, middleware: Middleware) -> None:
        """Add a middleware; the first one added is the outermost layer."""
        self.middleware.append(middleware)
        self._chain = None

    def url_for(self, endpoint: str, **values: Any) -> str:
        return self.router.url_for(endpoint, values)

    def _scaffolds_for(self, request: Request) -> list[Scaffold]:
        found: list[Scaffold] = [self.blueprints[name] for name in request.blueprints
                                 if name in self.blueprints]
        return [*found, self]

    def _build_chain(self) -> Callable[[Request], Response]:
        handler: Callable[[Request], Response] = self.dispatch
        for middleware in reversed(self.middleware):
            handler = _bind_middleware(middleware, handler)
        return handler

    def handle(self, request: Request) -> Response:
        """Run ``request`` through the middleware chain and the router."""
        request.app = self
        if self._chain is None:
            self._chain = self._build_chain()
        try:
            return self._chain(request)
        except HTTPException as exc:
            return self.handle_http_exception(request, exc)
        except Exception as exc:  # noqa: BLE001 - last line of defence
            return self.handle_exception(request, exc)

    def dispatch(self, request: Request) -> Response:
        """Match the route, run hooks and call the handler."""
        try:
            route, params = self.router.match(request.method, request.path)
        except RequestRedirect as redirect:
            if request.query_string:
                redirect.new_url += "?" + request.query_string
            raise
        except MethodNotAllowed as exc:
            if request.method == "OPTIONS":
                return Response(b"", 204, {"Allow": ", ".join(exc.valid_methods)})
            raise
        request.route, request.path_params = route, params
        scaffolds = self._scaffolds_for(request)
        response: Response | None = None
        for scaffold in reversed(scaffolds):
            for hook in scaffold.before_request_funcs:
                early = hook(request)
                if early is not None:
                    response = make_response(early)
                    break
            if response is not None:
                break
        if response is None:
            response = make_response(route.handler(request, **params))
        for scaffold in scaffolds:
            for after in reversed(scaffold.after_request_funcs):
                response = after(request, response)
        return response

    def handle_http_exception(self, request: Request, exc: HTTPException) -> Response:
        if isinstance(exc, RequestRedirect):
            return exc.get_response(request)
        for scaffold in self._scaffolds_for(request):
            handler = scaffold.find_error_handler(exc)
            if handler is not None:
                return make_response(handler(request, exc))
        return exc.get_response(request)

    def handle_exception(self, request: Request, exc: Exception) -> Response:
        for scaffold in self._scaffolds_for(request):
            handler = scaffold.find_error_handler(exc)
            if handler is not None and not isinstance(exc, HTTPException):
                return make_response(handler(request, exc))
        detail = f"{type(exc).__name__}: {exc}" if self.config["DEBUG"] else None
        return self.handle_http_exception(request, InternalServerError(detail))

    def __call__(self, environ: Environ, start_response: StartResponse) -> list[bytes]:
        """The WSGI entry point."""
        request = Request(environ)
        response = self.handle(request)
        return response(environ, start_response)

    def test_client(self) -> TestClient:
        return TestClient(self)


def _bind_middleware(middleware: Middleware, call_next: Callable[[Request], Response]
                     ) -> Callable[[Request], Response]:
    def call(request: Request) -> Response:
        return middleware(request, call_next)
    return call


# --- Middleware ------------------------------------------------------------

class Middleware:
    """Wraps request handling. Override ``before``/``after`` or ``__call__``."""

    def __call__(self, request: Request, call_next: Callable[[Request], Response]
                 ) -> Response:
        early = self.before(request)
        if early is not None:
            return early
        return self.after(request, call_next(request))

    def before(self, request: Request) -> Response | None:
        return None

    def after(self, request: Request, response: Response) -> Response:
        return response


@dataclass(frozen=True)
class LogRecord:
    sequence: int
    method: str
    path: str
    status: int
    size: int

    def format(self) -> str:
        return f"#{self.sequence:03d} {self.method:<7} {self.path:<38} {self.status} {self.size}B"


class LoggingMiddleware(Middleware):
    """Records one line per request; numbering stands in for timestamps."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self._counter = itertools.count(1)

    def __call__(self, request: Request, call_next: Callable[[Request], Response]
                 ) -> Response:
        sequence = next(self._counter)
        response = call_next(request)
        self.records.append(LogRecord(sequence, request.method, request.full_path,
                                      response.status_code, len(response.data)))
        return response

    def lines(self) -> list[str]:
        return [record.format() for record in self.records]


class CORSMiddleware(Middleware):
    """Answers CORS preflight requests and decorates responses for allowed origins."""

    def __init__(self, allow_origins: Sequence[str] = ("*",),
                 allow_methods: Sequence[str] = ("GET", "POST", "PUT", "PATCH", "DELETE"),
                 allow_headers: Sequence[str] = ("Content-Type",),
                 allow_credentials: bool = False, max_age: int = 600) -> None:
        self.allow_origins = list(allow_origins)
        self.allow_methods = [method.upper() for method in allow_methods]
        self.allow_headers = [header.lower() for header in allow_headers]
        self.allow_credentials = allow_credentials
        self.max_age = max_age

    def origin_allowed(self, origin: str) -> bool:
        return any(pattern == "*" or fnmatchcase(origin, pattern)
                   for pattern in self.allow_origins)

    def before(self, request: Request) -> Response | None:
        origin = request.headers.get("Origin")
        wanted = request.headers.get("Access-Control-Request-Method")
        if request.method != "OPTIONS" or not origin or not wanted:
            return None
        requested_headers = [h.strip().lower() for h in
                             request.headers.get("Access-Control-Request-Headers", "").split(",")
                             if h.strip()]
        if (not self.origin_allowed(origin) or wanted.upper() not in self.allow_methods
                or any(h not in self.allow_headers for h in requested_headers)):
            return Response("CORS preflight rejected", 403)
        response = Response(b"", 204)
        self._add_origin_headers(response, origin)
        response.headers["Access-Control-Allow-Methods"] = ", ".join(self.allow_methods)
        response.headers["Access-Control-Allow-Headers"] = ", ".join(self.allow_headers)
        response.headers["Access-Control-Max-Age"] = str(self.max_age)
        return response

    def after(self, request: Request, response: Response) -> Response:
        origin = request.headers.get("Origin")
        if origin and self.origin_allowed(origin):
            self._add_origin_headers(response, origin)
        return response

    def _add_origin_headers(self, response: Response, origin: str) -> None:
        wildcard = "*" in self.allow_origins and not self.allow_credentials
        response.headers["Access-Control-Allow-Origin"] = "*" if wildcard else origin
        if not wildcard:
            response.headers.add("Vary", "Origin")
        if self.allow_credentials:
            response.headers["Access-Control-Allow-Credentials"] = "true"


class ErrorHandlingMiddleware(Middleware):
    """Turns exceptions from inner layers into error responses, and remembers them."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def __call__(self, request: Request, call_next: Callable[[Request], Response]
                 ) -> Response:
        app = request.app
        if app is None:
            raise RuntimeError("request is not bound to an application")
        try:
            return call_next(request)
        except HTTPException as exc:
            return app.handle_http_exception(request, exc)
        except Exception as exc:  # noqa: BLE001 - converted to a 500 page
            self.failures.append(f"{request.method} {request.path}: "
                                 f"{type(exc).__name__}: {exc}")
            return app.handle_exception(request, exc)


class Session(dict[str, Any]):
    """A dict that remembers whether it was changed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modified = False

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.modified = True

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.modified = True

    def clear(self) -> None:
        self.modified = self.modified or bool(self)
        super().clear()

    def pop(self, key: str, *default: Any) -> Any:
        self.modified = self.modified or key in self
        return super().pop(key, *default)


def encode_session(session: Mapping[str, Any], secret_key: str) -> str:
    return sign(dumps(dict(sorted(session.items()))).encode(), secret_key)


def decode_session(token: str | None, secret_key: str) -> dict[str, Any]:
    if not token:
        return {}
    raw = unsign(token, secret_key)
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


class SessionMiddleware(Middleware):
    """Stores the session as JSON in an HMAC-signed cookie."""

    def __init__(self, secret_key: str, cookie_name: str = "session",
                 max_age: int | None = None) -> None:
        if not secret_key:
            raise ValueError("sessions need a secret key")
        self.secret_key = secret_key
        self.cookie_name = cookie_name
        self.max_age = max_age

    def before(self, request: Request) -> Response | None:
        token = request.cookies.get(self.cookie_name)
        request.state["session"] = Session(decode_session(token, self.secret_key))
        return None

    def after(self, request: Request, response: Response) -> Response:
        session: Session = request.state["session"]
        if not session.modified:
            return response
        if session:
            response.set_cookie(self.cookie_name, encode_session(session, self.secret_key),
                                max_age=self.max_age)
        else:
            response.delete_cookie(self.cookie_name)
        return response


# --- Handler decorators ----------------------------------------------------

@dataclass(frozen=True)
class Field:
    """A JSON body field specification for ``json_body``."""

    type: type
    required: bool = True


def validate_fields(payload: Mapping[str, Any], schema: Mapping[str, Field],
                    partial: bool = False) -> dict[str, str]:
    """Return ``{field: problem}`` for every field of ``payload`` that is invalid."""
    errors = {}
    for name, spec in schema.items():
        if name not in payload:
            if spec.required and not partial:
                errors[name] = "This field is required."
            continue
        value = payload[name]
        if isinstance(value, bool) and spec.type is not bool:
            errors[name] = f"Expected {spec.type.__name__}, got bool."
        elif not isinstance(value, spec.type):
            errors[name] = f"Expected {spec.type.__name__}, got {type(value).__name__}."
    for name in payload.keys() - schema.keys():
        errors[name] = "Unknown field."
    return errors


def json_body(partial: bool = False, **schema: type | Field) -> Callable[[F], F]:
    """Validate the JSON body against ``schema`` and pass it as ``payload``."""
    fields = {name: spec if isinstance(spec, Field) else Field(spec)
              for name, spec in schema.items()}

    def decorator(handler: F) -> F:
        @wraps(handler)
        def wrapper(request: Request, **kwargs: Any) -> Any:
            payload = request.get_json()
            if not isinstance(payload, dict):
                raise BadRequest("Expected a JSON object.")
            errors = validate_fields(payload, fields, partial)
            if errors:
                raise UnprocessableEntity(errors)
            return handler(request, payload, **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorator


def login_required(handler: F) -> F:
    """Reject the request with 401 unless the session holds a user id."""
    @wraps(handler)
    def wrapper(request: Request, **kwargs: Any) -> Any:
        if "user_id" not in request.session:
            raise Unauthorized("Log in first.")
        return handler(request, **kwargs)
    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class Page:
    number: int
    size: int

    def slice(self, items: Sequence[Any]) -> dict[str, Any]:
        start = (self.number - 1) * self.size
        pages = max(1, -(-len(items) // self.size))
        return {"items": list(items[start:start + self.size]), "page": self.number,
                "pages": pages, "total": len(items)}


def paginate(per_page: int = 10, max_per_page: int = 100) -> Callable[[F], F]:
    """Read ``page`` and ``per_page`` from the query string and pass a ``Page``."""
    def decorator(handler: F) -> F:
        @wraps(handler)
        def wrapper(request: Request, **kwargs: Any) -> Any:
            number = request.args.get("page", 1, type=int)
            size = request.args.get("per_page", per_page, type=int)
            if number < 1 or not 1 <= size <= max_per_page:
                raise BadRequest(f"page must be >= 1 and per_page within 1..{max_per_page}.")
            return handler(request, page=Page(number, size), **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorator


# --- Test client -----------------------------------------------------------

@dataclass
class TestResponse:
    """What the WSGI application produced for one in-process request."""

    __test__ = False

    status: str
    headers: Headers
    data: bytes

    @property
    def status_code(self) -> int:
        return int(self.status.split(" ", 1)[0])

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    @property
    def mimetype(self) -> str:
        return parse_header_options(self.headers.get("Content-Type", ""))[0]

    def json(self) -> Any:
        return json.loads(self.data)


class TestClient:
    """Calls an app through its WSGI interface and keeps a cookie jar."""

    __test__ = False

    def __init__(self, app: App) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}

    def open(self, method: str, path: str, *, query: Mapping[str, Any] | None = None,
             headers: Mapping[str, str] | None = None, json: Any = None,
             form: Mapping[str, str] | None = None,
             files: Mapping[str, tuple[str, bytes, str]] | None = None,
             body: bytes = b"", follow_redirects: bool = False) -> TestResponse:
        path, _, query_string = path.partition("?")
        if query:
            query_string = "&".join(filter(None, [query_string,
                                                  urlencode(query, doseq=True)]))
        request_headers = Headers(headers)
        if json is not None:
            body = dumps(json).encode()
            request_headers.setdefault("Content-Type", "application/json")
        elif files:
            body, content_type = encode_multipart(form or {}, files)
            request_headers["Content-Type"] = content_type
        elif form is not None:
            body = urlencode(form, doseq=True).encode()
            request_headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        if self.cookies:
            request_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())

        captured: dict[str, Any] = {}

        def start_response(status: str, header_list: list[tuple[str, str]],
                           exc_info: Any = None) -> Callable[[bytes], None]:
            captured["status"], captured["headers"] = status, Headers(header_list)
            return lambda data: None

        environ = make_environ(method, path, query_string, request_headers, body)
        chunks = self.app(environ, start_response)
        response = TestResponse(captured["status"], captured["headers"], b"".join(chunks))
        self._store_cookies(response)
        if follow_redirects and response.status_code in (301, 302, 303, 307, 308):
            keep_method = response.status_code in (307, 308)
            return self.open(method if keep_method else "GET",
                             response.headers["Location"], headers=headers,
                             body=body if keep_method else b"", follow_redirects=True)
        return response

    def _store_cookies(self, response: TestResponse) -> None:
        for header in response.headers.get_all("Set-Cookie"):
            jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                if morsel["max-age"] == "0":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.coded_value

    get = partialmethod(open, "GET")
    post = partialmethod(open, "POST")
    put = partialmethod(open, "PUT")
    patch = partialmethod(open, "PATCH")
    delete = partialmethod(open, "DELETE")
    options = partialmethod(open, "OPTIONS")
    head = partialmethod(open, "HEAD")


# --- Example application: a tiny notes service -----------------------------

def slugify(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words) or "untitled"


def hash_password(password: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 1_000).hex()


@dataclass
class User:
    id: int
    name: str
    email: str
    password_hash: str = field(repr=False)
    role: str = "member"

    def check_password(self, password: str) -> bool:
        return hmac.compare_digest(self.password_hash, hash_password(password, self.name))

    def __json__(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "email": self.email, "role": self.role}


@dataclass
class Note:
    id: int
    owner_id: int
    title: str
    body: str
    tags: set[str] = field(default_factory=set)
    created: date = date(2024, 3, 1)

    @property
    def slug(self) -> str:
        return f"{slugify(self.title)}-{self.id}"

    def matches(self, query: str, tags: Iterable[str] = ()) -> bool:
        text = f"{self.title} {self.body}".lower()
        return all(word in text for word in query.lower().split()) and set(tags) <= self.tags

    def __json__(self) -> dict[str, Any]:
        return {"id": self.id, "slug": self.slug, "owner": self.owner_id, "title": self.title,
                "body": self.body, "tags": sorted(self.tags), "created": self.created}


class NoteStore:
    """In-memory storage for users and notes."""

    def __init__(self) -> None:
        self.users: dict[int, User] = {}
        self.notes: dict[int, Note] = {}
        self._user_ids = itertools.count(1)
        self._note_ids = itertools.count(1)

    def add_user(self, name: str, email: str, password: str, role: str = "member") -> User:
        user = User(next(self._user_ids), name, email, hash_password(password, name), role)
        self.users[user.id] = user
        return user

    def user(self, user_id: int) -> User:
        try:
            return self.users[user_id]
        except KeyError:
            raise NotFound(f"No user with id {user_id}.") from None

    def authenticate(self, name: str, password: str) -> User | None:
        for user in self.users.values():
            if user.name == name and user.check_password(password):
                return user
        return None

    def add_note(self, owner: User, title: str, body: str, tags: Iterable[str] = (),
                 created: date = date(2024, 3, 1)) -> Note:
        note = Note(next(self._note_ids), owner.id, title, body, set(tags), created)
        self.notes[note.id] = note
        return note

    def note(self, note_id: int) -> Note:
        try:
            return self.notes[note_id]
        except KeyError:
            raise NotFound(f"No note with id {note_id}.") from None

    def note_by_slug(self, slug: str) -> Note:
        for note in self.notes.values():
            if note.slug == slug:
                return note
        raise NotFound(f"No note called {slug!r}.")

    def notes_for(self, user_id: int) -> list[Note]:
        return [note for note in self.notes.values() if note.owner_id == user_id]

    def search(self, query: str, tags: Iterable[str] = ()) -> list[Note]:
        wanted = list(tags)
        return [note for note in self.notes.values() if note.matches(query, wanted)]

    def update_note(self, note: Note, changes: Mapping[str, Any]) -> Note:
        if "title" in changes:
            note.title = changes["title"]
        if "body" in changes:
            note.body = changes["body"]
        if "tags" in changes:
            note.tags = {str(tag) for tag in changes["tags"]}
        return note

    def delete_note(self, note_id: int) -> None:
        self.note(note_id)
        del self.notes[note_id]


def seed_store() -> NoteStore:
    store = NoteStore()
    ada = store.add_user("ada", "ada@example.com", "analytical", role="admin")
    bob = store.add_user("bob", "bob@example.com", "hunter2")
    store.add_user("cy", "cy@example.com", "correct horse")
    store.add_note(ada, "Notes on WSGI", "The app is a callable taking environ.",
                   {"python", "wsgi"}, date(2024, 3, 4))
    store.add_note(ada, "Routing ideas", "Converters turn path segments into values.",
                   {"python", "routing"}, date(2024, 3, 6))
    store.add_note(bob, "Groceries", "Eggs, flour, milk.", {"home"}, date(2024, 3, 9))
    return store


STATIC_FILES: dict[str, bytes] = {
    "docs/readme.txt": b"Notes service\n=============\nA demo for the routing framework.\n",
    "docs/guide.html": b"<h1>Guide</h1><p>Use the JSON API under /api/v1.</p>\n",
    "img/logo.svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>\n',
}
CONTENT_TYPES = {".txt": "text/plain; charset=utf-8", ".html": "text/html; charset=utf-8",
                 ".svg": "image/svg+xml", ".json": "application/json"}


def guess_content_type(path: str) -> str:
    _, dot, extension = path.rpartition(".")
    return CONTENT_TYPES.get(f".{extension}" if dot else "", "application/octet-stream")


@register_converter("date")
class DateConverter(BaseConverter):
    regex = r"\d{4}-\d{2}-\d{2}"
    weight = 45

    def to_python(self, value: str) -> date:
        return date.fromisoformat(value)

    def to_url(self, value: Any) -> str:
        return value.isoformat() if isinstance(value, date) else str(value)


def get_store(request: Request) -> NoteStore:
    assert request.app is not None
    return request.app.extensions["store"]


def current_user(request: Request) -> User:
    return get_store(request).user(request.session["user_id"])


app = App("notes", secret_key="demo-secret-key-not-for-production")
api = Blueprint("api", url_prefix="/api/v1")
admin = Blueprint("admin", url_prefix="/admin")
files = Blueprint("files", url_prefix="/files")


@app.route("/", methods=["GET"])
def index(request: Request) -> str:
    store = get_store(request)
    items = "".join(
        f'<li><a href="{app.url_for("api.get_user", user_id=user.id)}">'
        f"{escape_html(user.name)}</a></li>" for user in store.users.values())
    return f"<h1>Notes</h1><ul>{items}</ul>"


@app.get("/health")
def health(request: Request) -> dict[str, Any]:
    return {"status": "ok", "routes": len(app.router.routes)}


@app.route("/login", methods=["GET", "POST"])
def login(request: Request) -> Any:
    if request.method == "GET":
        return ('<form method="post"><input name="username"><input name="password" '
                'type="password"><button>Log in</button></form>')
    user = get_store(request).authenticate(request.form.get("username", ""),
                                           request.form.get("password", ""))
    if user is None:
        return "<p>Invalid credentials.</p>", 401
    request.session["user_id"] = user.id
    return RedirectResponse(app.url_for("me"), 303)


@app.post("/logout")
def logout(request: Request) -> Response:
    request.session.clear()
    return RedirectResponse(app.url_for("index"), 303)


@app.get("/me")
@login_required
def me(request: Request) -> Any:
    user = current_user(request)
    return {"user": user, "notes": len(get_store(request).notes_for(user.id))}


@app.get("/reports/<any(daily, weekly):period>/<date:day>")
def report(request: Request, period: str, day: date) -> dict[str, Any]:
    span = timedelta(days=1 if period == "daily" else 7)
    notes = [note for note in get_store(request).notes.values()
             if day <= note.created < day + span]
    return {"period": period, "from": day, "to": day + span - timedelta(days=1),
            "notes": [note.slug for note in notes]}


@app.post("/upload")
@login_required
def upload(request: Request) -> dict[str, Any]:
    if not request.files:
        raise BadRequest("No files in upload.")
    return {"fields": request.form.to_dict(),
            "files": {name: {"filename": f.filename, "size": f.size,
                             "sha256": f.digest()[:16]}
                      for name, f in request.files.items()}}


@app.get("/boom")
def boom(request: Request) -> str:
    raise RuntimeError("simulated failure")


@app.errorhandler(404)
def page_not_found(request: Request, exc: Exception) -> Any:
    if request.wants_json or not isinstance(exc, HTTPException):
        return exc.get_response(request) if isinstance(exc, HTTPException) else None
    return HTMLResponse(f"<h1>Nothing here</h1><p>{escape_html(request.path)} "
                        "does not exist.</p>", 404)


@app.after_request
def add_server_header(request: Request, response: Response) -> Response:
    response.headers["Server"] = "semaprax-demo/1.0"
    return response


@api.before_request
def require_json_body(request: Request) -> None:
    if request.method in ("POST", "PUT", "PATCH") and not request.is_json:
        raise UnsupportedMediaType("The API only accepts application/json bodies.")


@api.errorhandler(HTTPException)
def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse(exc.to_dict(), exc.code, exc.get_headers())


@api.get("/users")
@paginate(per_page=2)
def list_users(request: Request, page: Page) -> dict[str, Any]:
    return page.slice(list(get_store(request).users.values()))


@api.get("/users/<int(min=1):user_id>")
def get_user(request: Request, user_id: int) -> User:
    return get_store(request).user(user_id)


@api.get("/users/<int:user_id>/notes")
def user_notes(request: Request, user_id: int) -> list[Note]:
    store = get_store(request)
    return store.notes_for(store.user(user_id).id)


@api.post("/notes")
@login_required
@json_body(title=str, body=str, tags=Field(list, required=False))
def create_note(request: Request, payload: dict[str, Any]) -> Response:
    store = get_store(request)
    note = store.add_note(current_user(request), payload["title"], payload["body"],
                          payload.get("tags", ()), date(2024, 3, 12))
    location = app.url_for("api.get_note", slug=note.slug)
    return JSONResponse(note, 201, {"Location": location})


@api.get("/notes/<slug:slug>")
def get_note(request: Request, slug: str) -> Note:
    return get_store(request).note_by_slug(slug)


@api.route("/notes/<int:note_id>", methods=["PUT", "PATCH"])
@login_required
@json_body(partial=True, title=str, body=str, tags=list)
def update_note(request: Request, payload: dict[str, Any], note_id: int) -> Note:
    store = get_store(request)
    note = store.note(note_id)
    if note.owner_id != request.session["user_id"]:
        raise Forbidden("You can only edit your own notes.")
    return store.update_note(note, payload)


@api.delete("/notes/<int:note_id>")
@login_required
def delete_note(request: Request, note_id: int) -> Response:
    store = get_store(request)
    if store.note(note_id).owner_id != request.session["user_id"]:
        raise Forbidden("You can only delete your own notes.")
    store.delete_note(note_id)
    return Response(b"", 204)


@api.get("/search")
def search(request: Request) -> dict[str, Any]:
    query = request.args.get("q", "")
    tags = request.args.getlist("tag")
    if not query and not tags:
        raise BadRequest("Provide a q or tag parameter.")
    hits = get_store(request).search(query, tags)
    return {"query": query, "tags": tags, "hits": [note.slug for note in hits]}


@admin.get("/stats")
@login_required
def stats(request: Request) -> dict[str, Any]:
    if current_user(request).role != "admin":
        raise Forbidden("Administrators only.")
    store = get_store(request)
    tags = sorted({tag for note in store.notes.values() for tag in note.tags})
    return {"users": len(store.users), "notes": len(store.notes), "tags": tags}


@files.get("/")
def list_files(request: Request) -> dict[str, list[str]]:
    return {"files": [app.url_for("files.serve_file", filepath=p) for p in STATIC_FILES]}


@files.get("/<path:filepath>")
def serve_file(request: Request, filepath: str) -> Response:
    try:
        content = STATIC_FILES[filepath]
    except KeyError:
        raise NotFound(f"No file {filepath!r}.") from None
    etag = '"' + hashlib.sha1(content).hexdigest()[:16] + '"'
    if request.headers.get("If-None-Match") == etag:
        return Response(b"", 304, {"ETag": etag})
    return Response(content, 200, {"ETag": etag}, content_type=guess_content_type(filepath))


api.register_blueprint(admin)
app.register_blueprint(api)
app.register_blueprint(files)
app.extensions["store"] = seed_store()
app.extensions["log"] = LoggingMiddleware()
app.extensions["errors"] = ErrorHandlingMiddleware()
app.add_middleware(app.extensions["log"])
app.add_middleware(CORSMiddleware(allow_origins=["https://notes.example.com",
                                                 "https://*.trusted.dev"],
                                  allow_credentials=True))
app.add_middleware(app.extensions["errors"])
app.add_middleware(SessionMiddleware(app.config["SECRET_KEY"]))


# --- Demonstration ---------------------------------------------------------

def summarize(response: TestResponse, width: int = 88) -> str:
    """One line describing a response body."""
    if not response.data:
        return "(empty body)"
    if response.mimetype == "application/json":
        text = dumps(response.json())
    else:
        text = " ".join(response.text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def show(label: str, response: TestResponse, *headers: str) -> None:
    print(f"{label:<44} -> {response.status}")
    for name in headers:
        for value in response.headers.get_all(name):
            print(f"{'':<6}{name}: {value}")
    print(f"{'':<6}{summarize(response)}")


def main() -> None:
    client = app.test_client()
    accept_json = {"Accept": "application/json"}

    show("GET /health", client.get("/health"))
    show("GET /", client.get("/"))
    show("GET /api/v1/users?per_page=2&page=2", client.get("/api/v1/users",
                                                            query={"per_page": 2, "page": 2}))
    show("GET /api/v1/users/2", client.get("/api/v1/users/2"))
    show("GET /api/v1/users/99", client.get("/api/v1/users/99"))
    show("GET /api/v1/users/0 (fails int(min=1))", client.get("/api/v1/users/0"))
    show("GET /api/v1/users/0 (Accept: json)", client.get("/api/v1/users/0",
                                                          headers=accept_json))
    show("DELETE /health", client.delete("/health"), "Allow")
    show("OPTIONS /health", client.options("/health"), "Allow")
    preflight = client.options("/api/v1/notes", headers={
        "Origin": "https://app.trusted.dev", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    show("OPTIONS /api/v1/notes (CORS preflight)", preflight,
         "Access-Control-Allow-Origin", "Access-Control-Allow-Methods")
    show("POST /api/v1/notes (anonymous)",
         client.post("/api/v1/notes", json={"title": "x", "body": "y"}))
    show("POST /login (wrong password)",
         client.post("/login", form={"username": "ada", "password": "nope"}))
    login_response = client.post("/login", form={"username": "ada", "password": "analytical"})
    show("POST /login", login_response, "Location")
    print(f"{'':<6}cookie jar now holds: {sorted(client.cookies)}")
    show("GET /me", client.get("/me"))
    created = client.post("/api/v1/notes", json={"title": "Middleware order",
                                                  "body": "Logging wraps CORS wraps errors.",
                                                  "tags": ["python", "wsgi"]},
                          headers={"Origin": "https://notes.example.com"})
    show("POST /api/v1/notes", created, "Location", "Access-Control-Allow-Origin")
    show("POST /api/v1/notes (invalid)",
         client.post("/api/v1/notes", json={"title": 42, "colour": "red"}))
    show("POST /api/v1/notes (form body)",
         client.post("/api/v1/notes", form={"title": "t", "body": "b"}))
    show(f"GET {created.headers['Location']}", client.get(created.headers["Location"]))
    show("PATCH /api/v1/notes/4", client.patch("/api/v1/notes/4", json={"tags": ["design"]}))
    show("PUT /api/v1/notes/3 (someone else's)",
         client.put("/api/v1/notes/3", json={"title": "Mine now"}))
    show("GET /api/v1/search?q=wsgi&tag=python",
         client.get("/api/v1/search", query={"q": "wsgi", "tag": "python"}))
    show("GET /api/v1/search", client.get("/api/v1/search"))
    show("GET /api/v1/admin/stats", client.get("/api/v1/admin/stats"))
    show("GET /reports/weekly/2024-03-04", client.get("/reports/weekly/2024-03-04"))
    show("GET /reports/monthly/2024-03-04", client.get("/reports/monthly/2024-03-04"))
    show("GET /files", client.get("/files"), "Location")
    show("GET /files (follow redirects)", client.get("/files", follow_redirects=True))
    readme = client.get("/files/docs/readme.txt")
    show("GET /files/docs/readme.txt", readme, "ETag", "Content-Type")
    show("GET /files/docs/readme.txt (If-None-Match)",
         client.get("/files/docs/readme.txt", headers={"If-None-Match": readme.headers["ETag"]}))
    show("GET /files/img/../docs/./guide.html", client.get("/files/img/../docs/./guide.html"))
    show("HEAD /files/img/logo.svg", client.head("/files/img/logo.svg"), "Content-Length")
    show("POST /upload (multipart)",
         client.post("/upload", form={"caption": "logo"},
                     files={"image": ("logo.svg", STATIC_FILES["img/logo.svg"],
                                      "image/svg+xml")}))
    show("DELETE /api/v1/notes/4", client.delete("/api/v1/notes/4"))
    show("GET /boom", client.get("/boom"))
    show("POST /logout", client.post("/logout", follow_redirects=True), "Set-Cookie")
    show("GET /me (after logout)", client.get("/me", headers=accept_json))

    print("\nURL building:")
    print("  ", app.url_for("api.get_user", user_id=3))
    print("  ", app.url_for("api.search", q="a b", tag=["x", "y"]))
    print("  ", app.url_for("report", period="daily", day=date(2024, 3, 9)))
    print("  ", app.url_for("files.serve_file", filepath="docs/guide.html"))
    try:
        app.url_for("api.get_note")
    except BuildError as exc:
        print("   BuildError:", exc)

    print("\nRaw WSGI call:")
    environ = make_environ("GET", "/api/v1/users/1", "",
                           Headers({"Accept": "application/json"}))

    def start_response(status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        print(f"   status: {status}")
        print(f"   headers: {[name for name, _ in headers]}")
        return lambda data: None

    print(f"   body: {b''.join(app(environ, start_response)).decode()}")

    print("\nRequest log:")
    for line in app.extensions["log"].lines():
        print("  ", line)
    print("\nUnhandled exceptions:")
    for failure in app.extensions["errors"].failures:
        print("  ", failure)


if __name__ == "__main__":
    main()
