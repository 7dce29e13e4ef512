"""Tools of the online store: catalogue, customers, carts, checkout, orders, shipping, returns,
refunds, reviews and inventory.

Money is integer cents. Pricing rules (shared by preview_checkout and checkout):
  * discount: 'percent' coupons take round-half-up(subtotal * value / 100); 'fixed' coupons take
    min(value, subtotal); 'free_shipping' coupons waive the shipping fee.
  * tax: round-half-up((subtotal - discount) * rate_bp / 10000), rate from the ship-to state.
  * shipping: the method's price, free when (subtotal - discount) >= its free_over_cents.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any, Literal

from awm.tooling import Db, ToolError, check_limit, filters, like_any, now_iso, require_owner, tool

RETURN_WINDOW_DAYS = 30
MAX_LIMIT = 50
_EMAIL = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_ZIP = re.compile(r"^\d{5}$")
_TRACKING = {
    "UPS": (re.compile(r"^1Z[A-Z0-9]{16}$"), "1Z followed by 16 letters/digits"),
    "FedEx": (re.compile(r"^\d{12}$"), "12 digits"),
    "USPS": (re.compile(r"^\d{20,22}$"), "20 to 22 digits"),
    "DHL": (re.compile(r"^\d{10}$"), "10 digits"),
}


# ---------------------------------------------------------------------------------------------
# helpers (not tools); the world builder prices its history with the same ones (ctx.tools)
# ---------------------------------------------------------------------------------------------

def _div_round(num: int, den: int) -> int:
    """Round-half-up of num / den for non-negative integers."""
    if den <= 0:
        return 0
    return (2 * num + den) // (2 * den)


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _parse_day(value: str, field: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise ToolError(f"{field} must be an ISO date like 2026-02-01; got {value!r}") from None


def _customer(db: Db, customer_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM customers WHERE id = ?", (customer_id,),
                  missing=f"No customer with id {customer_id}. Use find_customers to look up the id by name or email.")


def _active_customer(db: Db, customer_id: int) -> dict[str, Any]:
    row = _customer(db, customer_id)
    if row["status"] != "active":
        raise ToolError(f"Customer {customer_id} ({row['email']}) is {row['status']}; their account cannot shop "
                        "until it is reactivated by the trust & safety team.")
    return row


def _variant(db: Db, sku: str) -> dict[str, Any]:
    return db.one(
        "SELECT v.*, p.name AS product_name, p.status AS product_status FROM product_variants v "
        "JOIN products p ON p.id = v.product_id WHERE v.sku = ? COLLATE NOCASE", (sku.strip(),),
        missing=f"No variant with SKU {sku!r}. Use get_product or search_products to see the SKUs.")


def _order(db: Db, order_number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM orders WHERE order_number = ? COLLATE NOCASE", (order_number.strip(),),
                  missing=f"No order {order_number!r}. Order numbers look like SO-10012; use list_orders to find them.")


def _address(db: Db, address_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM addresses WHERE id = ?", (address_id,),
                  missing=f"No address with id {address_id}. Use list_addresses to see a customer's addresses.")


def _coupon(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM coupons WHERE code = ? COLLATE NOCASE", (code.strip(),),
                  missing=f"No coupon with code {code!r}. Check the spelling with the customer.")


def _check_product(db: Db, product_id: int) -> None:
    db.one("SELECT id FROM products WHERE id = ?", (product_id,),
           missing=f"No product with id {product_id}; use search_products to find it.")


def _category_id(db: Db, category: str | None) -> int | None:
    """The id of a category slug (None for no category filter)."""
    if category is None:
        return None
    return db.one("SELECT id FROM categories WHERE slug = ? COLLATE NOCASE", (category.strip(),),
                  missing=f"Unknown category {category!r}; use list_categories to see the slugs.")["id"]


def _ship_to(address: dict[str, Any]) -> str:
    parts = [address["recipient"], address["line1"]]
    if address["line2"]:
        parts.append(address["line2"])
    parts.append(f"{address['city']}, {address['state']} {address['postal_code']}")
    return ", ".join(parts)


def _event(db: Db, order_id: int, event_type: str, detail: str) -> None:
    db.insert("order_events", {"order_id": order_id, "event_type": event_type, "detail": detail,
                               "created_at": now_iso(db)})


def _log_movement(db: Db, variant_id: int, change: int, reason: str, note: str | None = None,
                  order_id: int | None = None, return_id: int | None = None) -> None:
    db.insert("inventory_movements", {"variant_id": variant_id, "quantity_change": change, "reason": reason,
                                      "order_id": order_id, "return_id": return_id, "note": note,
                                      "created_at": now_iso(db)})


def _move_stock(db: Db, variant_id: int, change: int, reason: str, note: str | None = None,
                order_id: int | None = None, return_id: int | None = None) -> None:
    """Add ``change`` units to a variant's stock and write the matching inventory movement."""
    db.execute("UPDATE product_variants SET stock = stock + ? WHERE id = ?", (change, variant_id))
    _log_movement(db, variant_id, change, reason, note, order_id, return_id)


