"""The studies gallery: run every scaled study in sequence, then write docs/studies/.

    python scripts/studies.py --run      # run each study (about 2 h 30 min on 2 cores), then write
    python scripts/studies.py --run --study clock-lww-scaled   # run only that one (repeatable)
    python scripts/studies.py            # only write docs/studies/ from the runs already made

Each study runs as `casslab run experiments/<study>.yaml --results results/studies`
(casslab.report.gallery_files.STUDIES: the scaled study of each seed, with its options);
docs/studies/<study>/ then gets the run's summary, figures and a page with its Claims table,
and docs/studies/README.md one table across the studies. A study with no run under the
results root keeps the page an earlier gallery wrote (its entry.json), so the studies can be
run a few at a time, on different days, and the index still shows all of them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from casslab.experiment.file.experiment_loader import load
from casslab.report.gallery_files import STUDIES, write_gallery

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path("results/studies")
DOCS = Path("docs/studies")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run every study first")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--docs", type=Path, default=DOCS)
    names = [study.name for study in STUDIES]
    parser.add_argument(
        "--study",
        action="append",
        choices=names,
        metavar="NAME",
        help=f"with --run: run only this study (repeatable); one of {', '.join(names)}",
    )
    args = parser.parse_args()
    chosen = set(args.study or names)
    casslab = Path(sys.executable).with_name("casslab")
    os.chdir(ROOT)  # the commands the pages show are relative to the repository
    if args.run:
        for study in (s for s in STUDIES if s.name in chosen):
            command = [str(casslab), "run", *study.run_options, f"experiments/{study.name}.yaml"]
            print("+", study.command(args.results.as_posix()), flush=True)
            subprocess.run([*command, "--results", str(args.results)], check=True)
    # the shipped files' claims, also for runs made before a file had them or changed them
    studies = [
        study.model_copy(update={"claims": tuple(load(f"experiments/{study.name}.yaml").claims)})
        for study in STUDIES
    ]
    entries, missing = write_gallery(args.results, args.docs, studies)
    for entry in entries:
        print(f"{args.docs}/{entry.study}/README.md: {len(entry.results)} claims, {entry.trials}")
        print(f"  from run {entry.run_id}")
    for name in missing:
        print(f"no run of {name} under {args.results}: run `make studies` first", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
