"""World builder for warehouse_inventory: Brightline Distribution's warehouses.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- stock is positive, never more than a bin's capacity in total, cold products only in cold zones and
  ambient products never there; every (lot, warehouse) sits in exactly one bin, so first-expiry-first-out
  picking names one lot and one bin; recently received lots wait in receiving bins for put-away;
- purchase order lines never receive more than ordered; receipts match qty_received and created the lot
  they name; PO status agrees with its lines (sent: nothing received; partially_received; received: all);
- sales order lines were picked first-expiry-first-out (picks match qty_picked); packed and shipped orders
  are fully picked; pending orders can be filled from the first pickable lot of each line;
- in-transit transfers have left their source bin, after the lot reached it; a received transfer joins the bin that
  already holds the lot in that warehouse (or stays in transit when it would not fit); pending adjustments are
  above the £500 approval threshold and were counted by someone other than a supervisor; every timestamp lies
  before the clock.

Templates need, and every world has: pending orders, sent POs with open lines, pending adjustments, products
with two or more pickable lots in a warehouse, in-stock lots that can be transferred, a delivery on the receiving
dock that fits a free bin of its home zone (planted at the end when chance left none). With ``ctx.distractors``
the world adds look-alike products (same name with another pack size, another SKU) and namesake customers.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

WAREHOUSES = [("LON", "London DC", "London"), ("MAN", "Manchester DC", "Manchester"), ("BRS", "Bristol DC", "Bristol"),
              ("LDS", "Leeds DC", "Leeds"), ("GLA", "Glasgow DC", "Glasgow")]
ZONES = [("R", "Receiving dock", "receiving", 3, (300, 500)), ("A", "Aisle A", "storage", 10, (200, 400)),
         ("B", "Aisle B", "storage", 10, (200, 400)), ("C", "Cold room", "cold", 6, (150, 250))]
SUPPLIERS = [("Harvest Valley Foods", "GB", 5), ("Northern Dairies", "GB", 3), ("CleanCo Supplies", "GB", 7),
             ("PetPantry Wholesale", "NL", 10), ("VoltEdge Accessories", "CN", 30), ("Crisp & Co Snacks", "GB", 6),
             ("Aqua Springs Beverages", "FR", 12), ("PureCare Cosmetics", "DE", 14)]
# prefix, category, supplier index, storage, tracks_expiry, shelf days, cost range (cents), weight range (g), names
CATEGORIES = [
    ("BEV", "Beverages", 7, "ambient", 1, 365, (40, 180), (330, 1500),
     ["Sparkling Water 500ml", "Orange Juice 1L", "Cola 330ml Can", "Iced Tea Lemon 500ml", "Still Water 1.5L",
      "Apple Juice 1L", "Energy Drink 250ml", "Ginger Beer 330ml"]),
    ("DAI", "Dairy", 2, "cold", 1, 21, (60, 400), (150, 1200),
     ["Whole Milk 2L", "Greek Yoghurt 500g", "Cheddar Block 400g", "Salted Butter 250g", "Semi-Skimmed Milk 1L",
      "Mozzarella 125g", "Double Cream 300ml"]),
    ("SNK", "Snacks", 6, "ambient", 1, 180, (50, 250), (40, 400),
     ["Sea Salt Crisps 150g", "Salted Peanuts 200g", "Oat Cookies 300g", "Dark Chocolate Bar 100g",
      "Pretzel Bites 175g", "Rice Cakes 130g", "Trail Mix 250g"]),
    ("HHD", "Household", 3, "ambient", 0, 0, (80, 900), (200, 3000),
     ["Laundry Liquid 2L", "Dish Soap 500ml", "Kitchen Roll 4-pack", "Bin Bags 50-pack", "Glass Cleaner 750ml",
      "Sponge Scourers 10-pack"]),
    ("PET", "Pet food", 4, "ambient", 1, 400, (150, 2400), (400, 10000),
     ["Dry Dog Food 2kg", "Cat Biscuits 1kg", "Wet Cat Food 12-pack", "Dog Treats 500g", "Bird Seed 1kg"]),
    ("ELC", "Electronics accessories", 5, "ambient", 0, 0, (300, 2500), (30, 400),
     ["USB-C Cable 1m", "Phone Charger 20W", "AA Batteries 8-pack", "Wireless Mouse", "HDMI Cable 2m",
      "Power Bank 10000mAh"]),
    ("PCR", "Personal care", 8, "ambient", 1, 720, (90, 800), (100, 600),
     ["Shampoo 400ml", "Toothpaste 100ml", "Hand Soap 250ml", "Shower Gel 500ml", "Deodorant 150ml"]),
]
CARRIERS = [("DHL", "DHL Parcel", 30), ("DPD", "DPD UK", 31), ("UPS", "UPS Standard", 70), ("RML", "Royal Mail Tracked", 20)]
REASONS = [("DMG", "Damaged in storage", "decrease"), ("LOST", "Missing, not found in the bin", "decrease"),
           ("FOUND", "Found stock not on the system", "increase"), ("MISCOUNT", "Earlier miscount corrected", "either"),
           ("EXPIRED", "Expired stock written off", "decrease")]


def _slug(name: str) -> str:
    return ".".join("".join(ch for ch in p.lower() if ch.isalpha()) for p in name.split())


def build(ctx: WorldContext) -> dict[str, list[Row]]:
    rng, now, today = ctx.rng, ctx.clock, ctx.today
    T = Tables([
        "warehouses", "zones", "bins", "staff", "suppliers", "products", "lots", "stock", "purchase_orders",
        "po_lines", "receipts", "customers", "carriers", "sales_orders", "so_lines", "picks", "shipments",
        "transfers", "reason_codes", "stock_adjustments", "supplier_returns"])
    names: set[str] = set()
    emails: set[str] = set()

    def person() -> tuple[str, str]:
        n = ctx.unique(lambda: f"{ctx.faker.first_name()} {ctx.faker.last_name()}", names)
        e = f"{_slug(n)}@brightline.co.uk"
        k = 2
        while e in emails:
            e, k = f"{_slug(n)}{k}@brightline.co.uk", k + 1
        emails.add(e)
        return n, e

    # -- warehouses, zones, bins -------------------------------------------------------------------
    n_wh = ctx.n(3, 5)
    bins_by: dict[tuple[int, str], list[Row]] = {}
    used: dict[int, int] = {}
    for w, (code, name, city) in enumerate(WAREHOUSES[:n_wh], 1):
        T.add("warehouses", {"code": code, "name": name, "city": city})
        for zc, zname, ztype, nb, (lo, hi) in ZONES:
            zid = T.add("zones", {"warehouse_id": w, "code": zc, "name": zname, "zone_type": ztype})["id"]
            count = nb if not ctx.large else nb * 6
            for b in range(1, count + 1):
                bin_code = f"{code}-{zc}{b:02d}" if count < 100 else f"{code}-{zc}{b:03d}"
                row = T.add("bins", {"zone_id": zid, "code": bin_code, "capacity_units": rng.randrange(lo, hi + 1, 10),
                                     "is_active": 0 if ctx.chance(0.03) else 1})
                used[row["id"]] = 0
                if row["is_active"]:
                    bins_by.setdefault((w, ztype), []).append(row)
    wh_ids = [w["id"] for w in T["warehouses"]]

    # -- staff -------------------------------------------------------------------------------------
    staff_by: dict[int | None, list[Row]] = {}

    def add_staff(w: int | None, role: str, active: int = 1) -> Row:
        n, e = person()
        r = T.add("staff", {"warehouse_id": w, "full_name": n, "email": e, "role": role, "is_active": active})
        staff_by.setdefault(w, []).append(r)
        return r

    for _ in range(ctx.n(2, 3)):
        add_staff(None, "manager")
    for w in wh_ids:
        add_staff(w, "supervisor")
        if ctx.large:
            add_staff(w, "supervisor")
        for k in range(ctx.n(rng.randint(3, 4), rng.randint(12, 16))):
            add_staff(w, "operative", 0 if k >= 2 and ctx.chance(0.1) else 1)

    def ops(w: int) -> list[Row]:
        return [s for s in staff_by[w] if s["role"] == "operative" and s["is_active"]]

    def sup(w: int) -> Row:
        return next(s for s in staff_by[w] if s["role"] == "supervisor")

    # -- suppliers, products -----------------------------------------------------------------------
    for i, (name, country, lead) in enumerate(SUPPLIERS, 1):
        T.add("suppliers", {"name": name, "email": f"orders@{_slug(name).replace('.', '')}.com",
                            "country": country, "lead_time_days": lead, "is_active": 0 if i == 1 else 1})
    per_cat = ctx.n(1, 10)
    sku_no: dict[str, int] = {}
    for prefix, cat, sup_i, storage, exp, shelf, (clo, chi), (wlo, whi), pnames in CATEGORIES:
        for rep in range(per_cat):
            for nm in pnames:
                if not ctx.large and ctx.chance(0.15) and rep == 0 and len(pnames) > 5:
                    continue
                sku_no[prefix] = sku_no.get(prefix, 1000) + rng.randint(1, 7)
                label = nm if rep == 0 else f"{nm} ({ctx.pick(['Value', 'Premium', 'Organic', 'Multipack', 'Eco'])} {rep})"
                T.add("products", {
                    "sku": f"{prefix}-{sku_no[prefix]}", "name": label, "category": cat,
                    "supplier_id": sup_i, "unit_cost_cents": rng.randint(clo, chi),
                    "unit_weight_grams": rng.randint(wlo, whi), "storage": storage, "tracks_expiry": exp,
                    "reorder_point": rng.randrange(40, 201, 10), "reorder_qty": rng.randrange(100, 501, 50),
                    "is_active": 1})
                if ctx.distractors and rep == 0 and ctx.chance(0.3):
                    sku_no[prefix] += rng.randint(1, 3)
                    src = T["products"][-1]
                    twin = dict(src)
                    twin.update({"id": len(T["products"]) + 1, "sku": f"{prefix}-{sku_no[prefix]}",
                                 "name": src["name"] + " x6"})
                    T["products"].append(twin)
    shelf_of = {c[1]: c[5] for c in CATEGORIES}
    products = T["products"]

    # -- lots and stock ----------------------------------------------------------------------------
    lot_codes: dict[int, set[str]] = {}

    def new_lot(p: Row, received: datetime, expired: bool = False) -> Row:
        code = ctx.unique(lambda: f"L{received.strftime('%y%m')}-{rng.randint(100, 999)}",
                          lot_codes.setdefault(p["id"], set()))
        exp = None
        if p["tracks_expiry"]:
            if expired:
                exp = today - timedelta(days=rng.randint(1, 20))
            else:
                shelf = shelf_of[p["category"]]
                exp = received.date() + timedelta(days=shelf)
                if exp <= today + timedelta(days=2):
                    exp = today + timedelta(days=rng.randint(3, 10))
        return T.add("lots", {"product_id": p["id"], "lot_code": code, "expiry_date": exp.isoformat() if exp else None,
                              "received_at": _iso(received)})

    def home(p: Row) -> str:
        return "cold" if p["storage"] == "cold" else "storage"

    def place(w: int, ztype: str, lot: Row, qty: int) -> Row | None:
        cands = [b for b in bins_by.get((w, ztype), []) if b["capacity_units"] - used[b["id"]] >= qty]
        if not cands:
            return None
        b = ctx.pick(cands)
        used[b["id"]] += qty
        return T.add("stock", {"bin_id": b["id"], "lot_id": lot["id"], "quantity": qty})

    stock_of: dict[tuple[int, int], list[tuple[Row, Row]]] = {}  # (product, warehouse) -> [(lot, stock row)]
    for p in products:
        for w in wh_ids:
            if ctx.chance(0.15):
                continue
            for k in range(rng.choice([1, 1, 2, 2, 3])):
                recv = now - timedelta(days=rng.uniform(5, (shelf_of[p["category"]] or 200) * 0.6 + 5))
                lot = new_lot(p, recv, expired=bool(p["tracks_expiry"]) and ctx.chance(0.05))
                s = place(w, home(p), lot, rng.randrange(10, 121, 5))
                if s:
                    stock_of.setdefault((p["id"], w), []).append((lot, s))

    def fifo_key(item: tuple[Row, Row]) -> tuple:
        lot = item[0]
        return (lot["expiry_date"] is None, lot["expiry_date"] or "", lot["received_at"], lot["id"])

    def pickable(pid: int, w: int) -> list[tuple[Row, Row]]:
        out = [x for x in stock_of.get((pid, w), []) if x[1]["quantity"] > 0
               and (x[0]["expiry_date"] is None or x[0]["expiry_date"] > today.isoformat())]
        return sorted(out, key=fifo_key)

    # -- purchase orders and receipts --------------------------------------------------------------
    n_po = ctx.n(16, 160)
    by_supplier: dict[int, list[Row]] = {}
    for p in products:
        by_supplier.setdefault(p["supplier_id"], []).append(p)
    for k in range(n_po):
        s_id = ctx.pick(sorted(by_supplier))
        w = ctx.pick(wh_ids)
        status = ["sent", "sent", "partially_received", "draft"][k] if k < 4 else ctx.weighted(
            {"draft": 0.12, "sent": 0.25, "partially_received": 0.18, "received": 0.35, "cancelled": 0.1})
        created = now - timedelta(days=rng.uniform(1, 40) if status != "received" else rng.uniform(10, 60))
        if k == 2:
            created = now - timedelta(days=rng.uniform(5, 10))
        sent = created + timedelta(hours=rng.randint(1, 30)) if status != "draft" else None
        if status == "cancelled" and ctx.chance(0.5):
            sent = None
        if sent and sent >= now:
            sent = now - timedelta(hours=1)
        lead = T["suppliers"][s_id - 1]["lead_time_days"]
        po = {"id": k + 1, "number": f"PO-{5000 + k + 1}", "supplier_id": s_id, "warehouse_id": w, "status": status,
              "created_by": sup(w)["id"], "created_at": _iso(created), "sent_at": _iso(sent) if sent else None,
              "expected_date": ((sent or created).date() + timedelta(days=lead)).isoformat(),
              "cancel_reason": "Supplier could not deliver in time" if status == "cancelled" else None}
        T["purchase_orders"].append(po)
        lines = ctx.sample(by_supplier[s_id], rng.randint(1, 3))
        for j, p in enumerate(lines):
            qty = rng.randrange(50, 301, 10)
            rec = 0
            if status == "received":
                rec = qty
            elif status == "partially_received":
                rec = rng.randrange(10, qty, 10) if j == 0 else ctx.pick([0, qty, rng.randrange(10, qty, 10)])
                if k == 2 and j == 0:
                    rec = rng.randrange(20, 70, 10)
                    if rec >= qty:  # a small line (50, 60): the planted delivery stays partial
                        rec = qty - 10
            line = T.add("po_lines", {"po_id": po["id"], "product_id": p["id"], "qty_ordered": qty,
                                      "qty_received": rec, "unit_cost_cents": p["unit_cost_cents"]})
            if rec:
                at = sent + (now - sent) * rng.uniform(0.3, 0.95)
                if k == 2 and j == 0:  # planted: a delivery still on the receiving dock
                    at = max(sent + timedelta(hours=1), now - timedelta(hours=rng.uniform(2, 30)))
                lot = new_lot(p, at)
                recent = (now - at) < timedelta(days=2)
                s = place(w, "receiving" if recent else home(p), lot, rec)
                shelved = s is not None and not recent
                if s is None:  # no room: the delivery still waits on the receiving dock
                    s = place(w, "receiving", lot, rec)
                if s is None:
                    line["qty_received"] = 0
                    T["lots"].pop()
                    continue
                if shelved:  # only stock in storage/cold bins is pickable (dock stock is never picked)
                    stock_of.setdefault((p["id"], w), []).append((lot, s))
                T.add("receipts", {"po_line_id": line["id"], "lot_id": lot["id"], "bin_id": s["bin_id"],
                                   "quantity": rec, "received_by": ctx.pick(ops(w))["id"], "received_at": _iso(at)})
        recv = [ln for ln in T["po_lines"] if ln["po_id"] == po["id"]]
        total_r = sum(ln["qty_received"] for ln in recv)
        if status in ("partially_received", "received"):
            if total_r == 0:
                po["status"] = "sent"
            elif all(ln["qty_received"] == ln["qty_ordered"] for ln in recv):
                po["status"] = "received"
            else:
                po["status"] = "partially_received"

    # -- customers, carriers, sales orders ---------------------------------------------------------
    cust_names: list[str] = []
    for i in range(ctx.n(20, 220)):
        nm = ctx.faker.company() if ctx.chance(0.7) else f"{ctx.faker.first_name()} {ctx.faker.last_name()}"
        cust_names.append(nm)
    if ctx.distractors:
        cust_names += [n for n in ctx.sample(cust_names, 3)]
    cust_emails: set[str] = set()
    for nm in cust_names:
        base = "".join(ch for ch in nm.lower() if ch.isalnum())[:18]
        e = ctx.unique(lambda: f"{base}{rng.randint(1, 99)}@{ctx.pick(['mail.com', 'example.org', 'shop.co.uk'])}",
                       cust_emails)
        T.add("customers", {"name": nm, "email": e, "city": ctx.faker.city()})
    for code, name, kg in CARRIERS:
        T.add("carriers", {"code": code, "name": name, "max_weight_kg": kg, "is_active": 1})

    n_so = ctx.n(28, 300)
    weight_of = {p["id"]: p["unit_weight_grams"] for p in products}
    tracking: set[str] = set()
    for k in range(n_so):
        w = wh_ids[k % len(wh_ids)] if k < 2 * len(wh_ids) else ctx.pick(wh_ids)
        status = "pending" if k < 2 * len(wh_ids) else ctx.weighted(
            {"pending": 0.3, "picking": 0.1, "packed": 0.12, "shipped": 0.4, "cancelled": 0.08})
        cands = [pid for (pid, ww) in stock_of if ww == w and pickable(pid, w)]
        if not cands:
            continue
        chosen = ctx.sample(sorted(cands), 1 if k < 2 * len(wh_ids) else rng.randint(1, 3))
        created = now - timedelta(days=rng.uniform(0.1, 3) if status in ("pending", "picking") else rng.uniform(2, 30))
        so = {"id": len(T["sales_orders"]) + 1, "number": f"SO-{80000 + len(T['sales_orders']) + 1}",
              "customer_id": ctx.pick(T["customers"])["id"], "warehouse_id": w, "status": status,
              "created_at": _iso(created), "ship_by": (created.date() + timedelta(days=rng.randint(2, 5))).isoformat(),
              "packed_at": None, "cancel_reason": "Customer cancelled" if status == "cancelled" else None}
        lines = []
        for pid in chosen:
            first = pickable(pid, w)[0]
            qty = max(1, min(first[1]["quantity"] // 3, rng.randint(2, 24)))
            line = {"id": len(T["so_lines"]) + len(lines) + 1, "so_id": so["id"], "product_id": pid,
                    "qty_ordered": qty, "qty_picked": 0}
            lines.append(line)
        if status in ("picking", "packed", "shipped"):
            picker = ctx.pick(ops(w))
            at = created + (now - created) * rng.uniform(0.2, 0.5)
            for j, line in enumerate(lines):
                if status == "picking" and j == len(lines) - 1 and len(lines) > 1:
                    break
                need = line["qty_ordered"]
                for lot, s in pickable(line["product_id"], w):
                    if need == 0:
                        break
                    take = min(need, s["quantity"])
                    s["quantity"] -= take
                    used[s["bin_id"]] -= take
                    need -= take
                    T.add("picks", {"so_line_id": line["id"], "lot_id": lot["id"], "bin_id": s["bin_id"],
                                    "quantity": take, "picked_by": picker["id"], "picked_at": _iso(at)})
                line["qty_picked"] = line["qty_ordered"] - need
            if status in ("packed", "shipped"):
                so["packed_at"] = _iso(at + timedelta(minutes=rng.randint(10, 120)))
                if any(ln["qty_picked"] < ln["qty_ordered"] for ln in lines):
                    so["status"], so["packed_at"] = "picking", None
        T["sales_orders"].append(so)
        T["so_lines"].extend(lines)
        if so["status"] == "shipped":
            weight = sum(ln["qty_picked"] * weight_of[ln["product_id"]] for ln in lines)
            carrier = ctx.pick([c for c in T["carriers"] if c["max_weight_kg"] * 1000 >= weight] or [T["carriers"][2]])
            T.add("shipments", {
                "so_id": so["id"], "carrier_id": carrier["id"],
                "tracking_number": ctx.unique(lambda: f"{carrier['code']}{rng.randint(10**9, 10**10 - 1)}", tracking),
                "weight_grams": max(1, weight), "shipped_by": ctx.pick(ops(w))["id"],
                "shipped_at": _iso(datetime.fromisoformat(so["packed_at"]) + timedelta(minutes=rng.randint(30, 600)))})
    for so in T["sales_orders"]:
        if so["packed_at"] and so["packed_at"] >= _iso(now):
            so["packed_at"] = _iso(now - timedelta(minutes=5))
    for sh in T["shipments"]:
        if sh["shipped_at"] >= _iso(now):
            sh["shipped_at"] = _iso(now - timedelta(minutes=1))

    # -- transfers ---------------------------------------------------------------------------------
    n_tr = ctx.n(6, 60)
    arrived: dict[int, datetime] = {}  # stock row id -> when a transfer brought the lot into that bin

    def wh_of(bin_id: int) -> int:
        return T["zones"][T["bins"][bin_id - 1]["zone_id"] - 1]["warehouse_id"]

    for k in range(n_tr):
        src = ctx.pick([x for lst in stock_of.values() for x in lst if x[1]["quantity"] >= 20])
        lot, s = src
        from_bin = T["bins"][s["bin_id"] - 1]
        w_from = T["zones"][from_bin["zone_id"] - 1]["warehouse_id"]
        w_to = ctx.pick([w for w in wh_ids if w != w_from])
        qty = rng.randrange(5, s["quantity"] // 2 + 1, 5) if s["quantity"] >= 10 else 5
        received = ctx.chance(0.6)
        created = now - timedelta(days=rng.uniform(0.5, 15))
        row = {"id": k + 1, "number": f"TR-{700 + k + 1}", "lot_id": lot["id"], "from_bin_id": from_bin["id"],
               "to_warehouse_id": w_to, "to_bin_id": None, "quantity": qty, "status": "in_transit",
               "created_by": ctx.pick(ops(w_from))["id"], "created_at": _iso(created), "received_by": None,
               "received_at": None}
        # the units left a bin that already held them: after the lot arrived (and after a transfer brought it there)
        since = max(datetime.fromisoformat(lot["received_at"]), arrived.get(s["id"], now - timedelta(days=10**4)))
        if created <= since:
            created = min(since + timedelta(hours=1), now - timedelta(minutes=30))
            row["created_at"] = _iso(created)
        prod = products[lot["product_id"] - 1]
        held = [x for x in T["stock"] if x["lot_id"] == lot["id"] and wh_of(x["bin_id"]) == w_to]
        if received and held:  # one bin per (lot, warehouse): book it into the bin that holds the lot, if it fits
            dest = held[0]
            b = T["bins"][dest["bin_id"] - 1]
            if b["is_active"] and b["capacity_units"] - used[b["id"]] >= qty:
                used[b["id"]] += qty
                dest["quantity"] += qty
                arrived[dest["id"]] = max(arrived.get(dest["id"], now - timedelta(days=10**4)),
                                          datetime.fromisoformat(_iso(created + (now - created) * 0.5)))
                row.update({"status": "received", "to_bin_id": dest["bin_id"], "received_by":
                            ctx.pick(ops(w_to))["id"], "received_at": _iso(created + (now - created) * 0.5)})
        elif received:
            dest = place(w_to, home(prod), lot, qty)
            if dest:
                stock_of.setdefault((prod["id"], w_to), []).append((lot, dest))
                row.update({"status": "received", "to_bin_id": dest["bin_id"], "received_by":
                            ctx.pick(ops(w_to))["id"], "received_at": _iso(created + (now - created) * 0.5)})
                arrived[dest["id"]] = datetime.fromisoformat(row["received_at"])
        s["quantity"] -= qty
        used[s["bin_id"]] -= qty
        T["transfers"].append(row)

    # -- reason codes, adjustments, supplier returns -----------------------------------------------
    for code, desc, d in REASONS:
        T.add("reason_codes", {"code": code, "description": desc, "direction": d})
    n_adj = ctx.n(10, 100)
    approval = ctx.tools.APPROVAL_CENTS  # a count worth more waits for a supervisor's approval
    live = [x for lst in stock_of.values() for x in lst if x[1]["quantity"] > 0]
    for k in range(n_adj):
        if k < 3:  # planted: counts big enough to need approval
            lot, s = ctx.pick([x for x in live if approval // products[x[0]["product_id"] - 1]["unit_cost_cents"]
                               + 1 <= x[1]["quantity"]])
        else:
            lot, s = ctx.pick(live)
        prod = products[lot["product_id"] - 1]
        w = T["zones"][T["bins"][s["bin_id"] - 1]["zone_id"] - 1]["warehouse_id"]
        status = "pending_approval" if k < 3 else ctx.weighted({"applied": 0.7, "rejected": 0.15,
                                                                 "pending_approval": 0.15})
        big = status != "applied" or ctx.chance(0.2)
        need = approval // prod["unit_cost_cents"] + 1
        if big:
            if need > s["quantity"]:
                status, big = "applied", False
        if big:
            delta = -rng.randint(need, max(need, s["quantity"]))
        else:
            delta = ctx.pick([-1, -2, -3, 1, 2]) if s["quantity"] > 3 else 1
            if abs(delta) * prod["unit_cost_cents"] > approval:
                delta = 1 if prod["unit_cost_cents"] <= approval else -1
            if abs(delta) * prod["unit_cost_cents"] > approval:
                continue
        reason = ctx.pick(["DMG", "LOST", "MISCOUNT"]) if delta < 0 else ctx.pick(["FOUND", "MISCOUNT"])
        counted = now - timedelta(days=rng.uniform(0.1, 10) if status == "pending_approval" else rng.uniform(2, 40))
        if s["id"] in arrived and counted <= arrived[s["id"]]:  # counted after a transfer brought the lot here
            counted = min(arrived[s["id"]] + timedelta(hours=1), now - timedelta(minutes=30))
        counter = ctx.pick(ops(w))
        qty_sys = s["quantity"]
        row = {"bin_id": s["bin_id"], "lot_id": lot["id"],
               "qty_system": qty_sys, "qty_counted": qty_sys + delta,
               "reason_code_id": [r[0] for r in REASONS].index(reason) + 1, "status": status,
               "counted_by": counter["id"], "counted_at": _iso(counted), "decided_by": None, "decided_at": None}
        if status == "applied":
            # the stock row already reflects an applied count: record it against the pre-count quantity
            row["qty_system"], row["qty_counted"] = qty_sys - delta, qty_sys
            if row["qty_system"] < 0:
                continue
            if big:
                row["decided_by"] = sup(w)["id"]
                row["decided_at"] = _iso(min(counted + timedelta(hours=rng.randint(1, 20)),
                                             now - timedelta(minutes=10)))
        elif status == "rejected":
            row["decided_by"] = sup(w)["id"]
            row["decided_at"] = _iso(min(counted + timedelta(hours=rng.randint(1, 20)),
                                             now - timedelta(minutes=10)))
        if row["qty_counted"] == row["qty_system"]:
            continue
        T.add("stock_adjustments", row)
        if status == "pending_approval":
            live = [x for x in live if x[1] is not s]  # one open count per stock row
    for k in range(ctx.n(4, 40)):
        lot, s = ctx.pick([x for x in live if x[1]["quantity"] >= 10])
        prod = products[lot["product_id"] - 1]
        qty = rng.randint(1, 4)
        T["supplier_returns"].append({
            "id": k + 1, "number": f"RTS-{900 + k + 1}", "supplier_id": prod["supplier_id"], "lot_id": lot["id"],
            "bin_id": s["bin_id"], "quantity": qty, "reason": ctx.pick(["Damaged on arrival", "Wrong item supplied",
                                                                        "Faulty batch"]),
            "created_by": ctx.pick(ops(T["zones"][T["bins"][s["bin_id"] - 1]["zone_id"] - 1]["warehouse_id"]))["id"],
            "created_at": _iso(max(now - timedelta(days=rng.uniform(1, 30)),  # after a transfer brought the lot here
                                   arrived.get(s["id"], now - timedelta(days=10**4)) + timedelta(hours=1)))})
        s["quantity"] -= qty
        used[s["bin_id"]] -= qty

    # -- planted: a delivery on the receiving dock that fits a free bin of its home zone ------------
    def fits(w: int, p: Row, qty: int) -> bool:
        return any(b["capacity_units"] - used[b["id"]] >= qty for b in bins_by.get((w, home(p)), []))

    def dock_ready() -> bool:
        for s in T["stock"]:
            b = T["bins"][s["bin_id"] - 1]
            z = T["zones"][b["zone_id"] - 1]
            if s["quantity"] > 0 and z["zone_type"] == "receiving" and b["is_active"] and ops(z["warehouse_id"]) \
                    and fits(z["warehouse_id"], products[T["lots"][s["lot_id"] - 1]["product_id"] - 1], s["quantity"]):
                return True
        return False

    if not dock_ready():
        suppliers_on = {s["id"] for s in T["suppliers"] if s["is_active"]}
        plain = [p for p in products if p["supplier_id"] in suppliers_on and not any(
            o["id"] != p["id"] and (o["name"] in p["name"] or p["name"] in o["name"]) for o in products)]
        for w in ctx.sample(wh_ids, len(wh_ids)):
            dock = max((b["capacity_units"] - used[b["id"]] for b in bins_by.get((w, "receiving"), [])), default=0)
            cands = [(p, min(dock, max(b["capacity_units"] - used[b["id"]] for b in bins_by[(w, home(p))])))
                     for p in plain if bins_by.get((w, home(p)))]
            cands = [(p, room) for p, room in cands if room >= 10]
            if not cands or not ops(w):
                continue
            p, room = ctx.pick(cands)
            rec = min(room // 10 * 10, rng.randrange(30, 121, 10))
            created = now - timedelta(days=rng.uniform(3, 8))
            sent = created + timedelta(hours=rng.randint(1, 30))
            po = {"id": len(T["purchase_orders"]) + 1, "number": f"PO-{5000 + len(T['purchase_orders']) + 1}",
                  "supplier_id": p["supplier_id"], "warehouse_id": w, "status": "partially_received",
                  "created_by": sup(w)["id"], "created_at": _iso(created), "sent_at": _iso(sent),
                  "expected_date": (sent.date() + timedelta(
                      days=T["suppliers"][p["supplier_id"] - 1]["lead_time_days"])).isoformat(),
                  "cancel_reason": None}
            line = {"id": len(T["po_lines"]) + 1, "po_id": po["id"], "product_id": p["id"],
                    "qty_ordered": rec + rng.randrange(10, 101, 10), "qty_received": rec,
                    "unit_cost_cents": p["unit_cost_cents"]}
            at = now - timedelta(hours=rng.uniform(2, 30))
            lot = new_lot(p, at)
            s = place(w, "receiving", lot, rec)
            assert s is not None
            T["purchase_orders"].append(po)
            T["po_lines"].append(line)
            T.add("receipts", {"po_line_id": line["id"], "lot_id": lot["id"], "bin_id": s["bin_id"], "quantity": rec,
                               "received_by": ctx.pick(ops(w))["id"], "received_at": _iso(at)})
            break

    # -- final stock rows (quantities after picks, transfers, returns) -----------------------------
    T["stock"] = [s for s in T["stock"] if s["quantity"] > 0]
    T["stock"].sort(key=lambda r: r["id"])
    return T
