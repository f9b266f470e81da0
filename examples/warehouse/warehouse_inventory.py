"""A warehouse inventory system: stock, locations, orders, picking and reports.

The module models products identified by SKU, storage locations arranged in
zones, aisles and bins, stock lots with expiry dates, purchase orders that bring
stock in and sales orders that take it out.  A ``Warehouse`` keeps the stock
ledger; a ``Reservations`` book holds stock for orders until it is picked; a
``PickPlanner`` turns orders into pick lists that walk the aisles in order; a
``ReplenishmentPlanner`` proposes purchase orders when stock runs low; and the
``InventoryReport`` classes summarise the state for people.

Every movement of stock is an event appended to the ``StockLedger``, so the
quantity on hand of any product in any bin can be recomputed from the events.

Run ``python warehouse_inventory.py`` for a short demonstration.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from functools import cached_property, total_ordering
from typing import Callable, Iterable, Iterator, Mapping, Protocol, Sequence

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
DEFAULT_SHELF_LIFE = timedelta(days=365)


# --- Errors ----------------------------------------------------------------

class InventoryError(Exception):
    """Base class for every error raised by this module."""


class UnknownProductError(InventoryError, KeyError):
    """Raised when a SKU is not in the product catalogue."""


class UnknownLocationError(InventoryError, KeyError):
    """Raised when a bin code does not name a known storage location."""


class InsufficientStockError(InventoryError):
    """Raised when more stock is requested than is available."""

    def __init__(self, sku: str, wanted: int, available: int) -> None:
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku
        self.wanted = wanted
        self.available = available


class CapacityExceededError(InventoryError):
    """Raised when a bin would hold more units than its capacity."""

    def __init__(self, location: str, capacity: int, requested: int) -> None:
        super().__init__(f"bin {location} holds {capacity} units; {requested} requested")
        self.location = location
        self.capacity = capacity
        self.requested = requested


class OrderStateError(InventoryError):
    """Raised when an order is asked to do something its state forbids."""


class ImportFormatError(InventoryError):
    """Raised when an imported CSV file has missing or malformed columns."""


# --- Value types -----------------------------------------------------------

def money(value: Decimal | int | str) -> Decimal:
    """Round a value to cents, half up, as invoices do."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


class Unit(Enum):
    """How a product is counted."""

    EACH = "each"
    CASE = "case"
    PALLET = "pallet"

    def units_per(self, case_size: int, pallet_size: int) -> int:
        """How many single items one of this unit holds."""
        if self is Unit.EACH:
            return 1
        if self is Unit.CASE:
            return case_size
        return pallet_size


class Temperature(Enum):
    """The storage condition a product needs."""

    AMBIENT = "ambient"
    CHILLED = "chilled"
    FROZEN = "frozen"

    def compatible_with(self, zone: Temperature) -> bool:
        """Whether a product of this kind may be stored in a zone of ``zone``."""
        return self is zone


@total_ordering
@dataclass(frozen=True)
class LocationCode:
    """A bin address such as ``A-03-12``: zone letter, aisle and bin number."""

    zone: str
    aisle: int
    bin: int

    @classmethod
    def parse(cls, text: str) -> LocationCode:
        """Parse ``Z-AA-BB``; raise UnknownLocationError for anything else."""
        parts = text.strip().split("-")
        if len(parts) != 3 or not parts[0].isalpha():
            raise UnknownLocationError(text)
        try:
            return cls(parts[0].upper(), int(parts[1]), int(parts[2]))
        except ValueError:
            raise UnknownLocationError(text) from None

    def __str__(self) -> str:
        return f"{self.zone}-{self.aisle:02d}-{self.bin:02d}"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, LocationCode):
            return NotImplemented
        return self.walk_key() < other.walk_key()

    def walk_key(self) -> tuple[str, int, int]:
        """The order a picker walks: by zone, by aisle, and in odd aisles backwards."""
        return (self.zone, self.aisle, -self.bin if self.aisle % 2 else self.bin)


@dataclass(frozen=True)
class Product:
    """A catalogue entry."""

    sku: str
    name: str
    unit_price: Decimal
    temperature: Temperature = Temperature.AMBIENT
    case_size: int = 12
    pallet_size: int = 480
    shelf_life: timedelta = DEFAULT_SHELF_LIFE
    reorder_point: int = 24
    reorder_quantity: int = 96

    def units(self, quantity: int, unit: Unit = Unit.EACH) -> int:
        """The number of single items in ``quantity`` of ``unit``."""
        return quantity * unit.units_per(self.case_size, self.pallet_size)

    def value_of(self, units: int) -> Decimal:
        """The stock value of ``units`` items at the catalogue price."""
        return money(self.unit_price * units)

    def expires(self, received: date) -> date:
        """The expiry date of a lot received on ``received``."""
        return received + self.shelf_life


