"""Errors that the command line reports as a clear message with exit code 2."""

from __future__ import annotations


class CrevalError(Exception):
    """Bad input or set-up the user can fix. The message says what to do."""

    exit_code = 2


class MissingDependency(CrevalError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the '{package}' package, which is not installed. "
            f"Install it with: pip install 'creval[{extra}]'"
        )


def require(module: str, *, package: str, extra: str, purpose: str) -> None:
    """Raise :class:`MissingDependency` when ``module`` cannot be imported."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependency(package, extra, purpose)
