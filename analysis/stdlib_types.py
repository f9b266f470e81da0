"""What the standard library's names are, for resolving calls into it: which
names are classes (``subprocess.Popen``, ``re.Pattern``, ``typing.IO``) and
what some functions return (``re.compile()`` is a ``re.Pattern``), as typeshed
states them for Python 3.11.

A view depends on the workspace and nothing else of the machine, so this is a
fixed table, not a look at the installed interpreter: ``CLASSES`` is written by
``python -m analysis.stdlib_types`` (the public classes of every public module
of the standard library, as the interpreter that runs it has them), checked in,
and read as it is. A class here has no known members: a method called on one of
its instances is named on the class (``subprocess.Popen.wait``), as the names of
workspace classes whose bases lie outside the workspace are.
"""

from __future__ import annotations

import functools

from analysis import _stdlib_classes

#: Names that are classes at run time but, written in an annotation, do not
#: say what class a value is (special forms and type-variable makers).
NOT_VALUE_CLASSES = frozenset(
    f"{m}.{n}" for m in ("typing", "typing_extensions") for n in (
        "Any", "Callable", "Generic", "Protocol", "TypeVar", "ParamSpec", "ParamSpecArgs", "ParamSpecKwargs",
        "NewType", "ForwardRef", "Annotated", "Type", "GenericAlias", "NamedTupleMeta", "TypeVarTuple", "Unpack",
        "Concatenate", "NamedTuple", "TypedDict", "ByteString", "Hashable", "Sized")
)

#: typing's names for classes that live elsewhere (typeshed's aliases).
ALIASES = {
    "typing.Deque": "collections.deque", "typing.DefaultDict": "collections.defaultdict",
    "typing.OrderedDict": "collections.OrderedDict", "typing.Counter": "collections.Counter",
    "typing.ChainMap": "collections.ChainMap", "typing.Pattern": "re.Pattern", "typing.Match": "re.Match",
}

#: Private classes typeshed names as the class of a public value.
_PRIVATE = ("os._Environ", "_hashlib.HASH", "tempfile._TemporaryFileWrapper", "zlib._Compress", "zlib._Decompress",
            "_thread.RLock", "select.poll")

_STR, _BYTES, _LIST, _TUPLE, _FLOAT, _INT = (f"builtins.{t}" for t in ("str", "bytes", "list", "tuple", "float", "int"))

