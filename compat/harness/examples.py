"""Where Hypothesis keeps failing examples, so that a fleet of machines can share them.

``example_database(spec)`` turns the value of ``--compat-examples`` (or of the
``COMPAT_EXAMPLES`` environment variable) into a Hypothesis example database:

    (nothing), local         Hypothesis's default: the directory .hypothesis/examples
    DIR                      a directory of examples (DirectoryBasedExampleDatabase)
    redis://HOST:PORT/DB     a Redis database (RedisExampleDatabase; rediss:// and
                             unix:// too; needs the redis package: compat[redis])
    readonly:SPEC            read SPEC's examples, never write there (ReadOnlyDatabase)
    none                     no database: examples are neither replayed nor saved
    SPEC,SPEC,...            all of them at once (MultiplexedDatabase): replays what any
                             holds and saves to every writable one

A developer who reads the fleet's examples and keeps their own gives
``local,readonly:redis://ci-redis:6379/0``; the CI jobs give ``redis://ci-redis:6379/0``.
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

from hypothesis import settings
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

ENVIRONMENT = "COMPAT_EXAMPLES"
READONLY = "readonly:"
REDIS_SCHEMES = ("redis", "rediss", "unix")
CONNECT_TIMEOUT = 5  # seconds to reach a Redis server before giving up with an error
HELP = (
    "where Hypothesis keeps failing examples: a directory, redis://HOST:PORT/DB, 'local' "
    "(.hypothesis/examples), 'none', 'readonly:' before any of them, or several joined by commas (replay from "
    f"all, save to each writable one); default: ${ENVIRONMENT}, else the Hypothesis profile's own "
    "(.hypothesis/examples; none in the ci profile)"
)


class ExamplesError(ValueError):
    """The spec names no usable example database (one-line message for users)."""


def example_database(spec: str | None) -> ExampleDatabase | None:
    """The Hypothesis example database that ``spec`` names (see the module docstring);
    None for ``none``. ExamplesError, with a one-line message, if it names none."""
    if spec is None or not spec.strip():
        return default_database()
    parts = [part.strip() for part in spec.split(",")]
    if not all(parts):
        raise ExamplesError(f"{spec!r} has an empty entry between its commas")
    databases = [one_database(part) for part in parts]
    if len(databases) == 1:
        return databases[0]
    if any(database is None for database in databases):
        raise ExamplesError(f"{spec!r}: 'none' cannot be combined with other databases")
    return MultiplexedDatabase(*databases)


def default_database() -> ExampleDatabase:
    """Hypothesis's own default: .hypothesis/examples (or $HYPOTHESIS_STORAGE_DIRECTORY/examples)."""
    return settings.get_profile("default").database


def one_database(part: str) -> ExampleDatabase | None:
    if part.lower() == "none":
        return None
    if part.lower() == "local":
        return default_database()
    if part.lower().startswith(READONLY):
        inner = part[len(READONLY) :].strip()
        if not inner or inner.lower() == "none":
            raise ExamplesError(
                f"{part!r}: 'readonly:' needs a database after it, e.g. readonly:redis://host:6379/0"
            )
        return ReadOnlyDatabase(one_database(inner))
    scheme = urllib.parse.urlsplit(part).scheme.lower() if "://" in part else ""
    if scheme in REDIS_SCHEMES:
        return redis_database(part)
    if scheme:
        raise ExamplesError(
            f"{redacted(part)}: unsupported scheme {scheme}:// (give a directory, redis://, rediss:// "
            f"or unix://)"
        )
    path = Path(part).expanduser()
    if path.exists() and not path.is_dir():
        raise ExamplesError(f"{part}: not a directory (a directory of examples is created when first needed)")
    return DirectoryBasedExampleDatabase(path)


def redis_database(url: str) -> ExampleDatabase:
    """A RedisExampleDatabase on the server of ``url``, checked to answer now (so that an
    unreachable server is one error at the start, not one per test)."""
    shown = redacted(url)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise ExamplesError(
            f"{shown}: a Redis example database needs the redis package "
            f"(pip install 'compat[redis]', or pip install redis)"
        ) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=30)
    except (ValueError, TypeError) as error:
        raise ExamplesError(f"{shown}: not a Redis URL ({error})") from None
    try:
        client.ping()
    except redis.RedisError as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise ExamplesError(f"cannot reach Redis at {shown}: {reason}") from None
    return RedisExampleDatabase(client)


def redacted(url: str) -> str:
    """The URL without its password (for messages)."""
    scheme, separator, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    if not separator or "@" not in netloc:
        return url
    userinfo, _, host = netloc.rpartition("@")
    if ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}{slash}{path}"


def default_spec() -> str | None:
    """``--compat-examples``'s default: $COMPAT_EXAMPLES (unset or empty: None)."""
    return os.environ.get(ENVIRONMENT) or None
