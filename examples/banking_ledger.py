"""A small double-entry bookkeeping ledger.

The module models a chart of accounts, journal entries made of postings,
a ``Ledger`` that applies entries and reports balances, and a reconciler
that matches the ledger's bank account against an imported bank statement.

Every journal entry must balance: the sum of its debits equals the sum of
its credits.  Amounts are ``decimal.Decimal`` values rounded to cents.

Run ``python banking_ledger.py`` for a short demonstration.
"""

from __future__ import annotations

import csv
import io
from abc import ABC, abstractmethod
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from enum import Enum
from functools import total_ordering
from typing import Iterable, Iterator

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


# --- Errors ----------------------------------------------------------------

class LedgerError(Exception):
    """Base class for every error raised by this module."""


class UnbalancedEntryError(LedgerError):
    """Raised when a journal entry's debits and credits differ."""

    def __init__(self, description: str, debits: Decimal, credits: Decimal) -> None:
        super().__init__(
            f"entry {description!r} does not balance: "
            f"debits {debits} != credits {credits}"
        )
        self.debits = debits
        self.credits = credits


class UnknownAccountError(LedgerError, KeyError):
    """Raised when a posting refers to an account that was never opened."""


class DuplicateAccountError(LedgerError):
    """Raised when an account code is opened twice."""


class ClosedPeriodError(LedgerError):
    """Raised when an entry is dated on or before the ledger's lock date."""


class StatementParseError(LedgerError):
    """Raised when a bank statement cannot be parsed."""


# --- Money helpers ---------------------------------------------------------

def to_money(value: Decimal | int | str) -> Decimal:
    """Convert ``value`` to a Decimal rounded to cents (banker's rounding)."""
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation as exc:
        raise LedgerError(f"not a monetary amount: {value!r}") from exc
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)


def format_money(amount: Decimal, currency: str = "USD") -> str:
    """Format ``amount`` with thousands separators, negatives in parentheses."""
    text = f"{abs(amount):,.2f}"
    if amount < 0:
        text = f"({text})"
    return f"{text} {currency}"


def sum_money(amounts: Iterable[Decimal]) -> Decimal:
    """Sum monetary amounts, starting from an exact zero."""
    return to_money(sum(amounts, ZERO))


# --- Chart of accounts -----------------------------------------------------

class Side(Enum):
    """The side of a posting."""

    DEBIT = "debit"
    CREDIT = "credit"


class AccountKind(Enum):
    """The five fundamental account kinds of double-entry bookkeeping."""

    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    INCOME = "income"
    EXPENSE = "expense"

    @property
    def normal_side(self) -> Side:
        """The side on which this kind of account normally carries a balance."""
        if self in (AccountKind.ASSET, AccountKind.EXPENSE):
            return Side.DEBIT
        return Side.CREDIT

    @property
    def is_temporary(self) -> bool:
        """Income and expense accounts are closed into equity each period."""
        return self in (AccountKind.INCOME, AccountKind.EXPENSE)


@dataclass
class Account:
    """A ledger account."""

    code: str
    name: str
    kind: AccountKind
    currency: str = "USD"

    def __post_init__(self) -> None:
        if not (self.code.isdigit() and len(self.code) == 4):
            raise LedgerError(f"account codes are four digits, got {self.code!r}")

    @property
    def normal_side(self) -> Side:
        return self.kind.normal_side

    def signed(self, side: Side, amount: Decimal) -> Decimal:
        """Return ``amount`` signed so that the normal side is positive."""
        return amount if side is self.normal_side else -amount

    def label(self) -> str:
        return f"{self.code} {self.name}"


@dataclass
class BankAccount(Account):
    """An asset account that mirrors an account held at a bank."""

    bank_name: str = ""
    account_number: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kind is not AccountKind.ASSET:
            raise LedgerError("a bank account must be an asset account")

    def label(self) -> str:
        return f"{super().label()} [{self.bank_name} ...{self.account_number[-4:]}]"


# --- Journal entries -------------------------------------------------------

@dataclass(frozen=True)
class Posting:
    """One leg of a journal entry: an amount debited or credited to an account."""

    account: str
    side: Side
    amount: Decimal
    memo: str = ""

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise LedgerError(f"posting amounts must be positive, got {self.amount}")

    @property
    def debit(self) -> Decimal:
        return self.amount if self.side is Side.DEBIT else ZERO

    @property
    def credit(self) -> Decimal:
        return self.amount if self.side is Side.CREDIT else ZERO


