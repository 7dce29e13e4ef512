"""Tools of the warehouse_inventory world: stock control for Brightline Distribution's warehouses.

Warehouses are named by code ("LON"), bins by code ("LON-A03"), products by SKU ("DAI-1004"), lots by their
lot code within a product ("L2604-317"), purchase orders ("PO-5003"), sales orders ("SO-80012") and transfers
("TR-704") by number, staff by e-mail. Every write tool takes the e-mail of the staff member acting: staff act
only in their own warehouse (regional managers everywhere), and some actions need a supervisor or manager.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, filters, like_any, parse_day, require_role, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

APPROVAL_CENTS = 50000  # cycle-count adjustments worth more than this wait for a supervisor's approval
LEADS = ("supervisor", "manager")

POStatus = Literal["draft", "sent", "partially_received", "received", "cancelled"]
SOStatus = Literal["pending", "picking", "packed", "shipped", "cancelled"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _qty(q: int, what: str = "quantity", top: int = 10000) -> None:
    if not 1 <= q <= top:
        raise ToolError(f"{what} must be a whole number from 1 to {top} (got {q}).")


def _staff(db: Db, email: str) -> dict[str, Any]:
    s = db.one("SELECT s.*, w.code AS wh_code FROM staff s LEFT JOIN warehouses w ON w.id = s.warehouse_id "
               "WHERE lower(s.email) = lower(?)", (email.strip(),),
               missing=f"No staff member with e-mail {email!r}. Use find_staff to look people up.")
    if not s["is_active"]:
        raise ToolError(f"{s['full_name']} no longer works here; act as an active staff member.")
    return s


def _acting(db: Db, email: str, warehouse_id: int, roles: tuple[str, ...] | None = None, what: str = "") -> dict:
    s = _staff(db, email)
    if s["warehouse_id"] is not None and s["warehouse_id"] != warehouse_id:
        code = db.value("SELECT code FROM warehouses WHERE id = ?", (warehouse_id,))
        raise ToolError(f"{s['full_name']} works at {s['wh_code']} and cannot act in {code}; ask a colleague there "
                        "or a regional manager.")
    if roles:
        require_role(s, roles, what)
    return s


def _warehouse(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM warehouses WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No warehouse with code {code!r}; list_warehouses shows them (e.g. 'LON').")


def _warehouse_id(db: Db, code: str | None) -> int | None:
    """The id of an optional warehouse filter (None: every warehouse)."""
    return _warehouse(db, code)["id"] if code else None


def _bin(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT b.*, z.zone_type, z.warehouse_id, z.code AS zone_code, w.code AS wh_code FROM bins b "
                  "JOIN zones z ON z.id = b.zone_id JOIN warehouses w ON w.id = z.warehouse_id "
                  "WHERE upper(b.code) = upper(?)", (code.strip(),),
                  missing=f"No bin with code {code!r}; find_bins lists a warehouse's bins (codes look like 'LON-A03').")


def _product(db: Db, sku: str) -> dict[str, Any]:
    return db.one("SELECT * FROM products WHERE upper(sku) = upper(?)", (sku.strip(),),
                  missing=f"No product with SKU {sku!r}; use search_products to find it by name.")


def _lot(db: Db, product: dict[str, Any], lot_code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM lots WHERE product_id = ? AND upper(lot_code) = upper(?)",
                  (product["id"], lot_code.strip()),
                  missing=f"{product['sku']} has no lot {lot_code!r}; get_product_stock shows its lots.")


def _text_search(query: str | None, *columns: str) -> tuple[str, list[Any]]:
    """An optional search for ``query`` in any of ``columns``: one condition, true for every row when ``query`` is
    None or blank, and its parameters."""
    text = query.strip() if query else ""
    who, params = like_any(text, *columns)
    return f"(? IS NULL OR {who})", [text or None, *params]


def _used(db: Db, bin_id: int) -> int:
    return db.value("SELECT COALESCE(SUM(quantity), 0) FROM stock WHERE bin_id = ?", (bin_id,))


def _on_hand(db: Db, bin_id: int, lot_id: int) -> int:
    return db.value("SELECT COALESCE(SUM(quantity), 0) FROM stock WHERE bin_id = ? AND lot_id = ?", (bin_id, lot_id))


def _check_storage(product: dict[str, Any], b: dict[str, Any]) -> None:
    if b["zone_type"] == "receiving":
        return
    if product["storage"] == "cold" and b["zone_type"] != "cold":
        raise ToolError(f"{product['sku']} needs cold storage; put it in a cold-room bin, not {b['code']}.")
    if product["storage"] == "ambient" and b["zone_type"] == "cold":
        raise ToolError(f"{product['sku']} is an ambient product; the cold room ({b['code']}) is reserved for chilled "
                        "goods. Choose a storage-aisle bin.")


def _add_stock(db: Db, b: dict[str, Any], product: dict[str, Any], lot_id: int, qty: int) -> None:
    if not b["is_active"]:
        raise ToolError(f"Bin {b['code']} is out of use; choose another bin (find_bins shows active ones).")
    _check_storage(product, b)
    free = b["capacity_units"] - _used(db, b["id"])
    if qty > free:
        raise ToolError(f"Bin {b['code']} has room for {free} more units (capacity {b['capacity_units']}); {qty} "
                        "will not fit. Choose a bin with more free space (find_bins with min_free_units).")
    if db.value("SELECT 1 FROM stock WHERE bin_id = ? AND lot_id = ?", (b["id"], lot_id)):
        db.execute("UPDATE stock SET quantity = quantity + ? WHERE bin_id = ? AND lot_id = ?", (qty, b["id"], lot_id))
    else:
        db.insert("stock", {"bin_id": b["id"], "lot_id": lot_id, "quantity": qty})


def _take_stock(db: Db, b: dict[str, Any], lot: dict[str, Any], qty: int, sku: str) -> None:
    have = _on_hand(db, b["id"], lot["id"])
    if qty > have:
        raise ToolError(f"Bin {b['code']} holds only {have} units of {sku} lot {lot['lot_code']}; you asked for {qty}.")
    if qty == have:
        db.execute("DELETE FROM stock WHERE bin_id = ? AND lot_id = ?", (b["id"], lot["id"]))
    else:
        db.execute("UPDATE stock SET quantity = quantity - ? WHERE bin_id = ? AND lot_id = ?", (qty, b["id"], lot["id"]))


def _fifo(db: Db, product_id: int, warehouse_id: int, today: str) -> list[dict[str, Any]]:
    """Pickable stock of a product in a warehouse (storage and cold bins, unexpired lots), first to pick first."""
    return db.query(
        "SELECT l.lot_code, l.expiry_date, l.received_at, b.code AS bin_code, s.quantity, l.id AS lot_id "
        "FROM stock s JOIN lots l ON l.id = s.lot_id JOIN bins b ON b.id = s.bin_id JOIN zones z ON z.id = b.zone_id "
        "WHERE l.product_id = ? AND z.warehouse_id = ? AND z.zone_type IN ('storage', 'cold') "
        "AND (l.expiry_date IS NULL OR l.expiry_date > ?) "
        "ORDER BY l.expiry_date IS NULL, l.expiry_date, l.received_at, l.id, b.code",
        (product_id, warehouse_id, today))


def _po(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT p.*, s.name AS supplier, w.code AS wh_code FROM purchase_orders p JOIN suppliers s ON "
                  "s.id = p.supplier_id JOIN warehouses w ON w.id = p.warehouse_id WHERE upper(p.number) = upper(?)",
                  (number.strip(),), missing=f"No purchase order numbered {number!r}; list_purchase_orders shows them.")


def _so(db: Db, number: str) -> dict[str, Any]:
    return db.one("SELECT o.*, w.code AS wh_code, c.name AS customer FROM sales_orders o JOIN warehouses w ON "
                  "w.id = o.warehouse_id JOIN customers c ON c.id = o.customer_id WHERE upper(o.number) = upper(?)",
                  (number.strip(),), missing=f"No sales order numbered {number!r}; list_sales_orders shows them.")


# ----------------------------------------------------------------------------------------------
# read tools: sites, bins, staff
# ----------------------------------------------------------------------------------------------

@tool
def list_warehouses(db: Db) -> list[dict]:
    """List the warehouses with their zones (receiving dock, storage aisles, cold room), bins and free space."""
    out = []
    for w in db.query("SELECT * FROM warehouses ORDER BY id"):
        zones = db.query(
            "SELECT z.code, z.name, z.zone_type, COUNT(b.id) AS bins, SUM(b.capacity_units) AS capacity, "
            "(SELECT COALESCE(SUM(s.quantity), 0) FROM stock s JOIN bins b2 ON b2.id = s.bin_id WHERE b2.zone_id = z.id) "
            "AS units_stored FROM zones z LEFT JOIN bins b ON b.zone_id = z.id AND b.is_active = 1 "
            "WHERE z.warehouse_id = ? GROUP BY z.id ORDER BY z.code", (w["id"],))
        out.append({"code": w["code"], "name": w["name"], "city": w["city"], "zones": zones})
    return out


@tool
def find_bins(db: Db, warehouse_code: str, zone_code: str | None = None, min_free_units: int = 0,
              limit: int = 20) -> dict:
    """List a warehouse's active bins with capacity, units stored and free space, in code order.

    Args:
        warehouse_code: the warehouse, e.g. "MAN".
        zone_code: only this zone: "R" receiving dock, "A" / "B" storage aisles, "C" cold room.
        min_free_units: only bins with at least this much free space.
        limit: maximum number of bins, 1 to 50.
    """
    _limit(limit)
    w = _warehouse(db, warehouse_code)
    rows = db.query(
        "SELECT b.code, z.code AS zone, z.zone_type, b.capacity_units, (SELECT COALESCE(SUM(s.quantity), 0) FROM "
        "stock s WHERE s.bin_id = b.id) AS used FROM bins b JOIN zones z ON z.id = b.zone_id WHERE z.warehouse_id = ? "
        "AND b.is_active = 1 AND (? IS NULL OR upper(z.code) = upper(?)) ORDER BY b.code", (w["id"], zone_code, zone_code))
    out = []
    for r in rows:
        r["free_units"] = r["capacity_units"] - r["used"]
        if r["free_units"] >= min_free_units:
            out.append(r)
    return {"warehouse": w["code"], "count": len(out), "bins": out[:limit]}


@tool
def get_bin(db: Db, bin_code: str) -> dict:
    """Show what a bin holds: each product lot with its quantity and expiry, and the bin's capacity and free space.

    Args:
        bin_code: the bin's code, e.g. "LON-A03".
    """
    b = _bin(db, bin_code)
    rows = db.query("SELECT p.sku, p.name, l.lot_code, l.expiry_date, s.quantity FROM stock s JOIN lots l ON "
                    "l.id = s.lot_id JOIN products p ON p.id = l.product_id WHERE s.bin_id = ? ORDER BY p.sku, "
                    "l.lot_code", (b["id"],))
    used = sum(r["quantity"] for r in rows)
    return {"bin": b["code"], "warehouse": b["wh_code"], "zone_type": b["zone_type"], "active": bool(b["is_active"]),
            "capacity_units": b["capacity_units"], "used_units": used, "free_units": b["capacity_units"] - used,
            "contents": rows}


@tool
def find_staff(db: Db, query: str | None = None, warehouse_code: str | None = None, limit: int = 20) -> dict:
    """Find staff by name or e-mail, optionally at one warehouse (regional managers have no warehouse).

    Args:
        query: part of the name or e-mail.
        warehouse_code: only staff of this warehouse.
        limit: maximum number of people, 1 to 50.
    """
    _limit(limit)
    wid = _warehouse_id(db, warehouse_code)
    who, params = _text_search(query, "s.full_name", "s.email")
    rows = db.query("SELECT s.full_name AS name, s.email, s.role, COALESCE(w.code, 'all (regional)') AS warehouse, "
                    "s.is_active AS active FROM staff s LEFT JOIN warehouses w ON w.id = s.warehouse_id "
                    f"WHERE {who} AND (? IS NULL OR s.warehouse_id = ?) "
                    "ORDER BY s.full_name LIMIT ?", (*params, wid, wid, limit))
    for r in rows:
        r["active"] = bool(r["active"])
    return {"count": len(rows), "staff": rows}


# ----------------------------------------------------------------------------------------------
# read tools: products and stock
# ----------------------------------------------------------------------------------------------

@tool
def search_products(db: Db, query: str | None = None, category: str | None = None,
                    below_reorder_point: bool = False, limit: int = 20) -> dict:
    """Search the catalogue by name or SKU. Shows each product's supplier, storage, total units on hand across all
    warehouses and its reorder point (stock at or below it should be reordered).

    Args:
        query: words in the name or SKU, e.g. "yoghurt" or "DAI-10".
        category: only this category, e.g. "Dairy", "Snacks", "Pet food".
        below_reorder_point: only products whose total on hand is at or below their reorder point.
        limit: maximum number of products, 1 to 50.
    """
    _limit(limit)
    what, params = _text_search(query, "p.name", "p.sku")
    rows = db.query(
        "SELECT p.sku, p.name, p.category, s.name AS supplier, p.storage, p.tracks_expiry, p.unit_cost_cents, "
        "p.reorder_point, p.reorder_qty, (SELECT COALESCE(SUM(st.quantity), 0) FROM stock st JOIN lots l ON "
        "l.id = st.lot_id WHERE l.product_id = p.id) AS on_hand FROM products p JOIN suppliers s ON "
        f"s.id = p.supplier_id WHERE {what} AND (? IS NULL OR lower(p.category) = lower(?)) ORDER BY p.sku",
        (*params, category, category))
    if below_reorder_point:
        rows = [r for r in rows if r["on_hand"] <= r["reorder_point"]]
    for r in rows:
        r["tracks_expiry"] = bool(r["tracks_expiry"])
        r["unit_cost"] = r.pop("unit_cost_cents") / 100
    return {"count": len(rows), "products": rows[:limit]}


@tool
def get_product_stock(db: Db, sku: str, warehouse_code: str | None = None) -> dict:
    """Show where a product is stocked: every lot in every bin with quantity, expiry and whether it can be picked
    (only unexpired stock in storage or cold bins; stock on a receiving dock must be put away first). Pickable
    stock is listed in picking order (first expiry first out; then oldest received). Also totals per warehouse and
    units still due on open purchase orders.

    Args:
        sku: the product's SKU, e.g. "SNK-1003".
        warehouse_code: only this warehouse.
    """
    p = _product(db, sku)
    wid = _warehouse_id(db, warehouse_code)
    today = db.today().isoformat()
    rows = db.query(
        "SELECT w.code AS warehouse, b.code AS bin, z.zone_type, l.lot_code, l.expiry_date, l.received_at, "
        "s.quantity FROM stock s JOIN lots l ON l.id = s.lot_id JOIN bins b ON b.id = s.bin_id JOIN zones z ON "
        "z.id = b.zone_id JOIN warehouses w ON w.id = z.warehouse_id WHERE l.product_id = ? AND (? IS NULL OR "
        "z.warehouse_id = ?) ORDER BY w.code, l.expiry_date IS NULL, l.expiry_date, l.received_at, l.id, b.code",
        (p["id"], wid, wid))
    totals: dict[str, int] = {}
    for r in rows:
        r["pickable"] = r["zone_type"] != "receiving" and (r["expiry_date"] is None or r["expiry_date"] > today)
        totals[r["warehouse"]] = totals.get(r["warehouse"], 0) + r["quantity"]
    due = db.value("SELECT COALESCE(SUM(l.qty_ordered - l.qty_received), 0) FROM po_lines l JOIN purchase_orders o ON "
                   "o.id = l.po_id WHERE l.product_id = ? AND o.status IN ('sent', 'partially_received') AND "
                   "(? IS NULL OR o.warehouse_id = ?)", (p["id"], wid, wid))
    return {"sku": p["sku"], "name": p["name"], "storage": p["storage"], "tracks_expiry": bool(p["tracks_expiry"]),
            "reorder_point": p["reorder_point"], "reorder_qty": p["reorder_qty"], "on_hand_by_warehouse": totals,
            "on_hand_total": sum(totals.values()), "due_on_open_purchase_orders": due, "stock": rows}


@tool
def list_suppliers(db: Db) -> list[dict]:
    """List suppliers with their lead time in days, whether we still buy from them, and how many products they
    supply."""
    rows = db.query("SELECT s.name, s.email, s.country, s.lead_time_days, s.is_active AS active, (SELECT COUNT(*) "
                    "FROM products p WHERE p.supplier_id = s.id) AS products FROM suppliers s ORDER BY s.name")
    for r in rows:
        r["active"] = bool(r["active"])
    return rows


@tool
def list_reason_codes(db: Db) -> list[dict]:
    """The reason codes a cycle-count adjustment must carry, and whether each may decrease stock, increase it,
    or either."""
    return db.query("SELECT code, description, direction FROM reason_codes ORDER BY id")


@tool
def list_carriers(db: Db) -> list[dict]:
    """List the carriers with their code and the heaviest shipment they take (kg)."""
    rows = db.query("SELECT code, name, max_weight_kg, is_active AS active FROM carriers ORDER BY code")
    for r in rows:
        r["active"] = bool(r["active"])
    return rows


# ----------------------------------------------------------------------------------------------
# read tools: orders, transfers, counts, returns
# ----------------------------------------------------------------------------------------------

@tool
def list_purchase_orders(db: Db, status: POStatus | None = None, supplier_name: str | None = None,
                         warehouse_code: str | None = None, limit: int = 20) -> dict:
    """List purchase orders, newest first.

    Args:
        status: only this status: draft, sent, partially_received, received or cancelled.
        supplier_name: only this supplier's orders (exact name, see list_suppliers).
        warehouse_code: only orders delivering to this warehouse.
        limit: maximum number of orders, 1 to 50.
    """
    _limit(limit)
    where, params = filters(("o.status = ?", status), ("lower(s.name) = lower(?)", supplier_name),
                            ("o.warehouse_id = ?", _warehouse_id(db, warehouse_code)))
    rows = db.query(
        "SELECT o.number, s.name AS supplier, w.code AS warehouse, o.status, o.created_at, o.sent_at, o.expected_date, "
        "(SELECT COUNT(*) FROM po_lines l WHERE l.po_id = o.id) AS lines FROM purchase_orders o JOIN suppliers s ON "
        f"s.id = o.supplier_id JOIN warehouses w ON w.id = o.warehouse_id WHERE {where} "
        "ORDER BY o.created_at DESC, o.id DESC LIMIT ?", (*params, limit))
    return {"count": len(rows), "purchase_orders": rows}


@tool
def get_purchase_order(db: Db, number: str) -> dict:
    """Show a purchase order: supplier, warehouse, status, each line's ordered, received and outstanding units, and
    the receipts booked against it.

    Args:
        number: the order number, e.g. "PO-5003".
    """
    po = _po(db, number)
    lines = db.query("SELECT p.sku, p.name, l.qty_ordered, l.qty_received, l.qty_ordered - l.qty_received AS "
                     "outstanding, l.unit_cost_cents FROM po_lines l JOIN products p ON p.id = l.product_id WHERE "
                     "l.po_id = ? ORDER BY l.id", (po["id"],))
    receipts = db.query("SELECT p.sku, r.quantity, lt.lot_code, b.code AS bin, r.received_at, s.full_name AS "
                        "received_by FROM receipts r JOIN po_lines l ON l.id = r.po_line_id JOIN products p ON "
                        "p.id = l.product_id JOIN lots lt ON lt.id = r.lot_id JOIN bins b ON b.id = r.bin_id JOIN "
                        "staff s ON s.id = r.received_by WHERE l.po_id = ? ORDER BY r.received_at", (po["id"],))
    return {"number": po["number"], "supplier": po["supplier"], "warehouse": po["wh_code"], "status": po["status"],
            "created_at": po["created_at"], "sent_at": po["sent_at"], "expected_date": po["expected_date"],
            "cancel_reason": po["cancel_reason"], "lines": lines, "receipts": receipts}


@tool
def list_sales_orders(db: Db, status: SOStatus | None = None, warehouse_code: str | None = None,
                      customer_query: str | None = None, limit: int = 20) -> dict:
    """List customer sales orders, oldest ship-by date first.

    Args:
        status: only this status: pending, picking, packed, shipped or cancelled.
        warehouse_code: only orders shipping from this warehouse.
        customer_query: part of the customer's name or e-mail.
        limit: maximum number of orders, 1 to 50.
    """
    _limit(limit)
    where, params = filters(("o.status = ?", status), ("o.warehouse_id = ?", _warehouse_id(db, warehouse_code)))
    who, who_params = _text_search(customer_query, "c.name", "c.email")
    rows = db.query(
        "SELECT o.number, c.name AS customer, c.email AS customer_email, w.code AS warehouse, o.status, o.created_at, "
        "o.ship_by, (SELECT COUNT(*) FROM so_lines l WHERE l.so_id = o.id) AS lines FROM sales_orders o JOIN "
        f"customers c ON c.id = o.customer_id JOIN warehouses w ON w.id = o.warehouse_id WHERE {where} AND {who} "
        "ORDER BY o.ship_by, o.id LIMIT ?", (*params, *who_params, limit))
    return {"count": len(rows), "sales_orders": rows}


@tool
def get_sales_order(db: Db, number: str) -> dict:
    """Show a sales order: customer, warehouse, status, lines with ordered and picked units, the picks made (lot,
    bin, who), the weight picked so far and the shipment if shipped.

    Args:
        number: the order number, e.g. "SO-80012".
    """
    so = _so(db, number)
    lines = db.query("SELECT p.sku, p.name, l.qty_ordered, l.qty_picked, p.unit_weight_grams FROM so_lines l JOIN "
                     "products p ON p.id = l.product_id WHERE l.so_id = ? ORDER BY l.id", (so["id"],))
    picks = db.query("SELECT p.sku, lt.lot_code, b.code AS bin, k.quantity, s.full_name AS picked_by, k.picked_at "
                     "FROM picks k JOIN so_lines l ON l.id = k.so_line_id JOIN products p ON p.id = l.product_id "
                     "JOIN lots lt ON lt.id = k.lot_id JOIN bins b ON b.id = k.bin_id JOIN staff s ON s.id = "
                     "k.picked_by WHERE l.so_id = ? ORDER BY k.id", (so["id"],))
    ship = db.one("SELECT c.code AS carrier, sh.tracking_number, sh.weight_grams, sh.shipped_at FROM shipments sh "
                  "JOIN carriers c ON c.id = sh.carrier_id WHERE sh.so_id = ?", (so["id"],))
    weight = sum(ln["qty_picked"] * ln.pop("unit_weight_grams") for ln in lines)
    return {"number": so["number"], "customer": so["customer"], "warehouse": so["wh_code"], "status": so["status"],
            "created_at": so["created_at"], "ship_by": so["ship_by"], "packed_at": so["packed_at"],
            "cancel_reason": so["cancel_reason"], "lines": lines, "picks": picks,
            "picked_weight_kg": round(weight / 1000, 3), "shipment": ship}


@tool
def list_transfers(db: Db, status: Literal["in_transit", "received"] | None = None,
                   warehouse_code: str | None = None, limit: int = 20) -> dict:
    """List stock transfers between warehouses, newest first.

    Args:
        status: only in_transit or received transfers.
        warehouse_code: only transfers leaving or arriving at this warehouse.
        limit: maximum number of transfers, 1 to 50.
    """
    _limit(limit)
    wid = _warehouse_id(db, warehouse_code)
    rows = db.query(
        "SELECT t.number, p.sku, l.lot_code, t.quantity, fb.code AS from_bin, fw.code AS from_warehouse, "
        "tw.code AS to_warehouse, tb.code AS to_bin, t.status, t.created_at, t.received_at FROM transfers t JOIN "
        "lots l ON l.id = t.lot_id JOIN products p ON p.id = l.product_id JOIN bins fb ON fb.id = t.from_bin_id "
        "JOIN zones fz ON fz.id = fb.zone_id JOIN warehouses fw ON fw.id = fz.warehouse_id JOIN warehouses tw ON "
        "tw.id = t.to_warehouse_id LEFT JOIN bins tb ON tb.id = t.to_bin_id WHERE (? IS NULL OR t.status = ?) AND "
        "(? IS NULL OR fz.warehouse_id = ? OR t.to_warehouse_id = ?) ORDER BY t.created_at DESC, t.id DESC LIMIT ?",
        (status, status, wid, wid, wid, limit))
    return {"count": len(rows), "transfers": rows}


@tool
def list_adjustments(db: Db, status: Literal["pending_approval", "applied", "rejected"] | None = None,
                     warehouse_code: str | None = None, limit: int = 20) -> dict:
    """List cycle-count adjustments with the system and counted quantities, the difference's value in pounds,
    the reason code, who counted and who decided.

    Args:
        status: only pending_approval, applied or rejected adjustments.
        warehouse_code: only adjustments in this warehouse.
        limit: maximum number of adjustments, 1 to 50.
    """
    _limit(limit)
    where, params = filters(("a.status = ?", status), ("z.warehouse_id = ?", _warehouse_id(db, warehouse_code)))
    rows = db.query(
        "SELECT a.id, b.code AS bin, p.sku, l.lot_code, a.qty_system, a.qty_counted, a.qty_counted - a.qty_system AS "
        "difference, ABS(a.qty_counted - a.qty_system) * p.unit_cost_cents / 100.0 AS value, r.code AS reason, "
        "a.status, c.full_name AS counted_by, a.counted_at, d.full_name AS decided_by, a.decided_at FROM "
        "stock_adjustments a JOIN bins b ON b.id = a.bin_id JOIN zones z ON z.id = b.zone_id JOIN lots l ON "
        "l.id = a.lot_id JOIN products p ON p.id = l.product_id JOIN reason_codes r ON r.id = a.reason_code_id "
        f"JOIN staff c ON c.id = a.counted_by LEFT JOIN staff d ON d.id = a.decided_by WHERE {where} "
        "ORDER BY a.counted_at DESC, a.id DESC LIMIT ?", (*params, limit))
    return {"count": len(rows), "adjustments": rows}


@tool
def list_supplier_returns(db: Db, supplier_name: str | None = None, limit: int = 20) -> dict:
    """List returns of stock to suppliers, newest first.

    Args:
        supplier_name: only returns to this supplier.
        limit: maximum number of returns, 1 to 50.
    """
    _limit(limit)
    rows = db.query(
        "SELECT r.number, s.name AS supplier, p.sku, l.lot_code, b.code AS bin, r.quantity, r.reason, r.created_at "
        "FROM supplier_returns r JOIN suppliers s ON s.id = r.supplier_id JOIN lots l ON l.id = r.lot_id JOIN "
        "products p ON p.id = l.product_id JOIN bins b ON b.id = r.bin_id WHERE (? IS NULL OR lower(s.name) = "
        "lower(?)) ORDER BY r.created_at DESC, r.id DESC LIMIT ?", (supplier_name, supplier_name, limit))
    return {"count": len(rows), "returns": rows}


# ----------------------------------------------------------------------------------------------
# write tools: purchasing and receiving
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_purchase_order(db: Db, supplier_name: str, warehouse_code: str, expected_date: str,
                          actor_email: str) -> dict:
    """Open a draft purchase order to an active supplier for delivery to a warehouse. Add lines with add_po_line
    and send it with send_purchase_order. Only a supervisor of that warehouse or a manager may do this.

    Args:
        supplier_name: the supplier's exact name (list_suppliers shows them).
        warehouse_code: the warehouse receiving the goods, e.g. "LON".
        expected_date: expected delivery date, YYYY-MM-DD, today or later.
        actor_email: e-mail of the supervisor or manager.
    """
    w = _warehouse(db, warehouse_code)
    actor = _acting(db, actor_email, w["id"], LEADS, "raise purchase orders")
    s = db.one("SELECT * FROM suppliers WHERE lower(name) = lower(?)", (supplier_name.strip(),),
               missing=f"No supplier named {supplier_name!r}; list_suppliers shows the exact names.")
    if not s["is_active"]:
        raise ToolError(f"We no longer buy from {s['name']}.")
    d = parse_day(expected_date, "expected_date", "2026-05-20")
    if d < db.today():
        raise ToolError(f"expected_date {d.isoformat()} is in the past.")
    pid = db.insert("purchase_orders", {"number": "pending", "supplier_id": s["id"], "warehouse_id": w["id"],
                                        "status": "draft", "created_by": actor["id"], "created_at": _now(db),
                                        "sent_at": None, "expected_date": d.isoformat(), "cancel_reason": None})
    number = f"PO-{5000 + pid}"
    db.execute("UPDATE purchase_orders SET number = ? WHERE id = ?", (number, pid))
    return {"number": number, "status": "draft", "supplier": s["name"], "warehouse": w["code"],
            "expected_date": d.isoformat()}


@tool(write=True)
def add_po_line(db: Db, po_number: str, sku: str, quantity: int, actor_email: str) -> dict:
    """Add a product to a draft purchase order at its current unit cost. The product must come from the order's
    supplier and may appear only once per order. Supervisor or manager only.

    Args:
        po_number: the draft order's number.
        sku: the product's SKU.
        quantity: units to order, 1 to 10000.
        actor_email: e-mail of the supervisor or manager.
    """
    po = _po(db, po_number)
    _acting(db, actor_email, po["warehouse_id"], LEADS, "edit purchase orders")
    if po["status"] != "draft":
        raise ToolError(f"{po['number']} is {po['status']}; lines can only be added to a draft order.")
    p = _product(db, sku)
    if p["supplier_id"] != po["supplier_id"]:
        who = db.value("SELECT name FROM suppliers WHERE id = ?", (p["supplier_id"],))
        raise ToolError(f"{p['sku']} is supplied by {who}, not {po['supplier']}; order it on a purchase order to {who}.")
    if not p["is_active"]:
        raise ToolError(f"{p['sku']} is discontinued.")
    _qty(quantity)
    db.none("SELECT 1 FROM po_lines WHERE po_id = ? AND product_id = ?", (po["id"], p["id"]),
            found=f"{p['sku']} is already on {po['number']}.")
    db.insert("po_lines", {"po_id": po["id"], "product_id": p["id"], "qty_ordered": quantity, "qty_received": 0,
                           "unit_cost_cents": p["unit_cost_cents"]})
    return {"number": po["number"], "sku": p["sku"], "quantity": quantity,
            "line_value": quantity * p["unit_cost_cents"] / 100}


@tool(write=True)
def send_purchase_order(db: Db, po_number: str, actor_email: str) -> dict:
    """Send a draft purchase order with at least one line to its supplier. Supervisor or manager only.

    Args:
        po_number: the draft order's number.
        actor_email: e-mail of the supervisor or manager.
    """
    po = _po(db, po_number)
    _acting(db, actor_email, po["warehouse_id"], LEADS, "send purchase orders")
    if po["status"] != "draft":
        raise ToolError(f"{po['number']} is {po['status']}; only a draft can be sent.")
    n = db.value("SELECT COUNT(*) FROM po_lines WHERE po_id = ?", (po["id"],))
    if n == 0:
        raise ToolError(f"{po['number']} has no lines; add them with add_po_line first.")
    db.execute("UPDATE purchase_orders SET status = 'sent', sent_at = ? WHERE id = ?", (_now(db), po["id"]))
    return {"number": po["number"], "status": "sent", "lines": n}


@tool(write=True)
def cancel_purchase_order(db: Db, po_number: str, actor_email: str, reason: str) -> dict:
    """Cancel a draft or sent purchase order on which nothing has been received yet. Supervisor or manager only.

    Args:
        po_number: the order number.
        actor_email: e-mail of the supervisor or manager.
        reason: why it is cancelled, 3 to 500 characters.
    """
    po = _po(db, po_number)
    _acting(db, actor_email, po["warehouse_id"], LEADS, "cancel purchase orders")
    if po["status"] not in ("draft", "sent"):
        raise ToolError(f"{po['number']} is {po['status']}; only draft or sent orders with nothing received can be "
                        "cancelled.")
    why = clean_text(reason, "reason", 3)
    db.execute("UPDATE purchase_orders SET status = 'cancelled', cancel_reason = ? WHERE id = ?", (why, po["id"]))
    return {"number": po["number"], "status": "cancelled"}


@tool(write=True)
def receive_po_line(db: Db, po_number: str, sku: str, quantity: int, lot_code: str, bin_code: str,
                    actor_email: str, expiry_date: str | None = None) -> dict:
    """Book goods delivered against a sent purchase order into a receiving-dock bin of the order's warehouse.
    At most the outstanding quantity can be received. Products that track expiry need the lot's expiry date (in
    the future); others must not have one. A lot code already known for the product must carry the same expiry.
    The order becomes partially_received or, once every line is complete, received. Any staff member of the
    warehouse may receive.

    Args:
        po_number: the purchase order number.
        sku: the product delivered.
        quantity: units delivered, at most the line's outstanding quantity.
        lot_code: the supplier's lot code printed on the cases, e.g. "L2605-114".
        bin_code: a receiving-dock bin of the warehouse, e.g. "LON-R02".
        actor_email: e-mail of the person receiving.
        expiry_date: the lot's expiry date YYYY-MM-DD (only for products that track expiry).
    """
    po = _po(db, po_number)
    actor = _acting(db, actor_email, po["warehouse_id"])
    if po["status"] not in ("sent", "partially_received"):
        raise ToolError(f"{po['number']} is {po['status']}; only sent or partially received orders can be received "
                        "against.")
    p = _product(db, sku)
    line = db.one("SELECT * FROM po_lines WHERE po_id = ? AND product_id = ?", (po["id"], p["id"]),
                  missing=f"{p['sku']} is not on {po['number']}; get_purchase_order shows its lines.")
    _qty(quantity)
    left = line["qty_ordered"] - line["qty_received"]
    if quantity > left:
        raise ToolError(f"Only {left} units of {p['sku']} are outstanding on {po['number']}; you cannot receive "
                        f"{quantity}. Refuse the surplus at the dock.")
    b = _bin(db, bin_code)
    if b["warehouse_id"] != po["warehouse_id"]:
        raise ToolError(f"Bin {b['code']} is in {b['wh_code']}; {po['number']} is delivered to {po['wh_code']}.")
    if b["zone_type"] != "receiving":
        raise ToolError(f"Deliveries land on the receiving dock; {b['code']} is a {b['zone_type']} bin. Use a bin of "
                        "zone R, then put the goods away with put_away.")
    exp = None
    if p["tracks_expiry"]:
        if not expiry_date:
            raise ToolError(f"{p['sku']} tracks expiry: give the lot's expiry_date.")
        exp = parse_day(expiry_date, "expiry_date", "2026-09-30")
        if exp <= db.today():
            raise ToolError(f"Expiry {exp.isoformat()} is not in the future; do not receive expired goods.")
    elif expiry_date:
        raise ToolError(f"{p['sku']} does not track expiry; leave expiry_date out.")
    code = clean_text(lot_code, "lot_code", 3, 40).upper()
    lot = db.one("SELECT * FROM lots WHERE product_id = ? AND upper(lot_code) = ?", (p["id"], code))
    now = _now(db)
    if lot is None:
        lot_id = db.insert("lots", {"product_id": p["id"], "lot_code": code,
                                    "expiry_date": exp.isoformat() if exp else None, "received_at": now})
    else:
        if lot["expiry_date"] != (exp.isoformat() if exp else None):
            raise ToolError(f"Lot {code} of {p['sku']} is already recorded with expiry {lot['expiry_date']}; check "
                            "the lot code or the expiry date.")
        lot_id = lot["id"]
    _add_stock(db, b, p, lot_id, quantity)
    db.insert("receipts", {"po_line_id": line["id"], "lot_id": lot_id, "bin_id": b["id"], "quantity": quantity,
                           "received_by": actor["id"], "received_at": now})
    db.execute("UPDATE po_lines SET qty_received = qty_received + ? WHERE id = ?", (quantity, line["id"]))
    open_lines = db.value("SELECT COUNT(*) FROM po_lines WHERE po_id = ? AND qty_received < qty_ordered", (po["id"],))
    status = "received" if open_lines == 0 else "partially_received"
    db.execute("UPDATE purchase_orders SET status = ? WHERE id = ?", (status, po["id"]))
    return {"number": po["number"], "sku": p["sku"], "received": quantity, "lot_code": code, "bin": b["code"],
            "line_outstanding": left - quantity, "po_status": status}


@tool(write=True)
def put_away(db: Db, sku: str, lot_code: str, from_bin: str, to_bin: str, quantity: int, actor_email: str) -> dict:
    """Move stock of one lot between two bins of the same warehouse, e.g. from the receiving dock to a storage
    aisle. Chilled products go only to cold-room bins and ambient products never do; the target bin must be
    active and have room. Any staff member of the warehouse may do this.

    Args:
        sku: the product's SKU.
        lot_code: the lot to move.
        from_bin: the bin it is in now.
        to_bin: the bin it goes to.
        quantity: units to move.
        actor_email: e-mail of the person moving it.
    """
    p = _product(db, sku)
    lot = _lot(db, p, lot_code)
    a, b = _bin(db, from_bin), _bin(db, to_bin)
    if a["id"] == b["id"]:
        raise ToolError("from_bin and to_bin are the same bin.")
    if a["warehouse_id"] != b["warehouse_id"]:
        raise ToolError(f"{a['code']} and {b['code']} are in different warehouses; use create_transfer to move stock "
                        "between warehouses.")
    _acting(db, actor_email, a["warehouse_id"])
    _qty(quantity)
    _take_stock(db, a, lot, quantity, p["sku"])
    _add_stock(db, b, p, lot["id"], quantity)
    return {"sku": p["sku"], "lot_code": lot["lot_code"], "moved": quantity, "from_bin": a["code"],
            "to_bin": b["code"], "to_bin_free_units": b["capacity_units"] - _used(db, b["id"])}


# ----------------------------------------------------------------------------------------------
# write tools: sales orders
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def pick_order_line(db: Db, so_number: str, sku: str, bin_code: str, lot_code: str, quantity: int,
                    actor_email: str) -> dict:
    """Pick units of an order line from a bin of the order's warehouse. Stock is picked first-expiry-first-out:
    only from storage or cold bins, never expired lots, and never from a lot while an earlier lot of the product
    (earlier expiry, or for products without expiry the earlier-received lot) still has pickable stock in the
    warehouse — get_product_stock lists stock in picking order. At most the line's unpicked quantity. A pending
    order moves to picking. Any staff member of the warehouse may pick.

    Args:
        so_number: the sales order number.
        sku: the product to pick.
        bin_code: the bin picked from.
        lot_code: the lot picked.
        quantity: units picked.
        actor_email: e-mail of the picker.
    """
    so = _so(db, so_number)
    actor = _acting(db, actor_email, so["warehouse_id"])
    if so["status"] not in ("pending", "picking"):
        raise ToolError(f"{so['number']} is {so['status']}; only pending or picking orders can be picked.")
    p = _product(db, sku)
    line = db.one("SELECT * FROM so_lines WHERE so_id = ? AND product_id = ?", (so["id"], p["id"]),
                  missing=f"{p['sku']} is not on {so['number']}.")
    _qty(quantity)
    left = line["qty_ordered"] - line["qty_picked"]
    if quantity > left:
        raise ToolError(f"Only {left} units of {p['sku']} are still to pick on {so['number']}.")
    b = _bin(db, bin_code)
    if b["warehouse_id"] != so["warehouse_id"]:
        raise ToolError(f"Bin {b['code']} is in {b['wh_code']}; {so['number']} ships from {so['wh_code']}.")
    if b["zone_type"] == "receiving":
        raise ToolError(f"{b['code']} is on the receiving dock; put the stock away before picking it.")
    lot = _lot(db, p, lot_code)
    today = db.today().isoformat()
    if lot["expiry_date"] is not None and lot["expiry_date"] <= today:
        raise ToolError(f"Lot {lot['lot_code']} expired on {lot['expiry_date']} and must not be shipped.")
    order = _fifo(db, p["id"], so["warehouse_id"], today)
    first = order[0] if order else None
    if first and first["lot_id"] != lot["id"]:
        raise ToolError(f"First-expiry-first-out: pick lot {first['lot_code']} (expiry {first['expiry_date']}) from "
                        f"{first['bin_code']} first; it still has {first['quantity']} units.")
    _take_stock(db, b, lot, quantity, p["sku"])
    db.insert("picks", {"so_line_id": line["id"], "lot_id": lot["id"], "bin_id": b["id"], "quantity": quantity,
                        "picked_by": actor["id"], "picked_at": _now(db)})
    db.execute("UPDATE so_lines SET qty_picked = qty_picked + ? WHERE id = ?", (quantity, line["id"]))
    db.execute("UPDATE sales_orders SET status = 'picking' WHERE id = ?", (so["id"],))
    return {"number": so["number"], "sku": p["sku"], "picked": quantity, "lot_code": lot["lot_code"],
            "bin": b["code"], "line_left_to_pick": left - quantity}


@tool(write=True)
def pack_sales_order(db: Db, so_number: str, actor_email: str) -> dict:
    """Mark an order packed once every line is fully picked. Any staff member of the warehouse may pack.

    Args:
        so_number: the sales order number.
        actor_email: e-mail of the packer.
    """
    so = _so(db, so_number)
    _acting(db, actor_email, so["warehouse_id"])
    if so["status"] != "picking":
        raise ToolError(f"{so['number']} is {so['status']}; only an order being picked can be packed.")
    short = db.query("SELECT p.sku, l.qty_ordered - l.qty_picked AS missing FROM so_lines l JOIN products p ON "
                     "p.id = l.product_id WHERE l.so_id = ? AND l.qty_picked < l.qty_ordered", (so["id"],))
    if short:
        raise ToolError(f"{so['number']} is not fully picked: " + ", ".join(f"{s['sku']} needs {s['missing']} more"
                                                                            for s in short) + ".")
    db.execute("UPDATE sales_orders SET status = 'packed', packed_at = ? WHERE id = ?", (_now(db), so["id"]))
    return {"number": so["number"], "status": "packed"}


@tool(write=True)
def ship_sales_order(db: Db, so_number: str, carrier_code: str, tracking_number: str, actor_email: str) -> dict:
    """Hand a packed order to a carrier. The parcel's weight (picked units x unit weight) must be within the
    carrier's limit, and the tracking number must be new. Any staff member of the warehouse may ship.

    Args:
        so_number: the sales order number.
        carrier_code: the carrier's code, e.g. "DPD" (list_carriers shows them).
        tracking_number: the carrier's tracking number, letters and digits, 6 to 30 characters.
        actor_email: e-mail of the person shipping.
    """
    so = _so(db, so_number)
    actor = _acting(db, actor_email, so["warehouse_id"])
    if so["status"] != "packed":
        raise ToolError(f"{so['number']} is {so['status']}; only packed orders can be shipped.")
    c = db.one("SELECT * FROM carriers WHERE upper(code) = upper(?) AND is_active = 1", (carrier_code.strip(),),
               missing=f"No active carrier with code {carrier_code!r}; list_carriers shows them.")
    tn = tracking_number.strip().upper()
    if not re.fullmatch(r"[A-Z0-9]{6,30}", tn):
        raise ToolError("tracking_number must be 6 to 30 letters and digits.")
    db.none("SELECT 1 FROM shipments WHERE tracking_number = ?", (tn,),
            found=f"Tracking number {tn} is already used by another shipment.")
    weight = db.value("SELECT COALESCE(SUM(l.qty_picked * p.unit_weight_grams), 0) FROM so_lines l JOIN products p "
                      "ON p.id = l.product_id WHERE l.so_id = ?", (so["id"],))
    if weight > c["max_weight_kg"] * 1000:
        raise ToolError(f"The parcel weighs {weight / 1000:.3f} kg, over {c['name']}'s limit of {c['max_weight_kg']} "
                        "kg; choose a carrier that takes heavier parcels.")
    db.insert("shipments", {"so_id": so["id"], "carrier_id": c["id"], "tracking_number": tn,
                            "weight_grams": max(1, weight), "shipped_by": actor["id"], "shipped_at": _now(db)})
    db.execute("UPDATE sales_orders SET status = 'shipped' WHERE id = ?", (so["id"],))
    return {"number": so["number"], "status": "shipped", "carrier": c["code"], "tracking_number": tn,
            "weight_kg": round(weight / 1000, 3)}


@tool(write=True)
def cancel_sales_order(db: Db, so_number: str, actor_email: str, reason: str) -> dict:
    """Cancel a pending order (nothing picked yet). Supervisor or manager only.

    Args:
        so_number: the sales order number.
        actor_email: e-mail of the supervisor or manager.
        reason: why it is cancelled, 3 to 500 characters.
    """
    so = _so(db, so_number)
    _acting(db, actor_email, so["warehouse_id"], LEADS, "cancel sales orders")
    if so["status"] != "pending":
        raise ToolError(f"{so['number']} is {so['status']}; only pending orders (nothing picked) can be cancelled.")
    why = clean_text(reason, "reason", 3)
    db.execute("UPDATE sales_orders SET status = 'cancelled', cancel_reason = ? WHERE id = ?", (why, so["id"]))
    return {"number": so["number"], "status": "cancelled"}


# ----------------------------------------------------------------------------------------------
# write tools: transfers, counts, returns, settings
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_transfer(db: Db, sku: str, lot_code: str, from_bin: str, to_warehouse_code: str, quantity: int,
                    actor_email: str) -> dict:
    """Send stock of one lot from a bin to another warehouse. The units leave the bin now and are in transit until
    the receiving warehouse books them in with receive_transfer. Staff of the sending warehouse (or a regional
    manager) may do this.

    Args:
        sku: the product's SKU.
        lot_code: the lot to send.
        from_bin: the bin it leaves from.
        to_warehouse_code: the destination warehouse, e.g. "BRS".
        quantity: units to send.
        actor_email: e-mail of the person sending.
    """
    p = _product(db, sku)
    lot = _lot(db, p, lot_code)
    a = _bin(db, from_bin)
    actor = _acting(db, actor_email, a["warehouse_id"])
    w = _warehouse(db, to_warehouse_code)
    if w["id"] == a["warehouse_id"]:
        raise ToolError(f"{a['code']} is already in {w['code']}; use put_away to move stock within a warehouse.")
    _qty(quantity)
    _take_stock(db, a, lot, quantity, p["sku"])
    tid = db.insert("transfers", {"number": "pending", "lot_id": lot["id"], "from_bin_id": a["id"],
                                  "to_warehouse_id": w["id"], "to_bin_id": None, "quantity": quantity,
                                  "status": "in_transit", "created_by": actor["id"], "created_at": _now(db),
                                  "received_by": None, "received_at": None})
    number = f"TR-{700 + tid}"
    db.execute("UPDATE transfers SET number = ? WHERE id = ?", (number, tid))
    return {"number": number, "status": "in_transit", "sku": p["sku"], "lot_code": lot["lot_code"],
            "quantity": quantity, "from_bin": a["code"], "to_warehouse": w["code"]}


@tool(write=True)
def receive_transfer(db: Db, transfer_number: str, to_bin: str, actor_email: str) -> dict:
    """Book an in-transit transfer into a bin of its destination warehouse (storage rules and capacity apply).
    Staff of the destination warehouse (or a regional manager) may do this.

    Args:
        transfer_number: the transfer number, e.g. "TR-703".
        to_bin: the destination bin.
        actor_email: e-mail of the person receiving it.
    """
    t = db.one("SELECT * FROM transfers WHERE upper(number) = upper(?)", (transfer_number.strip(),),
               missing=f"No transfer numbered {transfer_number!r}; list_transfers shows them.")
    if t["status"] != "in_transit":
        raise ToolError(f"{t['number']} was already received.")
    actor = _acting(db, actor_email, t["to_warehouse_id"])
    b = _bin(db, to_bin)
    if b["warehouse_id"] != t["to_warehouse_id"]:
        dest = db.value("SELECT code FROM warehouses WHERE id = ?", (t["to_warehouse_id"],))
        raise ToolError(f"{t['number']} is bound for {dest}; {b['code']} is in {b['wh_code']}.")
    lot = db.one("SELECT * FROM lots WHERE id = ?", (t["lot_id"],))
    p = db.one("SELECT * FROM products WHERE id = ?", (lot["product_id"],))
    _add_stock(db, b, p, lot["id"], t["quantity"])
    db.execute("UPDATE transfers SET status = 'received', to_bin_id = ?, received_by = ?, received_at = ? WHERE id = ?",
               (b["id"], actor["id"], _now(db), t["id"]))
    return {"number": t["number"], "status": "received", "sku": p["sku"], "quantity": t["quantity"], "bin": b["code"]}


@tool(write=True)
def record_cycle_count(db: Db, bin_code: str, sku: str, lot_code: str, counted_quantity: int, reason_code: str,
                       actor_email: str) -> dict:
    """Record a cycle count that differs from the system quantity of a lot in a bin, with a reason code whose
    direction fits (e.g. FOUND only for more stock). If the difference is worth £500 or less (units x unit cost)
    the stock is corrected at once; above that the adjustment waits for a supervisor (decide_adjustment). Only one
    open count per lot and bin. Any staff member of the warehouse may count.

    Args:
        bin_code: the counted bin.
        sku: the product counted.
        lot_code: the lot counted.
        counted_quantity: units actually found, 0 or more.
        reason_code: DMG, LOST, FOUND, MISCOUNT or EXPIRED (list_reason_codes explains them).
        actor_email: e-mail of the counter.
    """
    b = _bin(db, bin_code)
    actor = _acting(db, actor_email, b["warehouse_id"])
    p = _product(db, sku)
    lot = _lot(db, p, lot_code)
    if counted_quantity < 0:
        raise ToolError("counted_quantity cannot be negative.")
    system = _on_hand(db, b["id"], lot["id"])
    if counted_quantity == system:
        raise ToolError(f"The system already shows {system} units; no adjustment is needed.")
    r = db.one("SELECT * FROM reason_codes WHERE upper(code) = upper(?)", (reason_code.strip(),),
               missing=f"Unknown reason code {reason_code!r}; list_reason_codes shows them.")
    diff = counted_quantity - system
    if (r["direction"] == "decrease" and diff > 0) or (r["direction"] == "increase" and diff < 0):
        raise ToolError(f"Reason {r['code']} is only for a {r['direction']} in stock, but the count is "
                        f"{'higher' if diff > 0 else 'lower'} than the system's {system}.")
    db.none("SELECT 1 FROM stock_adjustments WHERE bin_id = ? AND lot_id = ? AND status = 'pending_approval'",
            (b["id"], lot["id"]),
            found=f"A count of this lot in {b['code']} is already waiting for approval; decide that one first.")
    value = abs(diff) * p["unit_cost_cents"]
    now = _now(db)
    if diff > 0 and value <= APPROVAL_CENTS:
        _add_stock(db, b, p, lot["id"], diff)
    status = "applied" if value <= APPROVAL_CENTS else "pending_approval"
    if status == "applied" and diff < 0:
        _take_stock(db, b, lot, -diff, p["sku"])
    aid = db.insert("stock_adjustments", {"bin_id": b["id"], "lot_id": lot["id"], "qty_system": system,
                                          "qty_counted": counted_quantity, "reason_code_id": r["id"], "status": status,
                                          "counted_by": actor["id"], "counted_at": now, "decided_by": None,
                                          "decided_at": None})
    return {"adjustment_id": aid, "status": status, "qty_system": system, "qty_counted": counted_quantity,
            "value": value / 100, "note": "stock corrected" if status == "applied" else
            "over £500: a supervisor must approve it with decide_adjustment"}


@tool(write=True)
def decide_adjustment(db: Db, adjustment_id: int, decision: Literal["approve", "reject"], actor_email: str) -> dict:
    """Approve or reject a cycle-count adjustment waiting for approval. Approving sets the lot's quantity in the
    bin to the counted quantity; if the stock has changed since the count, the adjustment cannot be approved
    (reject it and count again). A supervisor of the warehouse or a manager decides, never the person who counted.

    Args:
        adjustment_id: the adjustment's id (list_adjustments shows them).
        decision: "approve" or "reject".
        actor_email: e-mail of the supervisor or manager.
    """
    a = db.one("SELECT a.*, b.code AS bin_code FROM stock_adjustments a JOIN bins b ON b.id = a.bin_id WHERE a.id = ?",
               (adjustment_id,), missing=f"No adjustment with id {adjustment_id}; list_adjustments shows them.")
    b = _bin(db, a["bin_code"])
    actor = _acting(db, actor_email, b["warehouse_id"], LEADS, "decide adjustments")
    if a["status"] != "pending_approval":
        raise ToolError(f"Adjustment {adjustment_id} is already {a['status']}.")
    if a["counted_by"] == actor["id"]:
        raise ToolError("Nobody may approve their own count; ask another supervisor or a manager.")
    if decision == "approve":
        now_qty = _on_hand(db, b["id"], a["lot_id"])
        if now_qty != a["qty_system"]:
            raise ToolError(f"The bin now holds {now_qty} units of this lot, not the {a['qty_system']} seen at the "
                            "count; reject this adjustment and count again.")
        lot = db.one("SELECT * FROM lots WHERE id = ?", (a["lot_id"],))
        p = db.one("SELECT * FROM products WHERE id = ?", (lot["product_id"],))
        diff = a["qty_counted"] - a["qty_system"]
        if diff > 0:
            _add_stock(db, b, p, lot["id"], diff)
        else:
            _take_stock(db, b, lot, -diff, p["sku"])
    status = "applied" if decision == "approve" else "rejected"
    db.execute("UPDATE stock_adjustments SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?",
               (status, actor["id"], _now(db), adjustment_id))
    return {"adjustment_id": adjustment_id, "status": status, "bin": b["code"],
            "quantity_now": _on_hand(db, b["id"], a["lot_id"])}


@tool(write=True)
def create_supplier_return(db: Db, sku: str, lot_code: str, bin_code: str, quantity: int, reason: str,
                           actor_email: str) -> dict:
    """Send faulty or wrong stock of one lot back to the product's supplier; the units leave the bin. Supervisor or
    manager only.

    Args:
        sku: the product's SKU.
        lot_code: the lot returned.
        bin_code: the bin the units are taken from.
        quantity: units returned.
        reason: why they go back, 3 to 500 characters.
        actor_email: e-mail of the supervisor or manager.
    """
    p = _product(db, sku)
    lot = _lot(db, p, lot_code)
    b = _bin(db, bin_code)
    actor = _acting(db, actor_email, b["warehouse_id"], LEADS, "return stock to suppliers")
    _qty(quantity)
    why = clean_text(reason, "reason", 3)
    _take_stock(db, b, lot, quantity, p["sku"])
    rid = db.insert("supplier_returns", {"number": "pending", "supplier_id": p["supplier_id"], "lot_id": lot["id"],
                                         "bin_id": b["id"], "quantity": quantity, "reason": why,
                                         "created_by": actor["id"], "created_at": _now(db)})
    number = f"RTS-{900 + rid}"
    db.execute("UPDATE supplier_returns SET number = ? WHERE id = ?", (number, rid))
    supplier = db.value("SELECT name FROM suppliers WHERE id = ?", (p["supplier_id"],))
    return {"number": number, "supplier": supplier, "sku": p["sku"], "lot_code": lot["lot_code"], "quantity": quantity}


@tool(write=True)
def set_reorder_point(db: Db, sku: str, reorder_point: int, reorder_qty: int, actor_email: str) -> dict:
    """Change a product's reorder point (total on hand at or below which it is reordered) and reorder quantity.
    Managers only.

    Args:
        sku: the product's SKU.
        reorder_point: the new reorder point, 0 to 100000 units.
        reorder_qty: the new quantity to reorder, 1 to 100000 units.
        actor_email: e-mail of the manager.
    """
    require_role(_staff(db, actor_email), ("manager",), "change reorder settings")
    p = _product(db, sku)
    if not 0 <= reorder_point <= 100000 or not 1 <= reorder_qty <= 100000:
        raise ToolError("reorder_point must be 0 to 100000 and reorder_qty 1 to 100000.")
    if p["reorder_point"] == reorder_point and p["reorder_qty"] == reorder_qty:
        raise ToolError(f"{p['sku']} already has those settings.")
    db.execute("UPDATE products SET reorder_point = ?, reorder_qty = ? WHERE id = ?", (reorder_point, reorder_qty,
                                                                                      p["id"]))
    return {"sku": p["sku"], "reorder_point": reorder_point, "reorder_qty": reorder_qty,
            "previous": {"reorder_point": p["reorder_point"], "reorder_qty": p["reorder_qty"]}}
