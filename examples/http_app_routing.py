"""A small WSGI-style HTTP application framework and an example application.

The framework part provides:

* ``Headers``, a case-insensitive multi-value header mapping;
* ``MultiDict`` with query-string and urlencoded form parsing;
* cookie parsing and ``Set-Cookie`` rendering through ``http.cookies``;
* ``Request`` and ``Response`` objects (with JSON, HTML and redirect variants);
* a ``Router`` with typed path parameters such as ``/users/<int:user_id>``;
* ``Blueprint`` sub-routers, error handlers and before/after request hooks;
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
import html
import http.cookies
import io
import itertools
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import date, timedelta
from fnmatch import fnmatchcase
from functools import cached_property, partialmethod, wraps
from http import HTTPStatus
from typing import Any, ClassVar, TypeVar
from urllib.parse import parse_qs as _parse_qs
from urllib.parse import quote, unquote_to_bytes, urlencode

Environ = dict[str, Any]
StartResponse = Callable[..., Callable[[bytes], object]]
Handler = Callable[..., Any]
NextHandler = Callable[["Request"], "Response"]


F = TypeVar("F", bound=Callable[..., Any])


EPOCH_EXPIRES = "Thu, 01 Jan 1970 00:00:00 GMT"


# --- HTTP errors -----------------------------------------------------------

class HTTPException(Exception):
    """An exception that maps directly onto an HTTP error response."""

    code: ClassVar[int] = 500
    default_description: ClassVar[str] = "The server encountered an internal error."

    def __init__(self, description: str | None = None) -> None:
        self.description = description or self.default_description
        super().__init__(self.description)

    @property
    def name(self) -> str:
        return status_phrase(self.code)

    def get_headers(self) -> dict[str, str]:
        return {}

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
        return {"Allow": ", ".join(self.valid_methods)}


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
        return "Unknown"


ERROR_PAGE_TEMPLATE = """<!doctype html>
<html lang="en">
<head><title>{code} {name}</title></head>
<body><h1>{name}</h1><p>{description}</p></body>
</html>
"""


def render_error_page(code: int, name: str, description: str) -> str:
    return ERROR_PAGE_TEMPLATE.format(code=code, name=html.escape(name),
                                      description=html.escape(description))


# --- Headers and multi-value dictionaries ----------------------------------

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

    def add(self, name: str, value: str) -> None:
        self._check(name, value)
        self._items.append((name, value))

    def get_all(self, name: str) -> list[str]:
        key = name.lower()
        return [value for item_name, value in self._items if item_name.lower() == key]

    def to_wsgi_list(self) -> list[tuple[str, str]]:
        return list(self._items)

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
            raw = raw[1:-1].replace('\\"', '"')
        options[key] = raw
    return main.strip().lower(), options


class MultiDict(Mapping[str, str]):
    """A mapping in which every key may hold several values (query strings, forms)."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self._data: dict[str, list[str]] = {}
        for key, value in pairs:
            self._data.setdefault(key, []).append(value)

    def __getitem__(self, key: str) -> str:
        return self._data[key][0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None,  # type: ignore[override]
            type: Callable[[str], Any] | None = None) -> Any:
        """Return the first value, converted with ``type``; ``default`` if absent or invalid."""
        if key not in self._data:
            return default
        try:
            return self._data[key][0] if type is None else type(self._data[key][0])
        except (TypeError, ValueError):
            return default

    def getlist(self, key: str) -> list[str]:
        return list(self._data.get(key, []))


def parse_query_string(query: str, max_fields: int = 1000) -> MultiDict:
    """Parse ``a=1&a=2&b=`` into a MultiDict, keeping blank values."""
    try:
        parsed = _parse_qs(query, keep_blank_values=True, max_num_fields=max_fields)
    except ValueError as exc:
        raise BadRequest(f"Malformed query string: {exc}") from None
    return MultiDict((key, value) for key, values in parsed.items() for value in values)


# --- Cookies, signing and JSON ---------------------------------------------