@dataclass
class JournalEntry:
    """A dated set of postings whose debits and credits must balance."""

    when: date
    description: str
    postings: list[Posting] = field(default_factory=list)
    reference: str = ""
    entry_id: int | None = None

    def debit(self, account: str, amount: Decimal | str,
              memo: str = "") -> JournalEntry:
        """Add a debit leg and return ``self`` so calls can be chained."""
        self.postings.append(
            Posting(account, Side.DEBIT, to_money(amount), memo))
        return self

    def credit(self, account: str, amount: Decimal | str,
               memo: str = "") -> JournalEntry:
        """Add a credit leg and return ``self`` so calls can be chained."""
        self.postings.append(
            Posting(account, Side.CREDIT, to_money(amount), memo))
        return self

    @classmethod
    def transfer(cls, when: date, description: str, debit_account: str,
                 credit_account: str, amount: Decimal | str,
                 reference: str = "") -> JournalEntry:
        """Build the common two-legged entry."""
        entry = cls(when, description, reference=reference)
        return entry.debit(debit_account, amount).credit(credit_account, amount)

    @property
    def total_debits(self) -> Decimal:
        return sum_money(p.debit for p in self.postings)

    @property
    def total_credits(self) -> Decimal:
        return sum_money(p.credit for p in self.postings)

    @property
    def is_balanced(self) -> bool:
        return self.total_debits == self.total_credits

    def validate(self) -> None:
        """Raise if the entry is empty or does not balance."""
        if len(self.postings) < 2:
            raise LedgerError(f"entry {self.description!r} needs at least two postings")
        if not self.is_balanced:
            raise UnbalancedEntryError(self.description, self.total_debits,
                                       self.total_credits)

    def accounts(self) -> set[str]:
        return {posting.account for posting in self.postings}


# --- Ledger and reports ----------------------------------------------------

@dataclass(frozen=True)
class TrialBalanceRow:
    account: Account
    debit: Decimal
    credit: Decimal


@dataclass
class TrialBalance:
    """Debit and credit balances of every account at a given date."""

    as_of: date | None
    rows: list[TrialBalanceRow]

    @property
    def total_debits(self) -> Decimal:
        return sum_money(row.debit for row in self.rows)

    @property
    def total_credits(self) -> Decimal:
        return sum_money(row.credit for row in self.rows)

    @property
    def is_balanced(self) -> bool:
        return self.total_debits == self.total_credits

    def render(self) -> str:
        heading = f"Trial balance as of {self.as_of or 'today'}"
        lines = [heading, "-" * 70]
        for row in self.rows:
            debit = f"{row.debit:,.2f}" if row.debit else ""
            credit = f"{row.credit:,.2f}" if row.credit else ""
            lines.append(f"{row.account.label():<44}{debit:>13}{credit:>13}".rstrip())
        lines.append("-" * 70)
        lines.append(f"{'Totals':<44}{self.total_debits:>13,.2f}{self.total_credits:>13,.2f}")
        return "\n".join(lines)


