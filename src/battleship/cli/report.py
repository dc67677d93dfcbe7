"""The ``report`` command: the statistics of games kept with ``--out``, in the unit they were measured in."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from battleship.cli.common import JsonOpt, emit_json, friendly, print_table
from battleship.cli.helptext import examples
from battleship.words import counted

if TYPE_CHECKING:
    from battleship.lab.shots_file import Kept


@examples("battleship report games.txt")
@friendly
def report_cmd(
    files: Annotated[
        list[Path], typer.Argument(help="Files written by simulate, compare or match with --out.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Summarise games kept with --out: mean with its 95% interval, spread and range per column, in the
    file's unit (shots, or turns under salvo rules), and paired differences from the first column.
    """
    from battleship.lab.shots_file import read_kept

    reports = [_report(path, read_kept(path)) for path in files]
    if as_json:
        emit_json(reports if len(reports) > 1 else reports[0])
        return
    for data in reports:
        rows = []
        for column in data["columns"]:
            low, high = column["ci95"]
            paired = column.get("minus_first")
            rows.append(
                [
                    column["name"],
                    f"{column['mean']:.3f}",
                    f"{low:.3f} .. {high:.3f}",
                    f"{column['sd']:.2f}",
                    f"{column['median']:g}",
                    f"{column['min']}..{column['max']}",
                    ""
                    if paired is None
                    else f"{paired['mean']:+.3f} ({paired['ci95'][0]:+.3f} .. {paired['ci95'][1]:+.3f})",
                ]
            )
        note = " (its last line was cut short, and is left out)" if data["cut"] else ""
        print_table(
            f"{data['file']}: {counted(data['games'], 'game')}, in {data['unit']}{note}",
            ["column", f"mean {data['unit']}", "95% interval", "sd", "median", "range", "minus the first"],
            rows,
            optional=("sd", "range"),
        )


def _report(path: Path, kept: Kept) -> dict[str, Any]:
    """One file's summary as plain data (what ``--json`` prints)."""
    from battleship.lab.summary import paired_difference, summarise

    columns = []
    first = kept.games[:, 0]
    for i, name in enumerate(kept.columns):
        values = kept.games[:, i]
        summary = summarise(values, int(values.min()), 0.0)
        column: dict[str, Any] = {
            "name": name,
            "mean": summary.mean,
            "ci95": list(summary.ci95),
            "sd": summary.sd,
            "median": summary.median,
            "min": summary.min,
            "max": summary.max,
        }
        if i > 0:
            mean, (low, high) = paired_difference(values, first)
            column["minus_first"] = {"mean": mean, "ci95": [low, high]}
        columns.append(column)
    return {
        "file": str(path),
        "unit": kept.unit,
        "games": len(kept.games),
        "cut": kept.cut,
        "columns": columns,
    }