@dataclass(frozen=True)
class Location:
    """A storage bin with a capacity and a temperature."""

    code: LocationCode
    capacity: int
    temperature: Temperature = Temperature.AMBIENT

    def accepts(self, product: Product) -> bool:
        """Whether ``product`` may be stored here."""
        return product.temperature.compatible_with(self.temperature)


@dataclass(frozen=True)
class Lot:
    """Units of one product received together, with one expiry date."""

    lot_id: str
    sku: str
    received: date
    expires: date

    def is_expired(self, today: date) -> bool:
        """Whether the lot may no longer be shipped."""
        return today >= self.expires

    def days_left(self, today: date) -> int:
        """Days until expiry (negative once expired)."""
        return (self.expires - today).days


# --- The stock ledger --------------------------------------------------------

class MovementKind(Enum):
    """Why stock moved."""

    RECEIPT = "receipt"
    TRANSFER_OUT = "transfer-out"
    TRANSFER_IN = "transfer-in"
    PICK = "pick"
    ADJUSTMENT = "adjustment"
    WRITE_OFF = "write-off"


@dataclass(frozen=True)
class Movement:
    """One change of the quantity of one lot in one bin."""

    sequence: int
    when: datetime
    kind: MovementKind
    lot: Lot
    location: LocationCode
    quantity: int
    reference: str = ""

    def signed(self) -> int:
        """The quantity with its sign: receipts add, picks take away."""
        return self.quantity


class StockLedger:
    """An append-only list of movements, from which every quantity follows."""

    def __init__(self) -> None:
        self._movements: list[Movement] = []
        self._sequence = itertools.count(1)
        self._listeners: list[Callable[[Movement], None]] = []

    def __len__(self) -> int:
        return len(self._movements)

    def __iter__(self) -> Iterator[Movement]:
        return iter(self._movements)

    def subscribe(self, listener: Callable[[Movement], None]) -> None:
        """Call ``listener`` with every movement recorded from now on."""
        self._listeners.append(listener)

    def record(self, when: datetime, kind: MovementKind, lot: Lot, location: LocationCode,
               quantity: int, reference: str = "") -> Movement:
        """Append a movement and tell the listeners."""
        movement = Movement(next(self._sequence), when, kind, lot, location, quantity, reference)
        self._movements.append(movement)
        for listener in self._listeners:
            listener(movement)
        return movement

    def quantity(self, sku: str, location: LocationCode | None = None) -> int:
        """Units of ``sku`` on hand, in one bin or everywhere."""
        return sum(
            m.signed() for m in self._movements
            if m.lot.sku == sku and (location is None or m.location == location)
        )

    def by_lot(self, sku: str) -> dict[tuple[Lot, LocationCode], int]:
        """Units on hand per lot and bin, for one product."""
        totals: dict[tuple[Lot, LocationCode], int] = defaultdict(int)
        for m in self._movements:
            if m.lot.sku == sku:
                totals[(m.lot, m.location)] += m.signed()
        return {key: n for key, n in totals.items() if n}

    def in_location(self, location: LocationCode) -> dict[str, int]:
        """Units per SKU in one bin."""
        totals: Counter[str] = Counter()
        for m in self._movements:
            if m.location == location:
                totals[m.lot.sku] += m.signed()
        return {sku: n for sku, n in totals.items() if n}

    def since(self, when: datetime) -> list[Movement]:
        """Movements recorded at or after ``when``."""
        return [m for m in self._movements if m.when >= when]


# --- The warehouse -------------------------------------------------------------

class Clock(Protocol):
    """Where the warehouse gets the time from (a test can fix it)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        return datetime.now()


@dataclass
class FixedClock:
    """A clock for tests and demonstrations: it moves only when told."""

    current: datetime

    def now(self) -> datetime:
        return self.current

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward."""
        self.current += delta


