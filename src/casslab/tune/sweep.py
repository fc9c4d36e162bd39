"""The one-at-a-time sweep the search is compared with, given the same number of trials
(pure: the points to run, and the combination of the best values).

As seed 000 tuned: the default configuration first, then each parameter alone over evenly
spread values (log-spread when searched so; every choice; every strategy at its own
defaults) with every other parameter at the default, then one last trial with each
parameter at its own best value. With ``n`` trials: 1 default + 1 combination + ``n - 2``
dealt out over the parameters in file order, one at a time (a choice takes no more than
the values it has besides its default; ranges take the rest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from casslab.tune.space import Params, grid
from casslab.tune.spec import ChoiceParam, CompactionParam, ParamValue, RangeParam, Space


def _values(param: RangeParam | ChoiceParam | CompactionParam, count: int) -> list[ParamValue]:
    """Up to ``count`` values of a parameter other than its default."""
    if isinstance(param, CompactionParam):
        values: list[ParamValue] = [s.alias for s in param.strategies]
    elif isinstance(param, ChoiceParam):
        values = list(param.encoded)
    else:
        # spread count + 1 so that dropping the default (often an end) still leaves count
        values = grid(param, count + 1 if param.default is not None else count)
    return [v for v in values if v != param.default][:count]


def _capacity(param: RangeParam | ChoiceParam | CompactionParam) -> int | None:
    """How many values other than its default a parameter has (None: a range, any)."""
    if isinstance(param, RangeParam):
        return None
    return len(_values(param, 10**6))


def _shares(space: Space, spare: int) -> list[int]:
    """``spare`` trials dealt out one at a time over the parameters in file order, each
    taking no more values than it has (a choice of two has one besides its default)."""
    shares = [0] * len(space.params)
    capacities = [_capacity(p) for p in space.params]
    while spare > 0:
        dealt = False
        for index, capacity in enumerate(capacities):
            if spare > 0 and (capacity is None or shares[index] < capacity):
                shares[index] += 1
                spare -= 1
                dealt = True
        if not dealt:
            break
    return shares


def sweep_points(space: Space, default: Mapping[str, ParamValue], trials: int) -> list[Params]:
    """The one-at-a-time points (the default first), without the final combination."""
    points: list[Params] = [dict(default)]
    shares = _shares(space, max(0, trials - 2))
    for param, share in zip(space.params, shares, strict=True):
        for value in _values(param, share):
            point = {k: v for k, v in default.items() if not k.startswith(param.name + ".")}
            point[param.name] = value
            if isinstance(param, CompactionParam):  # the strategy at its own defaults
                point = {k: v for k, v in point.items() if not k.startswith(param.name + ".")}
            points.append(point)
    return points[: max(1, trials - 1)]


def combination(
    space: Space,
    default: Mapping[str, ParamValue],
    points: Sequence[Params],
    scores: Sequence[float | None],
    maximize: bool,
) -> Params:
    """Each parameter at the value that scored best when it alone varied (None: the point
    was infeasible); the default where nothing beat it."""
    best: dict[str, tuple[float, Params]] = {}
    base = scores[0] if scores else None
    for point, value in zip(points[1:], scores[1:], strict=False):
        if value is None:
            continue
        varied = [p.name for p in space.params if point.get(p.name) != default.get(p.name)]
        if len(varied) != 1:
            continue
        name = varied[0]
        incumbent = best.get(name, (base, None))[0] if base is not None else None
        better = incumbent is None or (value > incumbent if maximize else value < incumbent)
        if better:
            best[name] = (value, point)
    out = dict(default)
    for name, (_value, point) in best.items():
        out = {k: v for k, v in out.items() if k != name and not k.startswith(name + ".")}
        out |= {k: v for k, v in point.items() if k == name or k.startswith(name + ".")}
    return out
