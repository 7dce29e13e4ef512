"""Scripted LLM answers for two small scenarios, stage by stage: what a good model would return.

``VET`` and ``BIKE`` map a stage name to the JSON answer. Each finished environment passes
``awm validate``. ``marker`` is a string that appears in every prompt of that scenario, so the fake
server can tell the two apart when they run concurrently.
"""

from __future__ import annotations

import copy
import json
from typing import Any

VET_TOOLS = '''"""Tools of the Happy Paws veterinary clinic."""

from datetime import datetime
from typing import Literal

from awm.tooling import Db, ToolError, tool


@tool
def find_owner(db: Db, email: str) -> dict:
    """Look an owner up by email, with their pets.

    Args:
        email: the owner's email address.
    """
    owner = db.one("SELECT id, name, email FROM owners WHERE email = ?", (email,))
    if owner is None:
        raise ToolError(f"no owner with email {email!r}; check the spelling")
    owner["pets"] = db.query("SELECT id, name, species FROM pets WHERE owner_id = ? ORDER BY id", (owner["id"],))
    return owner


@tool
def list_appointments(db: Db, pet_id: int, status: Literal["booked", "cancelled", "done"] | None = None) -> list[dict]:
    """A pet's appointments, oldest first.

    Args:
        pet_id: the pet's id.
        status: only appointments with this status.
    """
    if db.one("SELECT id FROM pets WHERE id = ?", (pet_id,)) is None:
        raise ToolError(f"no pet {pet_id}")
    return db.query(
        "SELECT id, starts_at, reason, status FROM appointments WHERE pet_id = ? AND (? IS NULL OR status = ?) "
        "ORDER BY starts_at LIMIT 50",
        (pet_id, status, status),
    )


@tool(write=True)
def book_appointment(db: Db, pet_id: int, starts_at: str, reason: str) -> dict:
    """Book an appointment for a pet.

    Args:
        pet_id: the pet's id.
        starts_at: start time, ISO format, e.g. 2026-03-10T10:00.
        reason: why the pet comes in, e.g. "vaccination".
    """
    try:
        when = datetime.fromisoformat(starts_at)
    except ValueError:
        raise ToolError("starts_at must be an ISO date-time such as 2026-03-10T10:00") from None
    if when <= db.now():
        raise ToolError("appointments must be in the future")
    if not reason.strip():
        raise ToolError("give a reason for the visit")
    if db.one("SELECT id FROM pets WHERE id = ?", (pet_id,)) is None:
        raise ToolError(f"no pet {pet_id}")
    new_id = db.insert(
        "appointments",
        {"pet_id": pet_id, "starts_at": when.isoformat(timespec="minutes"), "reason": reason.strip(), "status": "booked"},
    )
    return {"appointment_id": new_id, "starts_at": when.isoformat(timespec="minutes")}


@tool(write=True)
def cancel_appointment(db: Db, appointment_id: int) -> dict:
    """Cancel a booked appointment.

    Args:
        appointment_id: the appointment's id.
    """
    row = db.one("SELECT id, status FROM appointments WHERE id = ?", (appointment_id,))
    if row is None:
        raise ToolError(f"no appointment {appointment_id}")
    if row["status"] != "booked":
        raise ToolError(f"appointment {appointment_id} is {row['status']}, not booked")
    db.execute("UPDATE appointments SET status = 'cancelled' WHERE id = ?", (appointment_id,))
    return {"appointment_id": appointment_id, "status": "cancelled"}
'''

