"""Payment reconciliation: every kind of payment goes through the same steps,
each with the same long signature; a view of this module repeats those
signatures and type names on every row, which the model-text dictionary
writes once (the example where model-text wins)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class ReconciliationContext:
    """Where a reconciliation runs: the ledger, the clearing account and the day."""

    ledger_identifier: str
    clearing_account: str
    business_day: str


@dataclass
class ReconciliationOutcome:
    """What one step decided for one payment."""

    accepted: bool
    amount_in_minor_units: Decimal
    reason: str = ""


class CardPaymentReconciler:
    """Reconciles card payments against the clearing account."""

    def validate_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_card_payment(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one card payment."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)


class BankTransferReconciler:
    """Reconciles bank transfers against the clearing account."""

    def validate_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_bank_transfer(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one bank transfer."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)


class DirectDebitReconciler:
    """Reconciles direct debits against the clearing account."""

    def validate_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_direct_debit(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one direct debit."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)


class RefundReconciler:
    """Reconciles refunds against the clearing account."""

    def validate_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_refund(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one refund."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)


class ChargebackReconciler:
    """Reconciles chargebacks against the clearing account."""

    def validate_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_chargeback(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one chargeback."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)


class PayoutReconciler:
    """Reconciles payouts against the clearing account."""

    def validate_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Validate one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def normalise_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Normalise one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def match_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Match one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def settle_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Settle one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def audit_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Audit one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def notify_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Notify one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def archive_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Archive one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def reverse_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Reverse one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def escalate_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Escalate one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)

    def close_payout(self, context: ReconciliationContext, amount_in_minor_units: Decimal, reference: str) -> ReconciliationOutcome:
        """Close one payout."""
        return ReconciliationOutcome(amount_in_minor_units >= 0, amount_in_minor_units, reference)