def _open_cart(db: Db, customer_id: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM carts WHERE customer_id = ? AND status = 'open'", (customer_id,))


def _cart_lines(db: Db, cart_id: int) -> list[dict[str, Any]]:
    return db.query(
        "SELECT ci.variant_id, v.sku, p.name AS product_name, v.option_label, ci.quantity, v.price_cents "
        "AS unit_price_cents, ci.quantity * v.price_cents AS line_total_cents, v.stock, v.active, "
        "p.status AS product_status FROM cart_items ci JOIN product_variants v ON v.id = ci.variant_id "
        "JOIN products p ON p.id = v.product_id WHERE ci.cart_id = ? ORDER BY ci.id", (cart_id,))


def _prior_orders(db: Db, customer_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM orders WHERE customer_id = ? AND status <> 'cancelled'", (customer_id,))


def _coupon_problem(db: Db, coupon: dict[str, Any], customer_id: int | None, subtotal: int | None) -> str | None:
    """Why a coupon cannot be used now, or None when it can."""
    today = db.today().isoformat()
    if not coupon["active"]:
        return f"coupon {coupon['code']} is not active"
    if today < coupon["valid_from"]:
        return f"coupon {coupon['code']} is only valid from {coupon['valid_from']}"
    if today > coupon["valid_until"]:
        return f"coupon {coupon['code']} expired on {coupon['valid_until']}"
    if coupon["max_uses"] is not None and coupon["times_used"] >= coupon["max_uses"]:
        return f"coupon {coupon['code']} has reached its limit of {coupon['max_uses']} uses"
    if coupon["first_order_only"] and customer_id is not None and _prior_orders(db, customer_id) > 0:
        return f"coupon {coupon['code']} is for a customer's first order only and this customer has ordered before"
    if subtotal is not None and subtotal < coupon["min_subtotal_cents"]:
        return (f"coupon {coupon['code']} needs a subtotal of at least {_dollars(coupon['min_subtotal_cents'])}; "
                f"the subtotal is {_dollars(subtotal)}")
    return None


def _discount(coupon: dict[str, Any] | None, subtotal: int) -> int:
    if coupon is None:
        return 0
    if coupon["discount_type"] == "percent":
        return _div_round(subtotal * coupon["discount_value"], 100)
    if coupon["discount_type"] == "fixed":
        return min(coupon["discount_value"], subtotal)
    return 0


def _tax(net: int, rate_bp: int) -> int:
    """Sales tax on ``net`` cents at ``rate_bp`` basis points, rounded half up."""
    return _div_round(net * rate_bp, 10000)


def _shipping_fee(method: dict[str, Any], coupon: dict[str, Any] | None, net: int) -> int:
    """The method's price; nothing with a free-shipping coupon or when ``net`` reaches its free_over_cents."""
    waived = coupon is not None and coupon["discount_type"] == "free_shipping"
    free_over = method["free_over_cents"]
    return 0 if waived or (free_over is not None and net >= free_over) else method["price_cents"]


def _tax_rate(db: Db, state: str) -> int:
    row = db.one("SELECT rate_bp FROM tax_rates WHERE state = ?", (state,),
                 missing=f"We do not ship to state {state!r}. Use list_tax_rates to see the states we serve.")
    return row["rate_bp"]


def _quote(db: Db, customer_id: int, cart: dict[str, Any], address: dict[str, Any] | None,
           shipping_method: str | None) -> dict[str, Any]:
    """Price a cart. Returns lines, amounts, the coupon, and a list of problems blocking checkout."""
    lines = _cart_lines(db, cart["id"])
    problems: list[str] = []
    subtotal = sum(line["line_total_cents"] for line in lines)
    for line in lines:
        if not line["active"] or line["product_status"] != "active":
            problems.append(f"{line['sku']} is no longer sold; remove it from the cart")
        elif line["quantity"] > line["stock"]:
            problems.append(f"{line['sku']}: {line['quantity']} in cart but only {line['stock']} in stock")
    coupon = None
    if cart["coupon_id"] is not None:
        coupon = db.one("SELECT * FROM coupons WHERE id = ?", (cart["coupon_id"],))
        why = _coupon_problem(db, coupon, customer_id, subtotal)
        if why:
            problems.append(why + "; remove it with remove_coupon")
    discount = _discount(coupon, subtotal)
    net = subtotal - discount
    out: dict[str, Any] = {
        "cart_id": cart["id"],
        "lines": [{k: line[k] for k in ("sku", "product_name", "option_label", "quantity", "unit_price_cents",
                                       "line_total_cents", "stock")} for line in lines],
        "coupon": coupon["code"] if coupon else None,
        "subtotal_cents": subtotal,
        "discount_cents": discount,
    }
    if address is not None and shipping_method is not None:
        method = db.one("SELECT * FROM shipping_methods WHERE code = ?", (shipping_method,),
                        missing=f"Unknown shipping method {shipping_method!r}; use list_shipping_methods.")
        rate = _tax_rate(db, address["state"])
        tax = _tax(net, rate)
        ship = _shipping_fee(method, coupon, net)
        out.update({"tax_rate_bp": rate, "tax_cents": tax, "shipping_method": shipping_method,
                    "shipping_cents": ship, "total_cents": net + tax + ship})
    if not lines:
        problems.append("the cart is empty")
    out["problems"] = problems
    return out


def _checkout_cart(db: Db, customer_id: int, address_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ship-to address (one of the customer's) and the open cart a checkout prices."""
    a = _address(db, address_id)
    require_owner(a, "customer_id", customer_id,
                  f"Address {address_id} belongs to another customer; use list_addresses({customer_id}).")
    cart = _open_cart(db, customer_id)
    if cart is None:
        raise ToolError("This customer has no open cart; add items with add_to_cart first.")
    return a, cart


def _cart_view(db: Db, customer_id: int) -> dict[str, Any]:
    cart = _open_cart(db, customer_id)
    if cart is None:
        return {"customer_id": customer_id, "cart_id": None, "lines": [], "subtotal_cents": 0}
    q = _quote(db, customer_id, cart, None, None)
    q["customer_id"] = customer_id
    return q


def _touch_cart(db: Db, cart_id: int) -> None:
    db.execute("UPDATE carts SET updated_at = ? WHERE id = ?", (now_iso(db), cart_id))


def _payment(db: Db, order_id: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM payments WHERE order_id = ? AND status <> 'failed' ORDER BY id LIMIT 1", (order_id,))


def _refund_payment(db: Db, order: dict[str, Any], payment: dict[str, Any], amount: int, reason: str,
                    return_id: int | None) -> int:
    """Record a refund against a payment and update the payment (and gift-card balance)."""
    refunded = payment["refunded_cents"] + amount
    status = "refunded" if refunded >= payment["amount_cents"] else "partially_refunded"
    db.execute("UPDATE payments SET refunded_cents = ?, status = ? WHERE id = ?", (refunded, status, payment["id"]))
    if payment["method"] == "gift_card":
        db.execute("UPDATE customers SET gift_card_balance_cents = gift_card_balance_cents + ? WHERE id = ?",
                   (amount, order["customer_id"]))
    return db.insert("refunds", {"order_id": order["id"], "payment_id": payment["id"], "return_id": return_id,
                                 "amount_cents": amount, "reason": reason, "created_at": now_iso(db)})


def _return_value(order: dict[str, Any], unit_price: int, quantity: int) -> int:
    """What returning `quantity` units is worth: their share of the discounted price plus tax (no shipping)."""
    gross = unit_price * quantity
    share = _div_round(order["discount_cents"] * gross, order["subtotal_cents"]) if order["subtotal_cents"] else 0
    net = gross - share
    taxable = order["subtotal_cents"] - order["discount_cents"]
    tax = _div_round(net * order["tax_cents"], taxable) if taxable > 0 else 0
    return net + tax


def _return_row(db: Db, rma_number: str) -> dict[str, Any]:
    return db.one(
        "SELECT r.*, o.order_number, oi.variant_id, oi.unit_price_cents, v.sku FROM returns r "
        "JOIN orders o ON o.id = r.order_id JOIN order_items oi ON oi.id = r.order_item_id "
        "JOIN product_variants v ON v.id = oi.variant_id WHERE r.rma_number = ? COLLATE NOCASE", (rma_number.strip(),),
        missing=f"No return {rma_number!r}. RMA numbers look like RMA-5003; use list_returns to find them.")


def _delivered_at(db: Db, order_id: int) -> str | None:
    return db.value("SELECT MAX(delivered_at) FROM shipments WHERE order_id = ? AND status = 'delivered'", (order_id,))


def _rating_summary(db: Db, product_id: int) -> dict[str, Any]:
    row = db.one("SELECT COUNT(*) AS n, AVG(rating) AS avg FROM reviews WHERE product_id = ? AND status = 'published'",
                 (product_id,))
    return {"published_reviews": row["n"], "average_rating": round(row["avg"], 2) if row["avg"] is not None else None}


# ---------------------------------------------------------------------------------------------
# catalogue (read)
# ---------------------------------------------------------------------------------------------

@tool
def list_categories(db: Db) -> list[dict]:
    """List every catalogue category with its parent and the number of active products in it.

    Args:
    """
    return db.query(
        "SELECT c.id, c.slug, c.name, p.slug AS parent_slug, c.description, "
        "(SELECT COUNT(*) FROM products pr WHERE pr.category_id = c.id AND pr.status = 'active') AS active_products "
        "FROM categories c LEFT JOIN categories p ON p.id = c.parent_id ORDER BY COALESCE(c.parent_id, c.id), c.id")


@tool
def search_products(db: Db, query: str = "", category: str | None = None, max_price_cents: int | None = None,
                    in_stock_only: bool = False, include_discontinued: bool = False, limit: int = 20) -> list[dict]:
    """Search the catalogue by words in a product's name, brand or description.
    Every word of the query must appear (case-insensitive). Results show the price range, total stock
    across variants and the average rating of published reviews.

    Args:
        query: words to look for, e.g. "water bottle"; empty lists everything (subject to the filters).
        category: a category slug such as "kitchen" or "camping"; sub-categories are included.
        max_price_cents: only products with at least one variant at or below this price, in cents.
        in_stock_only: only products with at least one active variant in stock.
        include_discontinued: also show discontinued products.
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    cat_id = _category_id(db, category)
    rows = db.query(
        "SELECT p.id, p.name, p.brand, p.description, p.status, c.slug AS category, "
        "MIN(v.price_cents) AS min_price_cents, MAX(v.price_cents) AS max_price_cents, "
        "SUM(CASE WHEN v.active = 1 THEN v.stock ELSE 0 END) AS total_stock, COUNT(v.id) AS variants "
        "FROM products p JOIN categories c ON c.id = p.category_id "
        "LEFT JOIN product_variants v ON v.product_id = p.id "
        "WHERE (? IS NULL OR c.id = ? OR c.parent_id = ?) AND (? = 1 OR p.status = 'active') "
        "GROUP BY p.id ORDER BY p.name",
        (cat_id, cat_id, cat_id, 1 if include_discontinued else 0))
    words = [w.lower() for w in re.findall(r"[\w'&-]+", query)]
    if query.strip() and not words:
        return []  # only signs ("%", "*"): they are looked for, not wildcards, and no product has them alone
    out = []
    for r in rows:
        hay = f"{r['name']} {r['brand']} {r['description']}".lower()
        if any(w not in hay for w in words):
            continue
        if max_price_cents is not None and (r["min_price_cents"] is None or r["min_price_cents"] > max_price_cents):
            continue
        if in_stock_only and not r["total_stock"]:
            continue
        r.pop("description")
        r.update(_rating_summary(db, r["id"]))
        out.append(r)
        if len(out) >= limit:
            break
    return out


@tool
def get_product(db: Db, product_id: int) -> dict:
    """Show one product: description, category, every variant (SKU, option, price, stock) and its rating.
    The rating summary counts published reviews only.

    Args:
        product_id: the product's id (from search_products).
    """
    p = db.one("SELECT p.*, c.slug AS category, c.name AS category_name, pc.slug AS parent_category "
               "FROM products p JOIN categories c ON c.id = p.category_id "
               "LEFT JOIN categories pc ON pc.id = c.parent_id WHERE p.id = ?", (product_id,),
               missing=f"No product with id {product_id}; use search_products to find it.")
    p["variants"] = db.query(
        "SELECT sku, option_label, price_cents, stock, weight_grams, active, "
        "CASE WHEN active = 1 AND stock > 0 THEN 'in_stock' WHEN active = 1 THEN 'out_of_stock' ELSE 'inactive' END "
        "AS availability FROM product_variants WHERE product_id = ? ORDER BY id", (product_id,))
    p.update(_rating_summary(db, product_id))
    return p


@tool
def get_variant(db: Db, sku: str) -> dict:
    """Look up one variant by SKU: its product, option, price, stock and units held in open carts.

    Args:
        sku: the variant SKU, e.g. "NB-LIN-WHT-M".
    """
    v = _variant(db, sku)
    in_carts = db.value("SELECT COALESCE(SUM(ci.quantity), 0) FROM cart_items ci JOIN carts c ON c.id = ci.cart_id "
                        "WHERE c.status = 'open' AND ci.variant_id = ?", (v["id"],))
    return {"sku": v["sku"], "product_id": v["product_id"], "product_name": v["product_name"],
            "product_status": v["product_status"], "option_label": v["option_label"], "price_cents": v["price_cents"],
            "stock": v["stock"], "active": v["active"], "weight_grams": v["weight_grams"],
            "units_in_open_carts": in_carts}


@tool
def list_low_stock(db: Db, threshold: int = 5, category: str | None = None, limit: int = 20) -> list[dict]:
    """List active variants whose stock is strictly below a threshold, lowest stock first.

    Args:
        threshold: list variants with stock below this number (default 5).
        category: only this category slug (sub-categories included), e.g. "camping".
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    if threshold < 1:
        raise ToolError("threshold must be at least 1")
    cat_id = _category_id(db, category)
    return db.query(
        "SELECT v.sku, p.name AS product_name, v.option_label, v.stock, c.slug AS category "
        "FROM product_variants v JOIN products p ON p.id = v.product_id JOIN categories c ON c.id = p.category_id "
        "WHERE v.active = 1 AND p.status = 'active' AND v.stock < ? AND (? IS NULL OR c.id = ? OR c.parent_id = ?) "
        "ORDER BY v.stock, v.sku LIMIT ?", (threshold, cat_id, cat_id, cat_id, limit))


@tool
def list_inventory_movements(db: Db, sku: str, reason: Literal["initial", "restock", "sale", "cancellation", "return",
                                                               "adjustment"] | None = None,
                             since: str | None = None, limit: int = 20) -> dict:
    """Show the stock ledger of one variant (newest first): sales, cancellations, returns, restocks.

    Args:
        sku: the variant SKU.
        reason: only movements of this kind.
        since: only movements on or after this ISO date, e.g. "2026-02-01".
        limit: maximum number of movements, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    v = _variant(db, sku)
    day = _parse_day(since, "since") if since else None
    where, params = filters(("m.reason = ?", reason), ("m.created_at >= ?", day))
    rows = db.query(
        "SELECT m.id, m.quantity_change, m.reason, o.order_number, r.rma_number, m.note, m.created_at "
        "FROM inventory_movements m LEFT JOIN orders o ON o.id = m.order_id LEFT JOIN returns r ON r.id = m.return_id "
        f"WHERE m.variant_id = ? AND {where} ORDER BY m.created_at DESC, m.id DESC LIMIT ?", (v["id"], *params, limit))
    return {"sku": v["sku"], "current_stock": v["stock"], "movements": rows}


@tool
def list_product_reviews(db: Db, product_id: int, min_rating: int | None = None, include_hidden: bool = False,
                         limit: int = 20) -> dict:
    """List a product's reviews (newest first) with the published-review rating summary.

    Args:
        product_id: the product's id.
        min_rating: only reviews with at least this many stars (1-5).
        include_hidden: also list reviews hidden by moderation (they never count in the average).
        limit: maximum number of reviews, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    _check_product(db, product_id)
    if min_rating is not None and not 1 <= min_rating <= 5:
        raise ToolError("min_rating must be between 1 and 5")
    where, params = filters(("r.rating >= ?", min_rating))
    rows = db.query(
        "SELECT r.id, r.rating, r.title, r.body, r.verified_purchase, r.status, r.moderation_note, r.created_at, "
        "cu.first_name || ' ' || substr(cu.last_name, 1, 1) || '.' AS reviewer, r.customer_id "
        "FROM reviews r JOIN customers cu ON cu.id = r.customer_id WHERE r.product_id = ? "
        f"AND (? = 1 OR r.status = 'published') AND {where} "
        "ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
        (product_id, 1 if include_hidden else 0, *params, limit))
    out = {"product_id": product_id, "reviews": rows}
    out.update(_rating_summary(db, product_id))
    return out


@tool
def list_shipping_methods(db: Db) -> list[dict]:
    """List the shipping methods with their price, free-shipping threshold and transit time.

    Args:
    """
    return db.query("SELECT code, name, price_cents, free_over_cents, transit_days FROM shipping_methods "
                    "ORDER BY price_cents")


@tool
def list_tax_rates(db: Db) -> list[dict]:
    """List the states we ship to and their sales-tax rate (basis points: 725 = 7.25 %).

    Args:
    """
    return db.query("SELECT state, state_name, rate_bp FROM tax_rates ORDER BY state")


@tool
def get_coupon(db: Db, code: str, customer_id: int | None = None, subtotal_cents: int | None = None) -> dict:
    """Show a coupon's terms and whether it can be used today.
    Pass a customer and/or subtotal to also check first-order and minimum-subtotal rules.

    Args:
        code: the coupon code, e.g. "SPRING15".
        customer_id: optional customer who wants to use it.
        subtotal_cents: optional cart subtotal to test against the minimum.
    """
    c = _coupon(db, code)
    if customer_id is not None:
        _customer(db, customer_id)
    why = _coupon_problem(db, c, customer_id, subtotal_cents)
    out = {k: c[k] for k in ("code", "description", "discount_type", "discount_value", "min_subtotal_cents",
                             "first_order_only", "valid_from", "valid_until", "max_uses", "times_used", "active")}
    out["usable"] = why is None
    out["reason"] = why
    return out


# ---------------------------------------------------------------------------------------------
# customers
# ---------------------------------------------------------------------------------------------

@tool
def find_customers(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find customers by part of their name or email address.

    Args:
        query: a name ("Priya Raman", "raman") or email fragment ("priya.raman@").
        limit: maximum number of results, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    q = query.strip()
    if len(q) < 2:
        raise ToolError("query must have at least 2 characters")
    who, params = like_any(q, "email", "first_name || ' ' || last_name", "last_name")
    return db.query(
        f"SELECT id, first_name, last_name, email, phone, status FROM customers WHERE {who} "
        "ORDER BY last_name, first_name LIMIT ?", (*params, limit))


@tool
def get_customer(db: Db, customer_id: int) -> dict:
    """Show a customer's profile, addresses, order counts, lifetime spend and open cart summary.
    Lifetime spend sums the totals of orders that were not cancelled, minus refunds.

    Args:
        customer_id: the customer's id (from find_customers).
    """
    c = _customer(db, customer_id)
    c["addresses"] = db.query(
        "SELECT id, label, recipient, line1, line2, city, state, postal_code, is_default FROM addresses "
        "WHERE customer_id = ? ORDER BY is_default DESC, id", (customer_id,))
    c["orders_by_status"] = {r["status"]: r["n"] for r in db.query(
        "SELECT status, COUNT(*) AS n FROM orders WHERE customer_id = ? GROUP BY status", (customer_id,))}
    spent = db.value("SELECT COALESCE(SUM(total_cents), 0) FROM orders WHERE customer_id = ? AND status <> 'cancelled'",
                     (customer_id,))
    refunded = db.value("SELECT COALESCE(SUM(r.amount_cents), 0) FROM refunds r JOIN orders o ON o.id = r.order_id "
                        "WHERE o.customer_id = ? AND o.status <> 'cancelled'", (customer_id,))
    c["lifetime_spend_cents"] = spent - refunded
    cart = _open_cart(db, customer_id)
    c["open_cart"] = None if cart is None else {
        "cart_id": cart["id"],
        "items": db.value("SELECT COALESCE(SUM(quantity), 0) FROM cart_items WHERE cart_id = ?", (cart["id"],))}
    return c


@tool
def list_addresses(db: Db, customer_id: int) -> list[dict]:
    """List a customer's saved addresses, default first.

    Args:
        customer_id: the customer's id.
    """
    _customer(db, customer_id)
    return db.query("SELECT id, label, recipient, line1, line2, city, state, postal_code, country, is_default "
                    "FROM addresses WHERE customer_id = ? ORDER BY is_default DESC, id", (customer_id,))


@tool(write=True)
def add_address(db: Db, customer_id: int, label: str, line1: str, city: str, state: str, postal_code: str,
                line2: str | None = None, recipient: str | None = None, make_default: bool = False) -> dict:
    """Save a new shipping address for a customer.

    Args:
        customer_id: the customer's id.
        label: a short name for the address, e.g. "Home", "Office".
        line1: street address, e.g. "500 Market St".
        city: city name.
        state: two-letter US state code; must be a state we ship to (see list_tax_rates).
        postal_code: 5-digit ZIP code.
        line2: apartment, suite or floor, if any.
        recipient: name on the parcel; defaults to the customer's full name.
        make_default: make this the customer's default address.
    """
    c = _customer(db, customer_id)
    state = state.strip().upper()
    _tax_rate(db, state)
    if not _ZIP.match(postal_code.strip()):
        raise ToolError(f"postal_code must be a 5-digit ZIP code; got {postal_code!r}")
    if not label.strip() or not line1.strip() or not city.strip():
        raise ToolError("label, line1 and city must not be empty")
    dup = db.value("SELECT id FROM addresses WHERE customer_id = ? AND lower(line1) = lower(?) AND postal_code = ? "
                   "AND COALESCE(lower(line2), '') = COALESCE(lower(?), '')",
                   (customer_id, line1.strip(), postal_code.strip(), (line2 or "").strip() or None))
    if dup is not None:
        raise ToolError(f"This address is already saved as address {dup}; use update_address to change it.")
    now = now_iso(db)
    if make_default:
        db.execute("UPDATE addresses SET is_default = 0, updated_at = ? WHERE customer_id = ? AND is_default = 1",
                   (now, customer_id))
    has_default = db.value("SELECT COUNT(*) FROM addresses WHERE customer_id = ? AND is_default = 1", (customer_id,))
    new_id = db.insert("addresses", {
        "customer_id": customer_id, "label": label.strip(),
        "recipient": (recipient or f"{c['first_name']} {c['last_name']}").strip(),
        "line1": line1.strip(), "line2": (line2 or "").strip() or None, "city": city.strip(), "state": state,
        "postal_code": postal_code.strip(), "country": "US",
        "is_default": 1 if (make_default or not has_default) else 0,
        "created_at": now, "updated_at": now})
    return db.one("SELECT * FROM addresses WHERE id = ?", (new_id,))


@tool(write=True)
def update_address(db: Db, address_id: int, label: str | None = None, recipient: str | None = None,
                   line1: str | None = None, line2: str | None = None, city: str | None = None,
                   state: str | None = None, postal_code: str | None = None) -> dict:
    """Change fields of a saved address; fields you leave out stay as they are.
    Orders already placed keep the address they were shipped to. An address used by an order that has
    not shipped yet cannot move to another state (the tax would change); cancel and re-order instead.

    Args:
        address_id: the address id (from list_addresses).
        label: new label, e.g. "Home".
        recipient: new name on the parcel.
        line1: new street address.
        line2: new apartment/suite line; pass an empty string to clear it.
        city: new city.
        state: new two-letter state code.
        postal_code: new 5-digit ZIP code.
    """
    a = _address(db, address_id)
    if all(v is None for v in (label, recipient, line1, line2, city, state, postal_code)):
        raise ToolError("Nothing to change: pass at least one field.")
    new = dict(a)
    for key, val in (("label", label), ("recipient", recipient), ("line1", line1), ("city", city)):
        if val is not None:
            if not val.strip():
                raise ToolError(f"{key} must not be empty")
            new[key] = val.strip()
    if line2 is not None:
        new["line2"] = line2.strip() or None
    if state is not None:
        new["state"] = state.strip().upper()
        _tax_rate(db, new["state"])
    if postal_code is not None:
        if not _ZIP.match(postal_code.strip()):
            raise ToolError(f"postal_code must be a 5-digit ZIP code; got {postal_code!r}")
        new["postal_code"] = postal_code.strip()
    if new["state"] != a["state"]:
        pending = db.value("SELECT order_number FROM orders WHERE address_id = ? AND status = 'paid' LIMIT 1",
                           (address_id,))
        if pending:
            raise ToolError(f"Order {pending} ships to this address and has not shipped; an address in another state "
                            "would change its tax. Add a new address instead (add_address).")
    db.execute("UPDATE addresses SET label = ?, recipient = ?, line1 = ?, line2 = ?, city = ?, state = ?, "
               "postal_code = ?, updated_at = ? WHERE id = ?",
               (new["label"], new["recipient"], new["line1"], new["line2"], new["city"], new["state"],
                new["postal_code"], now_iso(db), address_id))
    # Unshipped orders follow the address they point at: refresh their ship-to snapshot.
    fresh = _address(db, address_id)
    for o in db.query("SELECT id FROM orders WHERE address_id = ? AND status = 'paid'", (address_id,)):
        db.execute("UPDATE orders SET ship_to = ? WHERE id = ?", (_ship_to(fresh), o["id"]))
        _event(db, o["id"], "address_changed", "Saved address edited: " + _ship_to(fresh))
    return fresh


@tool(write=True)
def set_default_address(db: Db, address_id: int) -> dict:
    """Make an address its customer's default shipping address.

    Args:
        address_id: the address id.
    """
    a = _address(db, address_id)
    if a["is_default"]:
        raise ToolError(f"Address {address_id} is already the default.")
    now = now_iso(db)
    db.execute("UPDATE addresses SET is_default = 0, updated_at = ? WHERE customer_id = ? AND is_default = 1",
               (now, a["customer_id"]))
    db.execute("UPDATE addresses SET is_default = 1, updated_at = ? WHERE id = ?", (now, address_id))
    return {"address_id": address_id, "customer_id": a["customer_id"], "is_default": 1}


@tool(write=True)
def update_customer_contact(db: Db, customer_id: int, email: str | None = None, phone: str | None = None,
                            marketing_opt_in: bool | None = None) -> dict:
    """Change a customer's email, phone or marketing preference.

    Args:
        customer_id: the customer's id.
        email: new email address (must be unique).
        phone: new phone number, e.g. "+1-206-555-0134".
        marketing_opt_in: whether they want marketing emails.
    """
    c = _customer(db, customer_id)
    if email is None and phone is None and marketing_opt_in is None:
        raise ToolError("Nothing to change: pass email, phone or marketing_opt_in.")
    new_email = c["email"]
    if email is not None:
        new_email = email.strip().lower()
        if not _EMAIL.match(new_email):
            raise ToolError(f"{email!r} is not a valid email address")
        other = db.value("SELECT id FROM customers WHERE email = ? AND id <> ?", (new_email, customer_id))
        if other is not None:
            raise ToolError(f"{new_email} already belongs to customer {other}.")
    new_phone = c["phone"] if phone is None else phone.strip()
    if phone is not None and len(re.sub(r"\D", "", new_phone)) < 10:
        raise ToolError(f"{phone!r} does not look like a phone number (need at least 10 digits)")
    opt = c["marketing_opt_in"] if marketing_opt_in is None else int(marketing_opt_in)
    db.execute("UPDATE customers SET email = ?, phone = ?, marketing_opt_in = ? WHERE id = ?",
               (new_email, new_phone, opt, customer_id))
    return {"customer_id": customer_id, "email": new_email, "phone": new_phone, "marketing_opt_in": opt}


# ---------------------------------------------------------------------------------------------
# cart and checkout
# ---------------------------------------------------------------------------------------------

@tool
def view_cart(db: Db, customer_id: int) -> dict:
    """Show a customer's open cart: lines, stock, coupon, subtotal and discount, and any checkout problems.

    Args:
        customer_id: the customer's id.
    """
    _customer(db, customer_id)
    return _cart_view(db, customer_id)


@tool
def preview_checkout(db: Db, customer_id: int, address_id: int, shipping_method: str = "standard") -> dict:
    """Price the open cart for an address and shipping method without placing the order.
    Shows subtotal, discount, tax, shipping and total, plus any problems that would block checkout.

    Args:
        customer_id: the customer's id.
        address_id: one of the customer's address ids.
        shipping_method: "standard", "express" or "overnight".
    """
    _customer(db, customer_id)
    a, cart = _checkout_cart(db, customer_id, address_id)
    return _quote(db, customer_id, cart, a, shipping_method)


@tool(write=True)
def add_to_cart(db: Db, customer_id: int, sku: str, quantity: int = 1) -> dict:
    """Add units of a variant to the customer's open cart (creating the cart if needed).
    Fails when the product is not sold any more or when the cart would hold more than is in stock.

    Args:
        customer_id: the customer's id.
        sku: the variant SKU, e.g. "NB-LIN-WHT-M".
        quantity: units to add, 1 to 20.
    """
    _active_customer(db, customer_id)
    if not 1 <= quantity <= 20:
        raise ToolError("quantity must be between 1 and 20")
    v = _variant(db, sku)
    if not v["active"] or v["product_status"] != "active":
        raise ToolError(f"{v['sku']} ({v['product_name']}) is no longer sold.")
    cart = _open_cart(db, customer_id)
    now = now_iso(db)
    if cart is None:
        cart_id = db.insert("carts", {"customer_id": customer_id, "status": "open", "coupon_id": None,
                                      "created_at": now, "updated_at": now})
    else:
        cart_id = cart["id"]
    have = db.value("SELECT quantity FROM cart_items WHERE cart_id = ? AND variant_id = ?", (cart_id, v["id"])) or 0
    if v["stock"] == 0:
        raise ToolError(f"{v['sku']} ({v['product_name']}, {v['option_label']}) is out of stock; "
                        "suggest another variant or wait for a restock.")
    if have + quantity > v["stock"]:
        raise ToolError(f"Only {v['stock']} of {v['sku']} in stock and the cart already has {have}; "
                        f"add at most {max(v['stock'] - have, 0)}.")
    if have:
        db.execute("UPDATE cart_items SET quantity = ? WHERE cart_id = ? AND variant_id = ?",
                   (have + quantity, cart_id, v["id"]))
    else:
        db.insert("cart_items", {"cart_id": cart_id, "variant_id": v["id"], "quantity": quantity, "added_at": now})
    _touch_cart(db, cart_id)
    return _cart_view(db, customer_id)


@tool(write=True)
def update_cart_item(db: Db, customer_id: int, sku: str, quantity: int) -> dict:
    """Set the quantity of a variant already in the customer's open cart; 0 removes the line.

    Args:
        customer_id: the customer's id.
        sku: the variant SKU in the cart.
        quantity: the new quantity, 0 to 20.
    """
    _customer(db, customer_id)
    if not 0 <= quantity <= 20:
        raise ToolError("quantity must be between 0 and 20")
    v = _variant(db, sku)
    cart = _open_cart(db, customer_id)
    if cart is None:
        raise ToolError("This customer has no open cart.")
    have = db.value("SELECT quantity FROM cart_items WHERE cart_id = ? AND variant_id = ?", (cart["id"], v["id"]))
    if have is None:
        raise ToolError(f"{v['sku']} is not in the cart; use add_to_cart.")
    if quantity == 0:
        db.execute("DELETE FROM cart_items WHERE cart_id = ? AND variant_id = ?", (cart["id"], v["id"]))
    else:
        if quantity > v["stock"]:
            raise ToolError(f"Only {v['stock']} of {v['sku']} in stock.")
        db.execute("UPDATE cart_items SET quantity = ? WHERE cart_id = ? AND variant_id = ?",
                   (quantity, cart["id"], v["id"]))
    _touch_cart(db, cart["id"])
    return _cart_view(db, customer_id)


@tool(write=True)
def remove_from_cart(db: Db, customer_id: int, sku: str) -> dict:
    """Remove a variant from the customer's open cart.

    Args:
        customer_id: the customer's id.
        sku: the variant SKU to remove.
    """
    _customer(db, customer_id)
    v = _variant(db, sku)
    cart = _open_cart(db, customer_id)
    if cart is None:
        raise ToolError("This customer has no open cart.")
    if not db.execute("DELETE FROM cart_items WHERE cart_id = ? AND variant_id = ?", (cart["id"], v["id"])):
        raise ToolError(f"{v['sku']} is not in the cart; view_cart shows what is.")
    _touch_cart(db, cart["id"])
    return _cart_view(db, customer_id)


@tool(write=True)
def apply_coupon(db: Db, customer_id: int, code: str) -> dict:
    """Attach a coupon code to the customer's open cart (replacing any earlier coupon).
    Checks that the coupon is active, in its validity window, not used up, allowed for this customer
    (first-order-only codes) and that the cart meets the minimum subtotal.

    Args:
        customer_id: the customer's id.
        code: the coupon code, e.g. "WELCOME10".
    """
    _active_customer(db, customer_id)
    cart = _open_cart(db, customer_id)
    if cart is None or not _cart_lines(db, cart["id"]):
        raise ToolError("The cart is empty; add the items before applying a coupon.")
    c = _coupon(db, code)
    subtotal = sum(line["line_total_cents"] for line in _cart_lines(db, cart["id"]))
    why = _coupon_problem(db, c, customer_id, subtotal)
    if why:
        raise ToolError(f"Cannot apply: {why}.")
    db.execute("UPDATE carts SET coupon_id = ?, updated_at = ? WHERE id = ?", (c["id"], now_iso(db), cart["id"]))
    return _cart_view(db, customer_id)


@tool(write=True)
def remove_coupon(db: Db, customer_id: int) -> dict:
    """Remove the coupon from the customer's open cart.

    Args:
        customer_id: the customer's id.
    """
    _customer(db, customer_id)
    cart = _open_cart(db, customer_id)
    if cart is None or cart["coupon_id"] is None:
        raise ToolError("The customer's cart has no coupon to remove.")
    db.execute("UPDATE carts SET coupon_id = NULL, updated_at = ? WHERE id = ?", (now_iso(db), cart["id"]))
    return _cart_view(db, customer_id)


@tool(write=True)
def checkout(db: Db, customer_id: int, address_id: int, shipping_method: str = "standard",
             payment_method: Literal["card", "paypal", "gift_card"] = "card") -> dict:
    """Place an order from the customer's open cart and take payment.
    Re-checks stock and the coupon, computes subtotal, discount, tax and shipping, decrements stock
    (writing 'sale' inventory movements), captures the payment and marks the cart converted.
    'card' uses the card on file; 'gift_card' needs enough gift-card balance for the whole total.

    Args:
        customer_id: the customer's id.
        address_id: the shipping address id (must belong to the customer).
        shipping_method: "standard", "express" or "overnight".
        payment_method: "card", "paypal" or "gift_card".
    """
    cust = _active_customer(db, customer_id)
    a, cart = _checkout_cart(db, customer_id, address_id)
    q = _quote(db, customer_id, cart, a, shipping_method)
    if q["problems"]:
        raise ToolError("Cannot check out: " + "; ".join(q["problems"]) + ".")
    total = q["total_cents"]
    if payment_method == "card" and not cust["card_last4"]:
        raise ToolError("The customer has no card on file; use payment_method 'paypal' or 'gift_card'.")
    if payment_method == "gift_card" and cust["gift_card_balance_cents"] < total:
        raise ToolError(f"Gift-card balance {_dollars(cust['gift_card_balance_cents'])} does not cover the total "
                        f"{_dollars(total)}; choose 'card' or 'paypal'.")
    now = now_iso(db)
    last = db.value("SELECT MAX(CAST(substr(order_number, 4) AS INTEGER)) FROM orders") or 10000
    number = f"SO-{last + 1}"
    order_id = db.insert("orders", {
        "order_number": number, "customer_id": customer_id, "address_id": address_id, "ship_to": _ship_to(a),
        "shipping_method": shipping_method, "coupon_id": cart["coupon_id"], "status": "paid",
        "subtotal_cents": q["subtotal_cents"], "discount_cents": q["discount_cents"], "tax_cents": q["tax_cents"],
        "shipping_cents": q["shipping_cents"], "total_cents": total, "placed_at": now,
        "cancelled_at": None, "cancel_reason": None})
    for line in _cart_lines(db, cart["id"]):
        db.insert("order_items", {"order_id": order_id, "variant_id": line["variant_id"], "quantity": line["quantity"],
                                  "unit_price_cents": line["unit_price_cents"],
                                  "line_total_cents": line["line_total_cents"]})
        changed = db.execute("UPDATE product_variants SET stock = stock - ? WHERE id = ? AND stock >= ?",
                             (line["quantity"], line["variant_id"], line["quantity"]))
        if not changed:
            raise ToolError(f"{line['sku']} sold out while checking out; update the cart and try again.")
        _log_movement(db, line["variant_id"], -line["quantity"], "sale", order_id=order_id)
    db.insert("payments", {"order_id": order_id, "method": payment_method,
                           "card_last4": cust["card_last4"] if payment_method == "card" else None,
                           "amount_cents": total, "refunded_cents": 0, "status": "captured", "paid_at": now})
    if payment_method == "gift_card":
        db.execute("UPDATE customers SET gift_card_balance_cents = gift_card_balance_cents - ? WHERE id = ?",
                   (total, customer_id))
    if cart["coupon_id"] is not None:
        db.execute("UPDATE coupons SET times_used = times_used + 1 WHERE id = ?", (cart["coupon_id"],))
    db.execute("UPDATE carts SET status = 'converted', updated_at = ? WHERE id = ?", (now, cart["id"]))
    _event(db, order_id, "placed", f"Order placed: {len(q['lines'])} line(s), total {_dollars(total)}")
    return {"order_number": number, "status": "paid", "ship_to": _ship_to(a), "shipping_method": shipping_method,
            "coupon": q["coupon"], "subtotal_cents": q["subtotal_cents"], "discount_cents": q["discount_cents"],
            "tax_cents": q["tax_cents"], "shipping_cents": q["shipping_cents"], "total_cents": total,
            "payment_method": payment_method, "lines": q["lines"]}


# ---------------------------------------------------------------------------------------------
# orders
# ---------------------------------------------------------------------------------------------

@tool
def list_orders(db: Db, customer_id: int | None = None,
                status: Literal["paid", "shipped", "delivered", "cancelled", "refunded"] | None = None,
                placed_from: str | None = None, placed_to: str | None = None, limit: int = 20) -> list[dict]:
    """List orders, newest first, filtered by customer, status and/or placement date.

    Args:
        customer_id: only this customer's orders.
        status: only orders in this status.
        placed_from: only orders placed on or after this ISO date, e.g. "2026-02-01".
        placed_to: only orders placed on or before this ISO date (inclusive).
        limit: maximum number of orders, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    if customer_id is not None:
        _customer(db, customer_id)
    d_from = _parse_day(placed_from, "placed_from") if placed_from else None
    d_to = _parse_day(placed_to, "placed_to") if placed_to else None
    where, params = filters(("o.customer_id = ?", customer_id), ("o.status = ?", status),
                            ("substr(o.placed_at, 1, 10) >= ?", d_from), ("substr(o.placed_at, 1, 10) <= ?", d_to))
    return db.query(
        "SELECT o.order_number, o.customer_id, c.first_name || ' ' || c.last_name AS customer, o.status, "
        "o.placed_at, o.total_cents, o.shipping_method, "
        "(SELECT COALESCE(SUM(quantity), 0) FROM order_items WHERE order_id = o.id) AS units "
        f"FROM orders o JOIN customers c ON c.id = o.customer_id WHERE {where} "
        "ORDER BY o.placed_at DESC, o.id DESC LIMIT ?", (*params, limit))


@tool
def get_order(db: Db, order_number: str) -> dict:
    """Show an order in full: amounts, ship-to, items, payment, shipments, returns and refunds.

    Args:
        order_number: the order number, e.g. "SO-10012".
    """
    o = _order(db, order_number)
    cust = _customer(db, o["customer_id"])
    o["customer"] = f"{cust['first_name']} {cust['last_name']} <{cust['email']}>"
    o["coupon"] = db.value("SELECT code FROM coupons WHERE id = ?", (o["coupon_id"],)) if o["coupon_id"] else None
    o["items"] = db.query(
        "SELECT oi.id AS order_item_id, v.sku, p.name AS product_name, v.option_label, oi.quantity, "
        "oi.unit_price_cents, oi.line_total_cents, "
        "(SELECT COALESCE(SUM(r.quantity), 0) FROM returns r WHERE r.order_item_id = oi.id AND r.status <> 'rejected') "
        "AS units_in_returns FROM order_items oi JOIN product_variants v ON v.id = oi.variant_id "
        "JOIN products p ON p.id = v.product_id WHERE oi.order_id = ? ORDER BY oi.id", (o["id"],))
    o["payments"] = db.query("SELECT id, method, card_last4, amount_cents, refunded_cents, status, paid_at "
                             "FROM payments WHERE order_id = ? ORDER BY id", (o["id"],))
    o["shipments"] = db.query("SELECT carrier, tracking_number, status, shipped_at, delivered_at FROM shipments "
                              "WHERE order_id = ? ORDER BY id", (o["id"],))
    o["returns"] = db.query("SELECT r.rma_number, v.sku, r.quantity, r.reason, r.status, r.restocked, r.requested_at "
                            "FROM returns r JOIN order_items oi ON oi.id = r.order_item_id "
                            "JOIN product_variants v ON v.id = oi.variant_id WHERE r.order_id = ? ORDER BY r.id",
                            (o["id"],))
    o["refunds"] = db.query("SELECT f.amount_cents, f.reason, r.rma_number, f.created_at FROM refunds f "
                            "LEFT JOIN returns r ON r.id = f.return_id WHERE f.order_id = ? ORDER BY f.id", (o["id"],))
    return o


@tool
def get_order_history(db: Db, order_number: str) -> list[dict]:
    """Show the event log of an order (placed, shipped, delivered, cancelled, returns, refunds), oldest first.

    Args:
        order_number: the order number, e.g. "SO-10012".
    """
    o = _order(db, order_number)
    return db.query("SELECT event_type, detail, created_at FROM order_events WHERE order_id = ? "
                    "ORDER BY created_at, id",
                    (o["id"],))


@tool
def track_shipment(db: Db, order_number: str | None = None, tracking_number: str | None = None) -> list[dict]:
    """Show the shipments of an order, or one shipment by tracking number, with the expected delivery date.

    Args:
        order_number: the order number, e.g. "SO-10031".
        tracking_number: a carrier tracking number.
    """
    if (order_number is None) == (tracking_number is None):
        raise ToolError("Pass exactly one of order_number or tracking_number.")
    shipments = ("SELECT s.*, o.order_number, o.shipping_method, m.transit_days FROM shipments s "
                 "JOIN orders o ON o.id = s.order_id JOIN shipping_methods m ON m.code = o.shipping_method ")
    if order_number is not None:
        o = _order(db, order_number)
        rows = db.query(shipments + "WHERE s.order_id = ? ORDER BY s.id", (o["id"],))
        if not rows:
            raise ToolError(f"Order {o['order_number']} has not shipped yet (status {o['status']}).")
    else:
        rows = db.query(shipments + "WHERE s.tracking_number = ?", (tracking_number.strip(),))
        if not rows:
            raise ToolError(f"No shipment with tracking number {tracking_number!r}.")
    out = []
    for r in rows:
        shipped = datetime.fromisoformat(r["shipped_at"]).date()
        expected = date.fromordinal(shipped.toordinal() + r["transit_days"])
        out.append({"order_number": r["order_number"], "carrier": r["carrier"], "tracking_number": r["tracking_number"],
                    "status": r["status"], "shipped_at": r["shipped_at"], "delivered_at": r["delivered_at"],
                    "shipping_method": r["shipping_method"],
                    "expected_delivery": None if r["delivered_at"] else expected.isoformat()})
    return out


@tool(write=True)
def cancel_order(db: Db, order_number: str, reason: str) -> dict:
    """Cancel an order that has not shipped yet: restock its items, refund the payment in full and log it.
    Shipped or delivered orders cannot be cancelled; use request_return after delivery instead.

    Args:
        order_number: the order number, e.g. "SO-10037".
        reason: why the order is cancelled (shown in the order history).
    """
    o = _order(db, order_number)
    if not reason.strip():
        raise ToolError("Give a reason for the cancellation.")
    if o["status"] == "cancelled":
        raise ToolError(f"Order {o['order_number']} is already cancelled.")
    if o["status"] in ("shipped", "delivered"):
        raise ToolError(f"Order {o['order_number']} has already {o['status']}; it cannot be cancelled. "
                        "Once delivered, the customer can return items (request_return).")
    if o["status"] != "paid":
        raise ToolError(f"Order {o['order_number']} is {o['status']} and cannot be cancelled.")
    now = now_iso(db)
    items = db.query("SELECT variant_id, quantity FROM order_items WHERE order_id = ?", (o["id"],))
    for it in items:
        _move_stock(db, it["variant_id"], it["quantity"], "cancellation", order_id=o["id"])
    refunded = 0
    pay = _payment(db, o["id"])
    if pay is not None and pay["amount_cents"] > pay["refunded_cents"]:
        refunded = pay["amount_cents"] - pay["refunded_cents"]
        _refund_payment(db, o, pay, refunded, "Order cancelled: " + reason.strip(), None)
    if o["coupon_id"] is not None:
        db.execute("UPDATE coupons SET times_used = times_used - 1 WHERE id = ? AND times_used > 0", (o["coupon_id"],))
    db.execute("UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE id = ?",
               (now, reason.strip(), o["id"]))
    _event(db, o["id"], "cancelled", f"Cancelled: {reason.strip()}; refunded {_dollars(refunded)}")
    return {"order_number": o["order_number"], "status": "cancelled", "refunded_cents": refunded,
            "restocked_units": sum(it["quantity"] for it in items)}


@tool(write=True)
def update_order_address(db: Db, order_number: str, address_id: int) -> dict:
    """Send an order that has not shipped yet to another of the customer's saved addresses.
    The tax is recomputed for the new address; if it would differ, the change is refused (cancel and
    re-order instead).

    Args:
        order_number: the order number.
        address_id: the new address id (must belong to the same customer; add it with add_address first).
    """
    o = _order(db, order_number)
    if o["status"] != "paid":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; only orders that have not shipped "
                        "can be re-addressed.")
    a = _address(db, address_id)
    require_owner(a, "customer_id", o["customer_id"], f"Address {address_id} does not belong to the customer of "
                  f"{o['order_number']}; save the address for that customer with add_address first.")
    if address_id == o["address_id"]:
        raise ToolError(f"Order {o['order_number']} already ships to address {address_id}.")
    new_tax = _tax(o["subtotal_cents"] - o["discount_cents"], _tax_rate(db, a["state"]))
    if new_tax != o["tax_cents"]:
        raise ToolError(f"Shipping to {a['state']} would change the tax from {_dollars(o['tax_cents'])} to "
                        f"{_dollars(new_tax)}; cancel the order and place a new one instead.")
    label = _ship_to(a)
    db.execute("UPDATE orders SET address_id = ?, ship_to = ? WHERE id = ?", (address_id, label, o["id"]))
    _event(db, o["id"], "address_changed", f"Ship-to changed from '{o['ship_to']}' to '{label}'")
    return {"order_number": o["order_number"], "address_id": address_id, "ship_to": label}


@tool(write=True)
def create_shipment(db: Db, order_number: str, carrier: Literal["UPS", "USPS", "FedEx", "DHL"],
                    tracking_number: str) -> dict:
    """Hand a paid order to a carrier: record the shipment and mark the order shipped.

    Args:
        order_number: the order number.
        carrier: "UPS", "USPS", "FedEx" or "DHL".
        tracking_number: the carrier's tracking number (UPS is 1Z plus 16 characters, FedEx 12 digits,
            USPS 20 to 22 digits, DHL 10 digits).
    """
    o = _order(db, order_number)
    if o["status"] != "paid":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; only paid orders waiting to ship can be shipped.")
    tracking = tracking_number.strip().upper().replace(" ", "")
    pattern, shape = _TRACKING[carrier]
    if not pattern.match(tracking):
        raise ToolError(f"{tracking_number!r} is not a valid {carrier} tracking number ({shape}).")
    db.none("SELECT id FROM shipments WHERE tracking_number = ?", (tracking,),
            found=f"Tracking number {tracking} is already used by another shipment.")
    now = now_iso(db)
    db.insert("shipments", {"order_id": o["id"], "carrier": carrier, "tracking_number": tracking,
                            "status": "in_transit", "shipped_at": now, "delivered_at": None})
    db.execute("UPDATE orders SET status = 'shipped' WHERE id = ?", (o["id"],))
    _event(db, o["id"], "shipped", f"Shipped via {carrier}, tracking {tracking}")
    return {"order_number": o["order_number"], "status": "shipped", "carrier": carrier, "tracking_number": tracking,
            "shipped_at": now}


@tool(write=True)
def mark_delivered(db: Db, tracking_number: str) -> dict:
    """Record that a shipment in transit was delivered today, and mark its order delivered.

    Args:
        tracking_number: the shipment's tracking number.
    """
    s = db.one("SELECT * FROM shipments WHERE tracking_number = ?", (tracking_number.strip().upper(),),
               missing=f"No shipment with tracking number {tracking_number!r}; "
                       "use track_shipment with the order number.")
    if s["status"] != "in_transit":
        raise ToolError(f"Shipment {s['tracking_number']} is {s['status']}, not in transit.")
    now = now_iso(db)
    db.execute("UPDATE shipments SET status = 'delivered', delivered_at = ? WHERE id = ?", (now, s["id"]))
    o = db.one("SELECT * FROM orders WHERE id = ?", (s["order_id"],))
    if o["status"] == "shipped":
        db.execute("UPDATE orders SET status = 'delivered' WHERE id = ?", (o["id"],))
    _event(db, o["id"], "delivered", f"Delivered ({s['carrier']} {s['tracking_number']})")
    return {"order_number": o["order_number"], "tracking_number": s["tracking_number"], "status": "delivered",
            "delivered_at": now}


# ---------------------------------------------------------------------------------------------
# returns and refunds
# ---------------------------------------------------------------------------------------------

@tool
def list_returns(db: Db, status: Literal["requested", "approved", "rejected", "received", "refunded"] | None = None,
                 order_number: str | None = None, customer_id: int | None = None, limit: int = 20) -> list[dict]:
    """List return requests (RMAs), newest first, with the refund value of each.

    Args:
        status: only returns in this status.
        order_number: only returns of this order.
        customer_id: only returns of this customer's orders.
        limit: maximum number of returns, 1 to 50.
    """
    check_limit(limit, MAX_LIMIT)
    oid = _order(db, order_number)["id"] if order_number else None
    where, params = filters(("r.status = ?", status), ("r.order_id = ?", oid), ("o.customer_id = ?", customer_id))
    rows = db.query(
        "SELECT r.rma_number, o.order_number, o.customer_id, v.sku, p.name AS product_name, r.quantity, r.reason, "
        "r.status, r.restocked, r.decision_note, r.requested_at, r.decided_at, r.received_at, r.refunded_at, "
        "oi.unit_price_cents, o.subtotal_cents, o.discount_cents, o.tax_cents "
        "FROM returns r JOIN orders o ON o.id = r.order_id JOIN order_items oi ON oi.id = r.order_item_id "
        "JOIN product_variants v ON v.id = oi.variant_id JOIN products p ON p.id = v.product_id "
        f"WHERE {where} ORDER BY r.requested_at DESC, r.id DESC LIMIT ?", (*params, limit))
    for r in rows:
        r["refund_value_cents"] = _return_value(r, r.pop("unit_price_cents"), r["quantity"])
        for k in ("subtotal_cents", "discount_cents", "tax_cents"):
            r.pop(k)
    return rows


@tool(write=True)
def request_return(db: Db, order_number: str, sku: str, quantity: int, reason: str) -> dict:
    """Open a return (RMA) for units of one item of a delivered order.
    Returns must be requested within 30 days of delivery, and no more units than were bought minus
    units already in other (non-rejected) returns.

    Args:
        order_number: the delivered order, e.g. "SO-10028".
        sku: the SKU of the item being returned.
        quantity: how many units, at least 1.
        reason: the customer's reason, e.g. "arrived damaged".
    """
    o = _order(db, order_number)
    if o["status"] != "delivered":
        raise ToolError(f"Order {o['order_number']} is {o['status']}; only delivered orders can be returned"
                        + (" (cancel it instead)." if o["status"] == "paid" else "."))
    if not reason.strip():
        raise ToolError("Give the reason for the return.")
    v = _variant(db, sku)
    item = db.one("SELECT * FROM order_items WHERE order_id = ? AND variant_id = ?", (o["id"], v["id"]),
                  missing=f"{v['sku']} is not part of order {o['order_number']}; get_order lists its items.")
    delivered = _delivered_at(db, o["id"])
    if delivered is None:
        raise ToolError(f"Order {o['order_number']} has no delivery recorded yet.")
    days = (db.today() - datetime.fromisoformat(delivered).date()).days
    if days > RETURN_WINDOW_DAYS:
        raise ToolError(f"Order {o['order_number']} was delivered {days} days ago; returns close after "
                        f"{RETURN_WINDOW_DAYS} days. Refer the customer to the manufacturer's warranty.")
    taken = db.value("SELECT COALESCE(SUM(quantity), 0) FROM returns WHERE order_item_id = ? AND status <> 'rejected'",
                     (item["id"],))
    if taken >= item["quantity"]:
        raise ToolError(f"All {item['quantity']} unit(s) of {v['sku']} on {o['order_number']} are already in a return; "
                        "list_returns shows it.")
    if quantity < 1 or quantity > item["quantity"] - taken:
        raise ToolError(f"quantity must be between 1 and {item['quantity'] - taken} (bought {item['quantity']}, "
                        f"{taken} already in returns).")
    last = db.value("SELECT MAX(CAST(substr(rma_number, 5) AS INTEGER)) FROM returns") or 5000
    rma = f"RMA-{last + 1}"
    db.insert("returns", {"rma_number": rma, "order_id": o["id"], "order_item_id": item["id"], "quantity": quantity,
                          "reason": reason.strip(), "status": "requested", "restocked": 0, "decision_note": None,
                          "requested_at": now_iso(db), "decided_at": None, "received_at": None, "refunded_at": None})
    _event(db, o["id"], "return_requested", f"{rma}: {quantity} x {v['sku']} - {reason.strip()}")
    return {"rma_number": rma, "order_number": o["order_number"], "sku": v["sku"], "quantity": quantity,
            "status": "requested", "refund_value_cents": _return_value(o, item["unit_price_cents"], quantity)}


@tool(write=True)
def approve_return(db: Db, rma_number: str, note: str | None = None) -> dict:
    """Approve a requested return so the customer can send the item back.

    Args:
        rma_number: the return number, e.g. "RMA-5003".
        note: optional note for the decision.
    """
    r = _return_row(db, rma_number)
    if r["status"] != "requested":
        raise ToolError(f"{r['rma_number']} is {r['status']}; only requested returns can be approved.")
    db.execute("UPDATE returns SET status = 'approved', decided_at = ?, decision_note = ? WHERE id = ?",
               (now_iso(db), (note or "").strip() or None, r["id"]))
    _event(db, r["order_id"], "return_approved", f"{r['rma_number']} approved" + (f": {note.strip()}" if note else ""))
    return {"rma_number": r["rma_number"], "status": "approved"}


@tool(write=True)
def reject_return(db: Db, rma_number: str, reason: str) -> dict:
    """Reject a requested return, recording why.

    Args:
        rma_number: the return number.
        reason: why it is rejected (shown to the customer).
    """
    r = _return_row(db, rma_number)
    if r["status"] != "requested":
        raise ToolError(f"{r['rma_number']} is {r['status']}; only requested returns can be rejected.")
    if not reason.strip():
        raise ToolError("Give the reason for rejecting the return.")
    db.execute("UPDATE returns SET status = 'rejected', decided_at = ?, decision_note = ? WHERE id = ?",
               (now_iso(db), reason.strip(), r["id"]))
    _event(db, r["order_id"], "return_rejected", f"{r['rma_number']}: {reason.strip()}")
    return {"rma_number": r["rma_number"], "status": "rejected"}


@tool(write=True)
def receive_return(db: Db, rma_number: str, restock: bool) -> dict:
    """Record that the returned item arrived at the warehouse; optionally put it back in stock.
    Only restock items that are unused and undamaged; a restock writes a 'return' inventory movement.

    Args:
        rma_number: the return number (must be approved).
        restock: true to add the units back to sellable stock, false for damaged or used items.
    """
    r = _return_row(db, rma_number)
    if r["status"] == "requested":
        raise ToolError(f"{r['rma_number']} has not been approved yet; approve_return first.")
    if r["status"] != "approved":
        raise ToolError(f"{r['rma_number']} is {r['status']}; only approved returns can be received.")
    now = now_iso(db)
    db.execute("UPDATE returns SET status = 'received', received_at = ?, restocked = ? WHERE id = ?",
               (now, 1 if restock else 0, r["id"]))
    if restock:
        _move_stock(db, r["variant_id"], r["quantity"], "return", f"{r['rma_number']} restocked",
                    order_id=r["order_id"], return_id=r["id"])
    _event(db, r["order_id"], "return_received",
           f"{r['rma_number']} received" + (", restocked" if restock else ", not restocked"))
    return {"rma_number": r["rma_number"], "status": "received", "restocked": bool(restock)}


@tool(write=True)
def issue_refund(db: Db, order_number: str, reason: str, rma_number: str | None = None,
                 amount_cents: int | None = None) -> dict:
    """Refund money to the customer's original payment method.
    With rma_number: refunds a received return; the amount defaults to the item's value (its share of
    the discounted price plus tax, shipping excluded) and may not exceed it. Without rma_number: a
    goodwill refund of amount_cents on a shipped or delivered order. Cancelled orders are refunded
    automatically by cancel_order.

    Args:
        order_number: the order number.
        reason: why the money is refunded.
        rma_number: the received return this refund settles, if any.
        amount_cents: amount in cents; required without rma_number.
    """
    o = _order(db, order_number)
    if o["status"] == "cancelled":
        raise ToolError(f"Order {o['order_number']} is cancelled and was refunded when it was cancelled.")
    if o["status"] not in ("shipped", "delivered"):
        raise ToolError(f"Order {o['order_number']} is {o['status']}; refunds apply to shipped or delivered orders "
                        "(cancel unshipped orders instead).")
    if not reason.strip():
        raise ToolError("Give the reason for the refund.")
    pay = _payment(db, o["id"])
    if pay is None:
        raise ToolError(f"Order {o['order_number']} has no captured payment to refund.")
    remaining = pay["amount_cents"] - pay["refunded_cents"]
    ret = None
    if rma_number is not None:
        ret = _return_row(db, rma_number)
        if ret["order_id"] != o["id"]:
            raise ToolError(f"{ret['rma_number']} belongs to order {ret['order_number']}, not {o['order_number']}.")
        if ret["status"] in ("requested", "approved"):
            raise ToolError(f"{ret['rma_number']} is {ret['status']}; record the item's arrival with receive_return "
                            "before refunding.")
        if ret["status"] != "received":
            raise ToolError(f"{ret['rma_number']} is {ret['status']} and cannot be refunded.")
        value = _return_value(o, ret["unit_price_cents"], ret["quantity"])
        if amount_cents is None:
            amount_cents = value
        elif amount_cents > value:
            raise ToolError(f"{ret['rma_number']} is worth at most {_dollars(value)} ({value} cents).")
    elif amount_cents is None:
        raise ToolError("Pass amount_cents for a refund that is not tied to a return (or pass rma_number).")
    amount_cents = min(amount_cents, remaining) if ret is not None else amount_cents
    if amount_cents <= 0:
        raise ToolError("Nothing left to refund on this order." if remaining <= 0 else "amount_cents must be positive.")
    if amount_cents > remaining:
        raise ToolError(f"Only {_dollars(remaining)} ({remaining} cents) of the payment is left to refund.")
    refund_id = _refund_payment(db, o, pay, amount_cents, reason.strip(), ret["id"] if ret else None)
    now = now_iso(db)
    if ret is not None:
        db.execute("UPDATE returns SET status = 'refunded', refunded_at = ? WHERE id = ?", (now, ret["id"]))
    fully = pay["refunded_cents"] + amount_cents >= pay["amount_cents"]
    if fully:
        db.execute("UPDATE orders SET status = 'refunded' WHERE id = ?", (o["id"],))
    _event(db, o["id"], "refunded", f"Refund {_dollars(amount_cents)}" + (f" for {ret['rma_number']}" if ret else "")
           + f": {reason.strip()}")
    return {"refund_id": refund_id, "order_number": o["order_number"], "amount_cents": amount_cents,
            "payment_method": pay["method"], "payment_status": "refunded" if fully else "partially_refunded",
            "rma_number": ret["rma_number"] if ret else None}


# ---------------------------------------------------------------------------------------------
# inventory
# ---------------------------------------------------------------------------------------------

@tool(write=True)
def restock_variant(db: Db, sku: str, quantity: int, note: str) -> dict:
    """Record goods received from a supplier: add units to a variant's stock with a 'restock' movement.

    Args:
        sku: the variant SKU.
        quantity: units received, 1 to 1000.
        note: reference for the delivery, e.g. a purchase-order number "PO-7781".
    """
    v = _variant(db, sku)
    if not 1 <= quantity <= 1000:
        raise ToolError("quantity must be between 1 and 1000")
    if not v["active"] or v["product_status"] != "active":
        raise ToolError(f"{v['sku']} is discontinued; it cannot be restocked.")
    if not note.strip():
        raise ToolError("Give a note, such as the purchase-order number.")
    _move_stock(db, v["id"], quantity, "restock", note.strip())
    return {"sku": v["sku"], "previous_stock": v["stock"], "stock": v["stock"] + quantity}


@tool(write=True)
def adjust_stock(db: Db, sku: str, quantity_change: int, note: str) -> dict:
    """Correct a variant's stock after a count, damage or loss, with an 'adjustment' movement.

    Args:
        sku: the variant SKU.
        quantity_change: units to add (positive) or remove (negative); not zero.
        note: why the stock is adjusted.
    """
    v = _variant(db, sku)
    if quantity_change == 0:
        raise ToolError("quantity_change must not be zero")
    if not note.strip():
        raise ToolError("Give a note explaining the adjustment.")
    if v["stock"] + quantity_change < 0:
        raise ToolError(f"{v['sku']} has only {v['stock']} in stock; it cannot go below zero.")
    _move_stock(db, v["id"], quantity_change, "adjustment", note.strip())
    return {"sku": v["sku"], "previous_stock": v["stock"], "stock": v["stock"] + quantity_change}


# ---------------------------------------------------------------------------------------------
# reviews
# ---------------------------------------------------------------------------------------------

@tool(write=True)
def post_review(db: Db, customer_id: int, product_id: int, rating: int, title: str, body: str) -> dict:
    """Publish a customer's review of a product they bought and received (a verified purchase).
    One review per customer and product.

    Args:
        customer_id: the reviewer.
        product_id: the product reviewed.
        rating: stars, 1 to 5.
        title: a short headline, at most 120 characters.
        body: the review text.
    """
    _active_customer(db, customer_id)
    _check_product(db, product_id)
    if not 1 <= rating <= 5:
        raise ToolError("rating must be between 1 and 5")
    if not title.strip() or len(title.strip()) > 120:
        raise ToolError("title must be 1 to 120 characters")
    if not body.strip():
        raise ToolError("body must not be empty")
    bought = db.value(
        "SELECT COUNT(*) FROM orders o JOIN order_items oi ON oi.order_id = o.id "
        "JOIN product_variants v ON v.id = oi.variant_id WHERE o.customer_id = ? AND v.product_id = ? "
        "AND o.status IN ('delivered', 'refunded') AND EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.id "
        "AND s.status = 'delivered')", (customer_id, product_id))
    if not bought:
        raise ToolError("This customer has no delivered order containing this product; only verified purchasers can "
                        "review. If the parcel has arrived, record the delivery first (mark_delivered).")
    existing = db.value("SELECT id FROM reviews WHERE customer_id = ? AND product_id = ?", (customer_id, product_id))
    if existing is not None:
        raise ToolError(f"This customer already reviewed this product (review {existing}).")
    rid = db.insert("reviews", {"product_id": product_id, "customer_id": customer_id, "rating": rating,
                                "title": title.strip(), "body": body.strip(), "verified_purchase": 1,
                                "status": "published", "moderation_note": None, "created_at": now_iso(db)})
    out = {"review_id": rid, "status": "published"}
    out.update(_rating_summary(db, product_id))
    return out


@tool(write=True)
def hide_review(db: Db, review_id: int, reason: str) -> dict:
    """Hide a published review from the store (moderation), recording why.

    Args:
        review_id: the review id (from list_product_reviews).
        reason: the moderation note, e.g. "contains personal contact info".
    """
    r = db.one("SELECT * FROM reviews WHERE id = ?", (review_id,),
               missing=f"No review with id {review_id}; list_product_reviews shows the ids.")
    if r["status"] == "hidden":
        raise ToolError(f"Review {review_id} is already hidden.")
    if not reason.strip():
        raise ToolError("Give the moderation reason.")
    db.execute("UPDATE reviews SET status = 'hidden', moderation_note = ? WHERE id = ?", (reason.strip(), review_id))
    out = {"review_id": review_id, "status": "hidden"}
    out.update(_rating_summary(db, r["product_id"]))
    return out