VET: dict[str, Any] = {
    "marker": "Happy Paws",
    "idea": "a veterinary clinic",
    "scenario": {
        "id": "vet_clinic",
        "title": "Happy Paws Veterinary Clinic",
        "description": "A small veterinary clinic: pet owners, their pets and appointments with the vets.",
        "clock": "2026-03-02T09:30:00",
        "tags": ["health", "pets"],
    },
    "tasks": {
        "tasks": [
            {
                "id": "t01_count_pets",
                "instruction": "How many pets does maria.lopez@example.com have registered at Happy Paws? "
                "Give the number of pets.",
                "kind": "information",
                "answer": {"type": "number", "description": "the number of pets registered to her"},
            },
            {
                "id": "t02_cancel_biscuit",
                "instruction": "Cancel Biscuit's booked appointment. Biscuit belongs to tom.reed@example.com.",
                "kind": "single_write",
            },
            {
                "id": "t03_vaccinate_both",
                "instruction": "Book a vaccination for each of maria.lopez@example.com's pets on 2026-03-10: "
                'Luna at 10:00 and Rocky at 10:30, each with the reason "vaccination".',
                "kind": "multi_step",
            },
        ]
    },
    "schema": {
        "schema_sql": (
            "CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);\n"
            "CREATE TABLE pets (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES owners(id), "
            "name TEXT NOT NULL, species TEXT NOT NULL);\n"
            "CREATE TABLE appointments (id INTEGER PRIMARY KEY, pet_id INTEGER NOT NULL REFERENCES pets(id), "
            "starts_at TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'booked' "
            "CHECK (status IN ('booked', 'cancelled', 'done')));\n"
            "CREATE INDEX appointments_pet ON appointments(pet_id);"
        )
    },
    "seed": {
        "tables": {
            "owners": [
                {"id": 1, "name": "Maria Lopez", "email": "maria.lopez@example.com"},
                {"id": 2, "name": "Tom Reed", "email": "tom.reed@example.com"},
                {"id": 3, "name": "Maria Lopes", "email": "maria.lopes@example.com"},
            ],
            "pets": [
                {"id": 1, "owner_id": 1, "name": "Luna", "species": "cat"},
                {"id": 2, "owner_id": 1, "name": "Rocky", "species": "dog"},
                {"id": 3, "owner_id": 2, "name": "Biscuit", "species": "dog"},
                {"id": 4, "owner_id": 3, "name": "Kiwi", "species": "parrot"},
                {"id": 5, "owner_id": 3, "name": "Nemo", "species": "fish"},
                {"id": 6, "owner_id": 3, "name": "Max", "species": "dog"},
            ],
            "appointments": [
                {"id": 1, "pet_id": 3, "starts_at": "2026-02-20T11:00", "reason": "check-up", "status": "done"},
                {"id": 2, "pet_id": 3, "starts_at": "2026-03-05T15:00", "reason": "limping", "status": "booked"},
                {"id": 3, "pet_id": 1, "starts_at": "2026-03-04T09:00", "reason": "dental", "status": "booked"},
            ],
        }
    },
    "tools": {"tools_py": VET_TOOLS},
    "verifiers": {
        "verifiers": [
            {
                "task_id": "t01_count_pets",
                "answer": {
                    "sql": "SELECT COUNT(*) FROM pets p JOIN owners o ON o.id = p.owner_id "
                    "WHERE o.email = 'maria.lopez@example.com'",
                    "tolerance": 0,
                    "distractors_sql": "SELECT COUNT(*) FROM pets p JOIN owners o ON o.id = p.owner_id "
                    "WHERE o.email != 'maria.lopez@example.com' GROUP BY o.id",
                },
                "gold": {
                    "calls": [{"tool": "find_owner", "arguments": {"email": "maria.lopez@example.com"}}],
                    "answer": 2,
                },
            },
            {
                "task_id": "t02_cancel_biscuit",
                "checks": [
                    {"name": "cancelled", "sql": "SELECT status = 'cancelled' FROM appointments WHERE id = 2"},
                ],
                "gold": {
                    "calls": [
                        {"tool": "find_owner", "arguments": {"email": "tom.reed@example.com"}},
                        {"tool": "list_appointments", "arguments": {"pet_id": 3, "status": "booked"}},
                        {"tool": "cancel_appointment", "arguments": {"appointment_id": 2}},
                    ]
                },
            },
            {
                "task_id": "t03_vaccinate_both",
                "checks": [
                    {
                        "name": "luna_booked",
                        "sql": "SELECT COUNT(*) = 1 FROM appointments WHERE pet_id = 1 AND starts_at = "
                        "'2026-03-10T10:00' AND reason = 'vaccination' AND status = 'booked' "
                        "AND id NOT IN (SELECT id FROM initial.appointments)",
                    },
                    {
                        "name": "rocky_booked",
                        "sql": "SELECT COUNT(*) = 1 FROM appointments WHERE pet_id = 2 AND starts_at = "
                        "'2026-03-10T10:30' AND reason = 'vaccination' AND status = 'booked' "
                        "AND id NOT IN (SELECT id FROM initial.appointments)",
                    },
                ],
                "gold": {
                    "calls": [
                        {"tool": "find_owner", "arguments": {"email": "maria.lopez@example.com"}},
                        {
                            "tool": "book_appointment",
                            "arguments": {"pet_id": 1, "starts_at": "2026-03-10T10:00", "reason": "vaccination"},
                        },
                        {
                            "tool": "book_appointment",
                            "arguments": {"pet_id": 2, "starts_at": "2026-03-10T10:30", "reason": "vaccination"},
                        },
                    ]
                },
            },
        ]
    },
}

