"""What every page of one dashboard shares: the data, the site being written, the divergences by
cause, and which divergences get a page of their own (the dashboard stays small whatever the store
holds): a divergence of a known cause is shown on its cause's page, others on their own, within
the caps."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from compat.dashboard.causes import Causes
from compat.dashboard.data import Data, StoredDivergence
from compat.dashboard.html import Site
from compat.results import registry as registry_module

LIST_CAP = 100  # divergences listed on one cell's list page
PAGE_CAP = 1000  # divergence pages in all (new divergences first) ...
PAGE_BUDGET = 2_500_000  # ... and at most this many bytes of them


class Context:
    def __init__(self, data: Data, site: Site):
        self.data = data
        self.site = site
        self.registries: dict[str, registry_module.Registry] = {}
        self.no_registry = registry_module.Registry()  # where a run's registry cannot be read
        self.entries: dict[int, dict[str, registry_module.Entry]] = {}  # id() of a registry -> its entries
        self.pages: set[str] = set()
        self.causes = Causes(data)
        self.choose_pages()

    def choose_pages(self) -> None:
        """Divergence pages for listed divergences of no known cause within PAGE_CAP and
        PAGE_BUDGET: new ones first, then the top of every list before the rest of any, so that
        every cell gets some."""
        position: dict[str, int] = {}
        unique: dict[str, StoredDivergence] = {}
        for cell in self.data.cells.values():
            unknown = [d for d in cell.divergences if not d.known]
            by_op = defaultdict(list)
            for d in unknown:
                by_op[d.op].append(d)
            for listed in [unknown, *by_op.values()]:
                for i, d in enumerate(listed[:LIST_CAP]):
                    unique[d.page] = d
                    position[d.page] = min(i, position.get(d.page, i))
        ranked = sorted(
            unique.values(),
            key=lambda d: (d.status != "new", position[d.page], d.backend_id, d.family, d.op, d.inputs),
        )
        self.total_divergences = sum(len(c.divergences) for c in self.data.cells.values())
        self.paged = []  # (divergence, record)
        self.page_cap_hit = len(ranked) > PAGE_CAP
        size = 0
        bodies = self.data.bodies([d.record_id for d in ranked[:PAGE_CAP]])
        for d in ranked[:PAGE_CAP]:
            record = bodies[d.record_id]
            size += (
                2500
                + len(record.get("reproducer", ""))
                + len(json.dumps(record.get("expected")))
                + len(json.dumps(record.get("actual")))
                + len(record.get("detail", ""))
            )
            if size > PAGE_BUDGET:
                self.page_cap_hit = True
                break
            self.paged.append((d, record))
        self.pages = {d.page for d, _ in self.paged}

    def href(self, d: StoredDivergence, prefix: str = "") -> str | None:
        """Where a divergence is shown (``prefix``: the way up from the linking page): its own page,
        or else its place on its cause's page (every divergence of the matrix has one); None for a
        divergence of no matrix cell (an older run's)."""
        if d.page in self.pages:
            return prefix + d.page
        link = self.causes.link(d)
        return None if link is None else prefix + link

    def href_of(self, key, version: str, prefix: str = "") -> str | None:
        """Where the matrix shows a divergence of this key at this backend version, if it does."""
        found = self.causes.shown.get((key, version))
        return None if found is None else self.href(found, prefix)

    def entry(self, run_id: str, entry_id: str) -> registry_module.Entry | None:
        """The registry entry ``entry_id`` of the registry the run matched against."""
        registry = self.registry_for(run_id)
        if id(registry) not in self.entries:
            self.entries[id(registry)] = registry.by_id()
        return self.entries[id(registry)].get(entry_id)

    def registry_for(self, run_id: str) -> registry_module.Registry:
        """The registries the run named (a file, or files and folders), where they all still exist;
        else compat's own."""
        meta = (self.data.runs.get(run_id) or {}).get("meta") or {}
        named = meta.get("registry")
        paths = [named] if isinstance(named, str) else list(named or [])
        if not paths or not all(Path(p).exists() for p in paths):
            paths = [str(p) for p in registry_module.chosen([])]
        key = "\n".join(paths)
        if key not in self.registries:
            try:
                self.registries[key] = registry_module.load(*paths)
            except registry_module.RegistryError:
                self.registries[key] = self.no_registry
        return self.registries[key]
