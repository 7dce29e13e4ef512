"""Tools of the recipe_planner world: recipes, pantries, weekly meal plans and shopping lists.

Users are named by e-mail; recipes, ingredients (also by name), shopping lists and their items by the ids the
read tools return. Every write tool takes the acting user's e-mail (``user_email``) and only touches that
user's plans, pantry, lists, collections and reviews.

Quantities are in the ingredient's own unit (g, ml, pcs, tbsp, tsp). An entry of a meal plan cooks a recipe for
``servings`` people, so it needs quantity x servings / recipe servings of each ingredient. A shopping list for
a week holds, per ingredient, what the plan's uncooked entries need minus what the pantry holds unexpired
today, rounded up to a whole unit, only where that is more than zero.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, filters, like_any, like_contains, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

MEALS = ("breakfast", "lunch", "dinner", "snack")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FOLLOWABLE = ("vegan", "vegetarian", "gluten_free", "dairy_free")
EPS = 1e-6

Meal = Literal["breakfast", "lunch", "dinner", "snack"]
Diet = Literal["vegan", "vegetarian", "gluten_free", "dairy_free"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _day(value: str, what: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(f"{what} must be a date written YYYY-MM-DD (got {value!r})") from None


def _user(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM users WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No user with e-mail {email!r}. Use find_users to look someone up by name.")


def _recipe(db: Db, recipe_id: int, user: dict[str, Any] | None = None) -> dict[str, Any]:
    row = db.one("SELECT * FROM recipes WHERE id = ?", (recipe_id,))
    if row is None or (user is not None and not row["is_public"] and row["author_id"] != user["id"]):
        raise ToolError(f"No recipe with id {recipe_id} that this user can see. Use search_recipes to find recipes.")
    return row


def _ingredient(db: Db, name: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM ingredients WHERE lower(name) = lower(?)", (name.strip(),))
    if row is None:
        hint = db.query("SELECT name FROM ingredients WHERE name LIKE ? ESCAPE '\\' ORDER BY name LIMIT 5",
                        (like_contains(name.strip()),))
        more = f" Did you mean: {', '.join(h['name'] for h in hint)}?" if hint else " Use search_ingredients."
        raise ToolError(f"No ingredient named {name!r}.{more}")
    return row


def _allergen(db: Db, name: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM allergens WHERE lower(name) = lower(?)", (name.strip(),))
    if row is None:
        names = ", ".join(r["name"] for r in db.query("SELECT name FROM allergens ORDER BY name"))
        raise ToolError(f"No allergen {name!r}. Allergens: {names}.")
    return row


def _week(value: str) -> date:
    d = _day(value, "week_start")
    if d.weekday() != 0:
        raise ToolError(f"week_start must be a Monday; {d.isoformat()} is a {DAYS[d.weekday()]}. The Monday of that "
                        f"week is {(d - timedelta(days=d.weekday())).isoformat()}.")
    return d


def _plan(db: Db, user: dict[str, Any], week_start: str) -> dict[str, Any]:
    w = _week(week_start)
    return db.one("SELECT * FROM meal_plans WHERE user_id = ? AND week_start = ?", (user["id"], w.isoformat()),
                  missing=f"{user['email']} has no meal plan for the week of {w.isoformat()}; create_meal_plan makes one.")


def _open_plan(db: Db, user: dict[str, Any], week_start: str) -> dict[str, Any]:
    p = _plan(db, user, week_start)
    if p["status"] == "archived":
        raise ToolError(f"The plan for the week of {p['week_start']} is archived and cannot change.")
    return p


def _entry(db: Db, plan: dict[str, Any], day: int, meal: str) -> dict[str, Any]:
    _check_day(day)
    return db.one("SELECT * FROM meal_plan_entries WHERE plan_id = ? AND day = ? AND meal = ?", (plan["id"], day, meal),
                  missing=f"Nothing is planned for {DAYS[day]} {meal} in the week of {plan['week_start']}.")


def _uncooked(db: Db, user_email: str, week_start: str, day: int, meal: str, cooked: str) -> tuple[dict, dict, dict]:
    """The acting user, their open plan for the week and its entry for a slot not cooked yet (else the refusal
    "<day> <meal> ``cooked``")."""
    u = _user(db, user_email)
    p = _open_plan(db, u, week_start)
    e = _entry(db, p, day, meal)
    if e["cooked_at"]:
        raise ToolError(f"{DAYS[day]} {meal} {cooked}")
    return u, p, e


def _check_day(day: int) -> None:
    if not 0 <= day <= 6:
        raise ToolError(f"day must be 0 (Monday) to 6 (Sunday) (got {day}).")


def _check_servings(servings: int) -> None:
    if not 1 <= servings <= 12:
        raise ToolError(f"servings must be between 1 and 12 (got {servings}).")


def _on(plan: dict[str, Any], day: int) -> date:
    """The date of a day (0 = Monday) of a plan's week."""
    return date.fromisoformat(plan["week_start"]) + timedelta(days=day)


def _conflicts(db: Db, user_id: int, recipe_id: int) -> list[str]:
    out = [f"contains {r['allergen']} ({r['ingredient']})" for r in db.query(
        "SELECT a.name AS allergen, i.name AS ingredient FROM recipe_ingredients ri JOIN ingredients i ON i.id = ri.ingredient_id "
        "JOIN allergens a ON a.id = i.allergen_id JOIN user_allergies ua ON ua.allergen_id = a.id AND ua.user_id = ? "
        "WHERE ri.recipe_id = ? ORDER BY a.name, i.name", (user_id, recipe_id))]
    out += [f"is not {r['name']}" for r in db.query(
        "SELECT t.name FROM user_diets ud JOIN tags t ON t.id = ud.tag_id WHERE ud.user_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM recipe_tags rt WHERE rt.recipe_id = ? AND rt.tag_id = t.id) ORDER BY t.name", (user_id, recipe_id))]
    return out