BIKE_TOOLS = '''"""Tools of the CityCycle bike-sharing scheme."""

from awm.tooling import Db, ToolError, tool


@tool
def list_stations(db: Db) -> list[dict]:
    """Every docking station with its number of available bikes."""
    return db.query(
        "SELECT s.id, s.name, (SELECT COUNT(*) FROM bikes b WHERE b.station_id = s.id AND b.status = 'available') "
        "AS available_bikes FROM stations s ORDER BY s.id"
    )


@tool
def list_bikes(db: Db, station_id: int) -> list[dict]:
    """The bikes docked at a station.

    Args:
        station_id: the station's id.
    """
    if db.one("SELECT id FROM stations WHERE id = ?", (station_id,)) is None:
        raise ToolError(f"no station {station_id}; use list_stations")
    return db.query("SELECT id, status FROM bikes WHERE station_id = ? ORDER BY id", (station_id,))


@tool
def find_rider(db: Db, email: str) -> dict:
    """Look a rider up by email.

    Args:
        email: the rider's email address.
    """
    rider = db.one("SELECT id, name, email, balance_cents FROM riders WHERE email = ?", (email,))
    if rider is None:
        raise ToolError(f"no rider with email {email!r}")
    return rider


@tool(write=True)
def start_ride(db: Db, rider_id: int, bike_id: int) -> dict:
    """Start a ride: the bike leaves its station and is marked in use.

    Args:
        rider_id: the rider's id.
        bike_id: an available bike's id.
    """
    rider = db.one("SELECT id, balance_cents FROM riders WHERE id = ?", (rider_id,))
    if rider is None:
        raise ToolError(f"no rider {rider_id}")
    if rider["balance_cents"] <= 0:
        raise ToolError("the rider's balance is empty; top up first")
    bike = db.one("SELECT id, station_id, status FROM bikes WHERE id = ?", (bike_id,))
    if bike is None:
        raise ToolError(f"no bike {bike_id}")
    if bike["status"] != "available":
        raise ToolError(f"bike {bike_id} is {bike['status']}, not available")
    ride_id = db.insert(
        "rides",
        {"rider_id": rider_id, "bike_id": bike_id, "from_station_id": bike["station_id"],
         "started_at": db.now().isoformat(timespec="minutes")},
    )
    db.execute("UPDATE bikes SET status = 'in_use', station_id = NULL WHERE id = ?", (bike_id,))
    return {"ride_id": ride_id, "bike_id": bike_id}


@tool(write=True)
def report_repair(db: Db, bike_id: int) -> dict:
    """Mark a docked bike as needing repair.

    Args:
        bike_id: the bike's id.
    """
    bike = db.one("SELECT id, status FROM bikes WHERE id = ?", (bike_id,))
    if bike is None:
        raise ToolError(f"no bike {bike_id}")
    if bike["status"] == "in_use":
        raise ToolError(f"bike {bike_id} is out on a ride")
    db.execute("UPDATE bikes SET status = 'repair' WHERE id = ?", (bike_id,))
    return {"bike_id": bike_id, "status": "repair"}
'''

