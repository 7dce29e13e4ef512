"""Tools of the food_delivery world: a city food delivery app.

Customers are named by e-mail; restaurants, menu items, options, addresses, orders, order lines and
couriers by the ids the read tools return. Customer write tools take the customer's e-mail
(``customer_email``) and refuse rows of other customers; restaurant tools take the acting
``restaurant_id`` and refuse other restaurants' orders; courier tools take the acting ``courier_id``.

Money is integer cents. Pricing (shared by get_cart and place_order):
  * a line costs quantity x (item price + the price deltas of its chosen options);
  * the delivery fee is the restaurant's fee for the zone of the delivery address;
  * 'percent' promo codes take floor(subtotal x value / 100), capped at max_discount_cents;
    'fixed' codes take min(value, subtotal); 'free_delivery' codes waive the delivery fee;
  * app credit, when used, pays whatever is left, up to the customer's balance;
  * on delivery the customer earns loyalty credit of floor(subtotal x 5 / 100).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, like_contains, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

ACTIVE = ("placed", "accepted", "preparing", "picked_up")
CANCELLABLE = ("placed", "accepted")
LOYALTY_PERCENT = 5
REFUND_WINDOW_HOURS = 48
RATING_WINDOW_DAYS = 14
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

CancelReason = Literal["changed_mind", "ordered_by_mistake", "taking_too_long", "wrong_address", "other"]
RefundReason = Literal["missing_item", "wrong_item", "damaged"]
TicketCategory = Literal["late_delivery", "missing_item", "wrong_item", "payment", "courier", "account", "other"]
OrderStatus = Literal["placed", "accepted", "preparing", "picked_up", "delivered", "cancelled"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _customer(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM customers WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No customer with e-mail {email!r}. Use find_customers to look a customer up by name.")


def _restaurant(db: Db, restaurant_id: int) -> dict[str, Any]:
    return db.one("SELECT r.*, z.name AS zone_name FROM restaurants r JOIN zones z ON z.id = r.zone_id "
                  "WHERE r.id = ?", (restaurant_id,),
                  missing=f"No restaurant with id {restaurant_id}. Use search_restaurants to find restaurant ids.")


def _zone(db: Db, zone_name: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM zones WHERE lower(name) = lower(?)", (zone_name.strip(),))
    if row is None:
        names = ", ".join(r["name"] for r in db.query("SELECT name FROM zones ORDER BY name"))
        raise ToolError(f"No delivery zone named {zone_name!r}. Zones: {names}.")
    return row


def _order(db: Db, order_id: int) -> dict[str, Any]:
    return db.one("SELECT o.*, r.name AS restaurant_name, r.zone_id AS restaurant_zone_id FROM orders o "
                  "JOIN restaurants r ON r.id = o.restaurant_id WHERE o.id = ?", (order_id,),
                  missing=f"No order with id {order_id}. Use list_orders to find order ids.")


def _own_order(db: Db, customer: dict[str, Any], order_id: int) -> dict[str, Any]:
    o = _order(db, order_id)
    require_owner(o, "customer_id", customer["id"], f"Order #{order_id} does not belong to {customer['email']}; a "
                  "customer can only act on their own orders (list_orders shows them).")
    return o


def _courier(db: Db, courier_id: int) -> dict[str, Any]:
    return db.one("SELECT c.*, z.name AS zone_name FROM couriers c JOIN zones z ON z.id = c.zone_id WHERE c.id = ?",
                  (courier_id,), missing=f"No courier with id {courier_id}. Use list_couriers to find couriers.")


def _courier_order(db: Db, courier_id: int, order_id: int, action: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting courier and an order assigned to them (``action``: what only its courier can do)."""
    k = _courier(db, courier_id)
    o = _order(db, order_id)
    require_owner(o, "courier_id", k["id"], f"Order #{order_id} is not assigned to {k['full_name']}; only its courier "
                  f"can {action}.")
    return k, o


def _menu_item(db: Db, item_id: int) -> dict[str, Any]:
    return db.one("SELECT m.*, r.name AS restaurant, r.is_active AS r_active FROM menu_items m "
                  "JOIN restaurants r ON r.id = m.restaurant_id WHERE m.id = ?", (item_id,),
                  missing=f"No menu item with id {item_id}. Use get_menu to see a restaurant's items.")


def _promo(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT p.*, r.name AS restaurant FROM promo_codes p LEFT JOIN restaurants r "
                  "ON r.id = p.restaurant_id WHERE upper(p.code) = upper(?)", (code.strip(),),
                  missing=f"No promo code {code!r}.")


def _open_now(db: Db, restaurant_id: int) -> tuple[bool, dict[str, Any] | None]:
    now = db.now()
    h = db.one("SELECT opens, closes FROM opening_hours WHERE restaurant_id = ? AND weekday = ?",
               (restaurant_id, now.weekday()))
    hm = now.strftime("%H:%M")
    return (h is not None and h["opens"] <= hm < h["closes"]), h


def _unit_price(db: Db, item_id: int, option_ids: list[int]) -> int:
    price = db.value("SELECT price_cents FROM menu_items WHERE id = ?", (item_id,))
    for oid in option_ids:
        price += db.value("SELECT price_delta_cents FROM item_options WHERE id = ?", (oid,))
    return price


def _line_options(db: Db, cart_item_id: int) -> list[dict[str, Any]]:
    return db.query("SELECT o.id, o.name, g.name AS group_name, o.price_delta_cents, o.is_available "
                    "FROM cart_item_options co JOIN item_options o ON o.id = co.option_id "
                    "JOIN option_groups g ON g.id = o.group_id WHERE co.cart_item_id = ? ORDER BY g.id, o.id",
                    (cart_item_id,))