def _needs(db: Db, plan_id: int) -> dict[int, float]:
    need: dict[int, float] = {}
    for r in db.query("SELECT ri.ingredient_id, ri.quantity, e.servings, rc.servings AS base FROM meal_plan_entries e "
                      "JOIN recipes rc ON rc.id = e.recipe_id JOIN recipe_ingredients ri ON ri.recipe_id = e.recipe_id "
                      "WHERE e.plan_id = ? AND e.cooked_at IS NULL ORDER BY e.id, ri.id", (plan_id,)):
        need[r["ingredient_id"]] = need.get(r["ingredient_id"], 0.0) + r["quantity"] * r["servings"] / r["base"]
    return need


def _stock(db: Db, user_id: int) -> dict[int, float]:
    today = db.today().isoformat()
    return {r["ingredient_id"]: r["quantity"] for r in db.query(
        "SELECT ingredient_id, quantity FROM pantry_items WHERE user_id = ? AND (expires_on IS NULL OR expires_on >= ?)",
        (user_id, today))}


def _shortfall(need: dict[int, float], stock: dict[int, float]) -> dict[int, int]:
    """What to buy: per ingredient, the need minus the stock, rounded up to a whole unit, where more than zero."""
    buy = {k: math.ceil(v - stock.get(k, 0.0) - EPS) for k, v in need.items()}
    return {k: v for k, v in buy.items() if v > 0}


def _pantry_row(db: Db, user_id: int, ingredient_id: int, missing: str | None = None) -> dict[str, Any] | None:
    return db.one("SELECT * FROM pantry_items WHERE user_id = ? AND ingredient_id = ?", (user_id, ingredient_id),
                  missing=missing)


def _add_stock(db: Db, user_id: int, ingredient_id: int, quantity: float, expires_on: str | None = None) -> float:
    """Put food in a user's pantry: added to the stock already there (a given expiry date replaces the old one),
    or a new item. Returns how much the pantry now holds."""
    row = _pantry_row(db, user_id, ingredient_id)
    if row:
        db.execute("UPDATE pantry_items SET quantity = ?, expires_on = COALESCE(?, expires_on) WHERE id = ?",
                   (round(row["quantity"] + quantity, 2), expires_on, row["id"]))
        return row["quantity"] + quantity
    db.insert("pantry_items", {"user_id": user_id, "ingredient_id": ingredient_id, "quantity": round(quantity, 2),
                               "expires_on": expires_on, "added_at": _now(db)})
    return quantity


def _set_stock(db: Db, row: dict[str, Any], quantity: float) -> None:
    """A pantry item's new quantity; none left removes it."""
    if quantity <= 0:
        db.execute("DELETE FROM pantry_items WHERE id = ?", (row["id"],))
    else:
        db.execute("UPDATE pantry_items SET quantity = ? WHERE id = ?", (round(quantity, 2), row["id"]))


def _fmt(q: float) -> float | int:
    q = round(q, 2)
    return int(q) if q == int(q) else q


# ----------------------------------------------------------------------------------------------
# read tools: catalogue
# ----------------------------------------------------------------------------------------------

@tool
def list_tags(db: Db) -> dict:
    """List the recipe tags by kind: diets (vegan, vegetarian, gluten_free, dairy_free, high_protein), cuisines and
    meals."""
    out: dict[str, list[str]] = {}
    for r in db.query("SELECT name, kind FROM tags ORDER BY kind, name"):
        out.setdefault(r["kind"], []).append(r["name"])
    return out


@tool
def list_allergens(db: Db) -> list[str]:
    """List the allergens the app tracks (e.g. peanuts, milk, eggs)."""
    return [r["name"] for r in db.query("SELECT name FROM allergens ORDER BY name")]


@tool
def search_ingredients(db: Db, query: str, limit: int = 20) -> list[dict]:
    """Find ingredients by name, with their unit, aisle and allergen.

    Args:
        query: part of the ingredient's name, e.g. "chick".
        limit: maximum number of ingredients, 1 to 50.
    """
    _limit(limit)
    return db.query("SELECT i.id AS ingredient_id, i.name, i.unit, i.aisle, a.name AS allergen FROM ingredients i "
                    "LEFT JOIN allergens a ON a.id = i.allergen_id WHERE i.name LIKE ? ESCAPE '\\' "
                    "ORDER BY i.name LIMIT ?",
                    (like_contains(query.strip()), limit))


@tool
def search_recipes(db: Db, query: str | None = None, tag: str | None = None, ingredient: str | None = None,
                   max_total_minutes: int | None = None, limit: int = 15) -> dict:
    """Search public recipes by words in the title, a tag, an ingredient they use, or total time.

    Args:
        query: words to look for in the title, e.g. "curry".
        tag: only recipes with this tag, e.g. "vegan", "dinner", "mexican".
        ingredient: only recipes using this ingredient (exact name, e.g. "salmon fillet").
        max_total_minutes: only recipes whose prep plus cooking time is at most this.
        limit: maximum number of recipes, 1 to 50.
    """
    _limit(limit)
    like = like_contains(query.strip()) if query and query.strip() else None
    ing = _ingredient(db, ingredient)["id"] if ingredient else None
    where, params = filters(
        ("r.title LIKE ? ESCAPE '\\'", like),
        ("EXISTS (SELECT 1 FROM recipe_tags rt JOIN tags t ON t.id = rt.tag_id WHERE rt.recipe_id = r.id "
         "AND lower(t.name) = lower(?))", tag),
        ("EXISTS (SELECT 1 FROM recipe_ingredients ri WHERE ri.recipe_id = r.id AND ri.ingredient_id = ?)", ing),
        ("r.prep_minutes + r.cook_minutes <= ?", max_total_minutes))
    rows = db.query(
        "SELECT r.id AS recipe_id, r.title, r.servings, r.prep_minutes + r.cook_minutes AS total_minutes, r.difficulty, "
        "(SELECT group_concat(t.name, ', ') FROM recipe_tags rt JOIN tags t ON t.id = rt.tag_id WHERE rt.recipe_id = r.id) AS tags "
        f"FROM recipes r WHERE r.is_public = 1 AND {where} ORDER BY r.title, r.id LIMIT ?", (*params, limit))
    return {"count": len(rows), "recipes": rows}


