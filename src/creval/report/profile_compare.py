"""``creval compare PROFILE_DIR...``: a leaderboard of models across the profile's measures.

Per measure, models are ranked by value; each rank comes with the ranks the intervals allow
(``2 (1-3)``) and models whose intervals overlap are marked tied: the data do not separate
them. A measure is compared only across profiles of the same battery version.
"""

from __future__ import annotations

from typing import Any

from creval.errors import CrevalError
from creval.reader import Profiles
from creval.report.markdown import fmt, markdown_table


def profile_leaderboard(profiles: Profiles) -> list[dict[str, Any]]:
    """One row per (measure, model), best first within each measure."""
    versions = sorted({str(p.document.get("battery_version")) for p in profiles})
    if len(versions) > 1:
        raise CrevalError(f"These profiles ran different batteries ({', '.join(versions)}); "
                          "profile the models again with the same creval to compare them.")
    frame = profiles.df()
    rows = [] if frame.empty else frame.to_dict("records")
    scored = [r for r in rows if r["value"] is not None and r["value"] == r["value"]]
    scored.sort(key=lambda r: (r["family"], r["benchmark"], r["key"], r["rank"]))
    return scored


def _rank(row: dict[str, Any]) -> str:
    """``2 (1-3)``, or ``1`` when the intervals leave no doubt.

    >>> _rank({"rank": 2, "rank_low": 1, "rank_high": 3, "tied": True})
    '2 (1-3, tied)'
    >>> _rank({"rank": 1, "rank_low": 1, "rank_high": 1, "tied": False})
    '1'
    """
    rank, low, high = int(row["rank"]), int(row["rank_low"]), int(row["rank_high"])
    if low == high == rank and not row["tied"]:
        return str(rank)
    return f"{rank} ({low}-{high}{', tied' if row['tied'] else ''})"


def _interval(row: dict[str, Any]) -> str:
    """The row's interval, or why it has none (then it may take any rank).

    >>> _interval({"low": None, "high": None, "interval": "n=1: too few items for an interval (needs 10)"})
    'none (n=1: too few items for an interval (needs 10)): any rank'
    """
    if row["low"] is None or row["low"] != row["low"]:
        why = row.get("interval")
        return f"none ({why}): any rank" if isinstance(why, str) else "none: any rank"
    return f"[{fmt(row['low'])}, {fmt(row['high'])}]"


def profile_boards(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """One table per measure, under its title, as ``render_profile_leaderboard`` shows them
    and ``creval compare --html`` writes them."""
    boards: dict[str, list[dict[str, Any]]] = {}
    for r in rows:  # a group: its label
        title = f"{r['label']} ({r['benchmark']}.{r['key']}, {r['kind']})"
        boards.setdefault(title, []).append(
            {"rank": _rank(r), "model": r["model"], "value": r["value"],
             "interval": _interval(r), "n": None if r["n"] is None or r["n"] != r["n"] else int(r["n"]),  # not 12.0000
             "weak": r["weak"] or "-"})
    return boards


def render_profile_leaderboard(rows: list[dict[str, Any]]) -> str:
    """The leaderboard as Markdown, one table per measure."""
    out = ["# creval profiles compared", "",
           "Rank (the ranks the 95% intervals allow); tied: the intervals overlap.", ""]
    for title, block in profile_boards(rows).items():
        out += ["", f"## {title}", "", markdown_table(block)]
    return "\n".join(out) + "\n"