class Ledger:
    """A general ledger: a chart of accounts plus the entries applied to it."""

    def __init__(self, currency: str = "USD") -> None:
        self.currency = currency
        self._accounts: dict[str, Account] = {}
        self._postings: dict[str, list[tuple[JournalEntry, Posting]]] = (
            defaultdict(list))
        self._lock_date: date | None = None
        self._next_id = 1

    # -- chart of accounts -------------------------------------------------

    def add_account(self, account: Account) -> Account:
        if account.code in self._accounts:
            raise DuplicateAccountError(f"account {account.code} already exists")
        if account.currency != self.currency:
            raise LedgerError(f"account {account.code} is not in {self.currency}")
        self._accounts[account.code] = account
        return account

    def open_account(self, code: str, name: str, kind: AccountKind) -> Account:
        return self.add_account(Account(code, name, kind, self.currency))

    def account(self, code: str) -> Account:
        try:
            return self._accounts[code]
        except KeyError:
            raise UnknownAccountError(f"unknown account {code}") from None

    def accounts(self, kind: AccountKind | None = None) -> list[Account]:
        chosen = (a for a in self._accounts.values() if kind is None or a.kind is kind)
        return sorted(chosen, key=lambda a: a.code)

    # -- posting -----------------------------------------------------------

    def apply(self, entry: JournalEntry) -> JournalEntry:
        """Validate ``entry`` and apply it to the ledger, assigning an id."""
        entry.validate()
        for code in entry.accounts():
            self.account(code)
        if self._lock_date is not None and entry.when <= self._lock_date:
            raise ClosedPeriodError(
                f"period closed through {self._lock_date}; cannot post on {entry.when}")
        entry.entry_id = self._next_id
        self._next_id += 1
        for posting in entry.postings:
            self._postings[posting.account].append((entry, posting))
        return entry

    def record(self, when: date, description: str, debit: str, credit: str,
               amount: Decimal | str, reference: str = "") -> JournalEntry:
        """Shortcut: build a two-legged entry and apply it."""
        entry = JournalEntry.transfer(when, description, debit, credit, amount, reference)
        return self.apply(entry)

    def postings_for(self, code: str,
                     as_of: date | None = None) -> Iterator[tuple[JournalEntry, Posting]]:
        for entry, posting in self._postings.get(code, []):
            if as_of is None or entry.when <= as_of:
                yield entry, posting

    # -- balances ----------------------------------------------------------

    def balance(self, code: str, as_of: date | None = None) -> Decimal:
        """Balance of an account, positive when on its normal side."""
        account = self.account(code)
        return sum_money(account.signed(p.side, p.amount)
                         for _, p in self.postings_for(account.code, as_of))

    def raw_balance(self, code: str, as_of: date | None = None) -> Decimal:
        """Debits minus credits, regardless of the account's normal side."""
        return sum_money(p.debit - p.credit for _, p in self.postings_for(code, as_of))

    def trial_balance(self, as_of: date | None = None) -> TrialBalance:
        rows = []
        for account in self.accounts():
            raw = self.raw_balance(account.code, as_of)
            if raw == 0:
                continue
            rows.append(TrialBalanceRow(account, max(raw, ZERO), max(-raw, ZERO)))
        return TrialBalance(as_of, rows)

    def total_for_kind(self, kind: AccountKind, as_of: date | None = None) -> Decimal:
        return sum_money(self.balance(a.code, as_of) for a in self.accounts(kind))

    def net_income(self, as_of: date | None = None) -> Decimal:
        return (self.total_for_kind(AccountKind.INCOME, as_of)
                - self.total_for_kind(AccountKind.EXPENSE, as_of))

    # -- period close ------------------------------------------------------

    def close_period(self, through: date, retained_earnings: str) -> JournalEntry | None:
        """Zero income and expense accounts into equity, then lock the period."""
        target = self.account(retained_earnings)
        if target.kind is not AccountKind.EQUITY:
            raise LedgerError("closing entries must go to an equity account")
        entry = JournalEntry(through, f"Close period through {through}")
        for account in self.accounts():
            if not account.kind.is_temporary:
                continue
            raw = self.raw_balance(account.code, through)
            if raw > 0:
                entry.credit(account.code, raw, "close")
            elif raw < 0:
                entry.debit(account.code, -raw, "close")
        net = entry.total_credits - entry.total_debits
        if net > 0:
            entry.debit(target.code, net, "net loss")
        elif net < 0:
            entry.credit(target.code, -net, "net income")
        applied = self.apply(entry) if entry.postings else None
        self._lock_date = through
        return applied


# --- Bank statements -------------------------------------------------------

@total_ordering
@dataclass(frozen=True, eq=True)
class StatementLine:
    """One transaction on a bank statement; deposits are positive."""

    when: date
    description: str
    amount: Decimal
    reference: str = ""

    def __lt__(self, other: StatementLine) -> bool:
        return (self.when, self.amount, self.reference) < (
            other.when, other.amount, other.reference)


@dataclass
class BankStatement:
    account_number: str
    opening_balance: Decimal
    closing_balance: Decimal
    lines: list[StatementLine]

    def validate(self) -> None:
        expected = self.opening_balance + sum_money(line.amount for line in self.lines)
        if expected != self.closing_balance:
            raise StatementParseError(
                f"statement lines sum to {expected}, but closing balance is "
                f"{self.closing_balance}")


def parse_iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError as exc:
        raise StatementParseError(f"bad date {text!r}") from exc