BIKE: dict[str, Any] = {
    "marker": "CityCycle",
    "idea": "a bike-sharing service",
    "scenario": {
        "id": "bike_share",
        "title": "CityCycle Bike Sharing",
        "description": "CityCycle runs docking stations with shared bikes; riders with prepaid balances start rides.",
        "clock": "2026-05-14T08:15:00",
        "tags": ["transport"],
    },
    "tasks": {
        "tasks": [
            {
                "id": "t01_busiest_station",
                "instruction": "Which CityCycle station has the most available bikes right now, and how many "
                "available bikes does it have? Give the station's name and the number of bikes.",
                "kind": "information",
                "answer": {
                    "type": "object",
                    "description": "the station with the most available bikes",
                    "fields": {
                        "station": {"type": "string", "description": "the station's name"},
                        "available_bikes": {"type": "number", "description": "the number of available bikes there"},
                    },
                },
            },
            {
                "id": "t02_repair_bike_7",
                "instruction": "Bike 7 has a flat tyre: mark it for repair.",
                "kind": "single_write",
            },
            {
                "id": "t03_ride_for_jo",
                "instruction": "Start a ride for jo.kim@example.com on the available bike at Riverside station.",
                "kind": "multi_step",
            },
        ]
    },
    "schema": {
        "schema_sql": (
            "CREATE TABLE stations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
            "CREATE TABLE bikes (id INTEGER PRIMARY KEY, station_id INTEGER REFERENCES stations(id), "
            "status TEXT NOT NULL CHECK (status IN ('available', 'in_use', 'repair')));\n"
            "CREATE TABLE riders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, "
            "balance_cents INTEGER NOT NULL);\n"
            "CREATE TABLE rides (id INTEGER PRIMARY KEY, rider_id INTEGER NOT NULL REFERENCES riders(id), "
            "bike_id INTEGER NOT NULL REFERENCES bikes(id), from_station_id INTEGER REFERENCES stations(id), "
            "started_at TEXT NOT NULL, ended_at TEXT);"
        )
    },
    "seed": {
        "tables": {
            "stations": [
                {"id": 1, "name": "Central Square"},
                {"id": 2, "name": "Riverside"},
                {"id": 3, "name": "Old Mill"},
            ],
            "bikes": [
                {"id": 1, "station_id": 1, "status": "available"},
                {"id": 2, "station_id": 1, "status": "available"},
                {"id": 3, "station_id": 1, "status": "available"},
                {"id": 4, "station_id": 2, "status": "repair"},
                {"id": 5, "station_id": 2, "status": "available"},
                {"id": 6, "station_id": 3, "status": "available"},
                {"id": 7, "station_id": 3, "status": "available"},
                {"id": 8, "station_id": None, "status": "in_use"},
            ],
            "riders": [
                {"id": 1, "name": "Ann Berg", "email": "ann.berg@example.com", "balance_cents": 500},
                {"id": 2, "name": "Jo Kim", "email": "jo.kim@example.com", "balance_cents": 1200},
            ],
            "rides": [{"id": 1, "rider_id": 1, "bike_id": 8, "from_station_id": 2, "started_at": "2026-05-14T07:50"}],
        }
    },
    "tools": {"tools_py": BIKE_TOOLS},
    "verifiers": {
        "verifiers": [
            {
                "task_id": "t01_busiest_station",
                "answer": {
                    "fields": {
                        "station": {
                            "sql": "SELECT s.name FROM stations s JOIN bikes b ON b.station_id = s.id AND b.status = "
                            "'available' GROUP BY s.id ORDER BY COUNT(*) DESC LIMIT 1",
                            "distractors_sql": "SELECT name FROM stations ORDER BY id DESC",
                        },
                        "available_bikes": {
                            "sql": "SELECT COUNT(*) FROM bikes WHERE status = 'available' AND station_id IS NOT NULL "
                            "GROUP BY station_id ORDER BY COUNT(*) DESC LIMIT 1",
                        },
                    }
                },
                "gold": {
                    "calls": [{"tool": "list_stations", "arguments": {}}],
                    "answer": {"station": "Central Square", "available_bikes": 3},
                },
            },
            {
                "task_id": "t02_repair_bike_7",
                "checks": [{"name": "bike_7_in_repair", "sql": "SELECT status = 'repair' FROM bikes WHERE id = 7"}],
                "gold": {"calls": [{"tool": "report_repair", "arguments": {"bike_id": 7}}]},
            },
            {
                "task_id": "t03_ride_for_jo",
                "checks": [
                    {
                        "name": "ride_started",
                        "sql": "SELECT COUNT(*) = 1 FROM rides WHERE rider_id = 2 AND bike_id = 5 "
                        "AND from_station_id = 2 AND id NOT IN (SELECT id FROM initial.rides)",
                    },
                    {"name": "bike_in_use", "sql": "SELECT status = 'in_use' FROM bikes WHERE id = 5"},
                ],
                "gold": {
                    "calls": [
                        {"tool": "find_rider", "arguments": {"email": "jo.kim@example.com"}},
                        {"tool": "list_bikes", "arguments": {"station_id": 2}},
                        {"tool": "start_ride", "arguments": {"rider_id": 2, "bike_id": 5}},
                    ]
                },
            },
        ]
    },
}

STAGES = ("scenario", "tasks", "schema", "seed", "tools", "verifiers")


def answer(env: dict[str, Any], stage: str) -> str:
    """The scripted JSON answer of one stage, as the model would send it."""
    return json.dumps(env[stage])


def variant(env: dict[str, Any], stage: str, edit: Any) -> str:
    """A deep copy of one stage's answer with ``edit(copy)`` applied: a broken answer to script."""
    data = copy.deepcopy(env[stage])
    edit(data)
    return json.dumps(data)


def write_bundle(env: dict[str, Any], root: Any) -> None:
    """The finished environment as files (to check the script itself is sound)."""
    from pathlib import Path

    root = Path(root)
    s = env["scenario"]
    e = root / "envs" / s["id"]
    v = root / "verifiers" / s["id"]
    e.mkdir(parents=True)
    v.mkdir(parents=True)
    manifest = {k: s[k] for k in ("id", "title", "description", "clock", "tags")}
    (e / "env.json").write_text(json.dumps(manifest))
    (e / "schema.sql").write_text(env["schema"]["schema_sql"])
    (e / "seed.json").write_text(json.dumps(env["seed"]))
    (e / "tools.py").write_text(env["tools"]["tools_py"])
    (e / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in env["tasks"]["tasks"]))
    (v / "verifiers.jsonl").write_text("".join(json.dumps(x) + "\n" for x in env["verifiers"]["verifiers"]))