def parse_cookie_header(header: str | None) -> dict[str, str]:
    """Parse a ``Cookie`` request header; malformed pairs are skipped."""
    jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    if header:
        jar.load(header)
    return {name: morsel.value for name, morsel in jar.items()}


def dump_cookie(name: str, value: str, *, max_age: int | None = None, path: str = "/",
                secure: bool = False, httponly: bool = True, samesite: str | None = "Lax",
                expires: str | None = None) -> str:
    """Render a ``Set-Cookie`` header value using ``http.cookies.Morsel``."""
    jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    jar[name] = value
    morsel = jar[name]
    morsel["path"] = path
    if max_age is not None:
        morsel["max-age"] = str(max_age)
    if expires is not None:
        morsel["expires"] = expires
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


def _signature(payload: str, key: str) -> str:
    return _b64encode(hmac.new(key.encode(), payload.encode(), hashlib.sha256).digest())


def sign(value: bytes, key: str) -> str:
    """Return ``value`` base64-encoded with an HMAC-SHA256 signature appended."""
    payload = _b64encode(value)
    return f"{payload}.{_signature(payload, key)}"


def unsign(token: str, key: str) -> bytes | None:
    """Verify a token produced by ``sign``; return the value or ``None`` if tampered."""
    payload, sep, signature = token.rpartition(".")
    if not sep or not hmac.compare_digest(_signature(payload, key), signature):
        return None
    try:
        return _b64decode(payload)
    except ValueError:
        return None


class JSONEncoder(json.JSONEncoder):
    """JSON encoder that understands ``__json__``, dataclasses, dates, decimals and sets."""

    def default(self, o: Any) -> Any:
        if hasattr(o, "__json__"):
            return o.__json__()
        if is_dataclass(o) and not isinstance(o, type):
            return asdict(o)
        if isinstance(o, date):
            return o.isoformat()
        if isinstance(o, (set, frozenset)):
            return sorted(o)
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
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    trailing = "/" if path.endswith("/") and segments else ""
    return "/" + "/".join(segments) + trailing


def join_paths(prefix: str, rule: str) -> str:
    if not prefix:
        return rule
    return prefix.rstrip("/") + "/" + rule.lstrip("/")