class Warehouse:
    """The catalogue, the locations and the stock ledger, with the rules that
    keep them consistent: capacity, temperature and expiry."""

    def __init__(self, name: str, clock: Clock | None = None) -> None:
        self.name = name
        self.clock = clock or SystemClock()
        self.products: dict[str, Product] = {}
        self.locations: dict[LocationCode, Location] = {}
        self.ledger = StockLedger()
        self._lot_numbers = itertools.count(1)

    # catalogue and layout

    def add_product(self, product: Product) -> Product:
        """Add a product to the catalogue."""
        self.products[product.sku] = product
        return product

    def product(self, sku: str) -> Product:
        """The catalogue entry for ``sku``."""
        try:
            return self.products[sku]
        except KeyError:
            raise UnknownProductError(sku) from None

    def add_location(self, location: Location) -> Location:
        """Add a storage bin."""
        self.locations[location.code] = location
        return location

    def location(self, code: LocationCode | str) -> Location:
        """The bin at ``code``."""
        key = LocationCode.parse(code) if isinstance(code, str) else code
        try:
            return self.locations[key]
        except KeyError:
            raise UnknownLocationError(str(code)) from None

    def free_capacity(self, code: LocationCode) -> int:
        """Units that still fit in a bin."""
        used = sum(self.ledger.in_location(code).values())
        return self.location(code).capacity - used

    # movements

    def receive(self, sku: str, quantity: int, code: LocationCode | str, reference: str = "") -> Lot:
        """Put ``quantity`` new units of ``sku`` into a bin as a new lot."""
        product = self.product(sku)
        location = self.location(code)
        if not location.accepts(product):
            raise InventoryError(f"{sku} needs {product.temperature.value} storage, "
                                 f"bin {location.code} is {location.temperature.value}")
        if quantity > self.free_capacity(location.code):
            raise CapacityExceededError(str(location.code), location.capacity, quantity)
        today = self.clock.now().date()
        lot = Lot(f"LOT{next(self._lot_numbers):06d}", sku, today, product.expires(today))
        self.ledger.record(self.clock.now(), MovementKind.RECEIPT, lot, location.code, quantity, reference)
        return lot

    def transfer(self, lot: Lot, source: LocationCode | str, target: LocationCode | str, quantity: int) -> None:
        """Move units of one lot between bins."""
        src, dst = self.location(source), self.location(target)
        on_hand = self.ledger.by_lot(lot.sku).get((lot, src.code), 0)
        if quantity > on_hand:
            raise InsufficientStockError(lot.sku, quantity, on_hand)
        if quantity > self.free_capacity(dst.code):
            raise CapacityExceededError(str(dst.code), dst.capacity, quantity)
        if not dst.accepts(self.product(lot.sku)):
            raise InventoryError(f"bin {dst.code} cannot hold {lot.sku}")
        now = self.clock.now()
        self.ledger.record(now, MovementKind.TRANSFER_OUT, lot, src.code, -quantity)
        self.ledger.record(now, MovementKind.TRANSFER_IN, lot, dst.code, quantity)

    def pick(self, lot: Lot, code: LocationCode | str, quantity: int, reference: str) -> None:
        """Take units of one lot out of a bin for an order."""
        location = self.location(code)
        on_hand = self.ledger.by_lot(lot.sku).get((lot, location.code), 0)
        if quantity > on_hand:
            raise InsufficientStockError(lot.sku, quantity, on_hand)
        if lot.is_expired(self.clock.now().date()):
            raise InventoryError(f"lot {lot.lot_id} of {lot.sku} expired on {lot.expires}")
        self.ledger.record(self.clock.now(), MovementKind.PICK, lot, location.code, -quantity, reference)

    def adjust(self, lot: Lot, code: LocationCode | str, counted: int, reason: str) -> int:
        """Set a lot's quantity in a bin to what a stock count found; return the change."""
        location = self.location(code)
        on_hand = self.ledger.by_lot(lot.sku).get((lot, location.code), 0)
        delta = counted - on_hand
        if delta:
            self.ledger.record(self.clock.now(), MovementKind.ADJUSTMENT, lot, location.code, delta, reason)
        return delta

    def write_off_expired(self) -> list[Movement]:
        """Remove every expired lot from stock."""
        today = self.clock.now().date()
        removed = []
        for sku in self.products:
            for (lot, code), quantity in self.ledger.by_lot(sku).items():
                if lot.is_expired(today) and quantity > 0:
                    removed.append(self.ledger.record(self.clock.now(), MovementKind.WRITE_OFF, lot, code,
                                                      -quantity, "expired"))
        return removed

    # questions

    def on_hand(self, sku: str) -> int:
        """Units of ``sku`` in the whole warehouse."""
        self.product(sku)
        return self.ledger.quantity(sku)

    def lots_first_expiring(self, sku: str) -> list[tuple[Lot, LocationCode, int]]:
        """Every lot of ``sku`` on hand, first-expiring first (FEFO), then by walk order."""
        today = self.clock.now().date()
        lots = [(lot, code, n) for (lot, code), n in self.ledger.by_lot(sku).items()
                if n > 0 and not lot.is_expired(today)]
        return sorted(lots, key=lambda item: (item[0].expires, item[1].walk_key()))

    def stock_value(self) -> Decimal:
        """The catalogue value of everything on hand."""
        return sum((self.product(sku).value_of(self.on_hand(sku)) for sku in self.products), ZERO)


# --- Orders -------------------------------------------------------------------

class OrderState(Enum):
    """Where an order is in its life."""

    OPEN = "open"
    RESERVED = "reserved"
    PICKING = "picking"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class OrderLine:
    """One product and quantity on an order."""

    sku: str
    quantity: int
    unit: Unit = Unit.EACH

    def units(self, warehouse: Warehouse) -> int:
        """Single items this line asks for."""
        return warehouse.product(self.sku).units(self.quantity, self.unit)


