"""Draw the lease protocol's phases (lease.Phase, lease.TRANSITIONS) into docs/contract.md §7.

`python -m harness.lease_diagram` rewrites the diagram between its two markers in the contract;
`--check` only says (exit status 1) whether the contract's diagram is what the table draws.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sitemap_auditor.sharing.lease import TRANSITIONS, Phase

__all__ = ["BEGIN", "CONTRACT", "END", "draw", "drawn_into"]

CONTRACT = Path(__file__).resolve().parent.parent / "docs" / "contract.md"
BEGIN = "<!-- lease-phases: drawn by python -m harness.lease_diagram; do not edit -->"
END = "<!-- lease-phases: end -->"
ENDS = (Phase.ALONE, Phase.DONE)


def draw() -> str:
    """The diagram, as a Mermaid state diagram in a fenced block."""
    lines = ["```mermaid", "stateDiagram-v2"]
    lines.append(f"    [*] --> {Phase.LOOKING.name}: start (a read)")
    for (a, b), why in TRANSITIONS.items():
        lines.append(f"    {a.name} --> {b.name}: {why}")
    lines.extend(f"    {end.name} --> [*]" for end in ENDS)
    lines.append("```")
    return "\n".join(lines)


def drawn_into(text: str) -> str:
    """The contract's text with its diagram replaced by the one the table draws."""
    head, found, rest = text.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not found or not ended:
        raise ValueError("the contract has no lease-phases markers")
    return f"{head}{BEGIN}\n{draw()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    text = CONTRACT.read_text(encoding="utf-8")
    drawn = drawn_into(text)
    if "--check" in argv:
        return 0 if drawn == text else 1
    CONTRACT.write_text(drawn, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