@tool
def get_recipe(db: Db, recipe_id: int) -> dict:
    """Show a recipe: servings, times, tags, ingredients (quantity and unit for the recipe's servings, allergen),
    steps, nutrition per serving and its average review.

    Args:
        recipe_id: the recipe's id.
    """
    r = _recipe(db, recipe_id)
    ings = db.query("SELECT i.name, ri.quantity, i.unit, ri.note, a.name AS allergen FROM recipe_ingredients ri "
                    "JOIN ingredients i ON i.id = ri.ingredient_id LEFT JOIN allergens a ON a.id = i.allergen_id "
                    "WHERE ri.recipe_id = ? ORDER BY ri.id", (r["id"],))
    steps = [s["instruction"] for s in db.query("SELECT instruction FROM recipe_steps WHERE recipe_id = ? ORDER BY position",
                                                 (r["id"],))]
    tags = [t["name"] for t in db.query("SELECT t.name FROM recipe_tags rt JOIN tags t ON t.id = rt.tag_id "
                                         "WHERE rt.recipe_id = ? ORDER BY t.kind, t.name", (r["id"],))]
    n = db.one("SELECT calories, protein_g FROM recipe_nutrition WHERE recipe_id = ?", (r["id"],))
    rv = db.one("SELECT COUNT(*) AS n, ROUND(AVG(stars), 2) AS avg FROM reviews WHERE recipe_id = ?", (r["id"],))
    author = db.value("SELECT full_name FROM users WHERE id = ?", (r["author_id"],)) if r["author_id"] else None
    return {"recipe_id": r["id"], "title": r["title"], "author": author, "public": bool(r["is_public"]),
            "description": r["description"], "servings": r["servings"], "prep_minutes": r["prep_minutes"],
            "cook_minutes": r["cook_minutes"], "difficulty": r["difficulty"], "tags": tags, "ingredients": ings,
            "steps": steps, "nutrition_per_serving": n, "reviews": {"count": rv["n"], "avg_stars": rv["avg"]}}


@tool
def scale_recipe(db: Db, recipe_id: int, servings: int) -> dict:
    """A recipe's ingredient quantities scaled to another number of servings (quantity x servings / recipe
    servings), with the nutrition of the whole batch.

    Args:
        recipe_id: the recipe's id.
        servings: how many servings to make, 1 to 12.
    """
    r = _recipe(db, recipe_id)
    _check_servings(servings)
    ings = [{"name": x["name"], "quantity": _fmt(x["quantity"] * servings / r["servings"]), "unit": x["unit"]}
            for x in db.query("SELECT i.name, ri.quantity, i.unit FROM recipe_ingredients ri JOIN ingredients i "
                              "ON i.id = ri.ingredient_id WHERE ri.recipe_id = ? ORDER BY ri.id", (r["id"],))]
    n = db.one("SELECT calories, protein_g FROM recipe_nutrition WHERE recipe_id = ?", (r["id"],))
    return {"recipe": r["title"], "base_servings": r["servings"], "servings": servings, "ingredients": ings,
            "total_calories": n["calories"] * servings, "total_protein_g": n["protein_g"] * servings}


@tool
def check_recipe_for_user(db: Db, email: str, recipe_id: int) -> dict:
    """Whether a recipe suits a user: the allergens it contains that the user is allergic to and the diets the user
    follows that it does not meet.

    Args:
        email: the user's e-mail address.
        recipe_id: the recipe's id.
    """
    u = _user(db, email)
    r = _recipe(db, recipe_id, u)
    problems = _conflicts(db, u["id"], r["id"])
    return {"recipe": r["title"], "suitable": not problems, "problems": problems}


# ----------------------------------------------------------------------------------------------
# read tools: users, pantry, plans, lists, reviews, collections
# ----------------------------------------------------------------------------------------------

@tool
def find_users(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find users by part of their name or e-mail.

    Args:
        query: words to look for, e.g. "kelly".
        limit: maximum number of users, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "full_name", "email")
    return db.query(f"SELECT full_name, email, household_size FROM users WHERE {who} ORDER BY full_name, id LIMIT ?",
                    (*params, limit))


@tool
def get_user(db: Db, email: str) -> dict:
    """Show a user: household size (the default servings), the diets they follow, their allergies, their meal plans
    and collections.

    Args:
        email: the user's e-mail address.
    """
    u = _user(db, email)
    diets = [r["name"] for r in db.query("SELECT t.name FROM user_diets ud JOIN tags t ON t.id = ud.tag_id "
                                          "WHERE ud.user_id = ? ORDER BY t.name", (u["id"],))]
    allergies = [r["name"] for r in db.query("SELECT a.name FROM user_allergies ua JOIN allergens a ON a.id = ua.allergen_id "
                                              "WHERE ua.user_id = ? ORDER BY a.name", (u["id"],))]
    plans = db.query("SELECT week_start, status FROM meal_plans WHERE user_id = ? ORDER BY week_start DESC LIMIT 6",
                     (u["id"],))
    cols = [r["name"] for r in db.query("SELECT name FROM collections WHERE user_id = ? ORDER BY name", (u["id"],))]
    return {"full_name": u["full_name"], "email": u["email"], "household_size": u["household_size"], "diets": diets,
            "allergies": allergies, "meal_plans": plans, "collections": cols}