@dataclass
class SalesOrder:
    """A customer's order, taking stock out of the warehouse."""

    order_id: str
    customer: str
    lines: list[OrderLine]
    due: date
    state: OrderState = OrderState.OPEN
    notes: list[str] = field(default_factory=list)

    def total(self, warehouse: Warehouse) -> Decimal:
        """The order's value at catalogue prices."""
        return sum((warehouse.product(line.sku).value_of(line.units(warehouse)) for line in self.lines), ZERO)

    def require(self, *states: OrderState) -> None:
        """Raise OrderStateError unless the order is in one of ``states``."""
        if self.state not in states:
            allowed = ", ".join(s.value for s in states)
            raise OrderStateError(f"order {self.order_id} is {self.state.value}; needs {allowed}")

    def cancel(self, reason: str) -> None:
        """Cancel an order that has not shipped."""
        self.require(OrderState.OPEN, OrderState.RESERVED)
        self.state = OrderState.CANCELLED
        self.notes.append(f"cancelled: {reason}")


@dataclass
class PurchaseOrder:
    """An order to a supplier, bringing stock in."""

    order_id: str
    supplier: str
    lines: list[OrderLine]
    expected: date
    received: dict[str, int] = field(default_factory=dict)

    def outstanding(self, warehouse: Warehouse) -> dict[str, int]:
        """Units per SKU still to arrive."""
        wanted: Counter[str] = Counter()
        for line in self.lines:
            wanted[line.sku] += line.units(warehouse)
        return {sku: n - self.received.get(sku, 0) for sku, n in wanted.items() if n > self.received.get(sku, 0)}

    def is_complete(self, warehouse: Warehouse) -> bool:
        """Whether everything ordered has arrived."""
        return not self.outstanding(warehouse)


class Receiving:
    """Books supplier deliveries against purchase orders into put-away bins."""

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse
        self.orders: dict[str, PurchaseOrder] = {}

    def expect(self, order: PurchaseOrder) -> None:
        """Register a purchase order whose goods will arrive."""
        self.orders[order.order_id] = order

    def put_away_location(self, sku: str, quantity: int) -> LocationCode:
        """The first bin, in walk order, that accepts the product and has room."""
        product = self.warehouse.product(sku)
        for code in sorted(self.warehouse.locations):
            location = self.warehouse.locations[code]
            if location.accepts(product) and self.warehouse.free_capacity(code) >= quantity:
                return code
        raise CapacityExceededError("any", 0, quantity)

    def receive(self, order_id: str, sku: str, quantity: int) -> Lot:
        """Book a delivery of ``quantity`` units of ``sku`` for a purchase order."""
        order = self.orders[order_id]
        outstanding = order.outstanding(self.warehouse).get(sku, 0)
        if quantity > outstanding:
            raise InventoryError(f"{order_id}: {quantity} {sku} delivered, {outstanding} outstanding")
        code = self.put_away_location(sku, quantity)
        lot = self.warehouse.receive(sku, quantity, code, reference=order_id)
        order.received[sku] = order.received.get(sku, 0) + quantity
        return lot


# --- Reservations and picking ------------------------------------------------------

@dataclass(frozen=True)
class Reservation:
    """Units of one lot in one bin held for one order."""

    order_id: str
    lot: Lot
    location: LocationCode
    quantity: int


class Reservations:
    """Holds stock for orders so that two orders never promise the same units."""

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse
        self._held: list[Reservation] = []

    def held(self, lot: Lot, location: LocationCode) -> int:
        """Units of a lot in a bin already promised to some order."""
        return sum(r.quantity for r in self._held if r.lot == lot and r.location == location)

    def available(self, sku: str) -> int:
        """Units of ``sku`` on hand and not yet promised."""
        return sum(n - self.held(lot, code) for lot, code, n in self.warehouse.lots_first_expiring(sku))

    def for_order(self, order_id: str) -> list[Reservation]:
        """Everything held for one order."""
        return [r for r in self._held if r.order_id == order_id]

    def reserve(self, order: SalesOrder) -> list[Reservation]:
        """Hold stock for every line of an order, first-expiring lots first."""
        order.require(OrderState.OPEN)
        for line in order.lines:
            wanted = line.units(self.warehouse)
            available = self.available(line.sku)
            if wanted > available:
                raise InsufficientStockError(line.sku, wanted, available)
        made = []
        for line in order.lines:
            wanted = line.units(self.warehouse)
            for lot, code, on_hand in self.warehouse.lots_first_expiring(line.sku):
                free = on_hand - self.held(lot, code)
                take = min(free, wanted)
                if take > 0:
                    reservation = Reservation(order.order_id, lot, code, take)
                    self._held.append(reservation)
                    made.append(reservation)
                    wanted -= take
                if not wanted:
                    break
        order.state = OrderState.RESERVED
        return made

    def release(self, order_id: str) -> int:
        """Give back everything held for an order; return the units released."""
        released = sum(r.quantity for r in self.for_order(order_id))
        self._held = [r for r in self._held if r.order_id != order_id]
        return released


