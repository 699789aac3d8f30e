"""Known divergences, replayed: the minimal examples of every registry entry, first in
every run, so that a run reproduces every known divergence that still holds instead
of hoping to draw it again.

Each example is checked as the spec of its family checked it when it was found (the
same checker, reference and judgement), so a replay leaves ordinary records; an
entry whose examples no longer diverge on a backend is reported as fixed in that
backend's version. A replay that now diverges differently is a new divergence.
"""

import pytest


def test_known_divergences_still_diverge(xp, known_family):
    """Every registry example of this family for this backend shows its entry's divergence."""
    if not xp.replay_known(known_family):
        pytest.skip(
            f"no registry example of {known_family} for {xp.backend.id}"
            + (f" on {xp.device}" if xp.device else "")
        )
