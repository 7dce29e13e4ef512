"""World builder for recipe_planner: a recipe catalogue, users with diets and allergies, pantries, weekly meal
plans, shopping lists, reviews and collections.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes from
``ctx.rng`` / ``ctx.faker`` and every date from ``ctx.clock``. The rows keep the invariants ``tools.py`` relies on:

- a recipe's diet tags follow from its ingredients (vegan: nothing animal; vegetarian: no meat or fish;
  gluten_free, dairy_free; high_protein: at least 25 g of protein per serving) and its nutrition per serving is
  the sum of its ingredients' values divided by its servings;
- every planned meal suits its user (no allergen they have, every diet they follow) and carries a meal tag
  that fits the slot; cooked meals lie on or before today; archived plans are past weeks, the current week's
  plan is active and next week's plans are drafts;
- shopping lists that are open were generated with the tools' rule from the pantry as it is; done lists have
  completion dates; reviews are only by users who cooked the recipe and did not write it, once each.

Planted for the templates: users whose plan for today has an uncooked dinner the pantry fully covers (cook),
next-week draft plans without a shopping list (plan and shop), open shopping lists with several items,
allergic users whose favourites hold a recipe with their allergen, and cooked, unreviewed recipes. Where chance
left a template without a candidate, ``plant_expired``, ``plant_open_list`` and ``plant_allergen_collection`` add
one (no random draws, and only when missing, so worlds that already had one, seed 0 included, are unchanged).

With ``ctx.distractors``: namesake users (same full name, other e-mail) and recipes with look-alike titles
("Easy Chicken Tikka Masala" next to "Chicken Tikka Masala").
"""

from __future__ import annotations

import math
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

ALLERGENS = ["peanuts", "tree nuts", "milk", "eggs", "wheat", "soy", "fish", "shellfish", "sesame"]
DIETS = ["vegan", "vegetarian", "gluten_free", "dairy_free", "high_protein"]
CUISINES = ["italian", "indian", "asian", "mexican", "mediterranean", "american"]
MEAL_TAGS = ["breakfast", "lunch", "dinner", "snack", "dessert"]

# name: (unit, aisle, allergen, animal, meat, gluten, dairy, kcal/unit, protein/unit)
ING: dict[str, tuple] = {
    "onion": ("pcs", "produce", None, 0, 0, 0, 0, 44, 1.2),
    "garlic clove": ("pcs", "produce", None, 0, 0, 0, 0, 4, 0.2),
    "tomato": ("pcs", "produce", None, 0, 0, 0, 0, 22, 1.1),
    "carrot": ("pcs", "produce", None, 0, 0, 0, 0, 25, 0.6),
    "potato": ("g", "produce", None, 0, 0, 0, 0, 0.77, 0.02),
    "sweet potato": ("g", "produce", None, 0, 0, 0, 0, 0.86, 0.016),
    "spinach": ("g", "produce", None, 0, 0, 0, 0, 0.23, 0.029),
    "bell pepper": ("pcs", "produce", None, 0, 0, 0, 0, 31, 1.0),
    "zucchini": ("pcs", "produce", None, 0, 0, 0, 0, 33, 2.4),
    "broccoli": ("g", "produce", None, 0, 0, 0, 0, 0.34, 0.028),
    "mushrooms": ("g", "produce", None, 0, 0, 0, 0, 0.22, 0.031),
    "lemon": ("pcs", "produce", None, 0, 0, 0, 0, 17, 0.6),
    "lime": ("pcs", "produce", None, 0, 0, 0, 0, 20, 0.5),
    "avocado": ("pcs", "produce", None, 0, 0, 0, 0, 240, 3.0),
    "cucumber": ("pcs", "produce", None, 0, 0, 0, 0, 45, 2.0),
    "fresh basil": ("g", "produce", None, 0, 0, 0, 0, 0.23, 0.03),
    "cilantro": ("g", "produce", None, 0, 0, 0, 0, 0.23, 0.02),
    "ginger": ("g", "produce", None, 0, 0, 0, 0, 0.8, 0.018),
    "banana": ("pcs", "produce", None, 0, 0, 0, 0, 105, 1.3),
    "berries": ("g", "produce", None, 0, 0, 0, 0, 0.5, 0.007),
    "apple": ("pcs", "produce", None, 0, 0, 0, 0, 95, 0.5),
    "eggs": ("pcs", "dairy & eggs", "eggs", 1, 0, 0, 0, 72, 6.3),
    "milk": ("ml", "dairy & eggs", "milk", 1, 0, 0, 1, 0.61, 0.033),
    "butter": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 7.17, 0.009),
    "parmesan": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 4.31, 0.38),
    "mozzarella": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 2.8, 0.28),
    "cheddar": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 4.03, 0.25),
    "greek yogurt": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 0.97, 0.09),
    "heavy cream": ("ml", "dairy & eggs", "milk", 1, 0, 0, 1, 3.4, 0.02),
    "feta": ("g", "dairy & eggs", "milk", 1, 0, 0, 1, 2.64, 0.14),
    "chicken breast": ("g", "meat & fish", None, 1, 1, 0, 0, 1.65, 0.31),
    "chicken thighs": ("g", "meat & fish", None, 1, 1, 0, 0, 2.09, 0.26),
    "ground beef": ("g", "meat & fish", None, 1, 1, 0, 0, 2.5, 0.26),
    "bacon": ("g", "meat & fish", None, 1, 1, 0, 0, 5.41, 0.37),
    "salmon fillet": ("g", "meat & fish", "fish", 1, 1, 0, 0, 2.08, 0.2),
    "shrimp": ("g", "meat & fish", "shellfish", 1, 1, 0, 0, 0.99, 0.24),
    "canned tuna": ("g", "meat & fish", "fish", 1, 1, 0, 0, 1.16, 0.26),
    "spaghetti": ("g", "grains & bakery", "wheat", 0, 0, 1, 0, 3.71, 0.13),
    "penne": ("g", "grains & bakery", "wheat", 0, 0, 1, 0, 3.71, 0.13),
    "rice": ("g", "grains & bakery", None, 0, 0, 0, 0, 3.6, 0.07),
    "quinoa": ("g", "grains & bakery", None, 0, 0, 0, 0, 3.68, 0.14),
    "rolled oats": ("g", "grains & bakery", None, 0, 0, 0, 0, 3.89, 0.17),
    "flour": ("g", "grains & bakery", "wheat", 0, 0, 1, 0, 3.64, 0.1),
    "bread slice": ("pcs", "grains & bakery", "wheat", 0, 0, 1, 0, 80, 3.0),
    "tortillas": ("pcs", "grains & bakery", "wheat", 0, 0, 1, 0, 140, 4.0),
    "rice noodles": ("g", "grains & bakery", None, 0, 0, 0, 0, 3.6, 0.06),
    "olive oil": ("tbsp", "oils & sauces", None, 0, 0, 0, 0, 119, 0),
    "soy sauce": ("tbsp", "oils & sauces", "soy", 0, 0, 1, 0, 9, 1.3),
    "sesame oil": ("tbsp", "oils & sauces", "sesame", 0, 0, 0, 0, 120, 0),
    "tahini": ("tbsp", "oils & sauces", "sesame", 0, 0, 0, 0, 89, 2.6),
    "curry paste": ("tbsp", "oils & sauces", None, 0, 0, 0, 0, 30, 0.5),
    "tomato paste": ("tbsp", "oils & sauces", None, 0, 0, 0, 0, 13, 0.6),
    "coconut milk": ("ml", "canned goods", None, 0, 0, 0, 0, 2.3, 0.023),
    "canned chickpeas": ("g", "canned goods", None, 0, 0, 0, 0, 1.39, 0.07),
    "black beans": ("g", "canned goods", None, 0, 0, 0, 0, 1.32, 0.09),
    "canned tomatoes": ("g", "canned goods", None, 0, 0, 0, 0, 0.32, 0.016),
    "lentils": ("g", "canned goods", None, 0, 0, 0, 0, 3.53, 0.25),
    "vegetable broth": ("ml", "canned goods", None, 0, 0, 0, 0, 0.05, 0.002),
    "chicken broth": ("ml", "canned goods", None, 1, 1, 0, 0, 0.06, 0.006),
    "tofu": ("g", "produce", "soy", 0, 0, 0, 0, 0.76, 0.08),
    "peanut butter": ("tbsp", "baking & spreads", "peanuts", 0, 0, 0, 0, 94, 4.0),
    "almonds": ("g", "baking & spreads", "tree nuts", 0, 0, 0, 0, 5.79, 0.21),
    "honey": ("tbsp", "baking & spreads", None, 1, 0, 0, 0, 64, 0.1),
    "maple syrup": ("tbsp", "baking & spreads", None, 0, 0, 0, 0, 52, 0),
    "sugar": ("tbsp", "baking & spreads", None, 0, 0, 0, 0, 48, 0),
    "baking powder": ("tsp", "baking & spreads", None, 0, 0, 0, 0, 2, 0),
    "vanilla extract": ("tsp", "baking & spreads", None, 0, 0, 0, 0, 12, 0),
    "cocoa powder": ("tbsp", "baking & spreads", None, 0, 0, 0, 0, 12, 1.0),
    "dark chocolate": ("g", "baking & spreads", None, 0, 0, 0, 0, 5.46, 0.05),
    "salt": ("tsp", "spices", None, 0, 0, 0, 0, 0, 0),
    "black pepper": ("tsp", "spices", None, 0, 0, 0, 0, 6, 0.2),
    "cumin": ("tsp", "spices", None, 0, 0, 0, 0, 8, 0.4),
    "paprika": ("tsp", "spices", None, 0, 0, 0, 0, 6, 0.3),
    "chili flakes": ("tsp", "spices", None, 0, 0, 0, 0, 6, 0.2),
    "cinnamon": ("tsp", "spices", None, 0, 0, 0, 0, 6, 0.1),
}