@dataclass(frozen=True)
class PickTask:
    """One stop on a pick walk."""

    location: LocationCode
    sku: str
    lot: Lot
    quantity: int
    order_id: str


@dataclass
class PickList:
    """The stops of one pick walk, in walk order."""

    pick_id: str
    tasks: list[PickTask]
    done: set[int] = field(default_factory=set)

    def remaining(self) -> list[PickTask]:
        """Tasks not yet confirmed."""
        return [t for i, t in enumerate(self.tasks) if i not in self.done]

    def walk_length(self) -> int:
        """Aisles visited, a rough measure of the picker's walk."""
        return len({(t.location.zone, t.location.aisle) for t in self.tasks})


class PickPlanner:
    """Turns reserved orders into pick lists that walk each aisle once."""

    def __init__(self, warehouse: Warehouse, reservations: Reservations, max_tasks: int = 40) -> None:
        self.warehouse = warehouse
        self.reservations = reservations
        self.max_tasks = max_tasks
        self._numbers = itertools.count(1)

    def plan(self, orders: Sequence[SalesOrder]) -> list[PickList]:
        """Pick lists for every reserved order, batched and sorted by walk order."""
        tasks = []
        for order in orders:
            order.require(OrderState.RESERVED)
            for r in self.reservations.for_order(order.order_id):
                tasks.append(PickTask(r.location, r.lot.sku, r.lot, r.quantity, order.order_id))
            order.state = OrderState.PICKING
        tasks.sort(key=lambda t: t.location.walk_key())
        lists = []
        for start in range(0, len(tasks), self.max_tasks):
            lists.append(PickList(f"PICK{next(self._numbers):05d}", tasks[start:start + self.max_tasks]))
        return lists

    def confirm(self, pick_list: PickList, index: int, picked: int | None = None) -> None:
        """Confirm one stop: the stock leaves its bin for the order."""
        task = pick_list.tasks[index]
        quantity = task.quantity if picked is None else picked
        self.warehouse.pick(task.lot, task.location, quantity, task.order_id)
        pick_list.done.add(index)


class Shipping:
    """Closes orders whose every pick is confirmed."""

    def __init__(self, warehouse: Warehouse, reservations: Reservations) -> None:
        self.warehouse = warehouse
        self.reservations = reservations
        self.shipped: list[str] = []

    def ship(self, order: SalesOrder, pick_lists: Iterable[PickList]) -> None:
        """Mark an order shipped once nothing of it remains to pick."""
        order.require(OrderState.PICKING)
        for pick_list in pick_lists:
            if any(t.order_id == order.order_id for t in pick_list.remaining()):
                raise OrderStateError(f"order {order.order_id} still has stock to pick")
        self.reservations.release(order.order_id)
        order.state = OrderState.SHIPPED
        self.shipped.append(order.order_id)


# --- Replenishment ------------------------------------------------------------------

class DemandForecast(ABC):
    """Predicts how many units of a product will be needed per day."""

    @abstractmethod
    def daily_demand(self, sku: str) -> float:
        """Expected units per day."""


class MovingAverageForecast(DemandForecast):
    """Average daily picks over the last ``days`` days of the ledger."""

    def __init__(self, ledger: StockLedger, clock: Clock, days: int = 28) -> None:
        self.ledger = ledger
        self.clock = clock
        self.days = days

    def daily_demand(self, sku: str) -> float:
        since = self.clock.now() - timedelta(days=self.days)
        picked = -sum(m.quantity for m in self.ledger.since(since)
                      if m.kind is MovementKind.PICK and m.lot.sku == sku)
        return picked / self.days


class FixedForecast(DemandForecast):
    """A forecast given as numbers, for planning ahead of any history."""

    def __init__(self, demand: Mapping[str, float]) -> None:
        self.demand = dict(demand)

    def daily_demand(self, sku: str) -> float:
        return self.demand.get(sku, 0.0)


@dataclass(frozen=True)
class Proposal:
    """A suggested purchase: which product, how many, and why."""

    sku: str
    quantity: int
    reason: str


class ReplenishmentPlanner:
    """Proposes purchase orders when stock falls to the reorder point, or
    would within the supplier's lead time at the forecast demand."""

    def __init__(self, warehouse: Warehouse, reservations: Reservations, forecast: DemandForecast,
                 lead_time_days: int = 7) -> None:
        self.warehouse = warehouse
        self.reservations = reservations
        self.forecast = forecast
        self.lead_time_days = lead_time_days

    def proposals(self, incoming: Iterable[PurchaseOrder] = ()) -> list[Proposal]:
        """What to order now, product by product."""
        pending: Counter[str] = Counter()
        for order in incoming:
            pending.update(order.outstanding(self.warehouse))
        out = []
        for sku, product in sorted(self.warehouse.products.items()):
            available = self.reservations.available(sku) + pending[sku]
            during_lead = self.forecast.daily_demand(sku) * self.lead_time_days
            if available <= product.reorder_point:
                out.append(Proposal(sku, product.reorder_quantity, f"{available} at or below reorder point"))
            elif available - during_lead <= product.reorder_point:
                out.append(Proposal(sku, product.reorder_quantity,
                                    f"{available} would fall to {available - during_lead:.0f} in lead time"))
        return out

    def purchase_order(self, order_id: str, supplier: str, proposals: Iterable[Proposal]) -> PurchaseOrder:
        """One purchase order for a supplier from the proposals."""
        lines = [OrderLine(p.sku, p.quantity) for p in proposals]
        expected = self.warehouse.clock.now().date() + timedelta(days=self.lead_time_days)
        return PurchaseOrder(order_id, supplier, lines, expected)