class StatementImporter(ABC):
    """Turns the text of an exported bank statement into a BankStatement."""

    def load(self, text: str) -> BankStatement:
        statement = self.parse(text)
        statement.lines.sort()
        statement.validate()
        return statement

    @abstractmethod
    def parse(self, text: str) -> BankStatement:
        """Parse ``text`` without validating it."""


class CsvStatementImporter(StatementImporter):
    """CSV with header rows ``#account``, ``#opening``, ``#closing``."""

    def parse(self, text: str) -> BankStatement:
        meta: dict[str, str] = {}
        lines: list[StatementLine] = []
        reader = csv.reader(io.StringIO(text))
        for number, row in enumerate(reader, start=1):
            if not row or not any(cell.strip() for cell in row):
                continue
            if row[0].startswith("#"):
                meta[row[0][1:].strip()] = row[1].strip()
                continue
            if row[0] == "date":
                continue
            if len(row) < 3:
                raise StatementParseError(f"line {number}: expected 3+ columns")
            reference = row[3].strip() if len(row) > 3 else ""
            lines.append(StatementLine(parse_iso_date(row[0]), row[1].strip(),
                                       to_money(row[2]), reference))
        try:
            return BankStatement(meta["account"], to_money(meta["opening"]),
                                 to_money(meta["closing"]), lines)
        except KeyError as missing:
            raise StatementParseError(f"missing header {missing}") from None


# --- Reconciliation --------------------------------------------------------

@dataclass
class ReconciliationReport:
    account: Account
    statement: BankStatement
    ledger_balance: Decimal
    matched: list[tuple[StatementLine, JournalEntry]] = field(default_factory=list)
    unmatched_statement: list[StatementLine] = field(default_factory=list)
    unmatched_ledger: list[tuple[JournalEntry, Decimal]] = field(default_factory=list)

    @property
    def difference(self) -> Decimal:
        return self.statement.closing_balance - self.ledger_balance

    @property
    def is_reconciled(self) -> bool:
        return (self.difference == 0 and not self.unmatched_statement
                and not self.unmatched_ledger)

    def summary(self) -> str:
        out = [f"Reconciliation of {self.account.label()}",
               f"  statement closing: {format_money(self.statement.closing_balance)}",
               f"  ledger balance:    {format_money(self.ledger_balance)}",
               f"  difference:        {format_money(self.difference)}",
               f"  matched lines:     {len(self.matched)}"]
        for line in self.unmatched_statement:
            out.append(f"  only on statement: {line.when} {line.description} "
                       f"{format_money(line.amount)}")
        for entry, amount in self.unmatched_ledger:
            out.append(f"  only in ledger:    {entry.when} {entry.description} "
                       f"{format_money(amount)}")
        out.append("  status: " + ("RECONCILED" if self.is_reconciled else "OPEN ITEMS"))
        return "\n".join(out)


class Reconciler:
    """Matches statement lines to ledger postings by amount, reference and date."""

    def __init__(self, ledger: Ledger, window_days: int = 3) -> None:
        self.ledger = ledger
        self.window_days = window_days

    def reconcile(self, code: str, statement: BankStatement) -> ReconciliationReport:
        account = self.ledger.account(code)
        last_day = max((line.when for line in statement.lines), default=None)
        report = ReconciliationReport(account, statement,
                                      self.ledger.balance(code, last_day))
        candidates = [(entry, account.signed(p.side, p.amount))
                      for entry, p in self.ledger.postings_for(code, last_day)]
        for line in statement.lines:
            match = self._best_match(line, candidates)
            if match is None:
                report.unmatched_statement.append(line)
            else:
                candidates.remove(match)
                report.matched.append((line, match[0]))
        report.unmatched_ledger.extend(candidates)
        return report

    def _best_match(self, line: StatementLine,
                    candidates: list[tuple[JournalEntry, Decimal]]
                    ) -> tuple[JournalEntry, Decimal] | None:
        same_amount = [c for c in candidates if c[1] == line.amount]
        if line.reference:
            for candidate in same_amount:
                if candidate[0].reference == line.reference:
                    return candidate
        in_window = [c for c in same_amount if self._within_window(c[0].when, line.when)]
        return min(in_window, key=lambda c: abs((c[0].when - line.when).days),
                   default=None)

    def _within_window(self, posted: date, cleared: date) -> bool:
        return abs((cleared - posted).days) <= self.window_days