@tool
def get_pantry(db: Db, email: str, expiring_within_days: int | None = None) -> dict:
    """A user's pantry: each ingredient with quantity, unit and expiry date, and whether it has expired.

    Args:
        email: the user's e-mail address.
        expiring_within_days: only items that expire within this many days from today (expired ones included).
    """
    u = _user(db, email)
    today = db.today()
    until = (today + timedelta(days=expiring_within_days)).isoformat() if expiring_within_days is not None else None
    rows = db.query("SELECT i.name, p.quantity, i.unit, p.expires_on FROM pantry_items p JOIN ingredients i "
                    "ON i.id = p.ingredient_id WHERE p.user_id = ? AND (? IS NULL OR (p.expires_on IS NOT NULL AND "
                    "p.expires_on <= ?)) ORDER BY i.name", (u["id"], until, until))
    for r in rows:
        r["quantity"] = _fmt(r["quantity"])
        r["expired"] = r["expires_on"] is not None and r["expires_on"] < today.isoformat()
    return {"today": today.isoformat(), "items": rows}


@tool
def list_meal_plans(db: Db, email: str) -> list[dict]:
    """A user's meal plans, newest week first, with their status and number of planned meals.

    Args:
        email: the user's e-mail address.
    """
    u = _user(db, email)
    return db.query("SELECT p.week_start, p.status, (SELECT COUNT(*) FROM meal_plan_entries e WHERE e.plan_id = p.id) "
                    "AS meals FROM meal_plans p WHERE p.user_id = ? ORDER BY p.week_start DESC LIMIT 20", (u["id"],))


@tool
def get_meal_plan(db: Db, email: str, week_start: str) -> dict:
    """A user's meal plan for a week: status and every entry (day, meal, recipe, servings, whether cooked).

    Args:
        email: the user's e-mail address.
        week_start: the Monday of the week, YYYY-MM-DD.
    """
    u = _user(db, email)
    p = _plan(db, u, week_start)
    rows = db.query("SELECT e.day, e.meal, e.recipe_id, r.title, e.servings, e.cooked_at FROM meal_plan_entries e "
                    "JOIN recipes r ON r.id = e.recipe_id WHERE e.plan_id = ? ORDER BY e.day, "
                    "CASE e.meal WHEN 'breakfast' THEN 0 WHEN 'lunch' THEN 1 WHEN 'dinner' THEN 2 ELSE 3 END", (p["id"],))
    for r in rows:
        r["date"] = _on(p, r["day"]).isoformat()
        r["day"] = DAYS[r["day"]]
    lst = db.one("SELECT id, status FROM shopping_lists WHERE plan_id = ? ORDER BY id DESC LIMIT 1", (p["id"],))
    return {"week_start": p["week_start"], "status": p["status"], "entries": rows, "latest_shopping_list": lst}


@tool
def get_day_nutrition(db: Db, email: str, week_start: str, day: int) -> dict:
    """The calories and protein of one day of a user's meal plan: per meal (per-serving values x planned servings)
    and in total.

    Args:
        email: the user's e-mail address.
        week_start: the Monday of the week, YYYY-MM-DD.
        day: 0 (Monday) to 6 (Sunday).
    """
    u = _user(db, email)
    p = _plan(db, u, week_start)
    _check_day(day)
    rows = db.query("SELECT e.meal, r.title, e.servings, n.calories * e.servings AS calories, n.protein_g * e.servings "
                    "AS protein_g FROM meal_plan_entries e JOIN recipes r ON r.id = e.recipe_id JOIN recipe_nutrition n "
                    "ON n.recipe_id = r.id WHERE e.plan_id = ? AND e.day = ? ORDER BY e.id", (p["id"], day))
    return {"day": DAYS[day], "meals": rows, "total_calories": sum(r["calories"] for r in rows),
            "total_protein_g": sum(r["protein_g"] for r in rows)}


@tool
def list_shopping_lists(db: Db, email: str, status: Literal["open", "done"] | None = None) -> list[dict]:
    """A user's shopping lists, newest first.

    Args:
        email: the user's e-mail address.
        status: only lists in this status.
    """
    u = _user(db, email)
    return db.query("SELECT l.id AS list_id, p.week_start, l.status, l.created_at, l.completed_at, (SELECT COUNT(*) FROM "
                    "shopping_list_items i WHERE i.list_id = l.id) AS items FROM shopping_lists l LEFT JOIN meal_plans p "
                    "ON p.id = l.plan_id WHERE l.user_id = ? AND (? IS NULL OR l.status = ?) ORDER BY l.created_at DESC "
                    "LIMIT 20", (u["id"], status, status))


@tool
def get_shopping_list(db: Db, list_id: int) -> dict:
    """A shopping list with its items (item id, ingredient, quantity, unit, aisle, ticked or not).

    Args:
        list_id: the list's id.
    """
    lst = db.one("SELECT l.*, u.email FROM shopping_lists l JOIN users u ON u.id = l.user_id WHERE l.id = ?", (list_id,),
                 missing=f"No shopping list {list_id}. Use list_shopping_lists.")
    items = db.query("SELECT s.id AS item_id, i.name, s.quantity, i.unit, i.aisle, s.is_checked AS checked FROM "
                     "shopping_list_items s JOIN ingredients i ON i.id = s.ingredient_id WHERE s.list_id = ? "
                     "ORDER BY i.aisle, i.name", (lst["id"],))
    for it in items:
        it["checked"] = bool(it["checked"])
        it["quantity"] = _fmt(it["quantity"])
    return {"list_id": lst["id"], "owner": lst["email"], "status": lst["status"], "items": items}