#: The class of a function's result (``"m.f()"``), of an item of it
#: (``"m.f()[]"``) or of a value (``"os.environ"``), as typeshed annotates them.
RESULTS: dict[str, str] = {
    "os.environ": "os._Environ", "sys.stdout": "typing.TextIO", "sys.stderr": "typing.TextIO",
    "sys.stdin": "typing.TextIO", "sys.argv": _LIST, "sys.argv[]": _STR, "sys.path": _LIST, "sys.path[]": _STR,
    "sys.version": _STR, "sys.platform": _STR, "sys.executable": _STR,
    "sys.modules": "builtins.dict", "sys.byteorder": _STR, "os.curdir": _STR, "ssl.OPENSSL_VERSION": _STR,
    "linecache.cache": "builtins.dict",
    **{f"string.{n}": _STR for n in ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
                                     "octdigits", "punctuation", "printable", "whitespace")},
    **{f"re.{f}()": "re.Match" for f in ("match", "search", "fullmatch")},
    **{f"re.Pattern.{f}()": "re.Match" for f in ("match", "search", "fullmatch")},
    "re.compile()": "re.Pattern", "re.finditer()[]": "re.Match", "re.Pattern.finditer()[]": "re.Match",
    "re.sub()": _STR, "re.Pattern.sub()": _STR, "re.escape()": _STR, "re.split()": _LIST, "re.Pattern.split()": _LIST,
    "re.findall()": _LIST, "re.Pattern.findall()": _LIST, "re.Match.span()": _TUPLE, "re.Match.groups()": _TUPLE,
    "re.Match.start()": _INT, "re.Match.end()": _INT, "re.Match.groupdict()": "builtins.dict",
    "logging.getLogger()": "logging.Logger",
    "zlib.compressobj()": "zlib._Compress", "zlib.decompressobj()": "zlib._Decompress",
    "threading.RLock()": "_thread.RLock", "ssl.SSLContext.wrap_bio()": "ssl.SSLObject",
    "ssl.SSLContext.wrap_socket()": "ssl.SSLSocket",
    **{f"zlib.{f}()": _BYTES for f in ("compress", "decompress")},
    **{f"zlib._Compress.{f}()": _BYTES for f in ("compress", "flush")},
    **{f"zlib._Decompress.{f}()": _BYTES for f in ("decompress", "flush")},
    **{f"hashlib.{f}()": "_hashlib.HASH" for f in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "new")},
    "_hashlib.HASH.hexdigest()": _STR, "_hashlib.HASH.digest()": _BYTES,
    "urllib.parse.urlparse()": "urllib.parse.ParseResult", "urllib.parse.urlsplit()": "urllib.parse.SplitResult",
    **{f"urllib.parse.{c}.{a}": _STR for c in ("ParseResult", "SplitResult")
       for a in ("scheme", "netloc", "path", "query", "fragment")},
    "urllib.parse.ParseResult.params": _STR,
    **{f"urllib.parse.{c}.geturl()": _STR for c in ("ParseResult", "SplitResult")},
    **{f"urllib.parse.{f}()": _STR for f in ("quote", "quote_plus", "unquote", "unquote_plus", "urlencode",
                                             "urlunparse", "urlunsplit", "urljoin")},
    "subprocess.run()": "subprocess.CompletedProcess", "subprocess.Popen.wait()": _INT,
    "tempfile.NamedTemporaryFile()": "tempfile._TemporaryFileWrapper", "tempfile.mkdtemp()": _STR,
    "tempfile.gettempdir()": _STR, "tempfile.mkstemp()": _TUPLE,
    "time.ctime()": _STR, "time.strftime()": _STR, "time.asctime()": _STR, "time.time()": _FLOAT,
    "time.monotonic()": _FLOAT, "time.perf_counter()": _FLOAT,
    **{f"os.path.{f}()": _STR for f in ("join", "basename", "dirname", "abspath", "normpath", "expanduser",
                                        "expandvars", "realpath", "relpath", "normcase")},
    "os.path.split()": _TUPLE, "os.path.splitext()": _TUPLE, "os.getcwd()": _STR, "os.sep": _STR,
    "os.linesep": _STR, "os.pathsep": _STR, "os.devnull": _STR, "os.name": _STR,
    "shlex.split()": _LIST, "shlex.split()[]": _STR, "shlex.quote()": _STR, "shlex.join()": _STR,
    **{f"base64.{f}()": _BYTES for f in ("b64encode", "b64decode", "urlsafe_b64encode", "urlsafe_b64decode",
                                         "b32encode", "b32decode", "b16encode", "b16decode")},
    "binascii.hexlify()": _BYTES, "binascii.unhexlify()": _BYTES,
    "codecs.lookup()": "codecs.CodecInfo", "inspect.signature()": "inspect.Signature",
    "datetime.datetime.now()": "datetime.datetime", "datetime.datetime.utcnow()": "datetime.datetime",
    "datetime.date.today()": "datetime.date", "datetime.datetime.strftime()": _STR,
    "datetime.date.isoformat()": _STR, "datetime.datetime.isoformat()": _STR,
    "platform.system()": _STR, "platform.python_version()": _STR, "platform.machine()": _STR,
    "locale.getpreferredencoding()": _STR, "sys.getdefaultencoding()": _STR, "sys.getfilesystemencoding()": _STR,
    "string.Template.substitute()": _STR, "string.Template.safe_substitute()": _STR,
    "uuid.uuid4()": "uuid.UUID", "uuid.uuid1()": "uuid.UUID", "uuid.UUID.hex": _STR,
    "io.StringIO.getvalue()": _STR, "io.BytesIO.getvalue()": _BYTES,
    "pathlib.Path.cwd()": "pathlib.Path", "pathlib.Path.home()": "pathlib.Path",
    **{f"pathlib.{c}.{f}()": "pathlib.Path" for c in ("Path", "PurePath")
       for f in ("resolve", "absolute", "with_suffix", "with_name", "with_stem", "joinpath", "expanduser",
                 "relative_to")},
    **{f"pathlib.{c}.{a}": "pathlib.Path" for c in ("Path", "PurePath") for a in ("parent",)},
    **{f"pathlib.{c}.{a}": _STR for c in ("Path", "PurePath") for a in ("name", "stem", "suffix")},
    "pathlib.Path.read_text()": _STR, "pathlib.Path.read_bytes()": _BYTES, "pathlib.PurePath.as_posix()": _STR,
    # recall round 7 (docs/performance.md): what structlog, toolz and marshmallow call on
    **{f"asyncio.{f}()": "asyncio.AbstractEventLoop" for f in ("get_running_loop", "get_event_loop",
                                                               "new_event_loop")},
    "contextvars.copy_context()": "contextvars.Context", "contextvars.ContextVar.name": _STR,
    "inspect.Signature.parameters": "types.MappingProxyType", "inspect.Parameter.name": _STR,
    "sys._getframe()": "types.FrameType", "inspect.currentframe()": "types.FrameType",
    "types.FrameType.f_back": "types.FrameType", "types.FrameType.f_globals": "builtins.dict",
    "types.FrameType.f_locals": "builtins.dict", "types.FrameType.f_code": "types.CodeType",
    "traceback.FrameSummary.name": _STR, "traceback.FrameSummary.filename": _STR,
    **{f"logging.LogRecord.{a}": _STR for a in ("name", "levelname", "pathname", "filename", "module", "funcName")},
    **{f"datetime.datetime.{f}()": "datetime.datetime" for f in (
        "strptime", "fromtimestamp", "utcfromtimestamp", "fromisoformat", "combine", "astimezone", "replace")},
    **{f"datetime.date.{f}()": "datetime.date" for f in ("fromtimestamp", "fromisoformat", "fromordinal")},
    "datetime.datetime.date()": "datetime.date", "datetime.datetime.time()": "datetime.time",
}


