"""A held-out module for the inspector's tests, written on the fly: functions
sharing long names and types, so its graph view has a dictionary; ``insert_at``
puts one more function in the middle (what compare must see as one row)."""

from __future__ import annotations

from pathlib import Path

import codec
from codec import CompactProjection


def held_out_source(n: int = 70, insert_at: int | None = None) -> str:
    lines = ['"""A held-out module: accounts and their transfers."""', "", "from dataclasses import dataclass", "",
             "@dataclass", "class ReconciliationAccount:", "    identifier: str", "    balance_in_cents: int", ""]
    for i in range(n):
        if insert_at is not None and i == insert_at:
            lines += ["def inserted_audit_step(account: ReconciliationAccount) -> int:",
                      "    return account.balance_in_cents", ""]
        lines += [(f"def reconcile_transfer_{i}(source_account: ReconciliationAccount, "
                   "target_account: ReconciliationAccount, amount_in_cents: int) -> ReconciliationAccount:"),
                  f'    """Move money, step {i}."""',
                  "    source_account.balance_in_cents -= amount_in_cents",
                  "    target_account.balance_in_cents += amount_in_cents",
                  (f"    return reconcile_transfer_{max(i - 1, 0)}(source_account, target_account, 0) if {i} "
                   "else target_account"), ""]
    return "\n".join(lines)


def held_out_projection(folder: Path, n: int = 70, insert_at: int | None = None) -> CompactProjection:
    from servers.route import make_projection

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "accounts.py").write_text(held_out_source(n, insert_at))
    return make_projection("graph", "accounts.py", str(folder))


def held_out_wire(folder: Path, n: int = 70, insert_at: int | None = None) -> bytes:
    return codec.encode_model_text(held_out_projection(folder, n, insert_at))