@tool
def list_reviews(db: Db, recipe_id: int, limit: int = 10) -> list[dict]:
    """The newest reviews of a recipe.

    Args:
        recipe_id: the recipe's id.
        limit: maximum number of reviews, 1 to 50.
    """
    _limit(limit)
    _recipe(db, recipe_id)
    return db.query("SELECT u.full_name AS reviewer, r.stars, r.body, r.created_at FROM reviews r JOIN users u "
                    "ON u.id = r.user_id WHERE r.recipe_id = ? ORDER BY r.created_at DESC LIMIT ?", (recipe_id, limit))


@tool
def list_collections(db: Db, email: str) -> list[dict]:
    """A user's recipe collections with the recipes in each (id and title).

    Args:
        email: the user's e-mail address.
    """
    u = _user(db, email)
    out = []
    for c in db.query("SELECT id, name FROM collections WHERE user_id = ? ORDER BY name", (u["id"],)):
        recipes = db.query("SELECT r.id AS recipe_id, r.title FROM collection_recipes cr JOIN recipes r ON r.id = "
                           "cr.recipe_id WHERE cr.collection_id = ? ORDER BY cr.added_at, cr.id", (c["id"],))
        out.append({"name": c["name"], "recipes": recipes})
    return out


# ----------------------------------------------------------------------------------------------
# write tools: profile and pantry
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def set_dietary_restriction(db: Db, user_email: str, diet: Diet, follow: bool) -> dict:
    """Start or stop following a diet (vegan, vegetarian, gluten_free, dairy_free). New plan entries must then
    carry that diet's tag.

    Args:
        user_email: the user's e-mail address (the user acting).
        diet: the diet.
        follow: true to follow it, false to stop.
    """
    u = _user(db, user_email)
    tag = db.one("SELECT id FROM tags WHERE name = ? AND kind = 'diet'", (diet,))
    has = db.value("SELECT id FROM user_diets WHERE user_id = ? AND tag_id = ?", (u["id"], tag["id"]))
    if follow and has:
        raise ToolError(f"{u['full_name']} already follows {diet}.")
    if not follow and not has:
        raise ToolError(f"{u['full_name']} does not follow {diet}.")
    if follow:
        db.insert("user_diets", {"user_id": u["id"], "tag_id": tag["id"]})
    else:
        db.execute("DELETE FROM user_diets WHERE id = ?", (has,))
    return {"diet": diet, "following": follow}


@tool(write=True)
def add_allergy(db: Db, user_email: str, allergen: str) -> dict:
    """Record an allergy. Recipes containing it can no longer be planned; the reply lists uncooked meals in the
    user's draft and active plans that contain it, so they can be removed.

    Args:
        user_email: the user's e-mail address (the user acting).
        allergen: the allergen, e.g. "sesame" (list_allergens shows them).
    """
    u = _user(db, user_email)
    a = _allergen(db, allergen)
    db.none("SELECT 1 FROM user_allergies WHERE user_id = ? AND allergen_id = ?", (u["id"], a["id"]),
            found=f"{u['full_name']}'s allergy to {a['name']} is already recorded.")
    db.insert("user_allergies", {"user_id": u["id"], "allergen_id": a["id"]})
    clash = db.query("SELECT p.week_start, e.day, e.meal, r.title FROM meal_plan_entries e JOIN meal_plans p ON p.id = e.plan_id "
                     "JOIN recipes r ON r.id = e.recipe_id WHERE p.user_id = ? AND p.status <> 'archived' AND e.cooked_at IS NULL "
                     "AND EXISTS (SELECT 1 FROM recipe_ingredients ri JOIN ingredients i ON i.id = ri.ingredient_id WHERE "
                     "ri.recipe_id = e.recipe_id AND i.allergen_id = ?) ORDER BY p.week_start, e.day, e.meal", (u["id"], a["id"]))
    for c in clash:
        c["day"] = DAYS[c["day"]]
    return {"allergy": a["name"], "planned_meals_containing_it": clash}


@tool(write=True)
def remove_allergy(db: Db, user_email: str, allergen: str) -> dict:
    """Remove a recorded allergy.

    Args:
        user_email: the user's e-mail address (the user acting).
        allergen: the allergen.
    """
    u = _user(db, user_email)
    a = _allergen(db, allergen)
    n = db.execute("DELETE FROM user_allergies WHERE user_id = ? AND allergen_id = ?", (u["id"], a["id"]))
    if not n:
        raise ToolError(f"{u['full_name']} has no recorded allergy to {a['name']}.")
    return {"removed": a["name"]}


@tool(write=True)
def add_pantry_item(db: Db, user_email: str, ingredient: str, quantity: float, expires_on: str | None = None) -> dict:
    """Add stock to the user's pantry, in the ingredient's unit. Stock of an ingredient already there is added to
    it (a given expiry date replaces the old one).

    Args:
        user_email: the user's e-mail address (the user acting).
        ingredient: the ingredient's name, e.g. "spinach".
        quantity: how much, in the ingredient's unit (search_ingredients shows it).
        expires_on: the expiry date, YYYY-MM-DD, if any.
    """
    u = _user(db, user_email)
    i = _ingredient(db, ingredient)
    if not 0 < quantity <= 100000:
        raise ToolError("quantity must be more than 0.")
    if expires_on is not None:
        exp = _day(expires_on, "expires_on")
        if exp < db.today():
            raise ToolError(f"{exp.isoformat()} is already past; do not add expired food.")
        expires_on = exp.isoformat()
    total = _add_stock(db, u["id"], i["id"], quantity, expires_on)
    return {"ingredient": i["name"], "quantity": _fmt(total), "unit": i["unit"]}