# --- Stock counts ---------------------------------------------------------------------

@dataclass(frozen=True)
class CountResult:
    """What a counter found in one bin for one lot."""

    location: LocationCode
    lot: Lot
    expected: int
    counted: int

    @property
    def difference(self) -> int:
        return self.counted - self.expected


class CycleCount:
    """Counts a few bins a day so every bin is counted once a cycle."""

    def __init__(self, warehouse: Warehouse, bins_per_day: int = 10) -> None:
        self.warehouse = warehouse
        self.bins_per_day = bins_per_day
        self.results: list[CountResult] = []

    def bins_for(self, day: int) -> list[LocationCode]:
        """The bins to count on day ``day`` of the cycle, in walk order."""
        codes = sorted(self.warehouse.locations)
        if not codes:
            return []
        start = (day * self.bins_per_day) % len(codes)
        return [codes[(start + i) % len(codes)] for i in range(min(self.bins_per_day, len(codes)))]

    def record(self, code: LocationCode, lot: Lot, counted: int) -> CountResult:
        """Record a count and adjust the stock to it."""
        expected = self.warehouse.ledger.by_lot(lot.sku).get((lot, code), 0)
        result = CountResult(code, lot, expected, counted)
        self.results.append(result)
        self.warehouse.adjust(lot, code, counted, f"cycle count: expected {expected}")
        return result

    def accuracy(self) -> float:
        """Share of counts that found exactly what the ledger said."""
        if not self.results:
            return 1.0
        return sum(1 for r in self.results if not r.difference) / len(self.results)


# --- Imports and exports -----------------------------------------------------------------

PRODUCT_COLUMNS = ("sku", "name", "unit_price", "temperature", "case_size", "reorder_point", "reorder_quantity")


def import_products(text: str) -> list[Product]:
    """Products from CSV text with the columns of ``PRODUCT_COLUMNS``."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in PRODUCT_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ImportFormatError(f"missing columns: {', '.join(missing)}")
    products = []
    for number, row in enumerate(reader, start=2):
        try:
            products.append(Product(
                sku=row["sku"].strip(),
                name=row["name"].strip(),
                unit_price=money(row["unit_price"]),
                temperature=Temperature(row["temperature"].strip() or "ambient"),
                case_size=int(row["case_size"]),
                reorder_point=int(row["reorder_point"]),
                reorder_quantity=int(row["reorder_quantity"]),
            ))
        except (ValueError, ArithmeticError) as exc:
            raise ImportFormatError(f"line {number}: {exc}") from None
    return products


def import_locations(text: str) -> list[Location]:
    """Bins from CSV text with the columns code, capacity and temperature."""
    reader = csv.DictReader(io.StringIO(text))
    locations = []
    for number, row in enumerate(reader, start=2):
        try:
            locations.append(Location(LocationCode.parse(row["code"]), int(row["capacity"]),
                                      Temperature(row.get("temperature") or "ambient")))
        except (KeyError, ValueError) as exc:
            raise ImportFormatError(f"line {number}: {exc}") from None
    return locations


def export_stock(warehouse: Warehouse) -> str:
    """Every lot on hand as CSV: bin, SKU, lot, expiry and quantity, in walk order."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["location", "sku", "lot", "expires", "quantity"])
    rows = []
    for sku in warehouse.products:
        for (lot, code), n in warehouse.ledger.by_lot(sku).items():
            if n > 0:
                rows.append((code, sku, lot.lot_id, lot.expires.isoformat(), n))
    for code, sku, lot_id, expires, n in sorted(rows, key=lambda r: r[0].walk_key()):
        writer.writerow([str(code), sku, lot_id, expires, n])
    return out.getvalue()


def movements_as_json(ledger: StockLedger) -> str:
    """The ledger as JSON lines, one movement a line, for an audit trail."""
    lines = []
    for m in ledger:
        lines.append(json.dumps({
            "sequence": m.sequence, "when": m.when.isoformat(), "kind": m.kind.value, "lot": m.lot.lot_id,
            "sku": m.lot.sku, "location": str(m.location), "quantity": m.quantity, "reference": m.reference,
        }, sort_keys=True))
    return "\n".join(lines)