# title, cuisine, meal tag, servings, prep, cook, difficulty, ingredients, steps
RECIPES: list[tuple] = [
    ("Spaghetti Bolognese", "italian", "dinner", 4, 15, 45, "medium",
     [("spaghetti", 400), ("ground beef", 500), ("onion", 1), ("garlic clove", 3), ("canned tomatoes", 800),
      ("tomato paste", 2), ("olive oil", 2), ("parmesan", 40), ("salt", 1), ("black pepper", 1)],
     ["Brown the beef with the chopped onion and garlic in olive oil.", "Add the tomatoes and paste; simmer 40 minutes.",
      "Cook the spaghetti, toss with the sauce and top with parmesan."]),
    ("Creamy Mushroom Penne", "italian", "dinner", 4, 10, 20, "easy",
     [("penne", 400), ("mushrooms", 300), ("garlic clove", 2), ("heavy cream", 200), ("parmesan", 50), ("butter", 20),
      ("salt", 1), ("black pepper", 1)],
     ["Cook the penne.", "Fry the mushrooms and garlic in butter, add the cream and parmesan.", "Toss with the pasta."]),
    ("Margherita Flatbread", "italian", "lunch", 2, 10, 12, "easy",
     [("flour", 250), ("olive oil", 2), ("baking powder", 1), ("canned tomatoes", 200), ("mozzarella", 150),
      ("fresh basil", 10), ("salt", 1)],
     ["Mix flour, baking powder, salt, oil and water into a dough.", "Roll out, top with tomato and mozzarella.",
      "Bake 12 minutes and scatter basil."]),
    ("Chicken Tikka Masala", "indian", "dinner", 4, 20, 35, "medium",
     [("chicken thighs", 600), ("greek yogurt", 150), ("onion", 1), ("garlic clove", 3), ("ginger", 15),
      ("canned tomatoes", 400), ("heavy cream", 150), ("curry paste", 2), ("rice", 300), ("salt", 1)],
     ["Marinate the chicken in yogurt and curry paste.", "Sear it, then simmer with onion, garlic, ginger and tomatoes.",
      "Stir in the cream; serve with rice."]),
    ("Chickpea Spinach Curry", "indian", "dinner", 4, 10, 25, "easy",
     [("canned chickpeas", 480), ("spinach", 200), ("onion", 1), ("garlic clove", 2), ("ginger", 10),
      ("coconut milk", 400), ("curry paste", 2), ("rice", 300), ("salt", 1)],
     ["Soften onion, garlic and ginger.", "Add curry paste, chickpeas and coconut milk; simmer 15 minutes.",
      "Wilt in the spinach and serve with rice."]),
    ("Red Lentil Dal", "indian", "dinner", 4, 10, 30, "easy",
     [("lentils", 250), ("onion", 1), ("garlic clove", 3), ("ginger", 10), ("canned tomatoes", 400), ("cumin", 2),
      ("vegetable broth", 750), ("olive oil", 1), ("cilantro", 10), ("salt", 1)],
     ["Fry onion, garlic, ginger and cumin in oil.", "Add lentils, tomatoes and broth; simmer 25 minutes.",
      "Finish with cilantro."]),
    ("Shrimp Pad Thai", "asian", "dinner", 2, 20, 10, "medium",
     [("rice noodles", 200), ("shrimp", 250), ("eggs", 2), ("peanut butter", 1), ("soy sauce", 2), ("lime", 1),
      ("garlic clove", 2), ("sugar", 1), ("bell pepper", 1)],
     ["Soak the noodles.", "Stir-fry shrimp, garlic and pepper; push aside and scramble the eggs.",
      "Add noodles, soy sauce, sugar and peanut butter; finish with lime."]),
    ("Teriyaki Salmon Bowl", "asian", "dinner", 2, 10, 15, "easy",
     [("salmon fillet", 300), ("rice", 200), ("soy sauce", 3), ("honey", 1), ("ginger", 10), ("broccoli", 200),
      ("sesame oil", 1)],
     ["Cook the rice and steam the broccoli.", "Glaze the salmon with soy sauce, honey and ginger and bake 12 minutes.",
      "Serve over rice with sesame oil."]),
    ("Tofu Vegetable Stir-Fry", "asian", "dinner", 3, 15, 12, "easy",
     [("tofu", 400), ("broccoli", 250), ("bell pepper", 2), ("carrot", 2), ("soy sauce", 3), ("garlic clove", 2),
      ("ginger", 10), ("sesame oil", 1), ("rice", 250)],
     ["Crisp the tofu cubes.", "Stir-fry the vegetables with garlic and ginger.", "Add tofu and soy sauce; serve on rice."]),
    ("Beef Tacos", "mexican", "dinner", 4, 15, 15, "easy",
     [("tortillas", 8), ("ground beef", 500), ("onion", 1), ("tomato", 2), ("cheddar", 100), ("lime", 1), ("cumin", 2),
      ("paprika", 1), ("salt", 1)],
     ["Brown the beef with onion and spices.", "Warm the tortillas.", "Fill with beef, tomato and cheddar; squeeze lime."]),
    ("Black Bean Quinoa Bowl", "mexican", "lunch", 2, 10, 20, "easy",
     [("quinoa", 150), ("black beans", 240), ("avocado", 1), ("tomato", 1), ("lime", 1), ("cilantro", 10), ("cumin", 1),
      ("olive oil", 1), ("salt", 1)],
     ["Cook the quinoa.", "Warm the beans with cumin.", "Top with avocado, tomato, cilantro and lime."]),
    ("Chicken Fajita Wraps", "mexican", "lunch", 4, 15, 15, "easy",
     [("tortillas", 8), ("chicken breast", 500), ("bell pepper", 2), ("onion", 1), ("paprika", 2), ("cumin", 1),
      ("lime", 1), ("greek yogurt", 100), ("olive oil", 1)],
     ["Slice and season the chicken.", "Fry with peppers and onion.", "Wrap with a spoon of yogurt."]),
    ("Greek Salad with Feta", "mediterranean", "lunch", 2, 15, 0, "easy",
     [("cucumber", 1), ("tomato", 3), ("feta", 150), ("olive oil", 2), ("lemon", 1), ("onion", 1), ("salt", 1)],
     ["Chop the vegetables.", "Dress with olive oil and lemon.", "Crumble the feta on top."]),
    ("Hummus Veggie Wrap", "mediterranean", "lunch", 2, 10, 0, "easy",
     [("tortillas", 2), ("canned chickpeas", 240), ("tahini", 2), ("lemon", 1), ("garlic clove", 1), ("cucumber", 1),
      ("carrot", 1), ("spinach", 50)],
     ["Blend chickpeas, tahini, lemon and garlic.", "Spread on the tortillas.", "Fill with the vegetables and roll."]),
    ("Lemon Herb Roast Chicken", "mediterranean", "dinner", 4, 15, 60, "medium",
     [("chicken thighs", 900), ("lemon", 2), ("garlic clove", 4), ("olive oil", 3), ("potato", 800), ("salt", 1),
      ("black pepper", 1)],
     ["Toss chicken and potatoes with oil, lemon, garlic, salt and pepper.", "Roast 55 minutes at 200 C."]),
    ("Lemon Garlic Salmon", "american", "dinner", 2, 10, 15, "easy",
     [("salmon fillet", 350), ("lemon", 1), ("garlic clove", 2), ("butter", 20), ("broccoli", 300), ("salt", 1)],
     ["Top the salmon with butter, garlic and lemon.", "Bake 12 minutes with the broccoli."]),
    ("Overnight Oats", "american", "breakfast", 2, 10, 0, "easy",
     [("rolled oats", 120), ("milk", 250), ("greek yogurt", 100), ("berries", 150), ("honey", 1)],
     ["Mix oats, milk and yogurt.", "Chill overnight; top with berries and honey."]),
    ("Banana Pancakes", "american", "breakfast", 4, 10, 15, "easy",
     [("flour", 200), ("milk", 300), ("eggs", 2), ("banana", 2), ("baking powder", 2), ("sugar", 1), ("butter", 20)],
     ["Whisk the batter with mashed banana.", "Fry small pancakes in butter."]),
    ("Spinach Mushroom Omelette", "american", "breakfast", 1, 5, 8, "easy",
     [("eggs", 3), ("spinach", 40), ("mushrooms", 60), ("cheddar", 30), ("butter", 10), ("salt", 1)],
     ["Fry mushrooms and spinach in butter.", "Pour in the beaten eggs, add cheddar and fold."]),
    ("Avocado Toast with Egg", "american", "breakfast", 2, 5, 5, "easy",
     [("bread slice", 4), ("avocado", 1), ("eggs", 2), ("lemon", 1), ("chili flakes", 1), ("salt", 1)],
     ["Toast the bread and mash the avocado with lemon.", "Top with a fried egg and chili flakes."]),
    ("Berry Smoothie Bowl", "american", "breakfast", 1, 5, 0, "easy",
     [("banana", 1), ("berries", 150), ("greek yogurt", 150), ("almonds", 20), ("honey", 1)],
     ["Blend banana, berries and yogurt.", "Top with almonds and honey."]),
    ("Peanut Butter Energy Bites", "american", "snack", 6, 15, 0, "easy",
     [("rolled oats", 150), ("peanut butter", 6), ("honey", 3), ("dark chocolate", 50), ("vanilla extract", 1)],
     ["Mix everything.", "Roll into balls and chill."]),
    ("Roasted Chickpea Snack", "mediterranean", "snack", 4, 5, 30, "easy",
     [("canned chickpeas", 480), ("olive oil", 2), ("paprika", 2), ("cumin", 1), ("salt", 1)],
     ["Dry and season the chickpeas.", "Roast 30 minutes until crisp."]),
    ("Sweet Potato Black Bean Chili", "mexican", "dinner", 6, 15, 40, "easy",
     [("sweet potato", 600), ("black beans", 480), ("onion", 1), ("garlic clove", 3), ("canned tomatoes", 800),
      ("vegetable broth", 500), ("cumin", 2), ("chili flakes", 1), ("paprika", 2)],
     ["Soften onion and garlic with the spices.", "Add sweet potato, beans, tomatoes and broth; simmer 35 minutes."]),
    ("Chicken Noodle Soup", "american", "dinner", 6, 15, 35, "easy",
     [("chicken breast", 500), ("chicken broth", 1500), ("carrot", 3), ("onion", 1), ("spaghetti", 200),
      ("garlic clove", 2), ("salt", 1), ("black pepper", 1)],
     ["Simmer chicken with broth, carrot, onion and garlic.", "Shred the chicken, add the broken spaghetti and cook 10 minutes."]),
    ("Tuna Salad Sandwich", "american", "lunch", 2, 10, 0, "easy",
     [("bread slice", 4), ("canned tuna", 160), ("greek yogurt", 60), ("lemon", 1), ("salt", 1)],
     ["Mix tuna, yogurt and lemon.", "Spread between the bread slices."]),
    ("Zucchini Pesto Pasta", "italian", "dinner", 2, 15, 10, "easy",
     [("penne", 200), ("zucchini", 2), ("fresh basil", 30), ("almonds", 30), ("parmesan", 40), ("olive oil", 3),
      ("garlic clove", 1)],
     ["Blend basil, almonds, parmesan, garlic and oil into pesto.", "Cook the pasta with the sliced zucchini and toss."]),
    ("Coconut Shrimp Curry", "asian", "dinner", 4, 15, 20, "medium",
     [("shrimp", 500), ("coconut milk", 400), ("curry paste", 3), ("bell pepper", 1), ("onion", 1), ("lime", 1),
      ("rice", 300), ("cilantro", 10)],
     ["Fry onion, pepper and curry paste.", "Add coconut milk and shrimp; simmer 6 minutes.", "Serve with rice, lime and cilantro."]),
    ("Chocolate Mug Cake", "american", "dessert", 1, 5, 2, "easy",
     [("flour", 40), ("sugar", 2), ("cocoa powder", 2), ("milk", 45), ("butter", 15), ("baking powder", 1)],
     ["Mix in a mug.", "Microwave 90 seconds."]),
    ("Apple Cinnamon Oatmeal", "american", "breakfast", 2, 5, 10, "easy",
     [("rolled oats", 100), ("milk", 400), ("apple", 1), ("maple syrup", 1), ("cinnamon", 1)],
     ["Simmer oats in milk.", "Stir in grated apple, cinnamon and maple syrup."]),
    ("Quinoa Buddha Bowl", "mediterranean", "lunch", 2, 15, 25, "easy",
     [("quinoa", 150), ("sweet potato", 300), ("canned chickpeas", 240), ("spinach", 80), ("tahini", 2), ("lemon", 1),
      ("olive oil", 1)],
     ["Roast the sweet potato and chickpeas.", "Cook the quinoa.", "Assemble with spinach and a tahini-lemon dressing."]),
    ("Garlic Butter Shrimp Rice", "asian", "dinner", 2, 10, 15, "easy",
     [("shrimp", 300), ("butter", 30), ("garlic clove", 4), ("rice", 200), ("lemon", 1), ("cilantro", 5)],
     ["Cook the rice.", "Fry the shrimp in garlic butter.", "Serve with lemon and cilantro."]),
    ("Vegan Banana Oat Muffins", "american", "snack", 6, 10, 20, "easy",
     [("rolled oats", 150), ("banana", 3), ("maple syrup", 3), ("baking powder", 2), ("cinnamon", 1), ("berries", 100)],
     ["Mash bananas with syrup.", "Stir in oats, baking powder, cinnamon and berries.", "Bake 20 minutes."]),
    ("Mushroom Spinach Risotto", "italian", "dinner", 4, 10, 30, "medium",
     [("rice", 320), ("mushrooms", 300), ("spinach", 100), ("vegetable broth", 1000), ("onion", 1), ("parmesan", 50),
      ("butter", 30), ("salt", 1)],
     ["Fry onion and mushrooms in butter.", "Add rice, then broth ladle by ladle for 25 minutes.",
      "Stir in spinach and parmesan."]),
]
VARIANT_PREFIX = ["Easy", "Weeknight", "Quick", "Family", "Spicy", "Classic"]
SLOT_TAGS = {"breakfast": ("breakfast",), "lunch": ("lunch", "dinner"), "dinner": ("dinner",),
             "snack": ("snack", "dessert")}


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower().replace("'", "").replace(" ", "")


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.shortfall = ctx.tools._shortfall  # the tools' shopping rule
        self.now = ctx.clock.replace(microsecond=0)
        self.today = self.now.date()
        self.monday = self.today - timedelta(days=self.today.weekday())
        self.t = Tables([
            "users", "allergens", "tags", "ingredients", "recipes", "recipe_ingredients", "recipe_steps", "recipe_tags",
            "recipe_nutrition", "user_diets", "user_allergies", "pantry_items", "meal_plans", "meal_plan_entries",
            "shopping_lists", "shopping_list_items", "reviews", "collections", "collection_recipes"])
        self.emails: set[str] = set()
        self.ing: dict[str, Row] = {}
        self.tag: dict[str, Row] = {}
        self.r_ings: dict[int, list[tuple[Row, float]]] = {}
        self.r_tags: dict[int, set[str]] = {}
        self.u_allergy: dict[int, list[int]] = {}
        self.u_diet: dict[int, list[str]] = {}
        self.pantry: dict[int, dict[int, Row]] = {}
        self.add = self.t.add

    # -- catalogue -------------------------------------------------------------------------------
    def build_catalogue(self) -> None:
        for a in ALLERGENS:
            self.add("allergens", {"name": a})
        for kind, names in (("diet", DIETS), ("cuisine", CUISINES), ("meal", MEAL_TAGS)):
            for n in names:
                self.tag[n] = self.add("tags", {"name": n, "kind": kind})
        for name, (unit, aisle, allergen, animal, meat, gluten, dairy, kcal, prot) in ING.items():
            self.ing[name] = self.add("ingredients", {
                "name": name, "unit": unit, "aisle": aisle,
                "allergen_id": ALLERGENS.index(allergen) + 1 if allergen else None, "is_animal": animal,
                "is_meat": meat, "has_gluten": gluten, "has_dairy": dairy, "kcal_per_unit": kcal,
                "protein_per_unit": prot})
        for spec in RECIPES:
            self.new_recipe(*spec, author=None, public=1, created=self.ctx.moment_ago(200, 700))

    def new_recipe(self, title: str, cuisine: str, meal: str, servings: int, prep: int, cook: int, diff: str,
                   ings: list[tuple[str, float]], steps: list[str], *, author: Row | None, public: int,
                   created: datetime) -> Row:
        r = self.add("recipes", {"title": title, "author_id": author and author["id"],
                                 "description": f"{title}: a {cuisine} {meal} for {servings}.", "servings": servings,
                                 "prep_minutes": prep, "cook_minutes": cook, "difficulty": diff, "is_public": public,
                                 "created_at": _ts(created)})
        lst = []
        for name, q in ings:
            i = self.ing[name]
            self.add("recipe_ingredients", {"recipe_id": r["id"], "ingredient_id": i["id"], "quantity": q, "note": ""})
            lst.append((i, q))
        self.r_ings[r["id"]] = lst
        for k, s in enumerate(steps, 1):
            self.add("recipe_steps", {"recipe_id": r["id"], "position": k, "instruction": s})
        kcal = sum(i["kcal_per_unit"] * q for i, q in lst) / servings
        prot = sum(i["protein_per_unit"] * q for i, q in lst) / servings
        tags = {cuisine, meal}
        if not any(i["is_animal"] for i, _ in lst):
            tags.add("vegan")
        if not any(i["is_meat"] for i, _ in lst):
            tags.add("vegetarian")
        if not any(i["has_gluten"] for i, _ in lst):
            tags.add("gluten_free")
        if not any(i["has_dairy"] for i, _ in lst):
            tags.add("dairy_free")
        if prot >= 25:
            tags.add("high_protein")
        for tname in DIETS + CUISINES + MEAL_TAGS:
            if tname in tags:
                self.add("recipe_tags", {"recipe_id": r["id"], "tag_id": self.tag[tname]["id"]})
        self.r_tags[r["id"]] = tags
        self.add("recipe_nutrition", {"recipe_id": r["id"], "calories": int(round(kcal)), "protein_g": int(round(prot))})
        return r

    def variant(self, base_idx: int, author: Row | None, prefix: str, public: int) -> Row:
        title, cuisine, meal, servings, prep, cook, diff, ings, steps = RECIPES[base_idx]
        f = self.ctx.pick([0.75, 1.0, 1.25, 1.5])
        new_ings = [(n, q if ING[n][0] in ("tsp", "tbsp") else (math.ceil(q * f) if ING[n][0] == "pcs" else round(q * f)))
                    for n, q in ings]
        new_title = f"{prefix} {title}" if author is None else f"{author['full_name'].split()[0]}'s {title}"
        return self.new_recipe(new_title, cuisine, meal, max(1, min(12, round(servings * f))), prep, cook, diff,
                               new_ings, steps, author=author, public=public, created=self.ctx.moment_ago(10, 300))

    # -- users -------------------------------------------------------------------------------------
    def new_user(self, first: str, last: str) -> Row:
        ctx = self.ctx
        base = f"{_ascii(first)}.{_ascii(last)}"
        email = ctx.unique(lambda: f"{base}{ctx.pick(['', '', str(ctx.rng.randint(2, 99))])}@"
                                   f"{ctx.pick(['example.com', 'homecook.net', 'mail.org'])}", self.emails)
        u = self.add("users", {"full_name": f"{first} {last}", "email": email,
                               "household_size": ctx.weighted({1: 0.25, 2: 0.35, 3: 0.15, 4: 0.2, 5: 0.05}),
                               "created_at": _ts(ctx.moment_ago(30, 800))})
        diets: list[str] = []
        if ctx.chance(0.3):
            diets.append(ctx.weighted({"vegetarian": 0.4, "vegan": 0.2, "gluten_free": 0.25, "dairy_free": 0.15}))
        for d in diets:
            self.add("user_diets", {"user_id": u["id"], "tag_id": self.tag[d]["id"]})
        allergies: list[int] = []
        if ctx.chance(0.4):
            for a in sorted(ctx.sample(range(1, len(ALLERGENS) + 1), ctx.weighted({1: 0.75, 2: 0.25}))):
                allergies.append(a)
                self.add("user_allergies", {"user_id": u["id"], "allergen_id": a})
        self.u_diet[u["id"]] = diets
        self.u_allergy[u["id"]] = allergies
        self.pantry[u["id"]] = {}
        return u

    def build_users(self) -> None:
        ctx = self.ctx
        for _ in range(ctx.n(14, 300)):
            self.new_user(ctx.faker.first_name(), ctx.faker.last_name())
        if ctx.distractors:
            for u in list(self.t["users"])[: ctx.n(5, 30)]:
                first, last = u["full_name"].split(" ", 1)
                self.new_user(first, last)
        # user variants of catalogue recipes (and look-alike public titles with distractors or at scale)
        users = self.t["users"]
        for _ in range(ctx.n(4, 160)):
            self.variant(ctx.rng.randrange(len(RECIPES)), ctx.pick(users), "", ctx.weighted({1: 0.6, 0: 0.4}))
        if ctx.distractors or ctx.large:
            used: set[str] = {r["title"] for r in self.t["recipes"]}
            for _ in range(ctx.n(8, 120)):
                k = ctx.rng.randrange(len(RECIPES))
                prefix = ctx.pick(VARIANT_PREFIX)
                if f"{prefix} {RECIPES[k][0]}" in used:
                    continue
                used.add(f"{prefix} {RECIPES[k][0]}")
                self.variant(k, None, prefix, 1)

    def suits(self, u: Row, rid: int) -> bool:
        if any(i["allergen_id"] in self.u_allergy[u["id"]] for i, _ in self.r_ings[rid]):
            return False
        return all(d in self.r_tags[rid] for d in self.u_diet[u["id"]])

    def may_eat(self, u: Row, i: Row) -> bool:
        """The ingredient is none of the user's allergens and fits every diet they follow."""
        diets = self.u_diet[u["id"]]
        return (i["allergen_id"] not in self.u_allergy[u["id"]] and not ("vegan" in diets and i["is_animal"])
                and not ("vegetarian" in diets and i["is_meat"]) and not ("gluten_free" in diets and i["has_gluten"])
                and not ("dairy_free" in diets and i["has_dairy"]))

    def visible(self, u: Row) -> list[Row]:
        return [r for r in self.t["recipes"] if r["is_public"] or r["author_id"] == u["id"]]

    # -- pantry ------------------------------------------------------------------------------------
    def stock(self, u: Row, i: Row, q: float, expires: date | None) -> None:
        p = self.pantry[u["id"]].get(i["id"])
        if p is None:
            p = self.add("pantry_items", {"user_id": u["id"], "ingredient_id": i["id"], "quantity": round(q, 2),
                                          "expires_on": expires and expires.isoformat(),
                                          "added_at": _ts(self.ctx.moment_ago(1, 40))})
            self.pantry[u["id"]][i["id"]] = p
        else:
            p["quantity"] = round(p["quantity"] + q, 2)

    def random_qty(self, i: Row) -> float:
        unit = i["unit"]
        ctx = self.ctx
        return {"g": ctx.rng.randint(2, 20) * 50, "ml": ctx.rng.randint(1, 8) * 250, "pcs": ctx.rng.randint(1, 10),
                "tbsp": ctx.rng.randint(4, 30), "tsp": ctx.rng.randint(5, 40)}[unit]

    def expiry(self, i: Row) -> date | None:
        ctx = self.ctx
        if i["aisle"] in ("produce", "dairy & eggs", "meat & fish"):
            return self.today + timedelta(days=ctx.rng.randint(-6, 16))
        return None if ctx.chance(0.4) else self.today + timedelta(days=ctx.rng.randint(20, 400))

    def build_pantries(self) -> None:
        ctx = self.ctx
        ings = self.t["ingredients"]
        for u in self.t["users"]:
            ok = [i for i in ings if self.may_eat(u, i)]
            for i in ctx.sample(ok, ctx.rng.randint(4, 9)):
                self.stock(u, i, self.random_qty(i), self.expiry(i))

    # -- plans -------------------------------------------------------------------------------------
    def pick_recipe(self, u: Row, meal: str) -> Row | None:
        ok = [r for r in self.visible(u) if self.suits(u, r["id"]) and self.r_tags[r["id"]] & set(SLOT_TAGS[meal])]
        return self.ctx.pick(ok) if ok else None

    def build_plans(self) -> None:
        ctx = self.ctx
        for u in self.t["users"]:
            weeks = [(self.monday - timedelta(weeks=1), "archived"), (self.monday, "active")]
            if ctx.chance(0.55):
                weeks.append((self.monday + timedelta(weeks=1), "draft"))
            for w, status in weeks:
                if status == "archived" and ctx.chance(0.3):
                    continue
                p = self.add("meal_plans", {"user_id": u["id"], "week_start": w.isoformat(), "status": status,
                                            "created_at": _ts(datetime.combine(w - timedelta(days=ctx.rng.randint(1, 4)),
                                                                               time(ctx.rng.randint(8, 21), 0)))})
                n = {"archived": ctx.rng.randint(3, 6), "active": ctx.rng.randint(5, 9), "draft": ctx.rng.randint(2, 4)}[status]
                slots = ctx.sample([(d, m) for d in range(7) for m in ("breakfast", "lunch", "dinner", "snack")], n)
                if status == "active" and u["id"] % 2 == 0:  # today's dinner (cook template)
                    slots = [s for s in slots if s != (self.today.weekday(), "dinner")] + [(self.today.weekday(), "dinner")]
                for d, m in sorted(slots, key=lambda s: (s[0], ("breakfast", "lunch", "dinner", "snack").index(s[1]))):
                    r = self.pick_recipe(u, m)
                    if r is None:
                        continue
                    when = w + timedelta(days=d)
                    cooked = None
                    if when < self.today and ctx.chance(0.85):
                        cooked = _ts(datetime.combine(when, time({"breakfast": 8, "lunch": 12, "dinner": 19, "snack": 16}[m],
                                                                 ctx.rng.randint(0, 59))))
                    e = self.add("meal_plan_entries", {"plan_id": p["id"], "day": d, "meal": m, "recipe_id": r["id"],
                                                       "servings": u["household_size"] if ctx.chance(0.8) else ctx.rng.randint(1, 6),
                                                       "cooked_at": cooked})
                    if status == "active" and when == self.today and m == "dinner":
                        self.cover(u, e)

    def cover(self, u: Row, e: Row) -> None:
        """Make sure the pantry holds (unexpired) what this planned meal needs, with a little to spare."""
        base = next(r for r in self.t["recipes"] if r["id"] == e["recipe_id"])["servings"]
        for i, q in self.r_ings[e["recipe_id"]]:
            need = q * e["servings"] / base
            p = self.pantry[u["id"]].get(i["id"])
            if p is not None and p["expires_on"] is not None and p["expires_on"] < self.today.isoformat():
                p["expires_on"] = (self.today + timedelta(days=3)).isoformat()
            have = p["quantity"] if p else 0
            if have < need:
                extra = math.ceil(need - have) + (self.random_qty(i) if self.ctx.chance(0.5) else 0)
                self.stock(u, i, extra, self.expiry(i) if p is None else None)
                if p is None:
                    q2 = self.pantry[u["id"]][i["id"]]
                    if q2["expires_on"] is not None and q2["expires_on"] < self.today.isoformat():
                        q2["expires_on"] = (self.today + timedelta(days=4)).isoformat()

    def plant_expired(self) -> None:
        """Cook template: a user whose today's dinner the pantry covers must also hold something expired.

        Chance usually gives one; only when it did not is a spoiled item planted (deterministically, no draw)."""
        today = self.today.isoformat()
        names = self.name_counts()
        plans = {p["id"]: p for p in self.t["meal_plans"]}
        cands: list[Row] = []
        for e in self.t["meal_plan_entries"]:
            p = plans[e["plan_id"]]
            u = self.t["users"][p["user_id"] - 1]
            if (p["status"] == "active" and e["meal"] == "dinner" and e["cooked_at"] is None
                    and date.fromisoformat(p["week_start"]) + timedelta(days=e["day"]) == self.today
                    and names[u["full_name"]] == 1 and u not in cands):
                cands.append(u)
        if not cands or any(x["expires_on"] is not None and x["expires_on"] < today
                            for u in cands for x in self.pantry[u["id"]].values()):
            return
        u = cands[0]
        for i in self.t["ingredients"]:
            if i["aisle"] in ("produce", "dairy & eggs") and i["id"] not in self.pantry[u["id"]] and self.may_eat(u, i):
                p = self.add("pantry_items", {"user_id": u["id"], "ingredient_id": i["id"],
                                              "quantity": {"g": 200, "ml": 500, "pcs": 2}.get(i["unit"], 5),
                                              "expires_on": (self.today - timedelta(days=3)).isoformat(),
                                              "added_at": _ts(self.now - timedelta(days=12))})
                self.pantry[u["id"]][i["id"]] = p
                return

    def to_buy(self, p: Row, u: Row, recipes: dict[int, Row]) -> dict[int, int]:
        """The tools' shopping rule: uncooked meals' needs minus unexpired pantry, rounded up to whole units."""
        today = self.today.isoformat()
        need: dict[int, float] = {}
        for e in self.t["meal_plan_entries"]:
            if e["plan_id"] == p["id"] and e["cooked_at"] is None:
                for i, q in self.r_ings[e["recipe_id"]]:
                    need[i["id"]] = need.get(i["id"], 0.0) + q * e["servings"] / recipes[e["recipe_id"]]["servings"]
        stock = {k: v["quantity"] for k, v in self.pantry[u["id"]].items()
                 if v["expires_on"] is None or v["expires_on"] >= today}
        return self.shortfall(need, stock)

    def name_counts(self) -> dict[str, int]:
        names: dict[str, int] = {}
        for u in self.t["users"]:
            names[u["full_name"]] = names.get(u["full_name"], 0) + 1
        return names

    def plant_open_list(self) -> None:
        """Finish-shopping template: an open, untouched list of three or more items for a user with a unique name.

        Chance usually gives one; only when it did not is one generated (deterministically, no draw)."""
        names = self.name_counts()
        items: dict[int, list[Row]] = {}
        for it in self.t["shopping_list_items"]:
            items.setdefault(it["list_id"], []).append(it)
        for lst in self.t["shopping_lists"]:
            its = items.get(lst["id"], [])
            if (lst["status"] == "open" and names[self.t["users"][lst["user_id"] - 1]["full_name"]] == 1
                    and len(its) >= 3 and not any(it["is_checked"] for it in its)):
                return
        listed = {lst["plan_id"] for lst in self.t["shopping_lists"]}
        recipes = {r["id"]: r for r in self.t["recipes"]}
        for p in self.t["meal_plans"]:
            u = self.t["users"][p["user_id"] - 1]
            if p["status"] not in ("active", "draft") or p["id"] in listed or names[u["full_name"]] != 1:
                continue
            buy = self.to_buy(p, u, recipes)
            if len(buy) < 3:
                continue
            lst = self.add("shopping_lists", {"user_id": u["id"], "plan_id": p["id"], "status": "open",
                                              "created_at": _ts(self.now - timedelta(hours=5)), "completed_at": None})
            for k in sorted(buy):
                self.add("shopping_list_items", {"list_id": lst["id"], "ingredient_id": k, "quantity": buy[k],
                                                 "is_checked": 0})
            return

    def plant_allergen_collection(self) -> None:
        """Collection-allergens template: an allergic user (unique name) whose collection mixes recipes with and
        without their allergen, titles distinct. Chance usually gives one; otherwise a recipe is added to one, or,
        when no allergic user has a unique name, an allergy is recorded for one (``plant_new_allergy``)."""
        names = self.name_counts()
        by_coll: dict[int, list[int]] = {}
        for cr in self.t["collection_recipes"]:
            by_coll.setdefault(cr["collection_id"], []).append(cr["recipe_id"])
        recipes = {r["id"]: r for r in self.t["recipes"]}

        def bad(uid: int, rid: int) -> bool:
            return any(i["allergen_id"] in self.u_allergy[uid] for i, _ in self.r_ings[rid])

        fixable: list[tuple[Row, Row]] = []
        for c in self.t["collections"]:
            u = self.t["users"][c["user_id"] - 1]
            rids = by_coll.get(c["id"], [])
            titles = [recipes[r]["title"] for r in rids]
            if names[u["full_name"]] != 1 or not self.u_allergy[u["id"]] or len(set(titles)) != len(titles) or not rids:
                continue
            flags = {bad(u["id"], r) for r in rids}
            if flags == {True, False}:
                return
            if len(rids) < 50:
                fixable.append((c, u))
        for c, u in fixable:
            rids = by_coll.get(c["id"], [])
            want_bad = not bad(u["id"], rids[0])
            titles = {recipes[r]["title"] for r in rids}
            for r in self.visible(u):
                if r["id"] not in rids and r["title"] not in titles and bad(u["id"], r["id"]) == want_bad:
                    self.add("collection_recipes", {"collection_id": c["id"], "recipe_id": r["id"],
                                                    "added_at": _ts(self.now - timedelta(days=2))})
                    return
        self.plant_new_allergy(names, by_coll, recipes)

    def plant_new_allergy(self, names: dict[str, int], by_coll: dict[int, list[int]], recipes: dict[int, Row]) -> None:
        """No allergic user with a unique name has a collection (with distractors every allergic user can be a
        namesake): record, for a uniquely named user, an allergy to an allergen that some but not all recipes of one
        of their collections contain, and that appears in none of their plans, pantry, shopping lists or own
        recipes, so everything built before stays consistent with it (the recipes were saved before it was known)."""
        used: dict[int, set[int]] = {}

        def mark(uid: int, rid: int) -> None:
            used.setdefault(uid, set()).update(i["allergen_id"] for i, _ in self.r_ings[rid] if i["allergen_id"])

        plans = {p["id"]: p for p in self.t["meal_plans"]}
        for e in self.t["meal_plan_entries"]:
            mark(plans[e["plan_id"]]["user_id"], e["recipe_id"])
        for r in self.t["recipes"]:
            if r["author_id"]:
                mark(r["author_id"], r["id"])
        ing = {i["id"]: i for i in self.t["ingredients"]}
        lists = {lst["id"]: lst for lst in self.t["shopping_lists"]}
        held = [(p["user_id"], p["ingredient_id"]) for p in self.t["pantry_items"]]
        held += [(lists[it["list_id"]]["user_id"], it["ingredient_id"]) for it in self.t["shopping_list_items"]]
        for uid, iid in held:
            if ing[iid]["allergen_id"]:
                used.setdefault(uid, set()).add(ing[iid]["allergen_id"])
        fixable: list[tuple[Row, Row, int]] = []
        for c in self.t["collections"]:
            u = self.t["users"][c["user_id"] - 1]
            rids = by_coll.get(c["id"], [])
            titles = [recipes[r]["title"] for r in rids]
            if names[u["full_name"]] != 1 or self.u_allergy[u["id"]] or len(set(titles)) != len(titles):
                continue
            for a in range(1, len(self.t["allergens"]) + 1):
                if a in used.get(u["id"], set()):
                    continue
                flags = {any(i["allergen_id"] == a for i, _ in self.r_ings[r]) for r in rids}
                if flags == {True, False}:
                    self.add("user_allergies", {"user_id": u["id"], "allergen_id": a})
                    self.u_allergy[u["id"]].append(a)
                    return
                if rids and len(rids) < 50:
                    fixable.append((c, u, a))
        for c, u, a in fixable:  # no collection mixes any free allergen: save one more recipe to mix it
            rids = by_coll.get(c["id"], [])
            want = not any(i["allergen_id"] == a for i, _ in self.r_ings[rids[0]])
            titles = {recipes[r]["title"] for r in rids}
            for r in self.visible(u):
                if (r["id"] not in rids and r["title"] not in titles and r["author_id"] != u["id"]
                        and any(i["allergen_id"] == a for i, _ in self.r_ings[r["id"]]) == want):
                    self.add("collection_recipes", {"collection_id": c["id"], "recipe_id": r["id"],
                                                    "added_at": _ts(self.now - timedelta(days=2))})
                    self.add("user_allergies", {"user_id": u["id"], "allergen_id": a})
                    self.u_allergy[u["id"]].append(a)
                    return

    def build_lists(self) -> None:
        ctx = self.ctx
        recipes = {r["id"]: r for r in self.t["recipes"]}
        for p in self.t["meal_plans"]:
            u = self.t["users"][p["user_id"] - 1]
            if p["status"] == "archived" and ctx.chance(0.5):
                lst = self.add("shopping_lists", {"user_id": u["id"], "plan_id": p["id"], "status": "done",
                                                  "created_at": _ts(datetime.combine(date.fromisoformat(p["week_start"]) - timedelta(days=1), time(10))),
                                                  "completed_at": _ts(datetime.combine(date.fromisoformat(p["week_start"]), time(17)))})
                ents = [e for e in self.t["meal_plan_entries"] if e["plan_id"] == p["id"]]
                seen: set[int] = set()
                for e in ents[:3]:
                    for i, q in self.r_ings[e["recipe_id"]][:3]:
                        if i["id"] not in seen:
                            seen.add(i["id"])
                            self.add("shopping_list_items", {"list_id": lst["id"], "ingredient_id": i["id"],
                                                             "quantity": max(1, math.ceil(q)), "is_checked": 1})
            elif p["status"] in ("active", "draft") and ctx.chance(0.35 if p["status"] == "draft" else 0.25):
                buy = self.to_buy(p, u, recipes)
                if len(buy) < 2:
                    continue
                lst = self.add("shopping_lists", {"user_id": u["id"], "plan_id": p["id"], "status": "open",
                                                  "created_at": _ts(ctx.moment_ago(0.1, 2)), "completed_at": None})
                for k in sorted(buy):
                    self.add("shopping_list_items", {"list_id": lst["id"], "ingredient_id": k, "quantity": buy[k],
                                                     "is_checked": 1 if lst["id"] % 3 == 0 and ctx.chance(0.3) else 0})

    def build_social(self) -> None:
        ctx = self.ctx
        plans = {p["id"]: p for p in self.t["meal_plans"]}
        recipes = {r["id"]: r for r in self.t["recipes"]}
        cooked: dict[int, dict[int, str]] = {}
        for e in self.t["meal_plan_entries"]:
            if e["cooked_at"]:
                uid = plans[e["plan_id"]]["user_id"]
                cooked.setdefault(uid, {}).setdefault(e["recipe_id"], e["cooked_at"])
        for uid in sorted(cooked):
            for rid, at in sorted(cooked[uid].items()):
                if recipes[rid]["author_id"] == uid or not ctx.chance(0.45):
                    continue
                when = min(datetime.fromisoformat(at) + timedelta(hours=ctx.rng.randint(1, 30)), self.now - timedelta(hours=1))
                self.add("reviews", {"recipe_id": rid, "user_id": uid, "stars": ctx.weighted({5: 0.4, 4: 0.35, 3: 0.15, 2: 0.07, 1: 0.03}),
                                     "body": ctx.pick(["", "", "Family favourite", "Needed more salt", "Easy and tasty",
                                                       "Will make again", "Too much garlic for us"]),
                                     "created_at": _ts(when)})
        for u in self.t["users"]:
            vis = self.visible(u)
            if ctx.chance(0.65) or self.u_allergy[u["id"]]:
                c = self.add("collections", {"user_id": u["id"], "name": "Favourites", "created_at": _ts(ctx.moment_ago(20, 300))})
                picks = ctx.sample(vis, ctx.rng.randint(2, 5))
                if self.u_allergy[u["id"]]:  # saved before the allergy was known
                    bad = [r for r in vis if any(i["allergen_id"] in self.u_allergy[u["id"]] for i, _ in self.r_ings[r["id"]])]
                    if bad and all(not any(i["allergen_id"] in self.u_allergy[u["id"]] for i, _ in self.r_ings[r["id"]]) for r in picks):
                        picks.append(ctx.pick(bad))
                seen: set[int] = set()
                for r in picks:
                    if r["id"] not in seen:
                        seen.add(r["id"])
                        self.add("collection_recipes", {"collection_id": c["id"], "recipe_id": r["id"],
                                                        "added_at": _ts(ctx.moment_ago(1, 19))})
            if ctx.chance(0.25):
                c = self.add("collections", {"user_id": u["id"], "name": ctx.pick(["Quick lunches", "Date night", "Meal prep"]),
                                             "created_at": _ts(ctx.moment_ago(5, 100))})
                for r in ctx.sample(vis, ctx.rng.randint(1, 4)):
                    self.add("collection_recipes", {"collection_id": c["id"], "recipe_id": r["id"],
                                                    "added_at": _ts(ctx.moment_ago(1, 4))})

    def rows(self) -> dict[str, list[Row]]:
        return self.t


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.build_catalogue()
    w.build_users()
    w.build_pantries()
    w.build_plans()
    w.plant_expired()
    w.build_lists()
    w.plant_open_list()
    w.build_social()
    w.plant_allergen_collection()
    return w.rows()
