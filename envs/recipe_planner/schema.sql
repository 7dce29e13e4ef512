-- recipe_planner: meal planning (recipes, ingredients, diets, allergies, pantry, weekly plans, shopping lists).
-- Timestamps are ISO-8601 text without time zone, dates "YYYY-MM-DD". Each ingredient has one unit
-- (g, ml, pcs, tbsp, tsp) used everywhere it appears: recipes, pantry and shopping lists.
-- Plan days: 0 = Monday ... 6 = Sunday; a plan's week_start is a Monday.

CREATE TABLE users (
    id                  INTEGER PRIMARY KEY,
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    household_size      INTEGER NOT NULL CHECK (household_size BETWEEN 1 AND 12),
    created_at          TEXT NOT NULL
);

CREATE TABLE allergens (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE
);

-- Diet tags (vegan, gluten_free ...) are also dietary restrictions a user can follow.
CREATE TABLE tags (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    kind                TEXT NOT NULL CHECK (kind IN ('diet', 'cuisine', 'meal'))
);

CREATE TABLE ingredients (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    unit                TEXT NOT NULL CHECK (unit IN ('g', 'ml', 'pcs', 'tbsp', 'tsp')),
    aisle               TEXT NOT NULL,
    allergen_id         INTEGER REFERENCES allergens(id),
    is_animal           INTEGER NOT NULL CHECK (is_animal IN (0, 1)),
    is_meat             INTEGER NOT NULL CHECK (is_meat IN (0, 1)),
    has_gluten          INTEGER NOT NULL CHECK (has_gluten IN (0, 1)),
    has_dairy           INTEGER NOT NULL CHECK (has_dairy IN (0, 1)),
    kcal_per_unit       REAL NOT NULL CHECK (kcal_per_unit >= 0),
    protein_per_unit    REAL NOT NULL CHECK (protein_per_unit >= 0),
    CHECK (is_meat <= is_animal),
    CHECK (has_dairy <= is_animal)
);

CREATE TABLE recipes (
    id                  INTEGER PRIMARY KEY,
    title               TEXT NOT NULL,
    author_id           INTEGER REFERENCES users(id),
    description         TEXT NOT NULL DEFAULT '',
    servings            INTEGER NOT NULL CHECK (servings BETWEEN 1 AND 12),
    prep_minutes        INTEGER NOT NULL CHECK (prep_minutes >= 0),
    cook_minutes        INTEGER NOT NULL CHECK (cook_minutes >= 0),
    difficulty          TEXT NOT NULL CHECK (difficulty IN ('easy', 'medium', 'hard')),
    is_public           INTEGER NOT NULL DEFAULT 1 CHECK (is_public IN (0, 1)),
    created_at          TEXT NOT NULL
);

CREATE TABLE recipe_ingredients (
    id                  INTEGER PRIMARY KEY,
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    ingredient_id       INTEGER NOT NULL REFERENCES ingredients(id),
    quantity            REAL NOT NULL CHECK (quantity > 0),
    note                TEXT NOT NULL DEFAULT '',
    UNIQUE (recipe_id, ingredient_id)
);

CREATE TABLE recipe_steps (
    id                  INTEGER PRIMARY KEY,
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    position            INTEGER NOT NULL CHECK (position >= 1),
    instruction         TEXT NOT NULL,
    UNIQUE (recipe_id, position)
);

CREATE TABLE recipe_tags (
    id                  INTEGER PRIMARY KEY,
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    tag_id              INTEGER NOT NULL REFERENCES tags(id),
    UNIQUE (recipe_id, tag_id)
);

-- Per serving, derived from the ingredients.
CREATE TABLE recipe_nutrition (
    id                  INTEGER PRIMARY KEY,
    recipe_id           INTEGER NOT NULL UNIQUE REFERENCES recipes(id),
    calories            INTEGER NOT NULL CHECK (calories >= 0),
    protein_g           INTEGER NOT NULL CHECK (protein_g >= 0)
);

CREATE TABLE user_diets (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    tag_id              INTEGER NOT NULL REFERENCES tags(id),
    UNIQUE (user_id, tag_id)
);

CREATE TABLE user_allergies (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    allergen_id         INTEGER NOT NULL REFERENCES allergens(id),
    UNIQUE (user_id, allergen_id)
);

CREATE TABLE pantry_items (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    ingredient_id       INTEGER NOT NULL REFERENCES ingredients(id),
    quantity            REAL NOT NULL CHECK (quantity > 0),
    expires_on          TEXT,
    added_at            TEXT NOT NULL,
    UNIQUE (user_id, ingredient_id)
);

CREATE TABLE meal_plans (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    week_start          TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
    created_at          TEXT NOT NULL,
    UNIQUE (user_id, week_start)
);

CREATE TABLE meal_plan_entries (
    id                  INTEGER PRIMARY KEY,
    plan_id             INTEGER NOT NULL REFERENCES meal_plans(id),
    day                 INTEGER NOT NULL CHECK (day BETWEEN 0 AND 6),
    meal                TEXT NOT NULL CHECK (meal IN ('breakfast', 'lunch', 'dinner', 'snack')),
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    servings            INTEGER NOT NULL CHECK (servings BETWEEN 1 AND 12),
    cooked_at           TEXT,
    UNIQUE (plan_id, day, meal)
);

CREATE TABLE shopping_lists (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    plan_id             INTEGER REFERENCES meal_plans(id),
    status              TEXT NOT NULL CHECK (status IN ('open', 'done')),
    created_at          TEXT NOT NULL,
    completed_at        TEXT,
    CHECK ((status = 'done') = (completed_at IS NOT NULL))
);

CREATE TABLE shopping_list_items (
    id                  INTEGER PRIMARY KEY,
    list_id             INTEGER NOT NULL REFERENCES shopping_lists(id),
    ingredient_id       INTEGER NOT NULL REFERENCES ingredients(id),
    quantity            REAL NOT NULL CHECK (quantity > 0),
    is_checked          INTEGER NOT NULL DEFAULT 0 CHECK (is_checked IN (0, 1)),
    UNIQUE (list_id, ingredient_id)
);

CREATE TABLE reviews (
    id                  INTEGER PRIMARY KEY,
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    user_id             INTEGER NOT NULL REFERENCES users(id),
    stars               INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    body                TEXT NOT NULL DEFAULT '',
    created_at          TEXT NOT NULL,
    UNIQUE (recipe_id, user_id)
);

CREATE TABLE collections (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users(id),
    name                TEXT NOT NULL,
    created_at          TEXT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE collection_recipes (
    id                  INTEGER PRIMARY KEY,
    collection_id       INTEGER NOT NULL REFERENCES collections(id),
    recipe_id           INTEGER NOT NULL REFERENCES recipes(id),
    added_at            TEXT NOT NULL,
    UNIQUE (collection_id, recipe_id)
);

CREATE INDEX idx_ri_recipe ON recipe_ingredients(recipe_id);
CREATE INDEX idx_entries_plan ON meal_plan_entries(plan_id);
CREATE INDEX idx_pantry_user ON pantry_items(user_id);
CREATE INDEX idx_reviews_recipe ON reviews(recipe_id);