# --- Reports --------------------------------------------------------------------------------

class InventoryReport(ABC):
    """A plain-text report about the warehouse."""

    title = "report"

    def __init__(self, warehouse: Warehouse) -> None:
        self.warehouse = warehouse

    @abstractmethod
    def rows(self) -> list[tuple[str, ...]]:
        """The report's table, first row the header."""

    def render(self) -> str:
        """The table with aligned columns under a title."""
        rows = self.rows()
        if not rows:
            return f"{self.title}\n(empty)\n"
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [self.title, "=" * len(self.title)]
        for row in rows:
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        return "\n".join(lines) + "\n"


class StockOnHandReport(InventoryReport):
    """Units and value per product."""

    title = "Stock on hand"

    def rows(self) -> list[tuple[str, ...]]:
        out = [("sku", "name", "units", "value")]
        for sku, product in sorted(self.warehouse.products.items()):
            units = self.warehouse.on_hand(sku)
            out.append((sku, product.name, str(units), str(product.value_of(units))))
        return out


class ExpiryReport(InventoryReport):
    """Lots expiring within ``days`` days, soonest first."""

    title = "Expiring soon"

    def __init__(self, warehouse: Warehouse, days: int = 30) -> None:
        super().__init__(warehouse)
        self.days = days

    def rows(self) -> list[tuple[str, ...]]:
        today = self.warehouse.clock.now().date()
        out = [("lot", "sku", "location", "expires", "days left", "units")]
        found = []
        for sku in self.warehouse.products:
            for (lot, code), n in self.warehouse.ledger.by_lot(sku).items():
                if n > 0 and lot.days_left(today) <= self.days:
                    found.append((lot, code, n))
        for lot, code, n in sorted(found, key=lambda f: f[0].expires):
            out.append((lot.lot_id, lot.sku, str(code), lot.expires.isoformat(), str(lot.days_left(today)), str(n)))
        return out


class LocationUtilisationReport(InventoryReport):
    """How full each zone is."""

    title = "Zone utilisation"

    def rows(self) -> list[tuple[str, ...]]:
        capacity: Counter[str] = Counter()
        used: Counter[str] = Counter()
        for code, location in self.warehouse.locations.items():
            capacity[code.zone] += location.capacity
            used[code.zone] += sum(self.warehouse.ledger.in_location(code).values())
        out = [("zone", "used", "capacity", "full")]
        for zone in sorted(capacity):
            share = used[zone] / capacity[zone] if capacity[zone] else 0.0
            out.append((zone, str(used[zone]), str(capacity[zone]), f"{share:.0%}"))
        return out


class MovementSummaryReport(InventoryReport):
    """Units moved per kind of movement since a date."""

    title = "Movements"

    def __init__(self, warehouse: Warehouse, since: datetime) -> None:
        super().__init__(warehouse)
        self.since = since

    def rows(self) -> list[tuple[str, ...]]:
        totals: Counter[MovementKind] = Counter()
        for m in self.warehouse.ledger.since(self.since):
            totals[m.kind] += abs(m.quantity)
        return [("kind", "units")] + [(kind.value, str(totals[kind])) for kind in MovementKind]


@dataclass
class ReportBook:
    """Several reports printed together, for the end of a shift."""

    reports: list[InventoryReport] = field(default_factory=list)

    def add(self, report: InventoryReport) -> ReportBook:
        """Add a report; return the book so calls can be chained."""
        self.reports.append(report)
        return self

    def render(self) -> str:
        """Every report, separated by blank lines."""
        return "\n".join(report.render() for report in self.reports)


# --- Auditing --------------------------------------------------------------------------------

@dataclass
class AuditTrail:
    """Keeps the movements of selected SKUs as they happen, for a later audit."""

    watched: set[str]
    seen: list[Movement] = field(default_factory=list)

    def __call__(self, movement: Movement) -> None:
        if movement.lot.sku in self.watched:
            self.seen.append(movement)

    def net_change(self, sku: str) -> int:
        """The total change of ``sku`` since the trail started."""
        return sum(m.quantity for m in self.seen if m.lot.sku == sku)


@dataclass(frozen=True)
class Discrepancy:
    """A product whose ledger total and physical count disagree."""

    sku: str
    ledger: int
    counted: int


def reconcile_counts(warehouse: Warehouse, counted: Mapping[str, int]) -> list[Discrepancy]:
    """Compare a full physical count with the ledger, product by product."""
    out = []
    for sku in sorted(set(warehouse.products) | set(counted)):
        ledger_units = warehouse.on_hand(sku) if sku in warehouse.products else 0
        if ledger_units != counted.get(sku, 0):
            out.append(Discrepancy(sku, ledger_units, counted.get(sku, 0)))
    return out


def summarize_orders(orders: Iterable[SalesOrder], warehouse: Warehouse) -> dict[str, Decimal]:
    """Order value per state."""
    totals: dict[str, Decimal] = defaultdict(lambda: ZERO)
    for order in orders:
        totals[order.state.value] += order.total(warehouse)
    return dict(totals)