@tool(write=True)
def set_pantry_quantity(db: Db, user_email: str, ingredient: str, quantity: float) -> dict:
    """Correct how much of an ingredient the pantry holds; 0 removes it.

    Args:
        user_email: the user's e-mail address (the user acting).
        ingredient: the ingredient's name.
        quantity: the new quantity in the ingredient's unit, 0 or more.
    """
    u = _user(db, user_email)
    i = _ingredient(db, ingredient)
    row = _pantry_row(db, u["id"], i["id"],
                      missing=f"{i['name']} is not in {u['email']}'s pantry; use add_pantry_item.")
    if quantity < 0:
        raise ToolError("quantity must be 0 or more.")
    if abs(row["quantity"] - quantity) < EPS:
        raise ToolError(f"The pantry already holds {_fmt(quantity)} {i['unit']} of {i['name']}.")
    _set_stock(db, row, quantity)
    return {"ingredient": i["name"], "quantity": _fmt(quantity), "unit": i["unit"]}


@tool(write=True)
def discard_expired_items(db: Db, user_email: str) -> dict:
    """Throw out every pantry item whose expiry date is before today.

    Args:
        user_email: the user's e-mail address (the user acting).
    """
    u = _user(db, user_email)
    today = db.today().isoformat()
    rows = db.query("SELECT p.id, i.name FROM pantry_items p JOIN ingredients i ON i.id = p.ingredient_id "
                    "WHERE p.user_id = ? AND p.expires_on < ? ORDER BY i.name", (u["id"], today))
    if not rows:
        raise ToolError(f"Nothing in {u['email']}'s pantry has expired.")
    for r in rows:
        db.execute("DELETE FROM pantry_items WHERE id = ?", (r["id"],))
    return {"discarded": [r["name"] for r in rows]}


# ----------------------------------------------------------------------------------------------
# write tools: meal plans
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_meal_plan(db: Db, user_email: str, week_start: str) -> dict:
    """Create an empty draft meal plan for a week (its Monday), from the current week up to 4 weeks ahead. One plan
    per user and week.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the week, YYYY-MM-DD.
    """
    u = _user(db, user_email)
    w = _week(week_start)
    this_monday = db.today() - timedelta(days=db.today().weekday())
    if w < this_monday or w > this_monday + timedelta(weeks=4):
        raise ToolError(f"Plans can be made from the current week ({this_monday.isoformat()}) up to 4 weeks ahead.")
    db.none("SELECT 1 FROM meal_plans WHERE user_id = ? AND week_start = ?", (u["id"], w.isoformat()),
            found=f"{u['email']} already has a plan for the week of {w.isoformat()}.")
    pid = db.insert("meal_plans", {"user_id": u["id"], "week_start": w.isoformat(), "status": "draft",
                                   "created_at": _now(db)})
    return {"plan_id": pid, "week_start": w.isoformat(), "status": "draft"}


@tool(write=True)
def add_meal(db: Db, user_email: str, week_start: str, day: int, meal: Meal, recipe_id: int,
             servings: int | None = None) -> dict:
    """Plan a recipe for one meal of one day. The slot must be free, the day not past, the plan not archived, and
    the recipe must contain none of the user's allergens and carry the tag of every diet they follow. Servings
    default to the user's household size.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
        day: 0 (Monday) to 6 (Sunday).
        meal: breakfast, lunch, dinner or snack.
        recipe_id: the recipe's id.
        servings: how many servings, 1 to 12 (default: household size).
    """
    u = _user(db, user_email)
    p = _open_plan(db, u, week_start)
    _check_day(day)
    when = _on(p, day)
    if when < db.today():
        raise ToolError(f"{DAYS[day]} {when.isoformat()} is already past.")
    r = _recipe(db, recipe_id, u)
    servings = u["household_size"] if servings is None else servings
    _check_servings(servings)
    taken = db.one("SELECT r.title FROM meal_plan_entries e JOIN recipes r ON r.id = e.recipe_id WHERE e.plan_id = ? "
                   "AND e.day = ? AND e.meal = ?", (p["id"], day, meal))
    if taken:
        raise ToolError(f"{DAYS[day]} {meal} already has {taken['title']}; remove it first to plan something else.")
    problems = _conflicts(db, u["id"], r["id"])
    if problems:
        raise ToolError(f"{r['title']} does not suit {u['full_name']}: it " + "; it ".join(problems) + ".")
    eid = db.insert("meal_plan_entries", {"plan_id": p["id"], "day": day, "meal": meal, "recipe_id": r["id"],
                                          "servings": servings, "cooked_at": None})
    return {"entry_id": eid, "date": when.isoformat(), "meal": meal, "recipe": r["title"], "servings": servings}


@tool(write=True)
def remove_meal(db: Db, user_email: str, week_start: str, day: int, meal: Meal) -> dict:
    """Take a planned meal off the plan (not once it has been cooked).

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
        day: 0 (Monday) to 6 (Sunday).
        meal: breakfast, lunch, dinner or snack.
    """
    _, _, e = _uncooked(db, user_email, week_start, day, meal, "was already cooked and stays on the plan.")
    db.execute("DELETE FROM meal_plan_entries WHERE id = ?", (e["id"],))
    return {"removed": {"day": DAYS[day], "meal": meal}}


@tool(write=True)
def change_meal_servings(db: Db, user_email: str, week_start: str, day: int, meal: Meal, servings: int) -> dict:
    """Change how many servings a planned (uncooked) meal makes.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
        day: 0 (Monday) to 6 (Sunday).
        meal: breakfast, lunch, dinner or snack.
        servings: 1 to 12.
    """
    _, _, e = _uncooked(db, user_email, week_start, day, meal, "was already cooked.")
    _check_servings(servings)
    if servings == e["servings"]:
        raise ToolError(f"{DAYS[day]} {meal} already makes {servings} servings.")
    db.execute("UPDATE meal_plan_entries SET servings = ? WHERE id = ?", (servings, e["id"]))
    return {"day": DAYS[day], "meal": meal, "servings": servings}


