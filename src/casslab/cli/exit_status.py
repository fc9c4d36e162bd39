"""casslab's exit statuses, as the README states them: 0 done, 1 an error, 2 a usage error,
3 a command that ran to its end with an outcome that is a failure (a trial of ``casslab run``
failed; ``capacity find`` found no rate that meets the SLO), so that scripts tell a result
from a mistyped command."""

from __future__ import annotations

OUTCOME_FAILED = 3