def _cart(db: Db, customer_id: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM carts WHERE customer_id = ?", (customer_id,))


def _full_cart(db: Db, customer: dict[str, Any], empty: str) -> dict[str, Any]:
    """The customer's cart when it holds items; ``empty`` is the refusal when it does not."""
    cart = _cart(db, customer["id"])
    if cart is None or cart["restaurant_id"] is None:
        raise ToolError(empty)
    return cart


def _cart_lines(db: Db, cart_id: int) -> list[dict[str, Any]]:
    lines = []
    for ci in db.query("SELECT ci.id, ci.item_id, ci.quantity, m.name, m.price_cents, m.is_available "
                       "FROM cart_items ci JOIN menu_items m ON m.id = ci.item_id WHERE ci.cart_id = ? ORDER BY ci.id",
                       (cart_id,)):
        opts = _line_options(db, ci["id"])
        unit = ci["price_cents"] + sum(o["price_delta_cents"] for o in opts)
        lines.append({"cart_item_id": ci["id"], "item_id": ci["item_id"], "name": ci["name"],
                      "options": [f"{o['group_name']}: {o['name']}" for o in opts],
                      "option_ids": [o["id"] for o in opts], "quantity": ci["quantity"],
                      "unit_price_cents": unit, "line_total_cents": unit * ci["quantity"],
                      "available": bool(ci["is_available"]) and all(o["is_available"] for o in opts)})
    return lines


def _promo_uses(db: Db, promo_id: int, customer_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM orders WHERE promo_code_id = ? AND customer_id = ? AND status <> 'cancelled'",
                    (promo_id, customer_id))


def _check_promo(db: Db, promo: dict[str, Any], customer_id: int, restaurant_id: int | None, subtotal: int) -> None:
    today = db.today().isoformat()
    code = promo["code"]
    if not promo["is_active"]:
        raise ToolError(f"Promo code {code} has been withdrawn and can no longer be used.")
    if today < promo["valid_from"]:
        raise ToolError(f"Promo code {code} is only valid from {promo['valid_from']}.")
    if today > promo["valid_until"]:
        raise ToolError(f"Promo code {code} expired on {promo['valid_until']}.")
    if promo["restaurant_id"] is not None and promo["restaurant_id"] != restaurant_id:
        name = db.value("SELECT name FROM restaurants WHERE id = ?", (promo["restaurant_id"],))
        raise ToolError(f"Promo code {code} is only valid at {name}.")
    if subtotal < promo["min_subtotal_cents"]:
        raise ToolError(f"Promo code {code} needs a subtotal of at least {_money(promo['min_subtotal_cents'])}; "
                        f"the cart comes to {_money(subtotal)}. Add more items first.")
    used = _promo_uses(db, promo["id"], customer_id)
    if used >= promo["uses_per_customer"]:
        raise ToolError(f"Promo code {code} can be used {promo['uses_per_customer']} time(s) per customer and this "
                        "customer has already used it up.")


def _discount(promo: dict[str, Any] | None, subtotal: int, fee: int) -> int:
    if promo is None:
        return 0
    if promo["kind"] == "percent":
        d = subtotal * promo["value"] // 100
        if promo["max_discount_cents"] is not None:
            d = min(d, promo["max_discount_cents"])
        return d
    if promo["kind"] == "fixed":
        return min(promo["value"], subtotal)
    return fee


def _delivery(db: Db, restaurant_id: int, zone_id: int) -> dict[str, Any] | None:
    return db.one("SELECT delivery_fee_cents, eta_minutes FROM delivery_zones WHERE restaurant_id = ? AND zone_id = ?",
                  (restaurant_id, zone_id))


def _address(db: Db, customer: dict[str, Any], address_id: int) -> dict[str, Any]:
    a = db.one("SELECT a.*, z.name AS zone_name FROM addresses a JOIN zones z ON z.id = a.zone_id WHERE a.id = ?",
               (address_id,))
    if a is None or a["customer_id"] != customer["id"]:
        raise ToolError(f"Address {address_id} is not one of {customer['email']}'s saved addresses; get_customer "
                        "lists them with their ids.")
    return a


def _empty_cart(db: Db, cart_id: int) -> None:
    db.execute("DELETE FROM cart_item_options WHERE cart_item_id IN (SELECT id FROM cart_items WHERE cart_id = ?)",
               (cart_id,))
    db.execute("DELETE FROM cart_items WHERE cart_id = ?", (cart_id,))
    db.execute("UPDATE carts SET restaurant_id = NULL, promo_code_id = NULL, updated_at = ? WHERE id = ?",
               (_now(db), cart_id))


def _credit(db: Db, customer_id: int, order_id: int | None, kind: str, amount: int) -> None:
    if amount == 0:
        return
    db.insert("credit_transactions", {"customer_id": customer_id, "order_id": order_id, "kind": kind,
                                      "amount_cents": amount, "created_at": _now(db)})
    db.execute("UPDATE customers SET credit_cents = credit_cents + ? WHERE id = ?", (amount, customer_id))


def _restaurant_order(db: Db, restaurant_id: int, order_id: int) -> dict[str, Any]:
    _restaurant(db, restaurant_id)
    o = _order(db, order_id)
    require_owner(o, "restaurant_id", restaurant_id, f"Order #{order_id} was placed with another restaurant; a "
                  "restaurant can only handle its own orders (list_orders with restaurant_id shows them).")
    return o


def _advance(db: Db, o: dict[str, Any], before: str, after: str, refusal: str) -> dict[str, Any]:
    """Move an order one step along placed -> accepted -> preparing -> picked_up -> delivered, stamping
    ``<after>_at``; ``refusal`` is the error when the order is not ``before``."""
    if o["status"] != before:
        raise ToolError(refusal)
    db.execute(f"UPDATE orders SET status = '{after}', {after}_at = ? WHERE id = ?", (_now(db), o["id"]))
    return {"order_id": o["id"], "status": after}


def _order_summary(o: dict[str, Any]) -> dict[str, Any]:
    return {"order_id": o["id"], "restaurant": o.get("restaurant_name"), "status": o["status"],
            "placed_at": o["placed_at"], "total_cents": o["total_cents"], "delivered_at": o["delivered_at"]}


# ----------------------------------------------------------------------------------------------
# read tools: zones, restaurants, menus
# ----------------------------------------------------------------------------------------------

@tool
def list_zones(db: Db) -> list[dict]:
    """List the delivery zones of the city with how many active restaurants are based in each."""
    return db.query("SELECT z.name, z.city, (SELECT COUNT(*) FROM restaurants r WHERE r.zone_id = z.id "
                    "AND r.is_active = 1) AS restaurants FROM zones z ORDER BY z.name")


@tool
def search_restaurants(db: Db, query: str | None = None, cuisine: str | None = None,
                       delivers_to_zone: str | None = None, open_now: bool = False, limit: int = 10) -> dict:
    """Find active restaurants by name or cuisine, optionally only those delivering to a zone or open right now.

    Args:
        query: words to look for in the restaurant's name, e.g. "dragon". Omit to list all.
        cuisine: only this cuisine, e.g. "Thai", "Pizza", "Indian".
        delivers_to_zone: only restaurants that deliver to this zone name, e.g. "Old Town".
        open_now: only restaurants open at the current time.
        limit: maximum number of restaurants, 1 to 50.
    """
    _limit(limit)
    zone_id = _zone(db, delivers_to_zone)["id"] if delivers_to_zone else None
    like = like_contains(query.strip()) if query and query.strip() else None
    where, params = filters(
        ("r.name LIKE ? ESCAPE '\\'", like), ("lower(r.cuisine) = lower(?)", cuisine),
        ("EXISTS (SELECT 1 FROM delivery_zones d WHERE d.restaurant_id = r.id AND d.zone_id = ?)", zone_id))
    rows = db.query(
        "SELECT r.id, r.name, r.cuisine, z.name AS zone, r.min_order_cents FROM restaurants r "
        f"JOIN zones z ON z.id = r.zone_id WHERE r.is_active = 1 AND {where} ORDER BY r.name, r.id", params)
    out = []
    for r in rows:
        is_open, _ = _open_now(db, r["id"])
        if open_now and not is_open:
            continue
        r["open_now"] = is_open
        if zone_id is not None:
            d = _delivery(db, r["id"], zone_id)
            r["delivery_fee_cents"] = d["delivery_fee_cents"]
        out.append(r)
        if len(out) >= limit:
            break
    return {"count": len(out), "restaurants": out}


@tool
def get_restaurant(db: Db, restaurant_id: int) -> dict:
    """Show a restaurant: address, minimum order, opening hours per weekday, the zones it delivers to (fee and
    estimated delivery time) and its average ratings.

    Args:
        restaurant_id: the restaurant's id (search_restaurants shows it).
    """
    r = _restaurant(db, restaurant_id)
    hours = {WEEKDAYS[h["weekday"]]: f"{h['opens']}-{h['closes']}" for h in db.query(
        "SELECT weekday, opens, closes FROM opening_hours WHERE restaurant_id = ? ORDER BY weekday", (r["id"],))}
    zones = db.query("SELECT z.name AS zone, d.delivery_fee_cents, d.eta_minutes FROM delivery_zones d "
                     "JOIN zones z ON z.id = d.zone_id WHERE d.restaurant_id = ? ORDER BY d.delivery_fee_cents, z.name",
                     (r["id"],))
    stats = db.one("SELECT COUNT(*) AS n, ROUND(AVG(food_stars), 2) AS food, ROUND(AVG(delivery_stars), 2) AS delivery "
                   "FROM ratings t JOIN orders o ON o.id = t.order_id WHERE o.restaurant_id = ?", (r["id"],))
    is_open, _ = _open_now(db, r["id"])
    return {"id": r["id"], "name": r["name"], "cuisine": r["cuisine"], "zone": r["zone_name"], "street": r["street"],
            "phone": r["phone"], "active": bool(r["is_active"]), "min_order_cents": r["min_order_cents"],
            "prep_minutes": r["prep_minutes"], "open_now": is_open,
            "opening_hours": {d: hours.get(d, "closed") for d in WEEKDAYS}, "delivers_to": zones,
            "ratings": {"count": stats["n"], "avg_food_stars": stats["food"], "avg_delivery_stars": stats["delivery"]}}


@tool
def get_menu(db: Db, restaurant_id: int, category: str | None = None, available_only: bool = False) -> dict:
    """A restaurant's menu: items with id, category, base price, vegetarian flag, availability and whether they
    have options to choose (see get_menu_item).

    Args:
        restaurant_id: the restaurant's id.
        category: only this menu category, e.g. "Mains".
        available_only: hide items that are currently unavailable.
    """
    r = _restaurant(db, restaurant_id)
    where, params = filters(("lower(m.category) = lower(?)", category))
    rows = db.query(
        "SELECT m.id AS item_id, m.category, m.name, m.price_cents, m.is_vegetarian AS vegetarian, "
        "m.is_available AS available, (SELECT COUNT(*) FROM option_groups g WHERE g.item_id = m.id) AS option_groups "
        f"FROM menu_items m WHERE m.restaurant_id = ? AND {where} "
        "AND (? = 0 OR m.is_available = 1) ORDER BY m.category, m.id",
        (r["id"], *params, 1 if available_only else 0))
    for x in rows:
        x["vegetarian"] = bool(x["vegetarian"])
        x["available"] = bool(x["available"])
    return {"restaurant": r["name"], "restaurant_id": r["id"], "items": rows}


@tool
def get_menu_item(db: Db, item_id: int) -> dict:
    """Show one menu item with its option groups (how many choices are required / allowed) and options
    (id, name, price delta, availability).

    Args:
        item_id: the item's id (get_menu shows it).
    """
    m = _menu_item(db, item_id)
    groups = []
    for g in db.query("SELECT * FROM option_groups WHERE item_id = ? ORDER BY id", (item_id,)):
        opts = db.query("SELECT id AS option_id, name, price_delta_cents, is_available AS available FROM item_options "
                        "WHERE group_id = ? ORDER BY id", (g["id"],))
        for o in opts:
            o["available"] = bool(o["available"])
        groups.append({"group": g["name"], "min_select": g["min_select"], "max_select": g["max_select"],
                       "options": opts})
    return {"item_id": m["id"], "restaurant": m["restaurant"], "restaurant_id": m["restaurant_id"],
            "name": m["name"], "category": m["category"], "description": m["description"],
            "price_cents": m["price_cents"], "vegetarian": bool(m["is_vegetarian"]),
            "available": bool(m["is_available"]), "option_groups": groups}


@tool
def get_delivery_quote(db: Db, restaurant_id: int, address_id: int) -> dict:
    """Whether a restaurant delivers to one of a customer's saved addresses, with the delivery fee, the estimated
    time, the restaurant's minimum order and whether it is open now.

    Args:
        restaurant_id: the restaurant's id.
        address_id: the saved address's id (get_customer lists a customer's addresses).
    """
    r = _restaurant(db, restaurant_id)
    a = db.one("SELECT a.*, z.name AS zone_name FROM addresses a JOIN zones z ON z.id = a.zone_id WHERE a.id = ?",
               (address_id,),
               missing=f"No saved address with id {address_id}. get_customer lists a customer's addresses.")
    d = _delivery(db, r["id"], a["zone_id"])
    is_open, _ = _open_now(db, r["id"])
    return {"restaurant": r["name"], "address": a["street"], "zone": a["zone_name"], "delivers": d is not None,
            "delivery_fee_cents": d and d["delivery_fee_cents"], "eta_minutes": d and d["eta_minutes"],
            "min_order_cents": r["min_order_cents"], "open_now": is_open}


@tool
def list_restaurant_reviews(db: Db, restaurant_id: int, limit: int = 10) -> list[dict]:
    """The newest ratings customers left on a restaurant's orders.

    Args:
        restaurant_id: the restaurant's id.
        limit: maximum number of ratings, 1 to 50.
    """
    _limit(limit)
    _restaurant(db, restaurant_id)
    return db.query("SELECT t.order_id, t.food_stars, t.delivery_stars, t.comment, t.created_at FROM ratings t "
                    "JOIN orders o ON o.id = t.order_id WHERE o.restaurant_id = ? ORDER BY t.created_at DESC LIMIT ?",
                    (restaurant_id, limit))


@tool
def get_promo_code(db: Db, code: str) -> dict:
    """Show a promo code's terms: kind and value, cap, minimum subtotal, restaurant restriction, uses allowed
    per customer, validity dates and whether it is active.

    Args:
        code: the promo code, e.g. "WELCOME10".
    """
    p = _promo(db, code)
    return {"code": p["code"], "description": p["description"], "kind": p["kind"], "value": p["value"],
            "max_discount_cents": p["max_discount_cents"], "min_subtotal_cents": p["min_subtotal_cents"],
            "only_at_restaurant": p["restaurant"], "uses_per_customer": p["uses_per_customer"],
            "valid_from": p["valid_from"], "valid_until": p["valid_until"], "active": bool(p["is_active"])}


# ----------------------------------------------------------------------------------------------
# read tools: customers, carts, orders, couriers, support
# ----------------------------------------------------------------------------------------------

@tool
def find_customers(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find customers by part of their name, e-mail or phone number.

    Args:
        query: words to look for, e.g. "maria" or "@example.org".
        limit: maximum number of customers, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email", "phone")
    return db.query(f"SELECT id AS customer_id, full_name, email, phone FROM customers WHERE {who} "
                    "ORDER BY full_name, id LIMIT ?", (*params, limit))


@tool
def get_customer(db: Db, email: str) -> dict:
    """Show a customer: contact details, saved addresses (id, label, street, zone, default), app credit balance
    and how many orders they have in progress.

    Args:
        email: the customer's e-mail address.
    """
    c = _customer(db, email)
    addrs = db.query("SELECT a.id AS address_id, a.label, a.street, z.name AS zone, a.instructions, "
                     "a.is_default AS is_default FROM addresses a JOIN zones z ON z.id = a.zone_id "
                     "WHERE a.customer_id = ? ORDER BY a.id", (c["id"],))
    for a in addrs:
        a["is_default"] = bool(a["is_default"])
    active = db.value("SELECT COUNT(*) FROM orders WHERE customer_id = ? AND status IN "
                      "('placed', 'accepted', 'preparing', 'picked_up')", (c["id"],))
    return {"customer_id": c["id"], "full_name": c["full_name"], "email": c["email"], "phone": c["phone"],
            "credit_cents": c["credit_cents"], "addresses": addrs, "orders_in_progress": active,
            "member_since": c["created_at"][:10]}


@tool
def list_credit_transactions(db: Db, customer_email: str, limit: int = 20) -> list[dict]:
    """A customer's app-credit history, newest first (loyalty earned, refunds, credit redeemed or restored).

    Args:
        customer_email: the customer's e-mail address.
        limit: maximum number of entries, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    return db.query("SELECT id, order_id, kind, amount_cents, created_at FROM credit_transactions "
                    "WHERE customer_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", (c["id"], limit))


@tool
def get_cart(db: Db, customer_email: str, address_id: int | None = None) -> dict:
    """Show a customer's cart: the restaurant, each line (cart_item_id, item, options, quantity, prices), the
    subtotal, the promo code applied and its discount. With an address, also the delivery fee and the total.

    Args:
        customer_email: the customer's e-mail address.
        address_id: optional saved address to price the delivery to.
    """
    c = _customer(db, customer_email)
    cart = _cart(db, c["id"])
    if cart is None or cart["restaurant_id"] is None:
        return {"restaurant": None, "lines": [], "subtotal_cents": 0, "promo_code": None}
    lines = _cart_lines(db, cart["id"])
    subtotal = sum(x["line_total_cents"] for x in lines)
    r = _restaurant(db, cart["restaurant_id"])
    promo = db.one("SELECT * FROM promo_codes WHERE id = ?", (cart["promo_code_id"],)) if cart["promo_code_id"] else None
    out: dict[str, Any] = {"restaurant": r["name"], "restaurant_id": r["id"], "lines": lines,
                           "subtotal_cents": subtotal, "min_order_cents": r["min_order_cents"],
                           "promo_code": promo and promo["code"], "credit_available_cents": c["credit_cents"]}
    if address_id is not None:
        a = _address(db, c, address_id)
        d = _delivery(db, r["id"], a["zone_id"])
        if d is None:
            out["delivery"] = f"{r['name']} does not deliver to {a['zone_name']}"
        else:
            disc = _discount(promo, subtotal, d["delivery_fee_cents"])
            out.update({"delivery_fee_cents": d["delivery_fee_cents"], "discount_cents": disc,
                        "total_before_credit_cents": subtotal + d["delivery_fee_cents"] - disc})
    elif promo is not None:
        out["discount_cents"] = _discount(promo, subtotal, 0) if promo["kind"] != "free_delivery" else "delivery fee"
    return out


@tool
def list_orders(db: Db, customer_email: str | None = None, restaurant_id: int | None = None,
                status: OrderStatus | None = None, placed_from: str | None = None, placed_to: str | None = None,
                limit: int = 20) -> dict:
    """List orders, newest first, by customer and/or restaurant, optionally by status and date placed.

    Args:
        customer_email: only this customer's orders.
        restaurant_id: only this restaurant's orders.
        status: only orders in this status.
        placed_from: only orders placed on or after this date, YYYY-MM-DD.
        placed_to: only orders placed on or before this date, YYYY-MM-DD.
        limit: maximum number of orders, 1 to 50.
    """
    _limit(limit)
    if customer_email is None and restaurant_id is None:
        raise ToolError("Give a customer_email or a restaurant_id (or both) to list orders.")
    cid = _customer(db, customer_email)["id"] if customer_email else None
    if restaurant_id is not None:
        _restaurant(db, restaurant_id)
    for v, what in ((placed_from, "placed_from"), (placed_to, "placed_to")):
        if v is not None:
            try:
                date.fromisoformat(v)
            except ValueError:
                raise ToolError(f"{what} must be a date written YYYY-MM-DD (got {v!r})") from None
    where, params = filters(("o.customer_id = ?", cid), ("o.restaurant_id = ?", restaurant_id),
                            ("o.status = ?", status), ("substr(o.placed_at, 1, 10) >= ?", placed_from),
                            ("substr(o.placed_at, 1, 10) <= ?", placed_to))
    rows = db.query(
        "SELECT o.*, r.name AS restaurant_name, c.full_name AS customer FROM orders o "
        "JOIN restaurants r ON r.id = o.restaurant_id JOIN customers c ON c.id = o.customer_id "
        f"WHERE {where} ORDER BY o.placed_at DESC, o.id DESC LIMIT ?", (*params, limit))
    out = []
    for o in rows:
        s = _order_summary(o)
        s["customer"] = o["customer"]
        out.append(s)
    return {"count": len(out), "orders": out}


@tool
def get_order(db: Db, order_id: int) -> dict:
    """Show an order: customer, restaurant, delivery address, lines (order_item_id, item, options, quantity,
    unit price), money breakdown, status timeline, courier, rating and refunds.

    Args:
        order_id: the order's id.
    """
    o = _order(db, order_id)
    c = db.one("SELECT full_name, email FROM customers WHERE id = ?", (o["customer_id"],))
    a = db.one("SELECT a.label, a.street, z.name AS zone FROM addresses a JOIN zones z ON z.id = a.zone_id "
               "WHERE a.id = ?", (o["address_id"],))
    items = db.query("SELECT id AS order_item_id, item_id, item_name, options_text AS options, quantity, "
                     "unit_price_cents FROM order_items WHERE order_id = ? ORDER BY id", (o["id"],))
    courier = db.one("SELECT id, full_name, phone FROM couriers WHERE id = ?", (o["courier_id"],)) \
        if o["courier_id"] else None
    rating = db.one("SELECT food_stars, delivery_stars, comment, created_at FROM ratings WHERE order_id = ?", (o["id"],))
    refunds = db.query("SELECT order_item_id, quantity, amount_cents, reason, created_at FROM refunds "
                       "WHERE order_id = ? ORDER BY id", (o["id"],))
    promo = db.value("SELECT code FROM promo_codes WHERE id = ?", (o["promo_code_id"],)) if o["promo_code_id"] else None
    return {"order_id": o["id"], "status": o["status"], "customer": c["full_name"], "customer_email": c["email"],
            "restaurant": o["restaurant_name"], "restaurant_id": o["restaurant_id"], "deliver_to": a,
            "items": items, "subtotal_cents": o["subtotal_cents"], "delivery_fee_cents": o["delivery_fee_cents"],
            "promo_code": promo, "discount_cents": o["discount_cents"], "credit_used_cents": o["credit_used_cents"],
            "total_cents": o["total_cents"], "note": o["note"],
            "timeline": {k: o[k] for k in ("placed_at", "accepted_at", "preparing_at", "picked_up_at",
                                           "delivered_at", "cancelled_at") if o[k]},
            "cancel_reason": o["cancel_reason"], "courier": courier, "rating": rating, "refunds": refunds}


@tool
def list_couriers(db: Db, zone_name: str | None = None, status: Literal["available", "on_delivery", "offline"] | None = None,
                  query: str | None = None, limit: int = 20) -> list[dict]:
    """List couriers with their id, vehicle, home zone and status.

    Args:
        zone_name: only couriers working in this zone.
        status: only couriers with this status.
        query: words to look for in the courier's name.
        limit: maximum number of couriers, 1 to 50.
    """
    _limit(limit)
    zid = _zone(db, zone_name)["id"] if zone_name else None
    like = like_contains(query.strip()) if query and query.strip() else None
    where, params = filters(("c.zone_id = ?", zid), ("c.status = ?", status),
                            ("c.full_name LIKE ? ESCAPE '\\'", like))
    return db.query("SELECT c.id AS courier_id, c.full_name, c.vehicle, z.name AS zone, c.status FROM couriers c "
                    f"JOIN zones z ON z.id = c.zone_id WHERE {where} ORDER BY c.full_name, c.id LIMIT ?",
                    (*params, limit))


@tool
def get_courier(db: Db, courier_id: int) -> dict:
    """Show a courier: zone, vehicle, status, the order they are carrying and their deliveries of the last 7 days.

    Args:
        courier_id: the courier's id.
    """
    c = _courier(db, courier_id)
    current = db.query("SELECT o.id AS order_id, r.name AS restaurant, o.status FROM orders o JOIN restaurants r "
                       "ON r.id = o.restaurant_id WHERE o.courier_id = ? AND o.status IN ('accepted', 'preparing', "
                       "'picked_up') ORDER BY o.id", (c["id"],))
    since = (db.now() - timedelta(days=7)).replace(microsecond=0).isoformat()
    n = db.value("SELECT COUNT(*) FROM orders WHERE courier_id = ? AND status = 'delivered' AND delivered_at >= ?",
                 (c["id"], since))
    return {"courier_id": c["id"], "full_name": c["full_name"], "phone": c["phone"], "vehicle": c["vehicle"],
            "zone": c["zone_name"], "status": c["status"], "current_orders": current, "deliveries_last_7_days": n}


@tool
def list_support_tickets(db: Db, customer_email: str, status: Literal["open", "resolved"] | None = None,
                         limit: int = 20) -> list[dict]:
    """A customer's support tickets, newest first.

    Args:
        customer_email: the customer's e-mail address.
        status: only tickets in this status.
        limit: maximum number of tickets, 1 to 50.
    """
    _limit(limit)
    c = _customer(db, customer_email)
    where, params = filters(("status = ?", status))
    return db.query("SELECT id AS ticket_id, order_id, category, subject, status, created_at, resolved_at "
                    f"FROM support_tickets WHERE customer_id = ? AND {where} "
                    "ORDER BY created_at DESC, id DESC LIMIT ?", (c["id"], *params, limit))


# ----------------------------------------------------------------------------------------------
# write tools: customer account and cart
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def add_address(db: Db, customer_email: str, label: str, street: str, zone_name: str, instructions: str = "",
                make_default: bool = False) -> dict:
    """Save a new delivery address for a customer. Labels are unique per customer; a customer's first address
    becomes their default.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        label: a short name for the address, e.g. "Home" or "Work".
        street: street and number, e.g. "14 Canal Street, Apt 3".
        zone_name: the delivery zone the address lies in (list_zones shows them).
        instructions: optional notes for the courier, e.g. "Ring twice".
        make_default: make this the customer's default address.
    """
    c = _customer(db, customer_email)
    label, street = label.strip(), street.strip()
    if not label or not street:
        raise ToolError("label and street must not be empty.")
    z = _zone(db, zone_name)
    db.none("SELECT 1 FROM addresses WHERE customer_id = ? AND lower(label) = lower(?)", (c["id"], label),
            found=f"{c['email']} already has an address labelled {label!r}; choose another label.")
    first = db.value("SELECT COUNT(*) FROM addresses WHERE customer_id = ?", (c["id"],)) == 0
    if make_default or first:
        db.execute("UPDATE addresses SET is_default = 0 WHERE customer_id = ? AND is_default = 1", (c["id"],))
    new_id = db.insert("addresses", {"customer_id": c["id"], "label": label, "street": street, "zone_id": z["id"],
                                     "instructions": instructions.strip(), "is_default": 1 if (make_default or first) else 0})
    return {"address_id": new_id, "label": label, "zone": z["name"], "is_default": bool(make_default or first)}


@tool(write=True)
def set_default_address(db: Db, customer_email: str, address_id: int) -> dict:
    """Make one of the customer's saved addresses their default.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        address_id: the id of one of their saved addresses.
    """
    c = _customer(db, customer_email)
    a = _address(db, c, address_id)
    if a["is_default"]:
        raise ToolError(f"Address {address_id} ({a['label']}) is already the default.")
    db.execute("UPDATE addresses SET is_default = 0 WHERE customer_id = ? AND is_default = 1", (c["id"],))
    db.execute("UPDATE addresses SET is_default = 1 WHERE id = ?", (a["id"],))
    return {"address_id": a["id"], "label": a["label"], "is_default": True}


@tool(write=True)
def add_to_cart(db: Db, customer_email: str, item_id: int, quantity: int = 1, option_ids: list[int] | None = None) -> dict:
    """Put a menu item, with its chosen options, in the customer's cart. A cart holds items of one restaurant
    only: empty it first to order elsewhere. Every option group's minimum and maximum number of choices must be
    respected (e.g. exactly one size), and the item and options must be available. The same item with the same
    options adds to the existing line.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        item_id: the menu item's id.
        quantity: how many, 1 to 20.
        option_ids: the ids of the chosen options (get_menu_item lists them), e.g. [12, 15].
    """
    c = _customer(db, customer_email)
    if not 1 <= quantity <= 20:
        raise ToolError(f"quantity must be between 1 and 20 (got {quantity}).")
    m = _menu_item(db, item_id)
    if not m["r_active"]:
        raise ToolError(f"{m['restaurant']} is not taking orders on the app.")
    if not m["is_available"]:
        raise ToolError(f"{m['name']} is currently unavailable at {m['restaurant']}; choose another item.")
    chosen = sorted(set(option_ids or []))
    if len(chosen) != len(option_ids or []):
        raise ToolError("option_ids lists the same option twice.")
    groups = db.query("SELECT * FROM option_groups WHERE item_id = ? ORDER BY id", (item_id,))
    valid = {o["id"]: o for o in db.query("SELECT o.*, g.name AS group_name FROM item_options o JOIN option_groups g "
                                           "ON g.id = o.group_id WHERE g.item_id = ?", (item_id,))}
    for oid in chosen:
        if oid not in valid:
            raise ToolError(f"Option {oid} is not an option of {m['name']}; get_menu_item({item_id}) lists its options.")
        if not valid[oid]["is_available"]:
            raise ToolError(f"{valid[oid]['group_name']} option {valid[oid]['name']!r} is currently unavailable.")
    for g in groups:
        n = sum(1 for oid in chosen if valid[oid]["group_id"] == g["id"])
        if n < g["min_select"]:
            raise ToolError(f"{m['name']} needs at least {g['min_select']} choice(s) from {g['name']!r}; add option ids "
                            "from get_menu_item.")
        if n > g["max_select"]:
            raise ToolError(f"{m['name']} allows at most {g['max_select']} choice(s) from {g['name']!r}.")
    cart = _cart(db, c["id"])
    if cart is None:
        cid = db.insert("carts", {"customer_id": c["id"], "restaurant_id": None, "promo_code_id": None,
                                  "updated_at": _now(db)})
        cart = _cart(db, c["id"])
        assert cart is not None and cart["id"] == cid
    if cart["restaurant_id"] is not None and cart["restaurant_id"] != m["restaurant_id"]:
        other = db.value("SELECT name FROM restaurants WHERE id = ?", (cart["restaurant_id"],))
        raise ToolError(f"The cart already holds items from {other}; a cart holds one restaurant's items. Empty it "
                        "with clear_cart before ordering from another restaurant.")
    for line in db.query("SELECT id, quantity FROM cart_items WHERE cart_id = ? AND item_id = ?", (cart["id"], item_id)):
        if [o["id"] for o in _line_options(db, line["id"])] == chosen:
            if line["quantity"] + quantity > 20:
                raise ToolError("A cart line can hold at most 20 of an item.")
            db.execute("UPDATE cart_items SET quantity = quantity + ? WHERE id = ?", (quantity, line["id"]))
            db.execute("UPDATE carts SET updated_at = ? WHERE id = ?", (_now(db), cart["id"]))
            return {"cart_item_id": line["id"], "quantity": line["quantity"] + quantity,
                    "unit_price_cents": _unit_price(db, item_id, chosen)}
    line_id = db.insert("cart_items", {"cart_id": cart["id"], "item_id": item_id, "quantity": quantity,
                                       "added_at": _now(db)})
    for oid in chosen:
        db.insert("cart_item_options", {"cart_item_id": line_id, "option_id": oid})
    db.execute("UPDATE carts SET restaurant_id = ?, updated_at = ? WHERE id = ?",
               (m["restaurant_id"], _now(db), cart["id"]))
    return {"cart_item_id": line_id, "item": m["name"], "quantity": quantity,
            "unit_price_cents": _unit_price(db, item_id, chosen)}


@tool(write=True)
def update_cart_item(db: Db, customer_email: str, cart_item_id: int, quantity: int) -> dict:
    """Change the quantity of a line in the customer's cart; quantity 0 removes the line.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        cart_item_id: the cart line's id (get_cart shows it).
        quantity: the new quantity, 0 to 20.
    """
    c = _customer(db, customer_email)
    cart = _cart(db, c["id"])
    line = db.one("SELECT * FROM cart_items WHERE id = ?", (cart_item_id,))
    if cart is None or line is None or line["cart_id"] != cart["id"]:
        raise ToolError(f"Cart line {cart_item_id} is not in {c['email']}'s cart; get_cart shows the lines.")
    if not 0 <= quantity <= 20:
        raise ToolError(f"quantity must be between 0 and 20 (got {quantity}).")
    if quantity == line["quantity"]:
        raise ToolError(f"The line already has quantity {quantity}.")
    if quantity == 0:
        db.execute("DELETE FROM cart_item_options WHERE cart_item_id = ?", (line["id"],))
        db.execute("DELETE FROM cart_items WHERE id = ?", (line["id"],))
        if db.value("SELECT COUNT(*) FROM cart_items WHERE cart_id = ?", (cart["id"],)) == 0:
            _empty_cart(db, cart["id"])
            return {"removed": cart_item_id, "cart_empty": True}
    else:
        db.execute("UPDATE cart_items SET quantity = ? WHERE id = ?", (quantity, line["id"]))
    db.execute("UPDATE carts SET updated_at = ? WHERE id = ?", (_now(db), cart["id"]))
    return {"cart_item_id": cart_item_id, "quantity": quantity}


@tool(write=True)
def clear_cart(db: Db, customer_email: str) -> dict:
    """Empty the customer's cart (every line and the promo code).

    Args:
        customer_email: the customer's e-mail address (the customer acting).
    """
    c = _customer(db, customer_email)
    cart = _full_cart(db, c, f"{c['email']}'s cart is already empty.")
    n = db.value("SELECT COUNT(*) FROM cart_items WHERE cart_id = ?", (cart["id"],))
    _empty_cart(db, cart["id"])
    return {"cleared_lines": n}


@tool(write=True)
def apply_promo_code(db: Db, customer_email: str, code: str) -> dict:
    """Apply a promo code to the customer's cart (one code per cart; a new code replaces the old one). The code
    must be active and within its dates, valid at the cart's restaurant, reached by the cart's subtotal, and not
    used up by this customer (each non-cancelled order that used it counts). Checked again at checkout.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        code: the promo code, e.g. "WELCOME10".
    """
    c = _customer(db, customer_email)
    cart = _full_cart(db, c, "The cart is empty: add items before applying a promo code.")
    p = _promo(db, code)
    if cart["promo_code_id"] == p["id"]:
        raise ToolError(f"{p['code']} is already applied to the cart.")
    subtotal = sum(x["line_total_cents"] for x in _cart_lines(db, cart["id"]))
    _check_promo(db, p, c["id"], cart["restaurant_id"], subtotal)
    db.execute("UPDATE carts SET promo_code_id = ?, updated_at = ? WHERE id = ?", (p["id"], _now(db), cart["id"]))
    return {"promo_code": p["code"], "kind": p["kind"], "subtotal_cents": subtotal}


@tool(write=True)
def remove_promo_code(db: Db, customer_email: str) -> dict:
    """Take the promo code off the customer's cart.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
    """
    c = _customer(db, customer_email)
    cart = _cart(db, c["id"])
    if cart is None or cart["promo_code_id"] is None:
        raise ToolError("No promo code is applied to the cart.")
    db.execute("UPDATE carts SET promo_code_id = NULL, updated_at = ? WHERE id = ?", (_now(db), cart["id"]))
    return {"removed": True}


# ----------------------------------------------------------------------------------------------
# write tools: orders (customer side)
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def place_order(db: Db, customer_email: str, address_id: int, use_credit: bool = False, note: str = "") -> dict:
    """Check out the customer's cart to one of their saved addresses. Refused when the restaurant is closed
    right now, does not deliver to the address's zone, the subtotal is below its minimum order, an item or option
    became unavailable, or the promo code no longer applies. With use_credit the customer's app credit pays what
    is left after the discount, up to their balance. The cart is emptied.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        address_id: the saved address to deliver to (get_customer lists them).
        use_credit: pay with the customer's app credit first.
        note: optional note for the restaurant, e.g. "No onions please".
    """
    c = _customer(db, customer_email)
    cart = _full_cart(db, c, "The cart is empty: add items with add_to_cart first.")
    a = _address(db, c, address_id)
    r = _restaurant(db, cart["restaurant_id"])
    if not r["is_active"]:
        raise ToolError(f"{r['name']} is not taking orders on the app.")
    is_open, h = _open_now(db, r["id"])
    if not is_open:
        when = f"today it opens {h['opens']}-{h['closes']}" if h else "it is closed all day today"
        raise ToolError(f"{r['name']} is closed right now ({when}); orders can only be placed while it is open.")
    d = _delivery(db, r["id"], a["zone_id"])
    if d is None:
        raise ToolError(f"{r['name']} does not deliver to {a['zone_name']}, the zone of address {a['id']} "
                        f"({a['label']}). Choose another address or restaurant.")
    lines = _cart_lines(db, cart["id"])
    for x in lines:
        if not x["available"]:
            raise ToolError(f"{x['name']} (cart line {x['cart_item_id']}) or one of its options is no longer "
                            "available; remove it with update_cart_item(quantity=0) first.")
    subtotal = sum(x["line_total_cents"] for x in lines)
    if subtotal < r["min_order_cents"]:
        raise ToolError(f"{r['name']} has a minimum order of {_money(r['min_order_cents'])}; the cart comes to "
                        f"{_money(subtotal)}.")
    promo = None
    if cart["promo_code_id"]:
        promo = db.one("SELECT * FROM promo_codes WHERE id = ?", (cart["promo_code_id"],))
        _check_promo(db, promo, c["id"], r["id"], subtotal)
    fee = d["delivery_fee_cents"]
    discount = _discount(promo, subtotal, fee)
    due = subtotal + fee - discount
    credit = min(c["credit_cents"], due) if use_credit else 0
    now = _now(db)
    oid = db.insert("orders", {
        "customer_id": c["id"], "restaurant_id": r["id"], "address_id": a["id"], "zone_id": a["zone_id"],
        "status": "placed", "subtotal_cents": subtotal, "delivery_fee_cents": fee, "discount_cents": discount,
        "credit_used_cents": credit, "total_cents": due - credit, "promo_code_id": promo and promo["id"],
        "courier_id": None, "note": note.strip(), "placed_at": now})
    for x in lines:
        db.insert("order_items", {"order_id": oid, "item_id": x["item_id"], "item_name": x["name"],
                                  "options_text": ", ".join(x["options"]), "quantity": x["quantity"],
                                  "unit_price_cents": x["unit_price_cents"]})
    _credit(db, c["id"], oid, "redeemed", -credit)
    _empty_cart(db, cart["id"])
    return {"order_id": oid, "status": "placed", "restaurant": r["name"], "subtotal_cents": subtotal,
            "delivery_fee_cents": fee, "discount_cents": discount, "credit_used_cents": credit,
            "total_cents": due - credit, "eta_minutes": d["eta_minutes"] + r["prep_minutes"]}


@tool(write=True)
def cancel_order(db: Db, customer_email: str, order_id: int, reason: CancelReason) -> dict:
    """Cancel one of the customer's orders. Only possible while it is placed or accepted: once the kitchen is
    preparing it, it can no longer be cancelled. App credit used on the order is given back and an assigned
    courier is released.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        order_id: the order's id.
        reason: why the order is cancelled.
    """
    c = _customer(db, customer_email)
    o = _own_order(db, c, order_id)
    if o["status"] not in CANCELLABLE:
        if o["status"] == "cancelled":
            raise ToolError(f"Order #{order_id} is already cancelled.")
        raise ToolError(f"Order #{order_id} is {o['status']}; orders can only be cancelled before the restaurant starts "
                        "preparing them. Open a support ticket instead.")
    db.execute("UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (_now(db), reason, o["id"]))
    _credit(db, c["id"], o["id"], "restored", o["credit_used_cents"])
    if o["courier_id"]:
        db.execute("UPDATE couriers SET status = 'available' WHERE id = ? AND status = 'on_delivery'", (o["courier_id"],))
    return {"order_id": o["id"], "status": "cancelled", "credit_restored_cents": o["credit_used_cents"]}


@tool(write=True)
def rate_order(db: Db, customer_email: str, order_id: int, food_stars: int, delivery_stars: int,
               comment: str = "") -> dict:
    """Rate one of the customer's delivered orders: food and delivery, 1 to 5 stars each. An order can be rated
    once, within 14 days of delivery.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        order_id: the order's id.
        food_stars: stars for the food, 1 to 5.
        delivery_stars: stars for the delivery, 1 to 5.
        comment: optional words for the restaurant.
    """
    c = _customer(db, customer_email)
    o = _own_order(db, c, order_id)
    for v, what in ((food_stars, "food_stars"), (delivery_stars, "delivery_stars")):
        if not 1 <= v <= 5:
            raise ToolError(f"{what} must be between 1 and 5 (got {v}).")
    if o["status"] != "delivered":
        raise ToolError(f"Order #{order_id} is {o['status']}; only delivered orders can be rated.")
    db.none("SELECT 1 FROM ratings WHERE order_id = ?", (o["id"],),
            found=f"Order #{order_id} has already been rated; a rating cannot be changed.")
    if datetime.fromisoformat(o["delivered_at"]) < db.now() - timedelta(days=RATING_WINDOW_DAYS):
        raise ToolError(f"Order #{order_id} was delivered more than {RATING_WINDOW_DAYS} days ago and can no longer be "
                        "rated.")
    rid = db.insert("ratings", {"order_id": o["id"], "customer_id": c["id"], "food_stars": food_stars,
                                "delivery_stars": delivery_stars, "comment": comment.strip(), "created_at": _now(db)})
    return {"rating_id": rid, "order_id": o["id"], "food_stars": food_stars, "delivery_stars": delivery_stars}


@tool(write=True)
def report_missing_item(db: Db, customer_email: str, order_id: int, order_item_id: int, quantity: int = 1,
                        reason: RefundReason = "missing_item") -> dict:
    """Refund items of a delivered order that were missing, wrong or damaged, as app credit (quantity x the
    line's unit price). Allowed within 48 hours of delivery, for at most the quantity ordered minus what was
    already refunded on that line.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        order_id: the order's id.
        order_item_id: the order line's id (get_order shows it).
        quantity: how many of that line to refund.
        reason: what was wrong: missing_item, wrong_item or damaged.
    """
    c = _customer(db, customer_email)
    o = _own_order(db, c, order_id)
    if o["status"] != "delivered":
        raise ToolError(f"Order #{order_id} is {o['status']}; only delivered orders can get item refunds.")
    if datetime.fromisoformat(o["delivered_at"]) < db.now() - timedelta(hours=REFUND_WINDOW_HOURS):
        raise ToolError(f"Order #{order_id} was delivered more than {REFUND_WINDOW_HOURS} hours ago; item refunds must "
                        "be reported within 48 hours. Open a support ticket instead.")
    line = db.one("SELECT * FROM order_items WHERE id = ?", (order_item_id,))
    if line is None or line["order_id"] != o["id"]:
        raise ToolError(f"Order line {order_item_id} is not part of order #{order_id}; get_order lists its lines.")
    done = db.value("SELECT COALESCE(SUM(quantity), 0) FROM refunds WHERE order_item_id = ?", (line["id"],))
    if quantity < 1 or quantity > line["quantity"] - done:
        raise ToolError(f"You can refund between 1 and {line['quantity'] - done} of {line['item_name']} on this order "
                        f"(ordered {line['quantity']}, already refunded {done}).")
    amount = quantity * line["unit_price_cents"]
    rid = db.insert("refunds", {"order_id": o["id"], "order_item_id": line["id"], "quantity": quantity,
                                "amount_cents": amount, "reason": reason, "created_at": _now(db)})
    _credit(db, c["id"], o["id"], "refund", amount)
    return {"refund_id": rid, "amount_cents": amount, "credit_balance_cents": c["credit_cents"] + amount}


@tool(write=True)
def open_support_ticket(db: Db, customer_email: str, category: TicketCategory, subject: str, message: str,
                        order_id: int | None = None) -> dict:
    """Open a support ticket for a customer, optionally about one of their orders. An order can have only one
    open ticket at a time.

    Args:
        customer_email: the customer's e-mail address (the customer acting).
        category: what the ticket is about.
        subject: a short title, 3 to 200 characters.
        message: the customer's description of the problem.
        order_id: the order concerned, if any.
    """
    c = _customer(db, customer_email)
    subject, message = subject.strip(), message.strip()
    if not 3 <= len(subject) <= 200:
        raise ToolError("subject must be 3 to 200 characters long.")
    if not message:
        raise ToolError("message must not be empty.")
    if order_id is not None:
        o = _own_order(db, c, order_id)
        t = db.value("SELECT id FROM support_tickets WHERE order_id = ? AND status = 'open'", (o["id"],))
        if t:
            raise ToolError(f"Order #{order_id} already has an open support ticket (#{t}); it is being handled.")
    tid = db.insert("support_tickets", {"customer_id": c["id"], "order_id": order_id, "category": category,
                                        "subject": subject, "message": message, "status": "open",
                                        "created_at": _now(db), "resolved_at": None})
    return {"ticket_id": tid, "status": "open"}


# ----------------------------------------------------------------------------------------------
# write tools: restaurant and courier side
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def accept_order(db: Db, restaurant_id: int, order_id: int) -> dict:
    """The restaurant accepts a newly placed order (placed -> accepted).

    Args:
        restaurant_id: the id of the restaurant acting; it must be the order's restaurant.
        order_id: the order's id.
    """
    o = _restaurant_order(db, restaurant_id, order_id)
    return _advance(db, o, "placed", "accepted",
                    f"Order #{order_id} is {o['status']}; only placed orders can be accepted.")


@tool(write=True)
def start_preparing(db: Db, restaurant_id: int, order_id: int) -> dict:
    """The kitchen starts preparing an accepted order (accepted -> preparing). From now on the customer can no
    longer cancel it.

    Args:
        restaurant_id: the id of the restaurant acting; it must be the order's restaurant.
        order_id: the order's id.
    """
    o = _restaurant_order(db, restaurant_id, order_id)
    return _advance(db, o, "accepted", "preparing", f"Order #{order_id} is {o['status']}; only accepted orders "
                    "can move to preparing (accept a placed order first).")


@tool(write=True)
def assign_courier(db: Db, restaurant_id: int, order_id: int, courier_id: int) -> dict:
    """The restaurant hands an accepted or preparing order to a courier. The courier must be available (not
    offline, not carrying another order) and work in the restaurant's zone; an order has one courier.

    Args:
        restaurant_id: the id of the restaurant acting; it must be the order's restaurant.
        order_id: the order's id.
        courier_id: the courier's id (list_couriers with the restaurant's zone and status available).
    """
    o = _restaurant_order(db, restaurant_id, order_id)
    if o["status"] not in ("accepted", "preparing"):
        raise ToolError(f"Order #{order_id} is {o['status']}; couriers are assigned to accepted or preparing orders.")
    if o["courier_id"]:
        raise ToolError(f"Order #{order_id} already has a courier (id {o['courier_id']}).")
    k = _courier(db, courier_id)
    if k["status"] != "available":
        raise ToolError(f"{k['full_name']} is {k['status']}; choose an available courier.")
    if k["zone_id"] != o["restaurant_zone_id"]:
        zone = db.value("SELECT name FROM zones WHERE id = ?", (o["restaurant_zone_id"],))
        raise ToolError(f"{k['full_name']} works in {k['zone_name']}, but the restaurant is in {zone}; choose a "
                        f"courier of {zone}.")
    db.execute("UPDATE orders SET courier_id = ? WHERE id = ?", (k["id"], o["id"]))
    db.execute("UPDATE couriers SET status = 'on_delivery' WHERE id = ?", (k["id"],))
    return {"order_id": o["id"], "courier": k["full_name"], "courier_id": k["id"]}


@tool(write=True)
def mark_picked_up(db: Db, courier_id: int, order_id: int) -> dict:
    """The assigned courier collects a prepared order from the restaurant (preparing -> picked_up).

    Args:
        courier_id: the id of the courier acting; they must be the order's courier.
        order_id: the order's id.
    """
    _, o = _courier_order(db, courier_id, order_id, "pick it up")
    return _advance(db, o, "preparing", "picked_up",
                    f"Order #{order_id} is {o['status']}; an order is picked up once the kitchen is preparing it.")


@tool(write=True)
def mark_delivered(db: Db, courier_id: int, order_id: int) -> dict:
    """The courier hands a picked-up order to the customer (picked_up -> delivered). The courier becomes
    available again and the customer earns loyalty credit (5% of the subtotal, rounded down).

    Args:
        courier_id: the id of the courier acting; they must be the order's courier.
        order_id: the order's id.
    """
    k, o = _courier_order(db, courier_id, order_id, "deliver it")
    out = _advance(db, o, "picked_up", "delivered",
                   f"Order #{order_id} is {o['status']}; only picked-up orders can be delivered.")
    db.execute("UPDATE couriers SET status = 'available' WHERE id = ?", (k["id"],))
    earned = o["subtotal_cents"] * LOYALTY_PERCENT // 100
    _credit(db, o["customer_id"], o["id"], "loyalty", earned)
    out["loyalty_credit_cents"] = earned
    return out


@tool(write=True)
def set_item_availability(db: Db, restaurant_id: int, item_id: int, available: bool) -> dict:
    """The restaurant marks one of its menu items available or sold out.

    Args:
        restaurant_id: the id of the restaurant acting; it must own the item.
        item_id: the menu item's id.
        available: true to offer it again, false when it is sold out.
    """
    _restaurant(db, restaurant_id)
    m = db.one("SELECT * FROM menu_items WHERE id = ?", (item_id,))
    if m is None or m["restaurant_id"] != restaurant_id:
        raise ToolError(f"Item {item_id} is not on this restaurant's menu; get_menu lists its items.")
    if bool(m["is_available"]) == available:
        raise ToolError(f"{m['name']} is already {'available' if available else 'unavailable'}.")
    db.execute("UPDATE menu_items SET is_available = ? WHERE id = ?", (1 if available else 0, m["id"]))
    return {"item_id": m["id"], "name": m["name"], "available": available}