def with_price_change(product: Product, percent: Decimal) -> Product:
    """A copy of ``product`` with its price changed by ``percent``."""
    return replace(product, unit_price=money(product.unit_price * (1 + percent / 100)))


class PriceBook:
    """Customer-specific prices over the catalogue's, cached per customer."""

    def __init__(self, warehouse: Warehouse, discounts: Mapping[str, Decimal]) -> None:
        self.warehouse = warehouse
        self.discounts = dict(discounts)

    @cached_property
    def catalogue(self) -> dict[str, Decimal]:
        """Catalogue prices by SKU."""
        return {sku: p.unit_price for sku, p in self.warehouse.products.items()}

    def price(self, customer: str, sku: str) -> Decimal:
        """The unit price ``customer`` pays for ``sku``."""
        discount = self.discounts.get(customer, ZERO)
        return money(self.catalogue[sku] * (1 - discount / 100))

    def quote(self, customer: str, lines: Iterable[OrderLine]) -> Decimal:
        """The value of some order lines at ``customer``'s prices."""
        return sum((self.price(customer, line.sku) * line.units(self.warehouse) for line in lines), ZERO)


# --- Demonstration ------------------------------------------------------------------------------

def demo_warehouse() -> tuple[Warehouse, FixedClock]:
    """A small warehouse with three zones and a few products."""
    clock = FixedClock(datetime(2024, 3, 1, 8, 0))
    warehouse = Warehouse("Riverside DC", clock)
    for product in import_products(
        "sku,name,unit_price,temperature,case_size,reorder_point,reorder_quantity\n"
        "TEA-001,Green tea 20 bags,2.40,ambient,24,48,240\n"
        "MLK-002,Whole milk 1 l,0.95,chilled,12,60,360\n"
        "PEA-003,Garden peas 1 kg,1.80,frozen,10,30,200\n"
        "RCE-004,Basmati rice 5 kg,7.50,ambient,4,20,80\n"
    ):
        warehouse.add_product(product)
    for location in import_locations(
        "code,capacity,temperature\n"
        "A-01-01,500,ambient\nA-01-02,500,ambient\nA-02-01,500,ambient\n"
        "C-01-01,300,chilled\nC-01-02,300,chilled\nF-01-01,200,frozen\n"
    ):
        warehouse.add_location(location)
    return warehouse, clock


def main() -> None:
    """Receive stock, take two orders, pick and ship them, and print the reports."""
    warehouse, clock = demo_warehouse()
    receiving = Receiving(warehouse)
    receiving.expect(PurchaseOrder("PO-1", "Hillside Foods", [
        OrderLine("TEA-001", 10, Unit.CASE), OrderLine("MLK-002", 20, Unit.CASE),
        OrderLine("PEA-003", 15, Unit.CASE), OrderLine("RCE-004", 30, Unit.CASE),
    ], date(2024, 3, 1)))
    for sku, units in (("TEA-001", 240), ("MLK-002", 240), ("PEA-003", 150), ("RCE-004", 120)):
        receiving.receive("PO-1", sku, units)
    trail = AuditTrail({"MLK-002"})
    warehouse.ledger.subscribe(trail)
    reservations = Reservations(warehouse)
    orders = [
        SalesOrder("SO-1", "Corner Shop", [OrderLine("TEA-001", 2, Unit.CASE), OrderLine("MLK-002", 30)],
                   date(2024, 3, 2)),
        SalesOrder("SO-2", "Cafe Lumen", [OrderLine("MLK-002", 4, Unit.CASE), OrderLine("RCE-004", 6)],
                   date(2024, 3, 2)),
    ]
    for order in orders:
        reservations.reserve(order)
    planner = PickPlanner(warehouse, reservations)
    pick_lists = planner.plan(orders)
    for pick_list in pick_lists:
        for index in range(len(pick_list.tasks)):
            planner.confirm(pick_list, index)
    shipping = Shipping(warehouse, reservations)
    for order in orders:
        shipping.ship(order, pick_lists)
    clock.advance(timedelta(days=1))
    forecast = MovingAverageForecast(warehouse.ledger, clock, days=7)
    replenishment = ReplenishmentPlanner(warehouse, reservations, forecast)
    book = ReportBook().add(StockOnHandReport(warehouse)).add(ExpiryReport(warehouse, days=14))
    book.add(LocationUtilisationReport(warehouse)).add(MovementSummaryReport(warehouse, datetime(2024, 3, 1)))
    print(book.render())
    for proposal in replenishment.proposals():
        print(f"reorder {proposal.quantity} x {proposal.sku}: {proposal.reason}")
    print(f"milk moved since the audit began: {trail.net_change('MLK-002')}")
    print(f"stock value: {warehouse.stock_value()}")


if __name__ == "__main__":
    main()