@tool(write=True)
def activate_meal_plan(db: Db, user_email: str, week_start: str) -> dict:
    """Move a draft plan with at least one meal to active.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
    """
    u = _user(db, user_email)
    p = _plan(db, u, week_start)
    if p["status"] != "draft":
        raise ToolError(f"The plan for the week of {p['week_start']} is {p['status']}; only drafts can be activated.")
    if not db.value("SELECT COUNT(*) FROM meal_plan_entries WHERE plan_id = ?", (p["id"],)):
        raise ToolError("The plan has no meals yet; add some first.")
    db.execute("UPDATE meal_plans SET status = 'active' WHERE id = ?", (p["id"],))
    return {"week_start": p["week_start"], "status": "active"}


@tool(write=True)
def cook_meal(db: Db, user_email: str, week_start: str, day: int, meal: Meal) -> dict:
    """Record that a planned meal was cooked (today or earlier): its ingredients, scaled to the planned servings,
    are taken out of the pantry. Refused when the unexpired pantry lacks any of them (the reply says what is
    missing); items used up leave the pantry.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
        day: 0 (Monday) to 6 (Sunday).
        meal: breakfast, lunch, dinner or snack.
    """
    u, p, e = _uncooked(db, user_email, week_start, day, meal, "is already marked as cooked.")
    when = _on(p, day)
    if when > db.today():
        raise ToolError(f"{DAYS[day]} {when.isoformat()} is still ahead; meals are cooked on or after their day.")
    base = db.value("SELECT servings FROM recipes WHERE id = ?", (e["recipe_id"],))
    stock = _stock(db, u["id"])
    uses = db.query("SELECT ri.ingredient_id, ri.quantity, i.name, i.unit FROM recipe_ingredients ri JOIN ingredients i "
                    "ON i.id = ri.ingredient_id WHERE ri.recipe_id = ? ORDER BY ri.id", (e["recipe_id"],))
    short = []
    for x in uses:
        need = x["quantity"] * e["servings"] / base
        have = stock.get(x["ingredient_id"], 0.0)
        if have + EPS < need:
            short.append(f"{x['name']} (need {_fmt(need)} {x['unit']}, have {_fmt(have)})")
    if short:
        raise ToolError("The pantry is short of: " + "; ".join(short) + ". Add what you bought with add_pantry_item "
                        "first.")
    for x in uses:
        need = x["quantity"] * e["servings"] / base
        row = _pantry_row(db, u["id"], x["ingredient_id"])
        _set_stock(db, row, round(row["quantity"] - need, 2))
    db.execute("UPDATE meal_plan_entries SET cooked_at = ? WHERE id = ?", (_now(db), e["id"]))
    return {"cooked": {"day": DAYS[day], "meal": meal}, "ingredients_used": len(uses)}


# ----------------------------------------------------------------------------------------------
# write tools: shopping lists
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def generate_shopping_list(db: Db, user_email: str, week_start: str) -> dict:
    """Make the shopping list of a week's plan: for each ingredient, what the uncooked meals need (scaled to their
    servings) minus what the pantry holds unexpired today, rounded up to a whole unit. Refused when the plan
    already has an open list or the pantry covers everything.

    Args:
        user_email: the user's e-mail address (the user acting).
        week_start: the Monday of the plan's week, YYYY-MM-DD.
    """
    u = _user(db, user_email)
    p = _open_plan(db, u, week_start)
    db.none("SELECT 1 FROM shopping_lists WHERE plan_id = ? AND status = 'open'", (p["id"],),
            found="This plan already has an open shopping list; complete it before making a new one.")
    need = _needs(db, p["id"])
    if not need:
        raise ToolError("The plan has no uncooked meals to shop for.")
    buy = _shortfall(need, _stock(db, u["id"]))
    if not buy:
        raise ToolError("The pantry already covers everything this plan needs.")
    lid = db.insert("shopping_lists", {"user_id": u["id"], "plan_id": p["id"], "status": "open", "created_at": _now(db),
                                       "completed_at": None})
    for k in sorted(buy):
        db.insert("shopping_list_items", {"list_id": lid, "ingredient_id": k, "quantity": buy[k], "is_checked": 0})
    return {"list_id": lid, "items": len(buy)}


def _own_list(db: Db, u: dict[str, Any], list_id: int) -> dict[str, Any]:
    not_theirs = f"Shopping list {list_id} is not one of {u['email']}'s lists."
    lst = db.one("SELECT * FROM shopping_lists WHERE id = ?", (list_id,), missing=not_theirs)
    require_owner(lst, "user_id", u["id"], not_theirs)
    if lst["status"] != "open":
        raise ToolError(f"Shopping list {list_id} is already done.")
    return lst


@tool(write=True)
def check_shopping_item(db: Db, user_email: str, item_id: int, checked: bool = True) -> dict:
    """Tick (or untick) an item of one of the user's open shopping lists.

    Args:
        user_email: the user's e-mail address (the user acting).
        item_id: the item's id (get_shopping_list shows it).
        checked: true to tick, false to untick.
    """
    u = _user(db, user_email)
    it = db.one("SELECT * FROM shopping_list_items WHERE id = ?", (item_id,),
                missing=f"No shopping list item {item_id}.")
    _own_list(db, u, it["list_id"])
    if bool(it["is_checked"]) == checked:
        raise ToolError(f"Item {item_id} is already {'ticked' if checked else 'unticked'}.")
    db.execute("UPDATE shopping_list_items SET is_checked = ? WHERE id = ?", (1 if checked else 0, it["id"]))
    return {"item_id": it["id"], "checked": checked}