class Request:
    """An incoming HTTP request, built from a WSGI environ."""

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

    @property
    def full_path(self) -> str:
        return f"{self.path}?{self.query_string}" if self.query_string else self.path

    @property
    def blueprint(self) -> str | None:
        """Name of the blueprint owning the matched endpoint, if any."""
        if self.route is None or "." not in self.route.endpoint:
            return None
        return self.route.endpoint.rpartition(".")[0]

    @property
    def body(self) -> bytes:
        """The raw request body, read once from ``wsgi.input``."""
        if self._body is None:
            try:
                length = int(self.environ.get("CONTENT_LENGTH") or 0)
            except ValueError:
                raise BadRequest("Invalid Content-Length header.") from None
            stream = self.environ.get("wsgi.input")
            self._body = stream.read(length) if stream is not None and length > 0 else b""
        return self._body

    @cached_property
    def _content_type(self) -> tuple[str, dict[str, str]]:
        return parse_header_options(self.headers.get("Content-Type", ""))

    @property
    def mimetype(self) -> str:
        return self._content_type[0]

    @cached_property
    def args(self) -> MultiDict:
        return parse_query_string(self.query_string)

    @cached_property
    def cookies(self) -> dict[str, str]:
        return parse_cookie_header(self.headers.get("Cookie"))

    @cached_property
    def form(self) -> MultiDict:
        if self.mimetype != "application/x-www-form-urlencoded":
            return MultiDict()
        charset = self._content_type[1].get("charset", self.charset)
        return parse_query_string(self.body.decode(charset, "replace"))

    @property
    def is_json(self) -> bool:
        return self.mimetype == "application/json" or self.mimetype.endswith("+json")

    @cached_property
    def json(self) -> Any:
        """The body decoded as JSON; 415 for other content types, 400 if malformed."""
        if not self.is_json:
            raise UnsupportedMediaType("Expected an application/json body.")
        return loads(self.body)

    @property
    def wants_json(self) -> bool:
        """True when the Accept header prefers JSON over HTML."""
        accept = self.headers.get("Accept", "")
        json_at, html_at = accept.find("application/json"), accept.find("text/html")
        return json_at >= 0 and (html_at < 0 or json_at < html_at)

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
        "CONTENT_LENGTH": str(len(body)) if body else "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
    }
    for name, value in (headers or Headers()).to_wsgi_list():
        key = name.upper().replace("-", "_")
        environ[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
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

    @property
    def data(self) -> bytes:
        return self._data

    @data.setter
    def data(self, body: str | bytes) -> None:
        self._data = body.encode(self.charset) if isinstance(body, str) else bytes(body)
        self.headers["Content-Length"] = str(len(self._data))

    @property
    def status(self) -> str:
        return f"{self.status_code} {status_phrase(self.status_code)}"

    def set_cookie(self, name: str, value: str, **options: Any) -> None:
        self.headers.add("Set-Cookie", dump_cookie(name, value, **options))

    def delete_cookie(self, name: str, path: str = "/") -> None:
        self.set_cookie(name, "", max_age=0, path=path, expires=EPOCH_EXPIRES)

    def __call__(self, environ: Environ, start_response: StartResponse) -> list[bytes]:
        if self.status_code in (204, 304):
            self._data = b""
            for name in ("Content-Type", "Content-Length"):
                self.headers.pop(name, None)
        start_response(self.status, self.headers.to_wsgi_list())
        return [] if environ.get("REQUEST_METHOD") == "HEAD" else [self._data]


class HTMLResponse(Response):
    default_mimetype = "text/html"


class JSONResponse(Response):
    """A response whose body is ``payload`` serialised with ``dumps``."""

    default_mimetype = "application/json"

    def __init__(self, payload: Any, status: int | HTTPStatus = 200,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(dumps(payload), status, headers)


class RedirectResponse(HTMLResponse):
    def __init__(self, location: str, status: int = 302) -> None:
        target = html.escape(location)
        body = f'<p>Redirecting to <a href="{target}">{target}</a>.</p>\n'
        super().__init__(body, status, {"Location": location})


def make_response(rv: Any) -> Response:
    """Turn a handler's return value into a Response.

    Accepts a Response, ``str`` (HTML), ``bytes``, ``dict``/``list``/objects with
    ``__json__`` (JSON), or a tuple of ``(body, status)``, ``(body, headers)`` or
    ``(body, status, headers)``.
    """
    status: int | None = None
    headers: Mapping[str, str] = {}
    if isinstance(rv, tuple):
        if len(rv) == 3:
            rv, status, headers = rv
        elif len(rv) == 2 and isinstance(rv[1], Mapping):
            rv, headers = rv
        elif len(rv) == 2:
            rv, status = rv
        else:
            raise TypeError(f"handler returned a tuple of length {len(rv)}")
    if isinstance(rv, Response):
        response = rv
    elif isinstance(rv, str):
        response = HTMLResponse(rv)
    elif isinstance(rv, (bytes, bytearray)):
        response = Response(bytes(rv), content_type="application/octet-stream")
    elif isinstance(rv, (dict, list)) or hasattr(rv, "__json__") or is_dataclass(rv):
        response = JSONResponse(rv)
    else:
        raise TypeError(f"cannot make a response from {type(rv).__name__}")
    if status is not None:
        response.status_code = int(status)
    for name, value in headers.items():
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

    def __init__(self, *args: str) -> None:
        self.args = args

    def to_python(self, value: str) -> Any:
        return value

    def to_url(self, value: Any) -> str:
        return quote(str(value), safe="")


@register_converter("int")
class IntConverter(BaseConverter):
    """``<int:n>``; ``<int(1):n>`` also rejects numbers below 1."""

    regex = r"\d+"
    weight = 50

    def to_python(self, value: str) -> int:
        number = int(value)
        if self.args and number < int(self.args[0]):
            raise ValueError(f"{number} is below the minimum {self.args[0]}")
        return number

    def to_url(self, value: Any) -> str:
        return str(int(value))


@register_converter("slug")
class SlugConverter(BaseConverter):
    regex = "[a-z0-9]+(?:-[a-z0-9]+)*"
    weight = 60


_RULE_RE = re.compile(r"<(?:(?P<converter>[a-zA-Z_]\w*)(?:\((?P<args>[^)]*)\))?:)?"
                      r"(?P<variable>[a-zA-Z_]\w*)>")


def parse_rule(rule: str) -> Iterator[tuple[str | None, tuple[str, ...], str]]:
    """Yield ``(converter, args, variable)`` for each dynamic part of ``rule`` and
    ``(None, (), text)`` for the static text between them."""
    position = 0
    for match in _RULE_RE.finditer(rule):
        if match.start() > position:
            yield None, (), rule[position:match.start()]
        args = tuple(filter(None, (a.strip() for a in (match.group("args") or "").split(","))))
        yield match.group("converter") or "default", args, match.group("variable")
        position = match.end()
    if position < len(rule):
        if "<" in rule[position:] or ">" in rule[position:]:
            raise ValueError(f"malformed rule {rule!r}")
        yield None, (), rule[position:]


@dataclass
class Route:
    """A compiled URL rule bound to an endpoint name and handler."""

    rule: str
    endpoint: str
    handler: Handler
    methods: frozenset[str]
    converters: Mapping[str, type[BaseConverter]] = field(default_factory=lambda: CONVERTERS,
                                                          repr=False)

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
                converter = self.converters[converter_name](*args)
            except KeyError:
                raise LookupError(f"unknown converter {converter_name!r}") from None
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
            methods: Iterable[str] = ("GET",)) -> Route:
        if endpoint in self._by_endpoint:
            raise ValueError(f"endpoint {endpoint!r} is already registered")
        route = Route(rule, endpoint, handler, frozenset(methods), self.converters)
        self._routes.append(route)
        self._by_endpoint[endpoint] = route
        return route

    def match(self, method: str, path: str) -> tuple[Route, dict[str, Any]]:
        """Find the route for ``method`` and ``path``.

        Raises ``NotFound``, or ``MethodNotAllowed`` listing the methods that
        the path does support.
        """
        allowed: set[str] = set()
        for route in self.routes:
            params = route.match(path)
            if params is None:
                continue
            if method in route.methods:
                return route, params
            allowed |= route.methods
        if allowed:
            raise MethodNotAllowed(allowed | {"OPTIONS"})
        raise NotFound()

    def url_for(self, endpoint: str, values: Mapping[str, Any]) -> str:
        try:
            route = self._by_endpoint[endpoint]
        except KeyError:
            raise BuildError(f"no endpoint named {endpoint!r}") from None
        path, extra = route.build(values)
        return f"{path}?{urlencode(extra, doseq=True)}" if extra else path


# --- Applications and blueprints -------------------------------------------

ErrorHandler = Callable[["Request", Exception], Any]
BeforeHook = Callable[["Request"], Any]
AfterHook = Callable[["Request", "Response"], "Response"]


class Scaffold:
    """Behaviour shared by ``App`` and ``Blueprint``: routes, hooks, error handlers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.error_handlers: dict[int | type[Exception], ErrorHandler] = {}
        self.before_request_funcs: list[BeforeHook] = []
        self.after_request_funcs: list[AfterHook] = []

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",)) -> None:
        raise NotImplementedError

    def route(self, rule: str, *, methods: Sequence[str] | None = None,
              endpoint: str | None = None) -> Callable[[F], F]:
        """Decorator registering the decorated function for ``rule``."""
        def decorator(handler: F) -> F:
            self.add_url_rule(rule, endpoint or handler.__name__, handler,
                              tuple(methods or ("GET",)))
            return handler
        return decorator

    def _method_route(self, method: str, rule: str, **options: Any) -> Callable[[F], F]:
        return self.route(rule, methods=[method], **options)

    get = partialmethod(_method_route, "GET")
    post = partialmethod(_method_route, "POST")
    delete = partialmethod(_method_route, "DELETE")

    def errorhandler(self, key: int | type[Exception]) -> Callable[[F], F]:
        """Register a handler for a status code or an exception class."""
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
        """Look the handler up by status code first, then along the class MRO."""
        keys: list[int | type[Exception]] = [exc.code] if isinstance(exc, HTTPException) else []
        keys.extend(cls for cls in type(exc).__mro__ if issubclass(cls, Exception))
        for key in keys:
            if key in self.error_handlers:
                return self.error_handlers[key]
        return None


class Blueprint(Scaffold):
    """A group of routes registered on an app under a URL prefix and a name."""

    def __init__(self, name: str, url_prefix: str = "") -> None:
        if "." in name:
            raise ValueError("blueprint names may not contain dots")
        super().__init__(name)
        self.url_prefix = url_prefix.rstrip("/")
        self.deferred: list[tuple[str, str, Handler, tuple[str, ...]]] = []

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",)) -> None:
        self.deferred.append((rule, endpoint, handler, tuple(methods)))

    def register(self, app: App, url_prefix: str | None = None) -> None:
        prefix = self.url_prefix if url_prefix is None else url_prefix.rstrip("/")
        app.blueprints[self.name] = self
        for rule, endpoint, handler, methods in self.deferred:
            app.router.add(join_paths(prefix, rule), f"{self.name}.{endpoint}", handler,
                           methods)


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
        self._chain: NextHandler | None = None

    def add_url_rule(self, rule: str, endpoint: str, handler: Handler,
                     methods: Sequence[str] = ("GET",)) -> None:
        self.router.add(rule, endpoint, handler, methods)

    def register_blueprint(self, blueprint: Blueprint, url_prefix: str | None = None) -> None:
        blueprint.register(self, url_prefix)

    def add_middleware(self, middleware: Middleware) -> None:
        """Add a middleware; the first one added is the outermost layer."""
        self.middleware.append(middleware)
        self._chain = None

    def url_for(self, endpoint: str, **values: Any) -> str:
        return self.router.url_for(endpoint, values)

    def _scaffolds_for(self, request: Request) -> list[Scaffold]:
        """The matched blueprint (if any), then the app itself."""
        name = request.blueprint
        return [self.blueprints[name], self] if name in self.blueprints else [self]

    def _build_chain(self) -> NextHandler:
        handler: NextHandler = self.dispatch
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
        """Match the route, run the hooks and call the handler."""
        try:
            route, params = self.router.match(request.method, request.path)
        except MethodNotAllowed as exc:
            if request.method == "OPTIONS":
                return Response(b"", 204, {"Allow": ", ".join(exc.valid_methods)})
            raise
        request.route, request.path_params = route, params
        scaffolds = self._scaffolds_for(request)
        response: Response | None = None
        for hook in (h for s in reversed(scaffolds) for h in s.before_request_funcs):
            early = hook(request)
            if early is not None:
                response = make_response(early)
                break
        if response is None:
            response = make_response(route.handler(request, **params))
        for after in (h for s in scaffolds for h in reversed(s.after_request_funcs)):
            response = after(request, response)
        return response

    def handle_http_exception(self, request: Request, exc: HTTPException) -> Response:
        for scaffold in self._scaffolds_for(request):
            handler = scaffold.find_error_handler(exc)
            if handler is not None:
                return make_response(handler(request, exc))
        return exc.get_response(request)

    def handle_exception(self, request: Request, exc: Exception) -> Response:
        for scaffold in self._scaffolds_for(request):
            handler = scaffold.find_error_handler(exc)
            if handler is not None:
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


def _bind_middleware(middleware: Middleware, call_next: NextHandler) -> NextHandler:
    def call(request: Request) -> Response:
        return middleware(request, call_next)
    return call


# --- Middleware ------------------------------------------------------------

class Middleware:
    """Wraps request handling. Override ``before``/``after`` or ``__call__``."""

    def __call__(self, request: Request, call_next: NextHandler) -> Response:
        early = self.before(request)
        if early is not None:
            return early
        return self.after(request, call_next(request))

    def before(self, request: Request) -> Response | None:
        return None

    def after(self, request: Request, response: Response) -> Response:
        return response


class LoggingMiddleware(Middleware):
    """Records one line per request; a sequence number stands in for timestamps."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._counter = itertools.count(1)

    def __call__(self, request: Request, call_next: NextHandler) -> Response:
        sequence = next(self._counter)
        response = call_next(request)
        self.lines.append(f"#{sequence:03d} {request.method:<7} {request.full_path:<36} "
                          f"{response.status_code} {len(response.data)}B")
        return response


class CORSMiddleware(Middleware):
    """Answers CORS preflight requests and decorates responses for allowed origins."""

    def __init__(self, allow_origins: Sequence[str] = ("*",),
                 allow_methods: Sequence[str] = ("GET", "POST", "PUT", "PATCH", "DELETE"),
                 allow_headers: Sequence[str] = ("content-type",),
                 allow_credentials: bool = False) -> None:
        self.allow_origins = list(allow_origins)
        self.allow_methods = [method.upper() for method in allow_methods]
        self.allow_headers = [header.lower() for header in allow_headers]
        self.allow_credentials = allow_credentials

    def origin_allowed(self, origin: str) -> bool:
        return any(pattern == "*" or fnmatchcase(origin, pattern)
                   for pattern in self.allow_origins)

    def before(self, request: Request) -> Response | None:
        origin = request.headers.get("Origin")
        wanted = request.headers.get("Access-Control-Request-Method")
        if request.method != "OPTIONS" or not origin or not wanted:
            return None
        if not self.origin_allowed(origin) or wanted.upper() not in self.allow_methods:
            return Response("CORS preflight rejected", 403)
        response = Response(b"", 204)
        self._add_origin_headers(response, origin)
        response.headers["Access-Control-Allow-Methods"] = ", ".join(self.allow_methods)
        response.headers["Access-Control-Allow-Headers"] = ", ".join(self.allow_headers)
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
    """Turns exceptions from inner layers into error responses and remembers them."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def __call__(self, request: Request, call_next: NextHandler) -> Response:
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

    modified = False

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.modified = True

    def clear(self) -> None:
        self.modified = self.modified or bool(self)
        super().clear()


class SessionMiddleware(Middleware):
    """Stores the session as JSON in an HMAC-signed cookie."""

    def __init__(self, secret_key: str, cookie_name: str = "session") -> None:
        if not secret_key:
            raise ValueError("sessions need a secret key")
        self.secret_key = secret_key
        self.cookie_name = cookie_name

    def load(self, token: str | None) -> Session:
        raw = unsign(token, self.secret_key) if token else None
        try:
            data = json.loads(raw) if raw is not None else {}
        except ValueError:
            data = {}
        return Session(data if isinstance(data, dict) else {})

    def before(self, request: Request) -> Response | None:
        request.state["session"] = self.load(request.cookies.get(self.cookie_name))
        return None

    def after(self, request: Request, response: Response) -> Response:
        session: Session = request.state["session"]
        if not session.modified:
            return response
        if session:
            token = sign(dumps(dict(sorted(session.items()))).encode(), self.secret_key)
            response.set_cookie(self.cookie_name, token)
        else:
            response.delete_cookie(self.cookie_name)
        return response


# --- Handler decorators ----------------------------------------------------

def login_required(handler: F) -> F:
    """Reject the request with 401 unless the session holds a user id."""
    @wraps(handler)
    def wrapper(request: Request, **kwargs: Any) -> Any:
        if "user_id" not in request.session:
            raise Unauthorized("Log in first.")
        return handler(request, **kwargs)
    return wrapper  # type: ignore[return-value]


# --- Test client -----------------------------------------------------------

@dataclass
class TestResponse:
    """What the WSGI application produced for one in-process request."""

    __test__ = False
    request_line: str
    status: str
    headers: Headers
    data: bytes

    @property
    def status_code(self) -> int:
        return int(self.status.split(" ", 1)[0])

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
             form: Mapping[str, str] | None = None, follow_redirects: bool = False
             ) -> TestResponse:
        path, _, query_string = path.partition("?")
        if query:
            query_string = "&".join(filter(None, [query_string, urlencode(query, doseq=True)]))
        request_headers = Headers(headers)
        body = b""
        if json is not None:
            body = dumps(json).encode()
            request_headers.setdefault("Content-Type", "application/json")
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
        request_line = f"{method} {path}" + (f"?{query_string}" if query_string else "")
        response = TestResponse(request_line, captured["status"], captured["headers"],
                                b"".join(chunks))
        self._store_cookies(response)
        if follow_redirects and response.status_code in (301, 302, 303):
            return self.open("GET", response.headers["Location"], headers=headers,
                             follow_redirects=True)
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
    delete = partialmethod(open, "DELETE")
    options = partialmethod(open, "OPTIONS")


# --- Example application: a tiny notes service -----------------------------

def slugify(text: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())) or "untitled"


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

    def __json__(self) -> dict[str, Any]:
        return {"id": self.id, "slug": self.slug, "owner": self.owner_id, "title": self.title,
                "tags": sorted(self.tags), "created": self.created}


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


NOTE_FIELDS: dict[str, type] = {"title": str, "body": str, "tags": list}


app = App("notes", secret_key="demo-secret-key-not-for-production")


api = Blueprint("api", url_prefix="/api/v1")


@app.route("/", methods=["GET"])
def index(request: Request) -> str:
    links = "".join(f'<li><a href="{app.url_for("api.get_user", user_id=user.id)}">'
                    f"{html.escape(user.name)}</a></li>"
                    for user in get_store(request).users.values())
    return f"<h1>Notes</h1><ul>{links}</ul>"


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
def me(request: Request) -> dict[str, Any]:
    user = current_user(request)
    return {"user": user, "notes": len(get_store(request).notes_for(user.id))}


@app.get("/reports/week/<date:start>")
def weekly_report(request: Request, start: date) -> dict[str, Any]:
    end = start + timedelta(days=6)
    notes = [note.slug for note in get_store(request).notes.values()
             if start <= note.created <= end]
    return {"from": start, "to": end, "notes": notes}


@app.get("/boom")
def boom(request: Request) -> str:
    raise RuntimeError("simulated failure")


@app.errorhandler(404)
def page_not_found(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.wants_json:
        return exc.get_response(request)
    return HTMLResponse(f"<h1>Nothing here</h1><p>{html.escape(request.path)} "
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
def list_users(request: Request) -> dict[str, Any]:
    users = list(get_store(request).users.values())
    roles = request.args.getlist("role")
    limit = request.args.get("limit", len(users), type=int)
    chosen = [user for user in users if not roles or user.role in roles]
    return {"total": len(chosen), "users": chosen[:limit]}


@api.get("/users/<int(1):user_id>")
def get_user(request: Request, user_id: int) -> User:
    return get_store(request).user(user_id)


@api.post("/notes")
@login_required
def create_note(request: Request) -> Response:
    payload = request.json
    errors = {name: f"Expected {kind.__name__}." for name, kind in NOTE_FIELDS.items()
              if not isinstance(payload, dict) or not isinstance(payload.get(name), kind)}
    if errors:
        raise UnprocessableEntity(errors)
    note = get_store(request).add_note(current_user(request), payload["title"],
                                       payload["body"], payload["tags"], date(2024, 3, 12))
    return JSONResponse(note, 201, {"Location": app.url_for("api.get_note", slug=note.slug)})


@api.get("/notes/<slug:slug>")
def get_note(request: Request, slug: str) -> Note:
    return get_store(request).note_by_slug(slug)


def configure(application: App) -> App:
    """Attach blueprints, storage and the middleware stack (outermost first)."""
    application.register_blueprint(api)
    application.extensions["store"] = seed_store()
    application.extensions["log"] = LoggingMiddleware()
    application.extensions["errors"] = ErrorHandlingMiddleware()
    application.add_middleware(application.extensions["log"])
    application.add_middleware(CORSMiddleware(
        allow_origins=["https://notes.example.com", "https://*.trusted.dev"],
        allow_credentials=True))
    application.add_middleware(application.extensions["errors"])
    application.add_middleware(SessionMiddleware(application.config["SECRET_KEY"]))
    return application


configure(app)


# --- Demonstration ---------------------------------------------------------

def show(response: TestResponse, *headers: str, note: str = "", width: int = 86) -> None:
    """Print the request line, status, selected headers and a one-line body summary."""
    label = f"{response.request_line} ({note})" if note else response.request_line
    print(f"{label:<44} -> {response.status}")
    for name in headers:
        for value in response.headers.get_all(name):
            print(f"      {name}: {value}")
    if not response.data:
        text = "(empty body)"
    elif response.mimetype == "application/json":
        text = dumps(response.json())
    else:
        text = " ".join(response.data.decode("utf-8", "replace").split())
    print("      " + (text if len(text) <= width else text[:width - 3] + "..."))


def main() -> None:
    client = app.test_client()
    accept_json = {"Accept": "application/json"}
    note = {"title": "Middleware order", "body": "Logging wraps CORS wraps errors.",
            "tags": ["python", "wsgi"]}

    show(client.get("/health"))
    show(client.get("/"))
    show(client.get("/api/v1/users", query={"role": "member", "limit": 1}))
    show(client.get("/api/v1/users/2"))
    show(client.get("/api/v1/users/99"))
    show(client.get("/api/v1/users/0"), note="below int(1)")
    show(client.get("/api/v1/users/0", headers=accept_json), note="Accept: json")
    show(client.delete("/health"), "Allow")
    show(client.options("/health"), "Allow")
    show(client.options("/api/v1/notes", headers={
        "Origin": "https://app.trusted.dev", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Content-Type"}),
        "Access-Control-Allow-Origin", "Access-Control-Allow-Methods", note="preflight")
    show(client.post("/api/v1/notes", json=note), note="anonymous")
    show(client.post("/login", form={"username": "ada", "password": "nope"}))
    show(client.post("/login", form={"username": "ada", "password": "analytical"}),
         "Location")
    print(f"      cookie jar now holds: {sorted(client.cookies)}")
    show(client.get("/me"))
    created = client.post("/api/v1/notes", json=note,
                          headers={"Origin": "https://notes.example.com"})
    show(created, "Location", "Access-Control-Allow-Origin")
    show(client.post("/api/v1/notes", json={"title": 42, "body": "?"}), note="invalid")
    show(client.post("/api/v1/notes", form={"title": "t", "body": "b"}), note="form body")
    show(client.get(created.headers["Location"]))
    show(client.get("/reports/week/2024-03-04"))
    show(client.get("/boom"))
    show(client.post("/logout", follow_redirects=True), note="redirect followed")
    print(f"      cookie jar now holds: {sorted(client.cookies)}")
    show(client.get("/me", headers=accept_json))

    print("\nURL building:")
    print("  ", app.url_for("api.get_user", user_id=3))
    print("  ", app.url_for("api.list_users", role="admin", limit=5))
    print("  ", app.url_for("weekly_report", start=date(2024, 3, 11)))
    try:
        app.url_for("api.get_note")
    except BuildError as exc:
        print("   BuildError:", exc)

    print("\nRaw WSGI call:")
    environ = make_environ("GET", "/api/v1/users/1", "", Headers(accept_json))

    def start_response(status: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], None]:
        print(f"   status: {status}")
        print(f"   headers: {[name for name, _ in headers]}")
        return lambda data: None

    print(f"   body: {b''.join(app(environ, start_response)).decode()}")

    print("\nRequest log:")
    for line in app.extensions["log"].lines:
        print("  ", line)
    print("\nUnhandled exceptions:")
    for failure in app.extensions["errors"].failures:
        print("  ", failure)


if __name__ == "__main__":
    main()