# --- Demonstration ---------------------------------------------------------

STATEMENT_CSV = """\
#account,000123456789
#opening,0.00
#closing,17016.50
date,description,amount,reference
2024-03-01,Owner deposit,20000.00,DEP-1
2024-03-02,Rent March,-2500.00,CHK-101
2024-03-06,Office Depot,-183.50,
2024-03-15,Customer payment Acme,4200.00,INV-7
2024-03-20,Card payment,-800.00,
2024-03-31,Monthly service fee,-25.00,
2024-03-31,Payroll,-3675.00,
"""


def build_chart(ledger: Ledger) -> None:
    """Open the demo company's chart of accounts."""
    ledger.add_account(BankAccount("1100", "Checking", AccountKind.ASSET,
                                   bank_name="First Demo Bank",
                                   account_number="000123456789"))
    chart = [("1200", "Accounts receivable", AccountKind.ASSET),
             ("1500", "Equipment", AccountKind.ASSET),
             ("2100", "Credit card", AccountKind.LIABILITY),
             ("3000", "Owner's capital", AccountKind.EQUITY),
             ("3900", "Retained earnings", AccountKind.EQUITY),
             ("4000", "Consulting revenue", AccountKind.INCOME),
             ("5000", "Rent expense", AccountKind.EXPENSE),
             ("5100", "Office supplies", AccountKind.EXPENSE),
             ("5200", "Bank fees", AccountKind.EXPENSE),
             ("5300", "Salaries", AccountKind.EXPENSE)]
    for code, name, kind in chart:
        ledger.open_account(code, name, kind)


def post_march(ledger: Ledger) -> None:
    """Post a month of activity."""
    d = date
    ledger.record(d(2024, 3, 1), "Owner investment", "1100", "3000", "20000", "DEP-1")
    ledger.record(d(2024, 3, 1), "Rent March", "5000", "1100", "2500", "CHK-101")
    ledger.record(d(2024, 3, 5), "Printer paper", "5100", "1100", "183.50")
    ledger.record(d(2024, 3, 8), "Laptop on card", "1500", "2100", "1450")
    ledger.record(d(2024, 3, 10), "Invoice Acme #7", "1200", "4000", "4200", "INV-7")
    ledger.record(d(2024, 3, 12), "Invoice Globex #8", "1200", "4000", "3100", "INV-8")
    ledger.record(d(2024, 3, 15), "Acme pays #7", "1100", "1200", "4200", "INV-7")
    ledger.record(d(2024, 3, 20), "Pay down card", "2100", "1100", "800")
    payroll = (JournalEntry(d(2024, 3, 30), "March payroll")
               .debit("5300", "3675", "net pay")
               .credit("1100", "3675"))
    ledger.apply(payroll)


def main() -> None:
    ledger: Ledger = Ledger()
    build_chart(ledger)
    post_march(ledger)
    print(ledger.trial_balance(date(2024, 3, 31)).render())
    print(f"\nNet income for March: {format_money(ledger.net_income())}\n")

    try:
        bad = JournalEntry(date(2024, 3, 31), "Typo").debit("5100", "10").credit("1100", "1")
        ledger.apply(bad)
    except UnbalancedEntryError as exc:
        print(f"Rejected: {exc}\n")

    importer = CsvStatementImporter()
    statement = importer.load(STATEMENT_CSV)
    reconciler = Reconciler(ledger)
    report: ReconciliationReport = reconciler.reconcile("1100", statement)
    print(report.summary() + "\n")
    for line in report.unmatched_statement:
        ledger.record(line.when, line.description, "5200", "1100", -line.amount)
    print(reconciler.reconcile("1100", statement).summary() + "\n")

    closing = ledger.close_period(date(2024, 3, 31), "3900")
    if closing is not None:
        print(f"Closing entry #{closing.entry_id} with {len(closing.postings)} postings")
    print(f"Retained earnings: {format_money(ledger.balance('3900'))}")
    try:
        ledger.record(date(2024, 3, 31), "Late invoice", "1200", "4000", "10")
    except ClosedPeriodError as exc:
        print(f"Rejected: {exc}")
    print(f"Trial balance still balanced: {ledger.trial_balance().is_balanced}")


if __name__ == "__main__":
    main()