@tool(write=True)
def complete_shopping_list(db: Db, user_email: str, list_id: int) -> dict:
    """Close an open shopping list after shopping: every ticked item goes into the pantry (added to existing stock;
    new items get no expiry date); unticked items were not bought. At least one item must be ticked.

    Args:
        user_email: the user's e-mail address (the user acting).
        list_id: the list's id.
    """
    u = _user(db, user_email)
    lst = _own_list(db, u, list_id)
    items = db.query("SELECT * FROM shopping_list_items WHERE list_id = ? AND is_checked = 1 ORDER BY id", (lst["id"],))
    if not items:
        raise ToolError("No item on the list is ticked; tick what you bought with check_shopping_item first.")
    for it in items:
        _add_stock(db, u["id"], it["ingredient_id"], it["quantity"])
    db.execute("UPDATE shopping_lists SET status = 'done', completed_at = ? WHERE id = ?", (_now(db), lst["id"]))
    return {"list_id": lst["id"], "status": "done", "added_to_pantry": len(items)}


# ----------------------------------------------------------------------------------------------
# write tools: reviews and collections
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def rate_recipe(db: Db, user_email: str, recipe_id: int, stars: int, body: str = "") -> dict:
    """Review a recipe the user has cooked (a cooked meal in one of their plans): 1 to 5 stars, once per recipe,
    never one's own recipe.

    Args:
        user_email: the user's e-mail address (the user acting).
        recipe_id: the recipe's id.
        stars: 1 to 5.
        body: optional review text.
    """
    u = _user(db, user_email)
    r = _recipe(db, recipe_id, u)
    if not 1 <= stars <= 5:
        raise ToolError(f"stars must be between 1 and 5 (got {stars}).")
    if r["author_id"] == u["id"]:
        raise ToolError("Authors cannot review their own recipes.")
    db.none("SELECT 1 FROM reviews WHERE recipe_id = ? AND user_id = ?", (r["id"], u["id"]),
            found=f"{u['full_name']} has already reviewed {r['title']}.")
    cooked = db.value("SELECT 1 FROM meal_plan_entries e JOIN meal_plans p ON p.id = e.plan_id WHERE p.user_id = ? "
                      "AND e.recipe_id = ? AND e.cooked_at IS NOT NULL", (u["id"], r["id"]))
    if not cooked:
        raise ToolError(f"{u['full_name']} has not cooked {r['title']} yet (no cooked meal in their plans); only "
                        "cooked recipes can be reviewed.")
    rid = db.insert("reviews", {"recipe_id": r["id"], "user_id": u["id"], "stars": stars, "body": body.strip(),
                                "created_at": _now(db)})
    return {"review_id": rid, "recipe": r["title"], "stars": stars}


def _collection(db: Db, u: dict[str, Any], name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM collections WHERE user_id = ? AND lower(name) = lower(?)", (u["id"], name.strip()),
                  missing=f"{u['email']} has no collection named {name!r}; list_collections shows theirs.")


@tool(write=True)
def create_collection(db: Db, user_email: str, name: str) -> dict:
    """Create a named recipe collection (names unique per user, at most 10 collections).

    Args:
        user_email: the user's e-mail address (the user acting).
        name: the collection's name, e.g. "Weeknight dinners".
    """
    u = _user(db, user_email)
    name = clean_text(name, "name", 2, 60)
    db.none("SELECT 1 FROM collections WHERE user_id = ? AND lower(name) = lower(?)", (u["id"], name),
            found=f"{u['email']} already has a collection named {name!r}.")
    if db.value("SELECT COUNT(*) FROM collections WHERE user_id = ?", (u["id"],)) >= 10:
        raise ToolError("A user can have at most 10 collections.")
    cid = db.insert("collections", {"user_id": u["id"], "name": name, "created_at": _now(db)})
    return {"collection_id": cid, "name": name}


@tool(write=True)
def add_to_collection(db: Db, user_email: str, collection: str, recipe_id: int) -> dict:
    """Add a recipe the user can see to one of their collections (at most 50 recipes each).

    Args:
        user_email: the user's e-mail address (the user acting).
        collection: the collection's name.
        recipe_id: the recipe's id.
    """
    u = _user(db, user_email)
    c = _collection(db, u, collection)
    r = _recipe(db, recipe_id, u)
    db.none("SELECT 1 FROM collection_recipes WHERE collection_id = ? AND recipe_id = ?", (c["id"], r["id"]),
            found=f"{r['title']} is already in {c['name']}.")
    if db.value("SELECT COUNT(*) FROM collection_recipes WHERE collection_id = ?", (c["id"],)) >= 50:
        raise ToolError(f"{c['name']} is full (50 recipes).")
    db.insert("collection_recipes", {"collection_id": c["id"], "recipe_id": r["id"], "added_at": _now(db)})
    return {"collection": c["name"], "added": r["title"]}


@tool(write=True)
def remove_from_collection(db: Db, user_email: str, collection: str, recipe_id: int) -> dict:
    """Take a recipe out of one of the user's collections.

    Args:
        user_email: the user's e-mail address (the user acting).
        collection: the collection's name.
        recipe_id: the recipe's id.
    """
    u = _user(db, user_email)
    c = _collection(db, u, collection)
    n = db.execute("DELETE FROM collection_recipes WHERE collection_id = ? AND recipe_id = ?", (c["id"], recipe_id))
    if not n:
        raise ToolError(f"Recipe {recipe_id} is not in {c['name']}.")
    return {"collection": c["name"], "removed": recipe_id}