@functools.cache
def _classes() -> frozenset[str]:
    names = {f"{m}.{n}" for m, line in _stdlib_classes.CLASSES.items() for n in line.split()}
    return frozenset(names.union(_PRIVATE, ALIASES.values()) - NOT_VALUE_CLASSES)


def is_class(qualname: str) -> bool:
    """Whether ``qualname`` names a class of the standard library (not a special form)."""
    return qualname in _classes()


def _write() -> None:  # pragma: no cover - run by hand when the Python version changes
    import contextlib
    import importlib
    import io
    import pkgutil
    import sys
    import typing
    import warnings
    from pathlib import Path

    skip = {"test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "antigravity", "this", "__main__",
            "pydoc_data", "turtle"}
    found: dict[str, list[str]] = {}
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - a module this platform lacks, or that will not import alone
            return
        generic = (typing._GenericAlias, typing._SpecialGenericAlias)  # type: ignore[attr-defined]
        classes = sorted(k for k, v in vars(module).items() if not k.startswith("_") and isinstance(v, (type, *generic)))
        if classes:
            found[name] = classes
        for info in pkgutil.iter_modules(getattr(module, "__path__", None) or []):
            if not info.name.startswith("_") and info.name not in ("test", "tests"):
                visit(f"{name}.{info.name}")

    for name in sorted(sys.stdlib_module_names):
        if name not in skip and not name.startswith("_"):
            visit(name)
    lines = [f"{k!r}: {' '.join(v)!r}," for k, v in sorted(found.items())]
    text = ('"""The public classes of each public standard-library module (Python '
            f'{sys.version_info.major}.{sys.version_info.minor}),\nwritten by ``python -m analysis.stdlib_types``; '
            'read by analysis/stdlib_types.py."""\n\n'
            "# fmt: off\nCLASSES = {\n" + "".join(f"    {line}\n" for line in lines) + "}\n")
    Path(__file__).with_name("_stdlib_classes.py").write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _write()
