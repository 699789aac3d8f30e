"""The static HTML dashboard: everything in the store, as pages a browser opens from disk.

``render(store, out)`` writes::

    index.html        what this is, how to read the colours, the divergence matrix
                      (backend and device x family) and the runs it shows
    family-*.html     one family's matrix by operation (the drill-down), of each view: against
                      NumPy, against the reference device (-devices), against eager (-modes)
    coverage.html     per row, the standard's functions and the operator forms: checked, unsupported
                      (with the reason) or not checked; the index shows each row's count
    special-cases.html the standard's special-case clauses per function x rows (the latest run of
                      test_every_special_case_of_the_standard): agrees, follows the standard where
                      NumPy does not, known, new; NumPy's departures from the standard
    wrappers.html     per wrapper's row (array_api_compat.torch) beside its framework's row: the
                      divergences from NumPy it removes and adds (compat.results.wrapper_table),
                      and the framework's registry entries it removes (not fixed: not on versions.html)
    versions.html     backends run at several versions (a matrix row each): per family, the
                      divergences that appeared and those gone from one version to the next
    promotion.html    per backend, dtype x dtype -> result dtype, differences from NumPy marked
    surveys.html      survey tables (observation records; accuracy's is a page of its own) and
                      out-of-bounds indexing behaviour
    accuracy.html     the accuracy survey as math libraries publish theirs: per function, dtype x
                      backend -> worst error in ULPs (input as the title), against each function's
                      published accuracy
    devices.html      each device against its reference device; kernel coverage of plug-ins
    modes.html        each execution mode (jax.jit, tf.function, torch.compile, ...) against the same
                      backend run eagerly; the divergences from eager of each mode row
    history.html      divergences per run and per backend version; new and fixed since the previous run
    l/*.html          the divergence list of one matrix cell that has some, by operation (one line per
                      operation and cause); the drill-down's cells lead to their operation's place on it
    d/*.html          one divergence of no registry entry: minimal example, expected vs actual,
                      reproducer (a known one is shown on its cause's page)
    c/*.html          one cause: its registry entry (or the new cause), its rows, a line per operation of
                      its divergences that differ only in their inputs, each framework's reproducer
    causes.html       per matrix row, its divergences by cause (a bar chart, largest first)
    style.css         the one stylesheet (no network is needed to view any page)
    copy.js           the copy button of reproducers (the only script)

The package: ``data`` reads the store (the dashboard's only SQL) and aggregates as
``compat report`` does (``compat.results.aggregate``); ``context`` chooses which
divergences get a page; ``pages`` has a module per page or group of pages; ``html``
the escaping and the page frame; ``style.css`` is copied beside the pages.

A cell also counts the operations its backend declares unsupported. What a cell
shows: for each backend (id with config) at each version on each device, and
each family, the latest run that covered that family there. Divergences are
aggregated as in ``compat report`` (one per backend, device, reference, family, op, kind
and signature; counts add up). Lists and pages are capped so that the output stays
small whatever the store holds; a page says when it is capped. Every string that comes
from a record is escaped.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from compat.dashboard.context import Context
from compat.dashboard.data import VIEWS, Data
from compat.dashboard.html import COPY_SCRIPT, Site, Written
from compat.dashboard.pages import (
    accuracy,
    causes,
    coverage,
    devices,
    divergence,
    history,
    interchange,
    matrix,
    modes,
    promotion,
    special_cases,
    surveys,
    versions,
    wrappers,
)
from compat.results import store as store_module

STYLE = Path(__file__).with_name("style.css")


def draw(dash: Context) -> None:
    data = dash.data
    matrix.index(dash)
    for view in VIEWS:
        rows = data.rows_of(view)
        for family in data.families_of(rows):
            matrix.family_page(dash, family, rows, view)
        for row in rows:
            for family in data.families_of(rows):
                cell = data.cells.get((row.key, family))
                if cell is not None and cell.divergences:  # the matrix's cell says all of one without
                    matrix.list_page(dash, row, family, cell)
    coverage.coverage(dash)
    divergence.divergence_pages(dash)
    causes.causes(dash)
    promotion.promotion(dash)
    special_cases.special_cases(dash)
    interchange.interchange(dash)
    wrappers.wrappers(dash)
    surveys.surveys(dash)
    accuracy.accuracy(dash)
    devices.devices(dash)
    modes.modes(dash)
    history.history(dash)
    versions.versions(dash)


def render(store: Path | str, out: Path | str) -> Written:
    """Write the dashboard of the store into ``out`` (created; its old pages replaced)."""
    out = Path(out)
    connection = store_module.connect(store, create=False)
    try:
        data = Data(connection)
        if out.exists() and not out.is_dir():
            raise store_module.StoreError(f"cannot write the dashboard to {out}: not a directory")
        try:
            out.mkdir(parents=True, exist_ok=True)
            # pages of an earlier dashboard in the same place would linger unlinked
            for stale in [*out.glob("family-*.html"), *(p for d in "ldc" for p in out.glob(f"{d}/*.html"))]:
                stale.unlink()
            site = Site(out)
            draw(Context(data, site))
            for name, content in (("style.css", STYLE.read_bytes()), ("copy.js", COPY_SCRIPT.encode())):
                (out / name).write_bytes(content)
                site.written.bytes += len(content)
        except OSError as error:
            raise store_module.StoreError(
                f"cannot write the dashboard to {out}: {error.strerror or error}"
            ) from None
        return site.written
    except sqlite3.Error as error:
        raise store_module.StoreError(f"cannot read store {store}: {error}") from None
    finally:
        connection.close()
