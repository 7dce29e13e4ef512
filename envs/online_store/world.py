"""Randomized worlds of the online store.

``build(ctx)`` returns the rows of every table for one seeded world: a catalogue drawn from product
families, customers with addresses, ~110 days of order history simulated with the same pricing,
refund and stock rules as ``tools.py`` (discounts, round-half-up tax, free-shipping threshold, return
values, 'sale' / 'cancellation' / 'return' / 'restock' / 'adjustment' movements that sum to the stock),
shipments, returns, refunds, reviews, carts and the order event log.

Planted in every world (so each template has candidates): unshipped paid orders (one of them a
two-line, coupon-free order of a customer with no open cart), parcels in transit, recent deliveries,
requested returns, products with sold-out options, products with at least three published reviews,
open carts that can check out with a coupon, and one category with exactly two low-stock variants.

Everything comes from ``ctx.rng`` / ``ctx.faker`` and ``ctx.clock``; only lists and dicts are
iterated, so the same key gives the same rows in every process.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

# ---------------------------------------------------------------------------------------------
# static reference data
# ---------------------------------------------------------------------------------------------

# fmt: off
TAX_RATES = [
    ("CA", "California", 725), ("CO", "Colorado", 290), ("FL", "Florida", 600), ("GA", "Georgia", 400),
    ("IL", "Illinois", 625), ("MA", "Massachusetts", 625), ("NJ", "New Jersey", 663), ("NY", "New York", 400),
    ("OR", "Oregon", 0), ("PA", "Pennsylvania", 600), ("TX", "Texas", 625), ("WA", "Washington", 650),
]

SHIPPING = [
    {"code": "standard", "name": "Standard (3-5 business days)", "price_cents": 599, "free_over_cents": 5000,
     "transit_days": 5},
    {"code": "express", "name": "Express (2 business days)", "price_cents": 1499, "free_over_cents": None,
     "transit_days": 2},
    {"code": "overnight", "name": "Overnight", "price_cents": 2999, "free_over_cents": None, "transit_days": 1},
]

CATEGORIES = [
    (1, "apparel", "Apparel", None, "Shirts, knitwear, trousers and basics."),
    (2, "footwear", "Footwear", None, "Boots, sneakers and slippers."),
    (3, "kitchen", "Kitchen", None, "Everything for cooking, coffee and tea."),
    (4, "home-decor", "Home Decor", None, "Blankets, lamps and cosy things."),
    (5, "outdoor", "Outdoor", None, "Gear for hiking and camping."),
    (6, "electronics", "Electronics", None, "Gadgets and accessories."),
    (7, "coffee-tea", "Coffee & Tea", 3, "Brewing gear and loose leaf tea."),
    (8, "cookware", "Cookware", 3, "Pans, skillets and knives."),
    (9, "camping", "Camping", 5, "Tents, sleeping bags and camp kitchen."),
    (10, "audio", "Audio", 6, "Headphones and speakers."),
    (11, "candles", "Candles & Scents", 4, "Hand-poured candles and diffusers."),
]
CAT_ID = {c[1]: c[0] for c in CATEGORIES}

SIZES = [("S", "S"), ("M", "M"), ("L", "L")]
SHOE = [("Size 8", "08"), ("Size 9", "09"), ("Size 10", "10"), ("Size 11", "11"), ("Size 12", "12")]

# A product family: category, brand, brand code, family code, names (the first is the base line; more
# names are line extensions used in large worlds), description, price (cents), weight (g), options
# (label, code) or, for apparel, colours x sizes.
FAMILIES: list[dict[str, Any]] = [
    {"cat": "apparel", "brand": "Northbound", "bc": "NB", "fc": "LIN",
     "names": ["Classic Linen Shirt", "Relaxed Linen Shirt", "Linen Camp Shirt"],
     "desc": "Breathable long-sleeve shirt in washed European linen with a relaxed fit.", "price": 4900,
     "weight": 290, "colours": [("White", "WHT"), ("Navy", "NVY"), ("Sage", "SGE")], "sizes": SIZES},
    {"cat": "apparel", "brand": "Fjell", "bc": "FJ", "fc": "MER",
     "names": ["Merino Crew Sweater", "Merino V-Neck Sweater", "Merino Cardigan"],
     "desc": "Fine-gauge 100% merino wool knit, machine washable.", "price": 8900, "weight": 430,
     "colours": [("Charcoal", "CHR"), ("Oatmeal", "OAT"), ("Forest", "FOR")], "sizes": SIZES[1:]},
    {"cat": "apparel", "brand": "Northbound", "bc": "NB", "fc": "CHN",
     "names": ["Everyday Chino Pants", "Slim Chino Pants", "Cargo Chino Pants"],
     "desc": "Stretch cotton twill chinos with a tapered leg.", "price": 5900, "weight": 560,
     "colours": [("Khaki", "KHK"), ("Olive", "OLV"), ("Navy", "NVY")],
     "sizes": [("30", "30"), ("32", "32"), ("34", "34")]},
    {"cat": "apparel", "brand": "Pallas", "bc": "PL", "fc": "TEE",
     "names": ["Organic Cotton Tee", "Organic Cotton Pocket Tee", "Organic Cotton Long Sleeve Tee"],
     "desc": "Heavyweight organic cotton crew-neck t-shirt.", "price": 2200, "weight": 180,
     "colours": [("White", "WHT"), ("Black", "BLK"), ("Heather Grey", "HGR")], "sizes": SIZES},
    {"cat": "apparel", "brand": "Fjell", "bc": "FJ", "fc": "FLC",
     "names": ["Fleece Quarter-Zip", "Fleece Full-Zip Jacket", "Fleece Vest"],
     "desc": "Warm recycled-polyester fleece with a brushed lining.", "price": 6900, "weight": 480,
     "colours": [("Navy", "NVY"), ("Moss", "MOS")], "sizes": SIZES},
    {"cat": "apparel", "brand": "Northbound", "bc": "NB", "fc": "DNM",
     "names": ["Denim Trucker Jacket", "Sherpa Denim Jacket", "Denim Work Shirt"],
     "desc": "Rigid 13 oz selvedge denim that softens with wear.", "price": 9800, "weight": 900,
     "colours": [("Indigo", "IND"), ("Washed Black", "WBK")], "sizes": SIZES},
    {"cat": "footwear", "brand": "Ridgeline", "bc": "RDG", "fc": "TRB",
     "names": ["Trailblazer Hiking Boots", "Trailblazer Mid Hiking Boots", "Summit Hiking Boots"],
     "desc": "Waterproof full-grain leather hiking boots with Vibram soles.", "price": 14900, "weight": 1350,
     "options": SHOE},
    {"cat": "footwear", "brand": "Ames & Co", "bc": "AMS", "fc": "CRT",
     "names": ["Court Classic Sneakers", "Court Canvas Sneakers", "Court High-Top Sneakers"],
     "desc": "Low-top leather court sneakers with a cushioned insole.", "price": 7900, "weight": 900,
     "colours": [("White", "WHT"), ("Black", "BLK")], "sizes": SHOE[1:4]},
    {"cat": "footwear", "brand": "Ridgeline", "bc": "RDG", "fc": "TRN",
     "names": ["Trail Running Shoes", "Trail Running Shoes GTX", "Road Running Shoes"],
     "desc": "Lightweight trail runners with a rock plate and grippy lugs.", "price": 12900, "weight": 620,
     "options": SHOE[:4]},
    {"cat": "footwear", "brand": "Loomcraft", "bc": "LMC", "fc": "SLP",
     "names": ["Wool Felt Slippers", "Shearling Slippers", "Knit House Slippers"],
     "desc": "Boiled-wool slippers with a suede sole.", "price": 4500, "weight": 400,
     "options": [("Small", "S"), ("Medium", "M"), ("Large", "L")]},
    {"cat": "kitchen", "brand": "Vortex", "bc": "VTX", "fc": "BLN",
     "names": ["Countertop Blender Pro", "Personal Blender", "Countertop Blender Max"],
     "desc": "1200 W blender with a 64 oz BPA-free jar and six presets.", "price": 11900, "weight": 4100,
     "options": [("Black", "BLK"), ("Red", "RED"), ("White", "WHT")]},
    {"cat": "kitchen", "brand": "Vortex", "bc": "VTX", "fc": "MIX",
     "names": ["Tilt-Head Stand Mixer", "Compact Stand Mixer", "Hand Mixer"],
     "desc": "5-quart stand mixer with dough hook, whisk and flat beater.", "price": 29900, "weight": 9800,
     "options": [("Cream", "CRM"), ("Slate", "SLT")]},
    {"cat": "kitchen", "brand": "Hearthstone", "bc": "HST", "fc": "STO",
     "names": ["Glass Food Storage Set", "Glass Meal Prep Containers", "Glass Canister Set"],
     "desc": "Oven-safe borosilicate containers with snap-lock lids.", "price": 3900, "weight": 2600,
     "options": [("10-piece", "10P"), ("18-piece", "18P")]},
    {"cat": "coffee-tea", "brand": "Kiln & Co", "bc": "KLN", "fc": "POD",
     "names": ["Ceramic Pour-Over Dripper", "Glass Pour-Over Carafe", "Ceramic Pour-Over Set"],
     "desc": "Hand-glazed ceramic cone dripper for #2 paper filters.", "price": 3200, "weight": 450,
     "options": [("White", "WHT"), ("Sage", "SGE"), ("Charcoal", "CHR")]},
    {"cat": "coffee-tea", "brand": "Moka Works", "bc": "MKW", "fc": "GRD",
     "names": ["Burr Coffee Grinder", "Hand Burr Grinder", "Burr Coffee Grinder Plus"],
     "desc": "Conical steel burr grinder with 40 grind settings.", "price": 12900, "weight": 2300,
     "options": [("Standard", "STD")]},
    {"cat": "coffee-tea", "brand": "Moka Works", "bc": "MKW", "fc": "KTL",
     "names": ["Gooseneck Electric Kettle", "Stovetop Gooseneck Kettle", "Electric Tea Kettle"],
     "desc": "Variable-temperature 0.9 L gooseneck kettle with hold mode.", "price": 6900, "weight": 1200,
     "options": [("Matte Black", "BLK"), ("Stainless", "STL"), ("White", "WHT")]},
    {"cat": "coffee-tea", "brand": "Leafhouse", "bc": "LFH", "fc": "TEA",
     "names": ["Loose Leaf Tea Sampler", "Green Tea Collection", "Herbal Tea Collection"],
     "desc": "Six 50 g tins: sencha, oolong, Assam, Earl Grey, rooibos and chamomile.", "price": 2400,
     "weight": 300, "options": [("Six tins", "SMP")]},
    {"cat": "coffee-tea", "brand": "Moka Works", "bc": "MKW", "fc": "FRP",
     "names": ["Stainless French Press", "Glass French Press", "Travel French Press"],
     "desc": "Double-wall stainless press that keeps coffee hot for an hour.", "price": 3900, "weight": 800,
     "options": [("34 oz", "34"), ("17 oz", "17")]},
    {"cat": "cookware", "brand": "Hearthstone", "bc": "HST", "fc": "SKL",
     "names": ["Cast Iron Skillet", "Enameled Cast Iron Skillet", "Cast Iron Grill Pan"],
     "desc": "Pre-seasoned cast iron skillet that goes from stove to oven.", "price": 4500, "weight": 2400,
     "options": [("10 inch", "10"), ("12 inch", "12")]},
    {"cat": "cookware", "brand": "Hearthstone", "bc": "HST", "fc": "PAN",
     "names": ["Nonstick Frying Pan Set", "Ceramic Nonstick Pan Set", "Stainless Frying Pan Set"],
     "desc": "8, 10 and 12-inch PFOA-free nonstick pans.", "price": 7900, "weight": 2100,
     "options": [("3-piece set", "SET")]},
    {"cat": "cookware", "brand": "Sato Forge", "bc": "STF", "fc": "KNF",
     "names": ["Chef's Knife 8in", "Santoku Knife 7in", "Paring Knife 3.5in"],
     "desc": "VG-10 steel blade with a pakkawood handle.", "price": 9900, "weight": 250,
     "options": [("Standard", "STD")]},
    {"cat": "cookware", "brand": "Hearthstone", "bc": "HST", "fc": "DOV",
     "names": ["Enameled Dutch Oven", "Cast Iron Dutch Oven", "Enameled Braiser"],
     "desc": "5.5-quart enameled cast iron pot with a tight-fitting lid.", "price": 15900, "weight": 5200,
     "options": [("Cherry Red", "RED"), ("Ocean Blue", "BLU"), ("Sea Salt", "SEA")]},
    {"cat": "cookware", "brand": "Sato Forge", "bc": "STF", "fc": "BRD",
     "names": ["End-Grain Cutting Board", "Bamboo Cutting Board", "Walnut Serving Board"],
     "desc": "Thick end-grain maple board that is kind to knife edges.", "price": 6400, "weight": 2800,
     "options": [("Medium", "M"), ("Large", "L")]},
    {"cat": "home-decor", "brand": "Loomcraft", "bc": "LMC", "fc": "THR",
     "names": ["Wool Throw Blanket", "Cotton Waffle Throw", "Chunky Knit Throw"],
     "desc": "Soft lambswool throw, 130 x 170 cm.", "price": 6500, "weight": 1100,
     "options": [("Grey", "GRY"), ("Rust", "RST"), ("Oat", "OAT")]},
    {"cat": "home-decor", "brand": "Loomcraft", "bc": "LMC", "fc": "LMP",
     "names": ["Stoneware Table Lamp", "Rattan Floor Lamp", "Ceramic Bedside Lamp"],
     "desc": "Speckled stoneware base with a linen drum shade.", "price": 8900, "weight": 2600,
     "options": [("Speckled", "STN"), ("Matte White", "WHT")]},
    {"cat": "home-decor", "brand": "Loomcraft", "bc": "LMC", "fc": "CSH",
     "names": ["Linen Cushion Cover", "Velvet Cushion Cover", "Boucle Cushion Cover"],
     "desc": "Stonewashed linen cover with a hidden zip, 50 x 50 cm.", "price": 2800, "weight": 200,
     "options": [("Natural", "NAT"), ("Sage", "SGE"), ("Terracotta", "TER")]},
    {"cat": "home-decor", "brand": "Loomcraft", "bc": "LMC", "fc": "BSK",
     "names": ["Woven Storage Basket", "Seagrass Laundry Basket", "Cotton Rope Basket"],
     "desc": "Hand-woven seagrass basket with leather handles.", "price": 3600, "weight": 700,
     "options": [("Medium", "M"), ("Large", "L")]},
    {"cat": "candles", "brand": "Wick & Wax", "bc": "WWX", "fc": "CND",
     "names": ["Scented Soy Candle", "Three-Wick Soy Candle", "Soy Candle Travel Tin"],
     "desc": "Hand-poured 8 oz soy candle, about 50 hours burn time.", "price": 1800, "weight": 400,
     "options": [("Cedar & Smoke", "CDR"), ("Fig Leaf", "FIG"), ("Sea Salt", "SEA")]},
    {"cat": "candles", "brand": "Wick & Wax", "bc": "WWX", "fc": "DIF",
     "names": ["Reed Diffuser", "Reed Diffuser Refill", "Ceramic Reed Diffuser"],
     "desc": "100 ml diffuser with rattan reeds, lasts about three months.", "price": 2600, "weight": 350,
     "options": [("Lavender", "LAV"), ("Amber", "AMB")]},
    {"cat": "outdoor", "brand": "Ridgeline", "bc": "RDG", "fc": "DPK",
     "names": ["Daypack 24L", "Daypack 18L", "Hiking Pack 32L"],
     "desc": "Ventilated hiking daypack with a hydration sleeve and rain cover.", "price": 8900, "weight": 900,
     "options": [("Slate", "SLT"), ("Rust", "RST")]},
    {"cat": "outdoor", "brand": "Summit Gear", "bc": "SMT", "fc": "HLP",
     "names": ["Rechargeable Headlamp", "Trail Headlamp", "Ultralight Headlamp"],
     "desc": "400-lumen USB-C rechargeable headlamp with red light mode.", "price": 2900, "weight": 90,
     "options": [("Standard", "STD")]},
    {"cat": "camping", "brand": "Ridgeline", "bc": "RDG", "fc": "TNT",
     "names": ["Ultralight 2-Person Tent", "Ultralight 1-Person Tent", "Family 4-Person Tent"],
     "desc": "Freestanding 1.6 kg backpacking tent with two doors.", "price": 24900, "weight": 1600,
     "options": [("Standard", "STD")]},
    {"cat": "camping", "brand": "Ridgeline", "bc": "RDG", "fc": "SLB",
     "names": ["Down Sleeping Bag 20F", "Down Sleeping Bag 0F", "Synthetic Sleeping Bag 30F"],
     "desc": "650-fill responsibly sourced down mummy bag.", "price": 18900, "weight": 1000,
     "options": [("Regular", "REG"), ("Long", "LNG")]},
    {"cat": "camping", "brand": "Summit Gear", "bc": "SMT", "fc": "BTL",
     "names": ["Insulated Water Bottle 32oz", "Insulated Water Bottle 21oz", "Insulated Tumbler 20oz"],
     "desc": "Double-wall vacuum insulated stainless bottle.", "price": 3400, "weight": 520,
     "options": [("Glacier Blue", "BLU"), ("Black", "BLK"), ("Forest Green", "GRN")]},
    {"cat": "camping", "brand": "Summit Gear", "bc": "SMT", "fc": "TRK",
     "names": ["Trekking Poles (Pair)", "Folding Trekking Poles", "Aluminium Trekking Poles"],
     "desc": "Collapsible carbon trekking poles with cork grips.", "price": 7400, "weight": 480,
     "options": [("Pair", "PR")]},
    {"cat": "camping", "brand": "Summit Gear", "bc": "SMT", "fc": "STV",
     "names": ["Compact Camp Stove", "Two-Burner Camp Stove", "Integrated Stove System"],
     "desc": "Folding canister stove with piezo ignition, 3.8 kW.", "price": 5400, "weight": 350,
     "options": [("Standard", "STD")]},
    {"cat": "camping", "brand": "Summit Gear", "bc": "SMT", "fc": "CHR",
     "names": ["Folding Camp Chair", "Ultralight Camp Chair", "Camp Rocking Chair"],
     "desc": "Packable aluminium-frame chair that holds up to 300 lb.", "price": 5900, "weight": 1100,
     "options": [("Charcoal", "CHR"), ("Olive", "OLV")]},
    {"cat": "electronics", "brand": "Voltline", "bc": "VLT", "fc": "HUB",
     "names": ["USB-C Charging Hub", "USB-C Travel Dock", "Thunderbolt Dock"],
     "desc": "7-port USB-C hub with 100 W pass-through charging.", "price": 3900, "weight": 150,
     "options": [("7-port", "7P")]},
    {"cat": "electronics", "brand": "Voltline", "bc": "VLT", "fc": "WCP",
     "names": ["Wireless Charging Pad", "Wireless Charging Stand", "3-in-1 Charging Station"],
     "desc": "15 W Qi charging pad with a braided USB-C cable.", "price": 2900, "weight": 120,
     "options": [("Black", "BLK"), ("White", "WHT")]},
    {"cat": "electronics", "brand": "Voltline", "bc": "VLT", "fc": "PWR",
     "names": ["Portable Power Bank", "Slim Power Bank", "Power Bank 20000mAh"],
     "desc": "10,000 mAh power bank with 20 W USB-C fast charging.", "price": 3500, "weight": 210,
     "options": [("Graphite", "GRA"), ("Sand", "SND")]},
    {"cat": "audio", "brand": "Aurelle", "bc": "AUR", "fc": "HPN",
     "names": ["Wireless Noise-Cancelling Headphones", "On-Ear Wireless Headphones", "Studio Headphones"],
     "desc": "Over-ear ANC headphones, 30-hour battery, USB-C.", "price": 19900, "weight": 260,
     "options": [("Black", "BLK"), ("Silver", "SLV")]},
    {"cat": "audio", "brand": "Aurelle", "bc": "AUR", "fc": "SPK",
     "names": ["Portable Bluetooth Speaker", "Mini Bluetooth Speaker", "Party Bluetooth Speaker"],
     "desc": "Waterproof IP67 speaker with 12-hour battery.", "price": 5900, "weight": 540,
     "options": [("Blue", "BLU"), ("Black", "BLK"), ("Coral", "COR")]},
    {"cat": "audio", "brand": "Aurelle", "bc": "AUR", "fc": "EAR",
     "names": ["True Wireless Earbuds", "Sport Wireless Earbuds", "Noise-Cancelling Earbuds"],
     "desc": "Compact earbuds with a wireless charging case, 24-hour total battery.", "price": 12900,
     "weight": 60, "options": [("Black", "BLK"), ("White", "WHT")]},
]
DISCONTINUED = {"cat": "electronics", "brand": "Voltline", "bc": "VLT", "fc": "LMP",
                "names": ["Smart LED Desk Lamp"], "desc": "Dimmable desk lamp with app control. No longer sold.",
                "price": 4900, "weight": 900, "options": [("White", "WHT")]}

# near-identical product names for distractor worlds, by category
SIBLING_SUFFIX = {
    "apparel": ["Slim Fit", "Tall"], "footwear": ["Wide", "Kids"], "kitchen": ["Mini", "XL"],
    "coffee-tea": ["Mini", "XL"], "cookware": ["Mini", "XL"], "home-decor": ["Large", "Mini"],
    "candles": ["Large", "Mini"], "outdoor": ["Lite", "XL"], "camping": ["Lite", "XL"],
    "electronics": ["Lite", "Pro"], "audio": ["Lite", "Pro"],
}

CITIES = {
    "CA": [("San Francisco", ["94103", "94110", "94114", "94117"]), ("Oakland", ["94609", "94610"]),
           ("Los Angeles", ["90026", "90039"]), ("San Diego", ["92104", "92116"]), ("Sacramento", ["95816"])],
    "CO": [("Denver", ["80203", "80205", "80211"]), ("Boulder", ["80302", "80304"]), ("Fort Collins", ["80521"])],
    "FL": [("Miami", ["33131", "33137"]), ("Orlando", ["32801", "32807"]), ("Tampa", ["33602", "33606"])],
    "GA": [("Atlanta", ["30306", "30308", "30318"]), ("Savannah", ["31401"]), ("Decatur", ["30030"])],
    "IL": [("Chicago", ["60614", "60622", "60647"]), ("Naperville", ["60540"]), ("Evanston", ["60201"])],
    "MA": [("Boston", ["02115", "02118"]), ("Cambridge", ["02138", "02139"]), ("Somerville", ["02143"])],
    "NJ": [("Jersey City", ["07302", "07306"]), ("Hoboken", ["07030"]), ("Montclair", ["07042"])],
    "NY": [("New York", ["10003", "10011", "10025"]), ("Brooklyn", ["11215", "11211"]), ("Buffalo", ["14201"])],
    "OR": [("Portland", ["97214", "97202", "97209"]), ("Eugene", ["97401"]), ("Bend", ["97701"])],
    "PA": [("Philadelphia", ["19103", "19147"]), ("Pittsburgh", ["15213", "15217"])],
    "TX": [("Austin", ["78701", "78704"]), ("Dallas", ["75206", "75246"]), ("Houston", ["77006", "77098"])],
    "WA": [("Seattle", ["98103", "98105", "98122"]), ("Bellevue", ["98004"]), ("Tacoma", ["98403"])],
}
AREA = {"CA": ["415", "510", "213", "619"], "CO": ["303", "720"], "FL": ["305", "407", "813"], "GA": ["404", "470"],
        "IL": ["312", "773", "630"], "MA": ["617", "857"], "NJ": ["201", "973"], "NY": ["212", "718", "917"],
        "OR": ["503", "541"], "PA": ["215", "412"], "TX": ["512", "214", "713"], "WA": ["206", "425", "253"]}
STREETS = ["Maple Ave", "Oak St", "Pine St", "Cedar Ln", "Elm St", "Washington Ave", "Lincoln Blvd", "Park Ave",
           "Lakeview Dr", "Main St", "2nd Ave", "5th St", "Highland Ave", "Sunset Blvd", "Broadway", "Spring St",
           "Church St", "Hillcrest Dr", "Riverside Dr", "College Ave", "Grand Ave", "Forest Ave", "Willow St",
           "Chestnut St", "Walnut St", "Orchard Rd", "Meadow Ln", "Jefferson St", "Franklin Ave", "Union St",
           "Prospect St", "Harbor View Rd", "Summit Ave", "Magnolia Dr", "Juniper Way", "Aspen Ct"]
DOMAINS = {"gmail.com": 40, "outlook.com": 14, "yahoo.com": 12, "icloud.com": 12, "proton.me": 6,
           "hotmail.com": 8, "fastmail.com": 4}
UNIT = ["Apt 2B", "Apt 4", "Apt 12", "Apt 7C", "Apt 305", "Unit 9", "Unit 14", "Apt 1804", "Suite 200"]

CARRIERS = {"UPS": 45, "USPS": 30, "FedEx": 20, "DHL": 5}
CANCEL_REASONS = ["Customer ordered the wrong size", "Customer changed their mind", "Duplicate order",
                  "Customer found a better delivery option", "Ordered the wrong colour"]
RETURN_REASONS = ["Too large, would like a smaller size", "Too small", "Colour looks different from the photos",
                  "Arrived damaged", "No longer needed", "Stopped working after a week",
                  "Not as described", "Received the wrong item"]

REVIEWS = {
    5: [("Love it", "Exactly what I was looking for and the quality is excellent."),
        ("Worth every penny", "Well made and it arrived quickly. Would buy again."),
        ("Five stars", "Better than I expected. Using it every day."),
        ("Fantastic quality", "Feels premium and has held up perfectly so far."),
        ("Highly recommend", "Bought one for my sister too after a month of using mine.")],
    4: [("Very good", "Great overall, just a little pricier than I hoped."),
        ("Solid choice", "Does the job well. Minor quirks but nothing serious."),
        ("Happy with it", "Good quality; delivery took a couple of days longer than quoted."),
        ("Nice, with one gripe", "Looks great, though the instructions were confusing.")],
    3: [("It's okay", "Does what it says but nothing special for the price."),
        ("Mixed feelings", "Some things I like, some I don't. Average."),
        ("Just average", "Quality is fine, but it is smaller than I expected.")],
    2: [("Disappointed", "Started showing wear much sooner than I expected."),
        ("Not great", "Feels cheaper than the photos suggest.")],
    1: [("Would not buy again", "Broke within two weeks of light use."),
        ("Poor quality", "Fell apart quickly and support was slow to answer.")],
}
HIDDEN_NOTES = ["contains personal contact info", "off-topic", "abusive language", "mentions a competitor's store"]
HIDDEN_REVIEWS = [("Call me about this", "Great product! Text me at 555-0147 if you want to buy my old one."),
                  ("Cheaper elsewhere", "Found the same thing for less at another shop down the road."),
                  ("Terrible!!!", "Whoever packed this is an idiot."),
                  ("Shipping question", "Does anyone know when the next sale is? Asking for a friend.")]

# fmt: on


# columns copied from the build-time records into their tables (after the ids and keys set by hand)
ORDER_COLUMNS = ("id", "order_number", "customer_id", "address_id", "ship_to", "shipping_method", "coupon_id",
                 "status", "subtotal_cents", "discount_cents", "tax_cents", "shipping_cents", "total_cents",
                 "placed_at", "cancelled_at", "cancel_reason")
SHIPMENT_COLUMNS = ("carrier", "tracking_number", "status", "shipped_at", "delivered_at")
RETURN_COLUMNS = ("quantity", "reason", "status", "restocked", "decision_note", "requested_at", "decided_at",
                  "received_at", "refunded_at")


def _row(record: dict, columns: tuple[str, ...]) -> dict:
    """``columns`` of a build-time record, its moments written as ISO text."""
    return {k: _iso(record[k]) if isinstance(record[k], datetime) else record[k] for k in columns}


def _ascii(s: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if ch.isascii() and ch.isalpha()).lower()


# ---------------------------------------------------------------------------------------------
# the builder
# ---------------------------------------------------------------------------------------------


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.tools = ctx.tools  # prices, tax, shipping fees and return values exactly as the tools compute them
        self.rng = ctx.rng
        self.clock = ctx.clock
        self.opening = (ctx.clock - timedelta(days=118)).replace(hour=8, minute=0, second=0)
        # the rows numbered as they are added; the other tables are numbered in ``tables``
        self.t = Tables(["products", "product_variants", "customers", "addresses", "carts", "cart_items"])
        self.vmeta: dict[int, dict] = {}  # variant id -> {product, family, cat}
        self.addr_by_customer: dict[int, list[dict]] = {}
        self.coupons: list[dict] = []
        self.coupon_uses: dict[int, int] = {}
        self.orders: list[dict] = []  # built with temporary keys, numbered at the end
        self.moves: list[dict] = []  # inventory movements without ids
        self.events: list[dict] = []
        self.shipments: list[dict] = []
        self.returns: list[dict] = []
        self.refunds: list[dict] = []
        self.reviews: list[dict] = []
        self.tracking: set[str] = set()
        self.emails: set[str] = set()
        self.names: set[str] = set()

    # -- helpers ------------------------------------------------------------------------------
    def between(self, lo: datetime, hi: datetime) -> datetime:
        span = int((hi - lo).total_seconds())
        return lo + timedelta(seconds=self.rng.randint(0, max(span, 0)))

    def daytime(self, days_lo: float, days_hi: float) -> datetime:
        """A moment between days_hi and days_lo days ago, during waking hours, before the clock."""
        for _ in range(20):
            t = self.ctx.moment_ago(days_lo, days_hi)
            if 7 <= t.hour <= 22 and t < self.clock:
                return t
        return self.ctx.moment_ago(days_lo, days_hi)

    def before_clock(self, t: datetime) -> bool:
        return t < self.clock - timedelta(minutes=5)

    def move(
        self,
        variant_id: int,
        change: int,
        reason: str,
        at: datetime,
        order: dict | None = None,
        ret: dict | None = None,
        note: str | None = None,
    ) -> None:
        """An inventory movement (numbered and stamped in ``tables``)."""
        self.moves.append(
            {
                "variant_id": variant_id,
                "quantity_change": change,
                "reason": reason,
                "order": order,
                "ret": ret,
                "note": note,
                "at": at,
            }
        )

    # -- catalogue ----------------------------------------------------------------------------
    def build_catalogue(self) -> None:
        ctx, rng = self.ctx, self.rng
        fams = list(FAMILIES)
        if ctx.large:
            chosen = [(f, k) for f in fams for k in range(len(f["names"]))]
            chosen = [c for c in chosen if c[1] == 0 or rng.random() < 0.85]
        else:
            # one family per category, 15 products in all
            by_cat: dict[str, list[dict]] = {}
            for f in fams:
                by_cat.setdefault(f["cat"], []).append(f)
            picked: list[dict] = []
            for cat in by_cat:
                picked += ctx.sample(by_cat[cat], 1)
            rest = [f for f in fams if f not in picked]
            picked += ctx.sample(rest, 15 - len(picked))
            chosen = [(f, 0) for f in fams if f in picked]
        chosen.append((DISCONTINUED, 0))
        names: list[str] = []
        for fam, k in chosen:
            base = fam["names"][k]
            entries = [(base, fam["fc"] + ("" if k == 0 else str(k + 1)), k)]
            if ctx.distractors and fam is not DISCONTINUED and rng.random() < 0.4:
                suffix = ctx.pick(SIBLING_SUFFIX[fam["cat"]])
                entries.append((f"{base} {suffix}", fam["fc"] + ("" if k == 0 else str(k + 1)) + suffix[0], k))
            for name, fcode, kk in entries:
                if name in names:
                    continue
                names.append(name)
                created = self.opening - timedelta(days=rng.randint(10, 480))
                discontinued = fam is DISCONTINUED
                price_base = fam["price"] + (kk * rng.choice([-1, 1]) * rng.choice([500, 1000, 1500]))
                price_base = max(900, price_base)
                if name != base:
                    price_base = max(900, price_base + rng.choice([-1000, -500, 500, 1000]))
                pid = self.t.add(
                    "products",
                    {
                        "name": name,
                        "brand": fam["brand"],
                        "category_id": CAT_ID[fam["cat"]],
                        "description": fam["desc"],
                        "status": "discontinued" if discontinued else "active",
                        "created_at": _iso(created.replace(hour=9, minute=0, second=0)),
                    },
                )["id"]
                opts = self._options(fam)
                for label, code in opts:
                    price = price_base
                    if code in ("12", "18P", "LNG", "L") and "colours" not in fam and fam["options"] is not SHOE:
                        price = price_base + 1000
                    vid = self.t.add(
                        "product_variants",
                        {
                            "product_id": pid,
                            "sku": f"{fam['bc']}-{fcode}-{code}",
                            "option_label": label,
                            "price_cents": price,
                            "stock": 0,
                            "weight_grams": max(50, fam["weight"] + rng.randint(-3, 3) * 10),
                            "active": 0 if discontinued else 1,
                        },
                    )["id"]
                    self.vmeta[vid] = {
                        "product_id": pid,
                        "cat": fam["cat"],
                        "name": name,
                        "sellable": not discontinued,
                        "spec": None,
                        "sku": f"{fam['bc']}-{fcode}-{code}",
                    }

    def _options(self, fam: dict) -> list[tuple[str, str]]:
        rng = self.rng
        if "colours" in fam:
            combos = [(f"{c} / {s}", f"{cc}-{sc}") for c, cc in fam["colours"] for s, sc in fam["sizes"]]
            n = min(len(combos), rng.randint(3, 4) if not self.ctx.large else rng.randint(3, 5))
            idx = sorted(rng.sample(range(len(combos)), n))
            return [combos[i] for i in idx]
        opts = fam["options"]
        if len(opts) <= 2:
            return list(opts)
        n = rng.randint(2, len(opts))
        idx = sorted(rng.sample(range(len(opts)), n))
        return [opts[i] for i in idx]

    # -- customers ----------------------------------------------------------------------------
    def _email(self, first: str, last: str, style: int | None = None) -> str:
        f, s = _ascii(first), _ascii(last)
        domain = self.ctx.weighted(DOMAINS)
        styles = [f"{f}.{s}", f"{f}{s}", f"{f[0]}{s}", f"{f}.{s}{self.rng.randint(2, 99)}", f"{s}.{f}"]
        order = [style] if style is not None else []
        order += [0, 0, 0, 1, 2, 4, 3, 3, 3]
        for s in order:
            e = f"{styles[s]}@{domain}"
            if e not in self.emails:
                self.emails.add(e)
                return e
        for _ in range(50):
            e = f"{f}.{s}{self.rng.randint(100, 9999)}@{domain}"
            if e not in self.emails:
                self.emails.add(e)
                return e
        raise RuntimeError("no unique email")

    def add_customer(
        self,
        first: str,
        last: str,
        created: datetime,
        state: str | None = None,
        email_style: int | None = None,
        suspended: bool = False,
    ) -> dict:
        rng = self.rng
        state = state or self.ctx.pick([s for s, _, _ in TAX_RATES])
        c = self.t.add(
            "customers",
            {
                "first_name": first,
                "last_name": last,
                "email": self._email(first, last, email_style),
                "phone": f"+1-{self.ctx.pick(AREA[state])}-555-01{rng.randint(0, 99):02d}",
                "marketing_opt_in": 1 if rng.random() < 0.55 else 0,
                "card_last4": None if rng.random() < 0.1 else f"{rng.randint(0, 9999):04d}",
                "gift_card_balance_cents": rng.choice([1500, 2500, 5000]) if rng.random() < 0.08 else 0,
                "status": "suspended" if suspended else "active",
                "created_at": _iso(created),
            },
        )
        self.names.add(f"{first} {last}")
        self.addr_by_customer[c["id"]] = []
        self.add_address(c, "Home", state, created, default=True)
        if rng.random() < 0.25:
            label = self.ctx.weighted({"Work": 6, "Office": 2, "Parents": 1, "Cabin": 1})
            other = state if rng.random() < 0.7 else self.ctx.pick([s for s, _, _ in TAX_RATES])
            self.add_address(c, label, other, created + timedelta(days=rng.randint(1, 60)), default=False)
        return c

    def add_address(self, c: dict, label: str, state: str, created: datetime, default: bool) -> dict:
        rng = self.rng
        city, zips = self.ctx.pick(CITIES[state])
        created = min(created, self.clock - timedelta(days=3))
        a = self.t.add(
            "addresses",
            {
                "customer_id": c["id"],
                "label": label,
                "recipient": f"{c['first_name']} {c['last_name']}",
                "line1": f"{rng.randint(10, 9899)} {self.ctx.pick(STREETS)}",
                "line2": self.ctx.pick(UNIT) if rng.random() < 0.3 else None,
                "city": city,
                "state": state,
                "postal_code": self.ctx.pick(zips),
                "country": "US",
                "is_default": 1 if default else 0,
                "created_at": _iso(created),
                "updated_at": _iso(created),
            },
        )
        self.addr_by_customer[c["id"]].append(a)
        return a

    def build_customers(self) -> None:
        ctx, rng, fk = self.ctx, self.rng, self.ctx.faker
        n = ctx.n(16, 240)
        for i in range(n):
            for _ in range(30):
                first, last = fk.first_name(), fk.last_name()
                if f"{first} {last}" not in self.names:
                    break
            if rng.random() < 0.8:
                created = self.between(self.clock - timedelta(days=800), self.clock - timedelta(days=120))
            else:
                created = self.between(self.clock - timedelta(days=119), self.clock - timedelta(days=4))
            self.add_customer(first, last, created, suspended=(i % 17 == 16))
        if ctx.distractors:
            base = [c for c in self.t["customers"] if c["status"] == "active"]
            for c in ctx.sample(base, max(3, len(base) // 5)):
                # same full name, another e-mail and city
                created = self.between(self.clock - timedelta(days=700), self.clock - timedelta(days=30))
                self.add_customer(c["first_name"], c["last_name"], created, email_style=rng.choice([2, 3, 4]))
            for c in ctx.sample(base, max(2, len(base) // 6)):
                created = self.between(self.clock - timedelta(days=700), self.clock - timedelta(days=30))
                if rng.random() < 0.5:  # same surname, another first name
                    self.add_customer(fk.first_name(), c["last_name"], created)
                else:  # same first name, double-barrelled surname that contains the original
                    self.add_customer(c["first_name"], f"{c['last_name']}-{fk.last_name()}", created)

    # -- coupons ------------------------------------------------------------------------------
    def build_coupons(self) -> None:
        rng, clock = self.rng, self.clock
        today = clock.date()
        month_start = today.replace(day=1)
        d = lambda days: (today + timedelta(days=days)).isoformat()  # noqa: E731
        spring = rng.choice([("SPRING15", 15), ("MARCH15", 15), ("SPRING20", 20)])
        fixed = rng.choice([("SAVE10", 1000, 6000), ("TAKE15", 1500, 9000), ("SAVE12", 1200, 7500)])
        defs = [
            (
                f"WELCOME{rng.choice([10, 10, 15])}",
                "first",
                "percent",
                None,
                0,
                1,
                d(-430),
                d(300),
                None,
                rng.randint(90, 260),
            ),
            (
                spring[0],
                f"{spring[1]}% off spring orders of $50 or more",
                "percent",
                spring[1],
                5000,
                0,
                month_start.isoformat(),
                (month_start + timedelta(days=30)).isoformat(),
                None,
                0,
            ),
            ("WINTER20", "20% off winter sale", "percent", 20, 0, 0, d(-91), d(-15), None, rng.randint(120, 260)),
            (
                fixed[0],
                f"${fixed[1] // 100} off orders of ${fixed[2] // 100} or more",
                "fixed",
                fixed[1],
                fixed[2],
                0,
                d(-60),
                d(120),
                None,
                rng.randint(10, 60),
            ),
            (
                "FREESHIP",
                "Free shipping on orders of $30 or more",
                "free_shipping",
                0,
                3000,
                0,
                d(-60),
                d(300),
                None,
                rng.randint(20, 80),
            ),
            (
                "VIP25",
                "25% off for VIP launch event (limited)",
                "percent",
                25,
                0,
                0,
                d(-46),
                d(44),
                "max",
                rng.randint(25, 35),
            ),
            (
                "HOLIDAY30",
                "$30 off orders of $150 or more",
                "fixed",
                3000,
                15000,
                0,
                d(-102),
                d(-61),
                None,
                rng.randint(50, 110),
            ),
            ("KITCHEN12", "12% off kitchen (paused by marketing)", "percent", 12, 0, 0, d(-29), d(29), None, 0),
        ]
        for i, (code, desc, typ, val, mins, first, vf, vu, mx, used) in enumerate(defs, start=1):
            if desc == "first":
                val = int(code[7:])
                desc = f"{val}% off a customer's first order"
            self.coupons.append(
                {
                    "id": i,
                    "code": code,
                    "description": desc,
                    "discount_type": typ,
                    "discount_value": val,
                    "min_subtotal_cents": mins,
                    "first_order_only": first,
                    "valid_from": vf,
                    "valid_until": vu,
                    "max_uses": mx,
                    "times_used": used,
                    "active": 0 if code == "KITCHEN12" else 1,
                }
            )
            self.coupon_uses[i] = 0

    # -- orders -------------------------------------------------------------------------------
    def sellable(self) -> list[dict]:
        return [v for v in self.t["product_variants"] if self.vmeta[v["id"]]["sellable"]]

    def pick_lines(self, n: int, avoid_products: list[int] | None = None) -> list[tuple[dict, int]]:
        """``n`` variants of distinct products (none of ``avoid_products``) with quantities."""
        avoid = list(avoid_products or [])
        vs = []
        for _ in range(n):
            pool = [v for v in self.sellable() if v["product_id"] not in avoid]
            if not pool:
                break
            v = self.ctx.pick(pool)
            vs.append(v)
            avoid.append(v["product_id"])
        out = []
        for v in vs:
            q = 1
            if v["price_cents"] < 4000 and self.rng.random() < 0.4:
                q = self.rng.randint(2, 3)
            elif self.rng.random() < 0.08:
                q = 2
            out.append((v, q))
        return out

    def pick_coupon(self, cid: int, placed: datetime, subtotal: int) -> dict | None:
        day = placed.date().isoformat()
        ok = []
        for c in self.coupons:
            if not c["active"] or not (c["valid_from"] <= day <= c["valid_until"]):
                continue
            if subtotal < c["min_subtotal_cents"]:
                continue
            if c["first_order_only"] and any(o["customer_id"] == cid for o in self.orders):
                continue
            ok.append(c)
        return self.ctx.pick(ok) if ok else None

    def place(
        self,
        c: dict,
        placed: datetime,
        lines: list[tuple[dict, int]],
        *,
        coupon: bool | None = None,
        method: str | None = None,
        payment: str | None = None,
        address: dict | None = None,
    ) -> dict:
        rng = self.rng
        addr = address or (
            self.addr_by_customer[c["id"]][0] if rng.random() < 0.85 else self.ctx.pick(self.addr_by_customer[c["id"]])
        )
        subtotal = sum(v["price_cents"] * q for v, q in lines)
        cp = None
        if coupon is None:
            coupon = rng.random() < 0.22
        if coupon:
            cp = self.pick_coupon(c["id"], placed, subtotal)
        discount = self.tools._discount(cp, subtotal)
        net = subtotal - discount
        rate = next(r for s, _, r in TAX_RATES if s == addr["state"])
        tax = self.tools._tax(net, rate)
        method = method or self.ctx.weighted({"standard": 80, "express": 15, "overnight": 5})
        m = next(x for x in SHIPPING if x["code"] == method)
        ship = self.tools._shipping_fee(m, cp, net)
        total = net + tax + ship
        if payment is None:
            payment = "card" if c["card_last4"] and rng.random() < 0.8 else "paypal"
        o = {
            "customer_id": c["id"],
            "address_id": addr["id"],
            "ship_to": self.tools._ship_to(addr),
            "shipping_method": method,
            "coupon_id": cp["id"] if cp else None,
            "status": "paid",
            "subtotal_cents": subtotal,
            "discount_cents": discount,
            "tax_cents": tax,
            "shipping_cents": ship,
            "total_cents": total,
            "placed_at": placed,
            "cancelled_at": None,
            "cancel_reason": None,
            # build-time only
            "_lines": [{"variant": v, "quantity": q, "unit": v["price_cents"]} for v, q in lines],
            "_pay": {
                "method": payment,
                "card_last4": c["card_last4"] if payment == "card" else None,
                "amount_cents": total,
                "refunded_cents": 0,
                "status": "captured",
            },
            "_events": [],
            "_key": len(self.orders),
        }
        o["_events"].append(
            ("placed", f"Order placed: {len(lines)} line(s), total {self.tools._dollars(total)}", placed)
        )
        for line in o["_lines"]:
            self.move(line["variant"]["id"], -line["quantity"], "sale", placed, o)
        if cp is not None:
            self.coupon_uses[cp["id"]] += 1
        self.orders.append(o)
        return o

    def cancel(self, o: dict, at: datetime) -> None:
        reason = self.ctx.pick(CANCEL_REASONS)
        o["status"], o["cancelled_at"], o["cancel_reason"] = "cancelled", at, reason
        for line in o["_lines"]:
            self.move(line["variant"]["id"], line["quantity"], "cancellation", at, o)
        pay = o["_pay"]
        amount = pay["amount_cents"]
        pay["refunded_cents"], pay["status"] = amount, "refunded"
        self.refunds.append(
            {"order": o, "ret": None, "amount_cents": amount, "reason": "Order cancelled: " + reason, "at": at}
        )
        if o["coupon_id"] is not None:
            self.coupon_uses[o["coupon_id"]] -= 1
        o["_events"].append(("cancelled", f"Cancelled: {reason}; refunded {self.tools._dollars(amount)}", at))

    def tracking_number(self, carrier: str) -> str:
        rng = self.rng
        alnum = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
        for _ in range(100):
            if carrier == "UPS":
                t = (
                    "1Z"
                    + "".join(rng.choice(alnum) for _ in range(6))
                    + "".join(str(rng.randint(0, 9)) for _ in range(10))
                )
            elif carrier == "FedEx":
                t = "7704" + "".join(str(rng.randint(0, 9)) for _ in range(8))
            elif carrier == "USPS":
                t = "94001118995600" + "".join(str(rng.randint(0, 9)) for _ in range(8))
            else:
                t = "".join(str(rng.randint(0, 9)) for _ in range(10))
            if t not in self.tracking:
                self.tracking.add(t)
                return t
        raise RuntimeError("no unique tracking number")

    def ship(self, o: dict, at: datetime, deliver: bool | None) -> dict:
        """Ship at ``at``; deliver after the method's transit time if that is before the clock
        (``deliver`` True forces a delivery time before the clock, False keeps it in transit)."""
        carrier = self.ctx.weighted(CARRIERS)
        tracking = self.tracking_number(carrier)
        s = {
            "order": o,
            "carrier": carrier,
            "tracking_number": tracking,
            "status": "in_transit",
            "shipped_at": at,
            "delivered_at": None,
        }
        self.shipments.append(s)
        o["status"] = "shipped"
        o["_events"].append(("shipped", f"Shipped via {carrier}, tracking {tracking}", at))
        lo, hi = {"standard": (2.2, 5.4), "express": (1.1, 2.4), "overnight": (0.6, 1.2)}[o["shipping_method"]]
        when = at + timedelta(seconds=self.rng.randint(int(lo * 86400), int(hi * 86400)))
        if deliver is True and not self.before_clock(when):
            when = self.between(at + timedelta(hours=6), self.clock - timedelta(hours=1))
        if deliver is not False and self.before_clock(when):
            s["status"], s["delivered_at"] = "delivered", when
            o["status"] = "delivered"
            o["_events"].append(("delivered", f"Delivered ({carrier} {tracking})", when))
        return s

    def lifecycle(self, o: dict) -> None:
        """Random fate of an order placed at least two days ago."""
        rng = self.rng
        placed = o["placed_at"]
        if rng.random() < 0.06:
            self.cancel(o, placed + timedelta(minutes=rng.randint(20, 900)))
            return
        at = placed + timedelta(minutes=rng.randint(300, 1900))
        if not self.before_clock(at):
            return
        self.ship(o, at, None)

    def build_orders(self) -> None:
        """Draw every order (who, when, what), then price and fulfil them in time order, so that
        first-order coupons and usage limits hold at the moment each order was placed."""
        ctx, rng = self.ctx, self.rng
        active = [c for c in self.t["customers"] if c["status"] == "active"]
        # planted scenarios go to distinct customers whose full name is unique (templates that name a
        # customer without an e-mail need that); twins still get the random history
        counts: dict[str, int] = {}
        for c in self.t["customers"]:
            counts[f"{c['first_name']} {c['last_name']}"] = counts.get(f"{c['first_name']} {c['last_name']}", 0) + 1
        unique = [c for c in active if counts[f"{c['first_name']} {c['last_name']}"] == 1]
        pool = ctx.sample(unique, len(unique))

        def draw(n: int) -> list[dict]:
            out = [pool.pop() for _ in range(min(n, len(pool)))]
            return out + [ctx.pick(unique or active) for _ in range(n - len(out))]

        n_paid, n_transit, n_delivered = ctx.n(4, 28), ctx.n(3, 30), ctx.n(4, 40)
        paid_group, transit_group = draw(n_paid), draw(n_transit)
        delivered_group = draw(n_delivered)
        specs: list[tuple[datetime, int, dict, str]] = []
        for _ in range(ctx.n(12, 330)):
            age = 3.3 + 104.7 * (rng.random() ** 1.4)  # the last 3.3 days hold only planted orders
            placed = self.daytime(age, age + 0.5)
            stamp = _iso(placed)
            who = [c for c in self.t["customers"] if c["created_at"] < stamp]
            if who:
                specs.append((placed, len(specs), ctx.pick(who), "base"))
        for c in delivered_group:  # planted: recent deliveries (returns, refunds, reviews)
            placed = max(self.daytime(9, 24), datetime.fromisoformat(c["created_at"]) + timedelta(hours=1))
            specs.append((placed, len(specs), c, "delivered"))
        for c in transit_group:  # planted: parcels in transit
            specs.append((self.daytime(1.6, 3.2), len(specs), c, "transit"))
        for i, c in enumerate(paid_group):  # planted: paid, not shipped yet
            specs.append((self.daytime(0.05, 1.25), len(specs), c, "plain" if i < ctx.n(2, 8) else "paid"))
        specs.sort(key=lambda s: (s[0], s[1]))
        for placed, _k, c, kind in specs:
            # planted orders hold products the customer has not bought before
            bought = (
                []
                if kind == "base"
                else [
                    ln["variant"]["product_id"]
                    for o in self.orders
                    if o["customer_id"] == c["id"]
                    for ln in o["_lines"]
                ]
            )
            if kind == "plain":
                # a plain two-line order: no coupon, standard shipping, card or PayPal
                o = self.place(c, placed, self.pick_lines(2, bought), coupon=False, method="standard")
                o["_plain"] = True
                continue
            n = ctx.weighted({1: 50, 2: 38, 3: 12})
            o = self.place(
                c, placed, self.pick_lines(n, bought), method="standard" if kind in ("delivered", "transit") else None
            )
            o["_kind"] = kind
            if kind == "base":
                self.lifecycle(o)
            elif kind == "delivered":
                self.ship(o, placed + timedelta(minutes=rng.randint(300, 1400)), True)
            elif kind == "transit":
                self.ship(o, placed + timedelta(minutes=rng.randint(240, 900)), False)
        for i, o in enumerate(self.orders, start=1):
            o["id"] = i
            o["order_number"] = f"SO-{10000 + i}"

    # -- returns and refunds ------------------------------------------------------------------
    def build_returns(self) -> None:
        ctx, rng = self.ctx, self.rng
        delivered = [o for o in self.orders if o["status"] == "delivered"]
        shipments = {id(s["order"]): s for s in self.shipments}
        # planted requested returns: recent deliveries, request in the last ~day and a half
        recent = [
            o
            for o in delivered
            if o.get("_kind") == "delivered" and shipments[id(o)]["delivered_at"] < self.clock - timedelta(days=2)
        ]
        planted = ctx.sample(recent, ctx.n(2, 14))
        for o in planted:
            line = ctx.pick(o["_lines"])
            at = self.between(
                max(shipments[id(o)]["delivered_at"] + timedelta(hours=20), self.clock - timedelta(hours=36)),
                self.clock - timedelta(hours=1),
            )
            self._request(o, line, at, "requested")
        others = [o for o in delivered if o not in planted]
        for o in ctx.sample(others, max(2, len(others) // 7)):
            line = ctx.pick(o["_lines"])
            dl = shipments[id(o)]["delivered_at"]
            late = rng.random() < 0.12
            at = dl + timedelta(days=rng.uniform(31, 45) if late else rng.uniform(1, 20))
            if not self.before_clock(at + timedelta(days=1)):
                continue
            self._request(o, line, at, "rejected" if late else None)

    def _request(self, o: dict, line: dict, at: datetime, fate: str | None) -> None:
        rng = self.rng
        qty = 1 if line["quantity"] == 1 or rng.random() < 0.7 else line["quantity"]
        reason = self.ctx.pick(RETURN_REASONS)
        r = {
            "order": o,
            "line": line,
            "quantity": qty,
            "reason": reason,
            "status": "requested",
            "restocked": 0,
            "decision_note": None,
            "requested_at": at,
            "decided_at": None,
            "received_at": None,
            "refunded_at": None,
        }
        self.returns.append(r)
        sku = line["variant"]["sku"]
        r["_events"] = [("return_requested", f"{{rma}}: {qty} x {sku} - {reason}", at)]
        if fate == "requested":
            return
        decided = at + timedelta(minutes=rng.randint(60, 1300))
        if not self.before_clock(decided):
            return
        if fate == "rejected":
            days = (at.date() - self._delivered(o).date()).days
            note = f"Requested {days} days after delivery; outside the 30-day window."
            r.update(status="rejected", decision_note=note, decided_at=decided)
            r["_events"].append(("return_rejected", f"{{rma}}: {note}", decided))
            return
        note = self.ctx.pick([None, None, "Unworn with tags", "Photos confirm the damage", "Within the window"])
        r.update(status="approved", decision_note=note, decided_at=decided)
        r["_events"].append(("return_approved", "{rma} approved" + (f": {note}" if note else ""), decided))
        received = decided + timedelta(days=rng.uniform(2, 6))
        if not self.before_clock(received):
            return
        restock = reason not in ("Arrived damaged", "Stopped working after a week") and rng.random() < 0.85
        r.update(status="received", received_at=received, restocked=1 if restock else 0)
        if restock:
            self.move(line["variant"]["id"], qty, "return", received, o, r, "{rma} restocked")
        r["_events"].append(
            ("return_received", "{rma} received" + (", restocked" if restock else ", not restocked"), received)
        )
        refunded = received + timedelta(minutes=rng.randint(10, 600))
        if not self.before_clock(refunded) or rng.random() < 0.15:
            return
        pay = o["_pay"]
        remaining = pay["amount_cents"] - pay["refunded_cents"]
        amount = min(self.tools._return_value(o, line["unit"], qty), remaining)
        if amount <= 0:
            return
        pay["refunded_cents"] += amount
        pay["status"] = "refunded" if pay["refunded_cents"] >= pay["amount_cents"] else "partially_refunded"
        if pay["status"] == "refunded":
            o["status"] = "refunded"
        r.update(status="refunded", refunded_at=refunded)
        self.refunds.append({"order": o, "ret": r, "amount_cents": amount, "reason": "Return {rma}", "at": refunded})
        r["_events"].append(
            ("refunded", f"Refund {self.tools._dollars(amount)} for {{rma}}: Return {{rma}}", refunded)
        )

    def _delivered(self, o: dict) -> datetime:
        return next(s["delivered_at"] for s in self.shipments if s["order"] is o)

    # -- stock --------------------------------------------------------------------------------
    def plan_stock(self) -> None:
        """Final stock targets: a low-stock category for restocks, sold-out options, the rest random."""
        ctx, rng = self.ctx, self.rng
        by_cat: dict[str, list[dict]] = {}
        for v in self.sellable():
            by_cat.setdefault(self.vmeta[v["id"]]["cat"], []).append(v)
        leafs = [
            c
            for c in ["camping", "audio", "coffee-tea", "cookware", "candles", "footwear", "apparel"]
            if len(by_cat.get(c, [])) >= 3
        ]
        low_cat = ctx.pick(leafs)
        lows = ctx.sample(by_cat[low_cat], 2)
        for v in by_cat[low_cat]:
            self.vmeta[v["id"]]["spec"] = ("min", rng.randint(9, 30))
        for v in lows:
            self.vmeta[v["id"]]["spec"] = ("exact", rng.randint(0, 3))
        # sold-out options: products with three or more options outside that category
        multi: dict[int, list[dict]] = {}
        for v in self.sellable():
            if self.vmeta[v["id"]]["cat"] != low_cat:
                multi.setdefault(v["product_id"], []).append(v)
        cands = [vs for vs in multi.values() if len(vs) >= 3]
        if len(cands) < 3:
            cands += [vs for vs in multi.values() if len(vs) == 2]
        for vs in ctx.sample(cands, ctx.n(3, 22)):
            out = ctx.sample(vs, rng.randint(1, len(vs) - 1 if len(vs) > 3 else 1))
            for v in vs:
                self.vmeta[v["id"]]["spec"] = ("exact", 0) if v in out else ("min", rng.randint(2, 18))
        for v in self.sellable():
            if self.vmeta[v["id"]]["spec"] is None:
                r = rng.random()
                if r < 0.06:
                    self.vmeta[v["id"]]["spec"] = ("exact", 0)
                elif r < 0.2:
                    self.vmeta[v["id"]]["spec"] = ("exact", rng.randint(1, 4))
        self.low_cat = low_cat

    def settle_stock(self) -> None:
        """Restocks, then the opening count (and a final count correction where needed) so that the
        movements of each variant sum to its stock and the running stock never goes negative."""
        ctx, rng = self.ctx, self.rng
        # a few supplier deliveries
        for v in ctx.sample(self.sellable(), max(2, len(self.t["product_variants"]) // 8)):
            spec = self.vmeta[v["id"]]["spec"]
            if spec is not None and spec[0] == "exact":
                continue
            at = self.between(self.opening + timedelta(days=5), self.clock - timedelta(days=3)).replace(
                minute=30, second=0
            )
            po = f"PO-{rng.randint(7000, 7999)} {self.t['products'][v['product_id'] - 1]['brand']}"
            self.move(v["id"], rng.choice([10, 12, 20, 24]), "restock", at, note=po)
        per: dict[int, list[dict]] = {}
        for m in self.moves:
            per.setdefault(m["variant_id"], []).append(m)
        for v in self.t["product_variants"]:
            ms = sorted(per.get(v["id"], []), key=lambda m: m["at"])
            run, low = 0, 0
            for m in ms:
                run += m["quantity_change"]
                low = min(low, run)
            total = run
            spec = self.vmeta[v["id"]]["spec"]
            need = max(1, -low)
            if spec is None:
                initial = need + rng.randint(3, 24)
            elif spec[0] == "min":
                initial = max(need, spec[1] - total) + rng.randint(0, 8)
            else:
                initial = max(need, spec[1] - total)
            self.move(v["id"], initial, "initial", self.opening, note="Opening stock count")
            final = initial + total
            if spec is not None and spec[0] == "exact" and final != spec[1]:
                diff = spec[1] - final
                last = ms[-1]["at"] if ms else self.opening
                at = self.between(
                    max(last, self.clock - timedelta(days=6)) + timedelta(minutes=10),
                    self.clock - timedelta(minutes=30),
                )
                at = max(at, last + timedelta(minutes=1))
                note = f"Cycle count: {-diff} unit{'s' if -diff != 1 else ''} damaged or missing"
                self.move(v["id"], diff, "adjustment", at, note=note)
                final = spec[1]
            if not v["active"] and rng.random() < 0.5 and final > 1:
                at = self.between(self.opening + timedelta(days=20), self.clock - timedelta(days=20))
                if not ms or at > ms[-1]["at"]:
                    self.move(v["id"], -2, "adjustment", at, note="Year-end count: 2 units missing")
                    final -= 2
            v["stock"] = final

    # -- carts --------------------------------------------------------------------------------
    def build_carts(self) -> None:
        ctx, rng = self.ctx, self.rng
        plain = [o["customer_id"] for o in self.orders if o.get("_plain")]
        active = [c for c in self.t["customers"] if c["status"] == "active" and c["id"] not in plain]
        cands = ctx.sample(active, ctx.n(5, 60))
        # the first (clean) carts belong to customers with a card on file
        cands.sort(key=lambda c: 0 if c["card_last4"] else 1)
        in_stock = [v for v in self.sellable() if v["stock"] >= 3]
        good = [v for v in in_stock if v["price_cents"] >= 3000]
        any_v = self.sellable()
        for i, c in enumerate(cands):
            clean = i < 2 or (ctx.large and i < 20)
            status = "open" if (clean or i % 3 != 2) else "abandoned"
            created = self.daytime(0.2, 6) if status == "open" else self.daytime(20, 60)
            if created < datetime.fromisoformat(c["created_at"]):
                created = datetime.fromisoformat(c["created_at"]) + timedelta(hours=2)
                if not self.before_clock(created):
                    continue
            cart = self.t.add(
                "carts",
                {
                    "customer_id": c["id"],
                    "status": status,
                    "coupon_id": None,
                    "created_at": _iso(created),
                    "updated_at": _iso(created),
                },
            )
            pool = good if clean else any_v
            n = 2 if clean else rng.randint(1, 3)
            vs = ctx.sample(pool, n)
            if clean and sum(v["price_cents"] for v in vs) < 6000:
                vs = ctx.sample(good, 2)
            if not clean and status == "open" and rng.random() < 0.3:
                fs = [v for v in self.sellable() if v["stock"] == 0]
                if fs:
                    vs = [ctx.pick(fs), *[v for v in vs if v["stock"] != 0]][:3]
            if not clean and status == "open" and rng.random() < 0.25:
                cart["coupon_id"] = next(cp["id"] for cp in self.coupons if cp["code"] == "FREESHIP")
            for k, v in enumerate(vs):
                q = 1 if (clean or rng.random() < 0.8) else 2
                self.t.add(
                    "cart_items",
                    {
                        "cart_id": cart["id"],
                        "variant_id": v["id"],
                        "quantity": q,
                        "added_at": _iso(created + timedelta(minutes=3 * k)),
                    },
                )

    # -- reviews ------------------------------------------------------------------------------
    def build_reviews(self) -> None:
        ctx, rng = self.ctx, self.rng
        seen: set[tuple[int, int]] = set()
        rows = []
        for o in self.orders:
            if o["status"] not in ("delivered", "refunded"):
                continue
            dl = next((s["delivered_at"] for s in self.shipments if s["order"] is o and s["delivered_at"]), None)
            if dl is None:
                continue
            for line in o["_lines"]:
                pid = line["variant"]["product_id"]
                if (pid, o["customer_id"]) in seen or rng.random() > 0.42:
                    continue
                at = dl + timedelta(days=rng.uniform(0.5, 14))
                if not self.before_clock(at):
                    continue
                seen.add((pid, o["customer_id"]))
                rows.append(self._review(pid, o["customer_id"], at, 1))
        # unverified reviews and the planted well-reviewed products
        active_products = [p for p in self.t["products"] if p["status"] == "active"]
        custs = self.t["customers"]
        for o in self.orders:  # unverified reviews come from people who did not buy here
            for line in o["_lines"]:
                seen.add((line["variant"]["product_id"], o["customer_id"]))
        for _ in range(ctx.n(4, 50)):
            p, c = ctx.pick(active_products), ctx.pick(custs)
            if (p["id"], c["id"]) in seen:
                continue
            seen.add((p["id"], c["id"]))
            rows.append(self._unverified_review(p, c))
        for p in ctx.sample(active_products, ctx.n(2, 12)):
            have = sum(1 for r in rows if r["product_id"] == p["id"] and r["status"] == "published")
            for c in ctx.sample(custs, 8):
                if have >= 4:
                    break
                if (p["id"], c["id"]) in seen:
                    continue
                seen.add((p["id"], c["id"]))
                rows.append(self._unverified_review(p, c, hidden=False))
                have += 1
        rows.sort(key=lambda r: (r["created_at"], r["product_id"], r["customer_id"]))
        for i, r in enumerate(rows, start=1):
            r["id"] = i
        self.reviews = rows

    def _unverified_review(self, p: dict, c: dict, hidden: bool | None = None) -> dict:
        """A review of a product the customer did not buy here, written some time after they signed up."""
        at = self.between(max(datetime.fromisoformat(c["created_at"]), self.opening), self.clock - timedelta(hours=3))
        return self._review(p["id"], c["id"], at, 0, hidden)

    def _review(self, pid: int, cid: int, at: datetime, verified: int, hidden: bool | None = None) -> dict:
        rng = self.rng
        if hidden is None:
            hidden = rng.random() < 0.07
        if hidden:
            k = rng.randrange(len(HIDDEN_REVIEWS))
            title, body = HIDDEN_REVIEWS[k]
            rating = rng.choice([1, 4, 5])
            status, note = "hidden", HIDDEN_NOTES[k]
        else:
            rating = self.ctx.weighted({5: 40, 4: 32, 3: 14, 2: 8, 1: 6})
            title, body = self.ctx.pick(REVIEWS[rating])
            status, note = "published", None
        return {
            "id": 0,
            "product_id": pid,
            "customer_id": cid,
            "rating": rating,
            "title": title,
            "body": body,
            "verified_purchase": verified,
            "status": status,
            "moderation_note": note,
            "created_at": _iso(at),
        }

    # -- output -------------------------------------------------------------------------------
    def tables(self) -> dict[str, list[dict]]:
        # returns: chronological RMA numbers
        self.returns.sort(key=lambda r: (r["requested_at"], r["order"]["id"]))
        for i, r in enumerate(self.returns, start=1):
            r["id"], r["rma_number"] = i, f"RMA-{5000 + i}"
        order_items: list[dict] = []
        for o in self.orders:
            for line in o["_lines"]:
                line["id"] = len(order_items) + 1
                order_items.append(
                    {
                        "id": line["id"],
                        "order_id": o["id"],
                        "variant_id": line["variant"]["id"],
                        "quantity": line["quantity"],
                        "unit_price_cents": line["unit"],
                        "line_total_cents": line["unit"] * line["quantity"],
                    }
                )
        orders = [_row(o, ORDER_COLUMNS) for o in self.orders]
        payments = [
            {"id": o["id"], "order_id": o["id"], **o["_pay"], "paid_at": _iso(o["placed_at"])} for o in self.orders
        ]
        self.shipments.sort(key=lambda s: (s["shipped_at"], s["order"]["id"]))
        shipments = [
            {"id": i, "order_id": s["order"]["id"], **_row(s, SHIPMENT_COLUMNS)}
            for i, s in enumerate(self.shipments, start=1)
        ]
        returns = [
            {
                "id": r["id"],
                "rma_number": r["rma_number"],
                "order_id": r["order"]["id"],
                "order_item_id": r["line"]["id"],
                **_row(r, RETURN_COLUMNS),
            }
            for r in self.returns
        ]
        self.refunds.sort(key=lambda f: (f["at"], f["order"]["id"]))
        refunds = [
            {
                "id": i,
                "order_id": f["order"]["id"],
                "payment_id": f["order"]["id"],
                "return_id": f["ret"]["id"] if f["ret"] else None,
                "amount_cents": f["amount_cents"],
                "reason": f["reason"].replace("{rma}", f["ret"]["rma_number"]) if f["ret"] else f["reason"],
                "created_at": _iso(f["at"]),
            }
            for i, f in enumerate(self.refunds, start=1)
        ]
        self.moves.sort(key=lambda m: (m["at"], m["variant_id"], m["quantity_change"]))
        moves = [
            {
                "id": i,
                "variant_id": m["variant_id"],
                "quantity_change": m["quantity_change"],
                "reason": m["reason"],
                "order_id": m["order"]["id"] if m["order"] else None,
                "return_id": m["ret"]["id"] if m["ret"] else None,
                "note": m["note"].replace("{rma}", m["ret"]["rma_number"]) if m["note"] and m["ret"] else m["note"],
                "created_at": _iso(m["at"]),
            }
            for i, m in enumerate(self.moves, start=1)
        ]
        evs = []
        for o in self.orders:
            for k, (typ, detail, at) in enumerate(o["_events"]):
                evs.append((at, o["id"], k, typ, detail))
        for r in self.returns:
            for k, (typ, detail, at) in enumerate(r["_events"]):
                evs.append((at, r["order"]["id"], 100 + k, typ, detail.replace("{rma}", r["rma_number"])))
        evs.sort(key=lambda e: (e[0], e[1], e[2]))
        events = [
            {"id": i, "order_id": oid, "event_type": typ, "detail": detail, "created_at": _iso(at)}
            for i, (at, oid, _k, typ, detail) in enumerate(evs, start=1)
        ]
        for cp in self.coupons:
            cp["times_used"] += self.coupon_uses[cp["id"]]
            if cp["max_uses"] == "max":
                cp["max_uses"] = cp["times_used"]
        return {
            "tax_rates": [{"state": s, "state_name": n, "rate_bp": r} for s, n, r in TAX_RATES],
            "shipping_methods": [dict(m) for m in SHIPPING],
            "categories": [
                {"id": i, "slug": s, "name": n, "parent_id": p, "description": d} for i, s, n, p, d in CATEGORIES
            ],
            "products": self.t["products"],
            "product_variants": self.t["product_variants"],
            "customers": self.t["customers"],
            "addresses": self.t["addresses"],
            "coupons": self.coupons,
            "carts": self.t["carts"],
            "cart_items": self.t["cart_items"],
            "orders": orders,
            "order_items": order_items,
            "payments": payments,
            "shipments": shipments,
            "returns": returns,
            "refunds": refunds,
            "reviews": self.reviews,
            "inventory_movements": moves,
            "order_events": events,
        }


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.build_catalogue()
    w.build_customers()
    w.build_coupons()
    w.build_orders()
    w.build_returns()
    w.plan_stock()
    w.settle_stock()
    w.build_carts()
    w.build_reviews()
    return w.tables()
