"""World builder for project_tracker: organisations with teams, projects, milestones, sprints and issues.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``, so the same context gives the
same rows in any process. The rows keep the invariants ``tools.py`` relies on:

- issue keys are ``<project key>-<number>``, numbers run 1..n per project and ``next_issue_number`` is n+1;
- ``resolved_at`` is set exactly for done / cancelled issues; issues in progress or in review have an
  assignee; every assignee is on the project's team and holds at most ``max_active_issues`` active
  issues (with room left, so re-assignments stay possible); deactivated people hold no active work;
- each team has closed sprints (only resolved issues, ``completed_points`` = done points), exactly one
  active sprint and one or two planned ones (open issues only), never overlapping; sprint issues are
  estimated and active / planned sprints are within capacity;
- dependencies stay inside a project and point from an older issue to a newer one (so there is never a
  cycle); an issue that has started or finished has no unfinished blocker;
- closed milestones hold only resolved issues; archived projects hold only resolved issues;
- time is logged by team members at their hourly rate, in 15-minute steps, on weekdays after the issue
  was filed, never on cancelled issues and never more than 8 hours a day per person;
- every timestamp lies before the clock; watchers, comments and the activity log agree with the issues.

Scenarios the task templates need are planted in every world: an in-progress issue with an open issue
waiting only on it (review, approve, hand over), a team member holding exactly two open / in-progress
issues (hand-over for leave), an active sprint with unfinished work and a planned successor (close and
carry over), free capacity in active sprints (file a bug into the sprint), blocked open issues, time logs.

With ``ctx.distractors`` the world also gets near-duplicate people (same surname and a similar first name,
or the same full name with another e-mail; team leads only get the former, so the people templates name
stay identifiable), issues whose titles repeat, or nearly repeat, a title of another project, and a team
named like a team of another organisation.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

WORKFLOW = [
    ("open", "in_progress", "Start progress", 1, 1, 0),
    ("open", "cancelled", "Cancel", 0, 0, 0),
    ("in_progress", "open", "Stop progress", 0, 0, 0),
    ("in_progress", "in_review", "Submit for review", 1, 0, 0),
    ("in_progress", "cancelled", "Cancel", 0, 0, 0),
    ("in_review", "in_progress", "Request changes", 1, 0, 0),
    ("in_review", "done", "Approve and close", 1, 1, 1),
    ("done", "open", "Reopen", 0, 0, 0),
    ("cancelled", "open", "Reopen", 0, 0, 0),
]

ORGS = [
    ("Northwind Labs", "northwind", "northwindlabs.io", "IE", "business",
     ["Europe/Dublin", "Europe/London", "Europe/Madrid", "Europe/Berlin"]),
    ("Kestrel Cloud", "kestrel", "kestrel.cloud", "US", "team",
     ["America/Chicago", "America/New_York", "America/Los_Angeles", "America/Denver"]),
    ("Bluefin Systems", "bluefin", "bluefin.dev", "GB", "enterprise",
     ["Europe/London", "Europe/Dublin", "Europe/Lisbon"]),
    ("Larkspur Health", "larkspur", "larkspurhealth.com", "US", "business",
     ["America/New_York", "America/Toronto", "America/Chicago"]),
    ("Copperleaf Finance", "copperleaf", "copperleaf.co", "DE", "enterprise",
     ["Europe/Berlin", "Europe/Vienna", "Europe/Zurich", "Europe/Warsaw"]),
    ("Tidewater Retail", "tidewater", "tidewater.shop", "NL", "team",
     ["Europe/Amsterdam", "Europe/Brussels", "Europe/Paris"]),
    ("Juniper Mobility", "juniper", "junipermobility.com", "SE", "business",
     ["Europe/Stockholm", "Europe/Oslo", "Europe/Helsinki", "Europe/Copenhagen"]),
    ("Ashgrove Media", "ashgrove", "ashgrove.media", "AU", "free",
     ["Australia/Sydney", "Australia/Melbourne", "Pacific/Auckland"]),
    ("Meridian Freight", "meridian", "meridianfreight.io", "CA", "team",
     ["America/Toronto", "America/Vancouver", "America/Halifax"]),
    ("Quarry Analytics", "quarry", "quarry.ai", "US", "business",
     ["America/Los_Angeles", "America/Denver", "America/Phoenix"]),
]

# team types: name, key, description, lead title, job titles, components, projects
TEAM_TYPES: list[dict[str, Any]] = [
    {
        "name": "Payments", "key": "PAY", "desc": "Checkout, billing and payment-provider integrations.",
        "lead": "Payments Lead",
        "jobs": ["Senior Backend Engineer", "Backend Engineer", "Frontend Engineer", "Full-stack Engineer",
                 "QA Engineer"],
        "components": ["checkout page", "payment form", "invoice export", "refund flow", "card vault",
                       "webhook handler", "receipt emails", "currency converter"],
        "projects": [
            {"name": "Checkout Revamp", "key": "CHK",
             "desc": "Single-page checkout with wallet payments and saved cards.",
             "labels": ["bug", "frontend", "backend", "accessibility", "wallets", "tech-debt"],
             "milestones": [("Beta launch", "Checkout v2 live for 10% of traffic."),
                            ("General availability", "Checkout v2 for all customers.")],
             "titles": [("feature", "Apple Pay button on checkout"), ("feature", "Google Pay button on checkout"),
                        ("bug", "Promo code field accepts expired codes"),
                        ("bug", "3-D Secure challenge fails on Safari 17"),
                        ("feature", "Guest checkout without account"), ("task", "Load test checkout API at 500 rps"),
                        ("chore", "Remove legacy jQuery checkout scripts"),
                        ("bug", "Checkout form fails WCAG contrast checks"),
                        ("feature", "Saved cards management page"),
                        ("bug", "Order confirmation email missing VAT line")]},
            {"name": "Billing Service", "key": "BIL",
             "desc": "Invoicing, VAT and refunds for subscription customers.",
             "labels": ["bug", "tax", "invoices", "tech-debt", "customer-reported"],
             "milestones": [("EU VAT compliance", "Reverse charge and VAT ID validation for EU B2B customers."),
                            ("Invoicing cleanup", "Invoice numbering and proration fixes.")],
             "titles": [("bug", "Refund webhook double-fires for partial refunds"),
                        ("feature", "Credit notes for partial refunds"), ("feature", "Validate VAT IDs against VIES"),
                        ("bug", "Dunning emails sent twice on payment retry"),
                        ("chore", "Deprecate v1 invoices endpoint"),
                        ("bug", "Invoice PDF footer overlaps totals on A4"),
                        ("feature", "Per-entity invoice number sequences"),
                        ("bug", "Proration wrong when downgrading mid-cycle"),
                        ("task", "Release VAT changes to production"),
                        ("feature", "Support reverse-charge VAT for EU B2B customers")]},
            {"name": "Fraud Rules Engine", "key": "FRD",
             "desc": "Real-time risk scoring and a manual review queue for card payments.",
             "labels": ["bug", "rules", "ml", "ops"],
             "milestones": [("Shadow mode", "Rules scored on live traffic without blocking."),
                            ("Enforcement", "High-risk payments blocked automatically.")],
             "titles": [("feature", "Velocity rule for repeated card declines"),
                        ("feature", "Manual review queue for flagged orders"),
                        ("bug", "Risk score missing for Apple Pay transactions"),
                        ("task", "Backtest rules against last quarter's chargebacks"),
                        ("bug", "Review queue shows orders from other merchants"),
                        ("chore", "Archive unused fraud rules"),
                        ("feature", "Allowlist for trusted enterprise customers"),
                        ("bug", "Rule editor loses changes on session timeout")]},
            {"name": "Subscription Plans", "key": "SUB",
             "desc": "Plan catalogue, upgrades, downgrades and trials.",
             "labels": ["bug", "pricing", "backend", "frontend"],
             "milestones": [("Annual plans", "Annual billing for every plan."),
                            ("Trial revamp", "14-day trials with card-less signup.")],
             "titles": [("feature", "Annual billing option for Team plan"),
                        ("bug", "Trial end date off by one day for US customers"),
                        ("feature", "Self-serve downgrade flow"), ("bug", "Seat count not updated after user removal"),
                        ("task", "Migrate legacy plans to new price IDs"),
                        ("feature", "Pause subscription for up to 3 months"),
                        ("chore", "Remove grandfathered 2019 plans"),
                        ("bug", "Upgrade prorations ignore coupon discounts")]},
        ],
    },
    {
        "name": "Mobile", "key": "MOB", "desc": "iOS and Android apps.", "lead": "Mobile Lead",
        "jobs": ["iOS Engineer", "Android Engineer", "Mobile Engineer", "Product Designer", "QA Engineer"],
        "components": ["login screen", "cart screen", "order history", "settings screen", "product gallery",
                       "onboarding carousel", "search bar", "profile page"],
        "projects": [
            {"name": "Mobile App 3.0", "key": "APP",
             "desc": "Major release of the customer app: biometric login, offline history, new onboarding.",
             "labels": ["bug", "ios", "android", "crash", "design", "accessibility"],
             "milestones": [("3.0 App Store release", "Submit 3.0 to the App Store and Google Play."),
                            ("Design freeze", "All 3.0 screens signed off.")],
             "titles": [("feature", "Biometric login with Face ID and fingerprint"),
                        ("bug", "App crashes when rotating iPad during checkout"),
                        ("feature", "Offline order history"), ("task", "QA regression pass for 3.0"),
                        ("bug", "VoiceOver labels missing on cart screen"),
                        ("chore", "Migrate Android build to Kotlin DSL"), ("feature", "Onboarding flow redesign"),
                        ("bug", "Push permission prompt shown twice")]},
            {"name": "Push Notifications", "key": "PSH",
             "desc": "Targeted push campaigns and notification preferences.",
             "labels": ["bug", "ios", "android", "backend"],
             "milestones": [("Preference center", "Customers choose which pushes they get."),
                            ("Campaign tooling", "Marketing can schedule campaigns without engineering.")],
             "titles": [("feature", "Notification preference center"),
                        ("bug", "Silent pushes drain battery on Android 14"),
                        ("feature", "Quiet hours for marketing pushes"),
                        ("bug", "Deep links from pushes open the home screen"), ("task", "Rotate APNs signing key"),
                        ("chore", "Remove deprecated GCM client"), ("feature", "Rich push with product images"),
                        ("bug", "Badge count not cleared after reading")]},
            {"name": "Tablet Layout", "key": "TAB", "desc": "Two-pane layouts for iPad and Android tablets.",
             "labels": ["bug", "design", "ios", "android"],
             "milestones": [("Tablet beta", "Tablet layouts behind a flag for beta testers."),
                            ("Tablet launch", "Tablet layouts for everyone.")],
             "titles": [("feature", "Two-pane order list on iPad"),
                        ("bug", "Keyboard covers address fields in split view"),
                        ("feature", "Landscape layout for product gallery"),
                        ("task", "Design review of tablet navigation"),
                        ("bug", "Images blurry on 12.9-inch iPad Pro"),
                        ("chore", "Replace fixed widths with size classes")]},
            {"name": "Wear App", "key": "WER", "desc": "Order tracking on Apple Watch and Wear OS.",
             "labels": ["bug", "ios", "android", "design"],
             "milestones": [("Watch beta", "TestFlight and internal track builds.")],
             "titles": [("feature", "Order status complication for Apple Watch"),
                        ("bug", "Wear OS tile shows stale delivery time"),
                        ("feature", "Delivery alerts on the watch"),
                        ("task", "Measure battery impact on Wear OS"),
                        ("chore", "Upgrade WatchKit extension to SwiftUI")]},
        ],
    },
    {
        "name": "Platform", "key": "PLT", "desc": "Infrastructure, CI/CD, observability and reliability.",
        "lead": "Platform Lead",
        "jobs": ["Site Reliability Engineer", "DevOps Engineer", "Backend Engineer", "Platform Engineer"],
        "components": ["ingress controller", "deploy pipeline", "log shipper", "metrics agent", "backup job",
                       "DNS config", "build cache", "secrets store"],
        "projects": [
            {"name": "Kubernetes Migration", "key": "KUB", "desc": "Move all services from Nomad to EKS.",
             "labels": ["infra", "security", "migration"],
             "milestones": [("Staging cutover", "All services running on EKS staging."),
                            ("Production cutover", "All production traffic served from EKS.")],
             "titles": [("task", "Migrate secrets to AWS Secrets Manager"), ("task", "Write staging cutover runbook"),
                        ("feature", "GitOps deploys with Argo CD"),
                        ("bug", "Pods evicted under memory pressure on node pool B"),
                        ("task", "Set up cluster autoscaler"),
                        ("chore", "Decommission Nomad clients in eu-west-1"),
                        ("bug", "Ingress returns 502 during rolling deploys"),
                        ("task", "Configure network policies for payments namespace")]},
            {"name": "Observability Stack", "key": "OBS",
             "desc": "OpenTelemetry tracing, SLO dashboards and alert hygiene.",
             "labels": ["tracing", "alerting", "dashboards"],
             "milestones": [("Tracing GA", "End-to-end tracing for customer-facing services."),
                            ("SLO dashboards", "An SLO dashboard for every tier-1 service.")],
             "titles": [("feature", "Instrument checkout service with OpenTelemetry"),
                        ("task", "Define SLOs for public API"),
                        ("bug", "Duplicate alerts for disk usage on db hosts"),
                        ("chore", "Delete unused Grafana dashboards"), ("feature", "Trace sampling rules per service"),
                        ("bug", "Log shipping drops lines over 16 KB")]},
            {"name": "CI Pipeline Speedup", "key": "CIP", "desc": "Cut median CI time from 25 to 10 minutes.",
             "labels": ["ci", "flaky-test", "infra"],
             "milestones": [("10-minute builds", "Median CI run under 10 minutes.")],
             "titles": [("task", "Cache Docker layers between CI runs"),
                        ("bug", "Flaky integration test in orders service"),
                        ("feature", "Parallel test sharding for monorepo"), ("chore", "Remove unused CI jobs"),
                        ("bug", "Build agents run out of disk during nightly jobs"),
                        ("task", "Track CI duration in a dashboard")]},
            {"name": "Database Upgrades", "key": "DBU", "desc": "PostgreSQL 16 upgrade and connection pooling.",
             "labels": ["database", "infra", "migration"],
             "milestones": [("Postgres 16 in staging", "Staging clusters on PostgreSQL 16."),
                            ("Postgres 16 in production", "Production clusters on PostgreSQL 16.")],
             "titles": [("task", "Upgrade staging cluster to PostgreSQL 16"),
                        ("feature", "PgBouncer connection pooling for API"),
                        ("bug", "Replication lag spikes during nightly vacuum"),
                        ("task", "Rehearse production failover"),
                        ("chore", "Drop unused indexes on orders table")]},
        ],
    },
    {
        "name": "Data & Insights", "key": "DATA", "desc": "Warehouse, dbt models and customer-facing dashboards.",
        "lead": "Data Lead",
        "jobs": ["Data Engineer", "Analytics Engineer", "Data Scientist", "Frontend Engineer"],
        "components": ["orders model", "revenue dashboard", "customer dimension", "export job",
                       "ingestion pipeline", "metrics layer"],
        "projects": [
            {"name": "Customer Dashboards", "key": "DSH",
             "desc": "Self-serve analytics dashboards for customers.", "labels": ["bug", "dbt", "ux"],
             "milestones": [("v1 dashboards", "First dashboards available to all customers.")],
             "titles": [("feature", "Revenue dashboard by region"), ("feature", "Churn cohort chart"),
                        ("bug", "Dashboard totals differ from finance report"),
                        ("task", "Document metric definitions"), ("chore", "Retire legacy Looker explores"),
                        ("bug", "CSV export truncates long customer names")]},
            {"name": "Warehouse Migration", "key": "WHM", "desc": "Move the warehouse from Redshift to Snowflake.",
             "labels": ["migration", "dbt", "infra"],
             "milestones": [("Dual running", "Both warehouses loaded nightly."),
                            ("Redshift shutdown", "Redshift cluster deleted.")],
             "titles": [("task", "Port nightly ELT jobs to Snowflake"),
                        ("bug", "Timestamp columns lose time zone after load"),
                        ("task", "Reconcile row counts between warehouses"),
                        ("chore", "Delete unused Redshift schemas"),
                        ("feature", "Cost monitoring for Snowflake warehouses")]},
            {"name": "Churn Model", "key": "CHN", "desc": "Predict churn risk for subscription customers.",
             "labels": ["ml", "data-quality"],
             "milestones": [("Model v1", "Churn scores in the CRM every week.")],
             "titles": [("task", "Build training dataset from last 18 months"),
                        ("feature", "Weekly churn risk scores in CRM"),
                        ("bug", "Feature pipeline double-counts refunds"),
                        ("task", "Evaluate model against holdout cohort"),
                        ("chore", "Remove notebook prototypes from repo")]},
            {"name": "Data Quality", "key": "DQM", "desc": "Automated tests and alerts for warehouse tables.",
             "labels": ["data-quality", "dbt", "alerting"],
             "milestones": [("Core tables covered", "Tests on every core table.")],
             "titles": [("feature", "Freshness alerts for core tables"),
                        ("bug", "Null customer IDs in orders fact table"),
                        ("task", "Add uniqueness tests to dbt models"), ("chore", "Clean up failing legacy tests")]},
        ],
    },
    {
        "name": "Growth", "key": "GRO", "desc": "Acquisition, onboarding and lifecycle experiments.",
        "lead": "Growth Lead",
        "jobs": ["Growth Engineer", "Product Manager", "Frontend Engineer", "Data Analyst", "Product Designer"],
        "components": ["signup form", "invite flow", "pricing page", "welcome email", "trial banner",
                       "referral page"],
        "projects": [
            {"name": "Onboarding Experiments", "key": "ONB", "desc": "Experiments to get new workspaces active.",
             "labels": ["experiment", "frontend", "analytics"],
             "milestones": [("Activation +10%", "Week-one activation up ten percent.")],
             "titles": [("feature", "Checklist widget for new workspaces"), ("task", "A/B test shorter signup form"),
                        ("bug", "Welcome email links to expired invite"),
                        ("feature", "Sample project for new accounts"),
                        ("chore", "Remove finished signup experiments")]},
            {"name": "Referral Program", "key": "REF", "desc": "Give-a-month, get-a-month referrals.",
             "labels": ["bug", "backend", "frontend", "fraud"],
             "milestones": [("Referral launch", "Referrals open to every paying customer.")],
             "titles": [("feature", "Referral link on account page"), ("bug", "Referral credit applied twice"),
                        ("task", "Fraud checks for self-referrals"), ("feature", "Referral leaderboard email"),
                        ("chore", "Migrate referral codes to new table")]},
            {"name": "Lifecycle Emails", "key": "LCE", "desc": "Triggered emails across the customer lifecycle.",
             "labels": ["email", "experiment", "bug"],
             "milestones": [("Win-back series", "Three-step win-back series live.")],
             "titles": [("feature", "Win-back email after 30 days inactive"),
                        ("bug", "Unsubscribe link broken in digest email"),
                        ("task", "Audit email templates for dark mode"),
                        ("chore", "Remove old Mailchimp integration")]},
        ],
    },
    {
        "name": "Web", "key": "WEB", "desc": "Marketing site, design system and the web app shell.",
        "lead": "Web Lead", "jobs": ["Frontend Engineer", "Product Designer", "Full-stack Engineer", "QA Engineer"],
        "components": ["navigation bar", "footer", "blog index", "pricing table", "search box", "cookie banner"],
        "projects": [
            {"name": "Design System", "key": "DSY", "desc": "Shared components and design tokens.",
             "labels": ["components", "accessibility", "docs"],
             "milestones": [("v2 tokens", "Every product uses the v2 design tokens.")],
             "titles": [("feature", "Date picker component"), ("bug", "Focus ring missing on icon buttons"),
                        ("task", "Document spacing tokens"), ("chore", "Remove deprecated Button variants"),
                        ("feature", "Dark mode color tokens")]},
            {"name": "Marketing Site", "key": "MKT", "desc": "The public website and blog.",
             "labels": ["seo", "content", "bug"],
             "milestones": [("Site relaunch", "New site live on the main domain.")],
             "titles": [("feature", "Customer stories page"), ("bug", "Hero image not lazy-loaded on mobile"),
                        ("task", "Set up redirects for old blog URLs"), ("chore", "Upgrade Next.js to 14"),
                        ("bug", "Pricing table wraps badly on small screens")]},
            {"name": "Help Center", "key": "HLP", "desc": "Self-service help articles and in-app search.",
             "labels": ["search", "content", "bug"],
             "milestones": [("Search relaunch", "New help search for all customers.")],
             "titles": [("feature", "Article feedback buttons"), ("bug", "Help search returns archived articles"),
                        ("task", "Migrate articles from Zendesk"), ("chore", "Remove duplicate FAQ pages")]},
        ],
    },
    {
        "name": "Security", "key": "SEC", "desc": "Identity, access and compliance.", "lead": "Security Lead",
        "jobs": ["Security Engineer", "Backend Engineer", "Compliance Analyst"],
        "components": ["login page", "token service", "audit log", "password reset", "2FA setup",
                       "admin console"],
        "projects": [
            {"name": "SSO Rollout", "key": "SSO", "desc": "SAML and SCIM for enterprise customers.",
             "labels": ["auth", "enterprise", "bug"],
             "milestones": [("SAML GA", "SAML login for every enterprise workspace.")],
             "titles": [("feature", "SAML login for enterprise workspaces"), ("feature", "SCIM user provisioning"),
                        ("bug", "Session not revoked after SSO logout"), ("task", "Okta integration test plan"),
                        ("chore", "Remove legacy OAuth1 endpoints")]},
            {"name": "Audit Logging", "key": "AUD", "desc": "Tamper-evident audit events for admins.",
             "labels": ["compliance", "backend"],
             "milestones": [("SOC 2 evidence", "Audit evidence ready for the SOC 2 auditors.")],
             "titles": [("feature", "Audit log export to S3"), ("bug", "Audit events missing actor IP"),
                        ("task", "Retention policy for audit events"), ("chore", "Consolidate audit event schemas")]},
            {"name": "Access Reviews", "key": "ACR", "desc": "Quarterly access reviews and least privilege.",
             "labels": ["compliance", "auth"],
             "milestones": [("Q2 review", "Second-quarter access review signed off.")],
             "titles": [("task", "Quarterly access review for production"),
                        ("feature", "Auto-expire temporary admin access"),
                        ("bug", "Offboarded users keep GitHub access"),
                        ("chore", "Remove shared AWS root credentials")]},
        ],
    },
    {
        "name": "Support Tools", "key": "SUP", "desc": "Tools for the customer support team.",
        "lead": "Support Tools Lead",
        "jobs": ["Full-stack Engineer", "Backend Engineer", "Support Operations Analyst"],
        "components": ["ticket view", "macro editor", "customer search", "chat widget", "SLA timer"],
        "projects": [
            {"name": "Agent Console", "key": "AGC", "desc": "One screen for everything an agent needs.",
             "labels": ["bug", "frontend", "integrations"],
             "milestones": [("Console v2", "Every agent on the new console.")],
             "titles": [("feature", "Customer timeline in agent console"),
                        ("bug", "Macros insert wrong customer name"), ("task", "Review Zendesk sidebar app"),
                        ("feature", "Refund button for support agents"),
                        ("chore", "Remove old ticket export script")]},
            {"name": "Support Chatbot", "key": "BOT", "desc": "Automated answers for common support questions.",
             "labels": ["ml", "content", "bug"],
             "milestones": [("Bot handles 20% of chats", "A fifth of chats solved without an agent.")],
             "titles": [("feature", "Order status answers in chatbot"), ("bug", "Chatbot loops on address questions"),
                        ("task", "Label 500 historical chats"), ("chore", "Remove retired intents")]},
        ],
    },
]

PATTERNS = {
    "bug": ["{C} shows a blank state after refresh", "{C} times out under load", "{C} ignores the user's time zone",
            "{C} breaks on narrow screens", "{C} returns 500 on empty input", "{C} loses unsaved changes",
            "{C} logs personal data in plain text", "{C} double-submits on retry"],
    "feature": ["Bulk actions in the {c}", "Keyboard shortcuts for the {c}", "Audit trail for the {c}",
                "CSV export from the {c}", "Feature flag for the new {c}"],
    "task": ["Load test the {c}", "Document the {c} API", "Write a runbook for the {c}",
             "Add monitoring to the {c}", "Review access to the {c}"],
    "chore": ["Remove dead code in the {c}", "Upgrade dependencies of the {c}", "Clean up feature flags in the {c}",
              "Rename legacy tables used by the {c}"],
}

DESCRIPTIONS = {
    "bug": ["Seen in production by several customers; steps to reproduce are in the first comment.",
            "Reproducible on staging. Expected the normal behaviour, got the one in the title.",
            "Reported through support. Happens roughly one time in five.",
            "Started after the last release; probably a regression."],
    "feature": ["Agreed in the last planning session; designs are linked in the wiki.",
                "Requested by several enterprise customers.", "Part of this quarter's roadmap.",
                "Scope: backend, UI and docs. Behind a feature flag first."],
    "task": ["Needed before the next milestone.", "Time-boxed to two days.",
             "Write down the findings in the wiki when done.", "Pair with someone from the neighbouring team."],
    "chore": ["Small clean-up, no behaviour change.", "Keeps the build warnings down.",
              "Leftover from the previous migration.", "Low risk; can be picked up between bigger tickets."],
}

COMMENTS = ["Reproduced on staging.", "PR #{n} is up for review.", "Blocked on design sign-off for now.",
            "Can we get this into the next sprint?", "Root cause found, fix in progress.",
            "Another customer reported this today.", "Tested on staging, looks good.",
            "Added the notes from the planning call to the description.",
            "Pairing with {name} on this tomorrow.", "Estimate looks right to me.",
            "Let's keep the scope small and follow up separately.", "Metrics dashboard linked in the description."]

NOTES = ["Implementation", "Code review fixes", "Investigation", "Testing on staging", "Pairing session",
         "Documentation", "Setup and configuration", "Bug fixing", "Design review", "Deployment",
         "Writing tests", "Planning and estimation"]

COLORS = ["#d73a4a", "#1d76db", "#0e8a16", "#fbca04", "#5319e7", "#bfd4f2", "#c2e0c6", "#0052cc", "#f9d0c4",
          "#000000", "#3ddc84", "#b60205", "#e99695", "#ff694b", "#c5def5", "#cccccc", "#006b75", "#fef2c0"]

PROJECT_VARIANTS = [" Phase 2", " (EMEA)", " (North America)", " v2", " Pilot", " (APAC)", " Phase 3", " Next"]

TWIN_SUFFIXES = [" on Android", " on staging", " (follow-up)", " for EU customers", " in the admin app"]

SCALE = (1, 2, 3, 5, 8)
ACTIVE = ("open", "in_progress", "in_review")
RESOLVED = ("done", "cancelled")


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def _local(first: str, last: str) -> str:
    return re.sub(r"[^a-z]", "", _ascii(first)) + "." + re.sub(r"[^a-z]", "", _ascii(last))


def _public(rows: list[Row]) -> list[Row]:
    """The rows without the builder's private ``_`` fields."""
    return [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.clock = ctx.clock.replace(microsecond=0)
        self.today = ctx.today
        # rows numbered as they come (some with private "_" fields the rows() strip)
        self.T = Tables(["organizations", "users", "teams", "team_members", "projects", "milestones", "sprints",
                         "labels", "issue_labels", "watchers", "issue_dependencies"])
        self.users = self.T["users"]
        self.orgs = self.T["organizations"]
        self.teams = self.T["teams"]
        self.projects = self.T["projects"]
        self.milestones = self.T["milestones"]
        self.sprints = self.T["sprints"]
        self.labels = self.T["labels"]
        self.issues: list[Row] = []  # skeletons; ids assigned at the end
        self.deps: list[tuple[Row, Row, Row, datetime]] = []
        self.names: set[str] = set()  # membership only, never iterated
        self.emails: set[str] = set()
        self.project_keys: set[str] = set()
        self.team_keys: set[str] = set()
        self.project_names: set[str] = set()
        self.active_count: dict[int, int] = {}
        self.name_count: dict[str, int] = {}

    # -- time helpers ---------------------------------------------------------------------------
    def between(self, lo: datetime, hi: datetime) -> datetime:
        """A moment between lo and hi on the minute (hi capped just before the clock)."""
        hi = min(hi, self.clock - timedelta(minutes=1))
        if hi <= lo:
            return lo.replace(second=0, microsecond=0)
        minutes = int((hi - lo).total_seconds() // 60)
        return (lo + timedelta(minutes=self.rng.randint(0, minutes))).replace(second=0, microsecond=0)

    def office(self, day: date, lo: int = 8, hi: int = 18) -> datetime:
        dt = datetime.combine(day, time(self.rng.randint(lo, hi - 1), self.rng.choice(range(0, 60, 5))))
        if dt >= self.clock:
            dt = self.clock - timedelta(minutes=self.rng.randint(5, 90))
        return dt

    @staticmethod
    def weekday(day: date) -> date:
        while day.weekday() >= 5:
            day -= timedelta(days=1)
        return day

    # -- people ---------------------------------------------------------------------------------
    def person(self, org: Row, job: str, role: str = "member", rate: int | None = None, created: date | None = None,
               first: str | None = None, last: str | None = None, active: int = 1, local: str | None = None) -> Row:
        f = self.ctx.faker
        for _ in range(200):
            fn = first or f.first_name()
            ln = last or f.last_name()
            full = f"{fn} {ln}"
            if first and last:
                break
            if full not in self.names:
                break
        self.names.add(full)
        self.name_count[full] = self.name_count.get(full, 0) + 1
        base = local or _local(fn, ln)
        email = f"{base}@{org['domain']}"
        n = 2
        while email in self.emails:
            email = f"{base}{n}@{org['domain']}"
            n += 1
        self.emails.add(email)
        if rate is None:
            rate = 400 * self.rng.randint(16, 26)
        if created is None:
            created = max(org["created"].date(), self.today - timedelta(days=self.rng.randint(60, 1500)))
        u = self.T.add("users", {"org_id": org["id"], "full_name": full, "email": email, "org_role": role,
                                 "job_title": job, "timezone": self.rng.choice(org["tz"]), "hourly_rate_cents": rate,
                                 "max_active_issues": self.ctx.weighted({6: 6, 5: 2, 8: 2, 7: 1}), "is_active": active,
                                 "created_at": _ts(datetime.combine(created, time(9, 0))),
                                 "_org": org, "_teams": [], "_first": fn, "_last": ln})
        self.active_count[u["id"]] = 0
        return u

    def join(self, team: Row, user: Row, role: str = "member") -> None:
        joined = max(datetime.fromisoformat(user["created_at"]), team["_created"])
        self.T.add("team_members", {"team_id": team["id"], "user_id": user["id"], "team_role": role,
                                    "joined_at": _ts(joined)})
        user["_teams"].append(team)
        team["_members"].append((user, role))

    def unique_key(self, base: str, taken: set[str], limit: int = 6) -> str:
        if base not in taken:
            taken.add(base)
            return base
        for n in range(2, 100):
            k = f"{base[: limit - len(str(n))]}{n}"
            if k not in taken:
                taken.add(k)
                return k
        raise ValueError(base)

    # -- organisations, teams, projects -------------------------------------------------------------
    def build_orgs(self) -> None:
        ctx, rng = self.ctx, self.rng
        n_orgs = ctx.n(2, 5)
        chosen = ctx.sample(ORGS, n_orgs)
        type_usage: dict[str, int] = {}
        project_usage: dict[str, int] = {}
        for oi, (name, slug, domain, country, plan, tz) in enumerate(chosen):
            created = datetime.combine(self.today - timedelta(days=rng.randint(700, 1800)), time(9, 0))
            org = self.T.add("organizations", {
                "name": name, "slug": slug, "plan": plan,
                "billing_email": f"{rng.choice(['billing', 'finance', 'accounts'])}@{domain}", "country": country,
                "created_at": _ts(created), "domain": domain, "tz": tz, "created": created})
            small_teams = 3 if oi == 0 else (2 if ctx.chance(0.2) else 1)
            n_teams = rng.randint(5, 7) if ctx.large else small_teams
            # team types: least used first, so a large world spreads over every type
            types = sorted(TEAM_TYPES, key=lambda t: (type_usage.get(t["key"], 0), rng.random()))[:n_teams]
            if ctx.distractors and oi > 0:  # a team named like one of another organisation
                used = [t for t in TEAM_TYPES if type_usage.get(t["key"]) and t not in types]
                if used:
                    types[0] = rng.choice(used)
            admin = self.person(org, rng.choice(["Engineering Manager", "VP Engineering", "CTO"]), "admin",
                                rate=400 * rng.randint(26, 30))
            viewer = self.person(org, rng.choice(["Customer Success Manager", "Support Lead", "Account Manager"]),
                                 "viewer", rate=400 * rng.randint(14, 17))
            org["_admin"], org["_viewer"], org["_teams"] = admin, viewer, []
            for ti, tt in enumerate(types):
                type_usage[tt["key"]] = type_usage.get(tt["key"], 0) + 1
                tcreated = created + timedelta(days=rng.randint(0, 300), hours=rng.randint(0, 5))
                team = self.T.add("teams", {
                    "org_id": org["id"], "name": tt["name"], "key": self.unique_key(tt["key"], self.team_keys, 8),
                    "description": tt["desc"], "created_at": _ts(tcreated), "_created": tcreated, "_type": tt,
                    "_org": org, "_members": [], "_projects": []})
                org["_teams"].append(team)
                lead = self.person(org, tt["lead"], rate=400 * rng.randint(25, 28))
                self.join(team, lead, "lead")
                team["_lead"] = lead
                for _ in range(rng.randint(3, 4) if not ctx.large else rng.randint(3, 5)):
                    self.join(team, self.person(org, rng.choice(tt["jobs"])))
                if ti == 0 or ctx.chance(0.35):
                    self.join(team, admin)
                if ctx.chance(0.3 if ctx.large else 0.15):
                    gone = self.person(org, rng.choice(tt["jobs"]), active=0)
                    self.join(team, gone)
                # projects: the first one is always active
                n_proj = 1 + (1 if ctx.chance(0.6 if ctx.large else 0.45) else 0)
                options = sorted(tt["projects"], key=lambda p: (project_usage.get(p["key"], 0), rng.random()))
                for pi, pt in enumerate(options[:n_proj]):
                    project_usage[pt["key"]] = project_usage.get(pt["key"], 0) + 1
                    status = "active" if pi == 0 else ctx.weighted({"active": 5, "on_hold": 2, "archived": 2})
                    self.add_project(team, pt, status)
            # people who work across teams (a PM, a QA engineer)
            if len(org["_teams"]) >= 2:
                for _ in range(ctx.n(1, 3)):
                    a, b = ctx.sample(org["_teams"], 2)
                    cand = [u for u, r in a["_members"] if r == "member" and u["is_active"] and u is not admin
                            and b not in u["_teams"]]
                    if cand:
                        self.join(b, rng.choice(cand))
        if ctx.distractors:
            self.add_people_twins()

    def add_people_twins(self) -> None:
        """Near-duplicate people: same surname with a similar first name, or the same full name with
        another e-mail, on another team."""
        ctx, rng = self.ctx, self.rng
        pool = [u for u in self.users if u["is_active"] and u["org_role"] == "member"]
        for u in ctx.sample(pool, ctx.n(4, 16)):
            org = u["_org"]
            other_teams = [t for t in org["_teams"] if t not in u["_teams"]] or org["_teams"]
            team = rng.choice(other_teams)
            kind = rng.random()
            is_lead = any(u is t["_lead"] for t in u["_teams"])
            if kind < 0.35 and not is_lead:  # exact same full name, another e-mail, maybe another organisation
                target_org = rng.choice(self.orgs)
                team = rng.choice(target_org["_teams"])
                middle = rng.choice("ABCDEJKLMRST").lower()
                twin = self.person(target_org, rng.choice(team["_type"]["jobs"]), first=u["_first"], last=u["_last"],
                                   local=f"{re.sub(r'[^a-z]', '', _ascii(u['_first']))}.{middle}."
                                         f"{re.sub(r'[^a-z]', '', _ascii(u['_last']))}")
            else:  # same surname, a first name with the same initial
                first = u["_first"]
                for _ in range(60):
                    cand = self.ctx.faker.first_name()
                    if cand != first and cand[0] == first[0] and f"{cand} {u['_last']}" not in self.names:
                        first = cand
                        break
                if first == u["_first"]:
                    first = first + "a" if not first.endswith("a") else first[:-1]
                twin = self.person(org, rng.choice(team["_type"]["jobs"]), first=first, last=u["_last"])
            self.join(team, twin)

    def add_project(self, team: Row, pt: dict[str, Any], status: str) -> None:
        rng = self.rng
        if status == "archived":
            start = self.today - timedelta(days=rng.randint(200, 400))
            target: date | None = start + timedelta(days=rng.randint(60, 120))
        elif status == "on_hold":
            start = self.today - timedelta(days=rng.randint(90, 200))
            target = self.today + timedelta(days=rng.randint(60, 150))
        else:
            start = self.today - timedelta(days=rng.randint(45, 160))
            target = self.today + timedelta(days=rng.randint(20, 120)) if self.ctx.chance(0.8) else None
        start = self.weekday(start)
        created = datetime.combine(start - timedelta(days=rng.randint(2, 6)), time(rng.randint(9, 16), 0))
        members = [u for u, _ in team["_members"] if u["is_active"] and u["org_role"] != "viewer"]
        lead = team["_lead"] if self.ctx.chance(0.6) else rng.choice(members)
        name = pt["name"]
        for variant in PROJECT_VARIANTS:  # a project name names one project in the world
            if name not in self.project_names:
                break
            name = pt["name"] + variant
        self.project_names.add(name)
        p = self.T.add("projects", {
            "team_id": team["id"], "key": self.unique_key(pt["key"], self.project_keys),
            "name": name, "description": pt["desc"], "status": status, "lead_id": lead["id"],
            "next_issue_number": 1, "budget_cents": 100000 * rng.randint(20, 250),
            "start_date": start.isoformat(), "target_date": target.isoformat() if target else None,
            "created_at": _ts(created), "_team": team, "_type": pt, "_created": created, "_start": start,
            "_issues": [], "_milestones": [], "_labels": {}})
        team["_projects"].append(p)
        # milestones
        ms = pt["milestones"][: rng.randint(1, len(pt["milestones"]))] if not self.ctx.large else pt["milestones"]
        for mi, (mname, mdesc) in enumerate(ms):
            if status == "archived":
                due, mstatus = start + timedelta(days=40 * (mi + 1)), "closed"
            elif mi == 0 and len(ms) > 1 and self.ctx.chance(0.4):
                due, mstatus = self.today - timedelta(days=rng.randint(5, 30)), "closed"
            else:
                due, mstatus = self.today + timedelta(days=rng.randint(7, 40) + 30 * mi), "open"
            m = self.T.add("milestones", {"project_id": p["id"], "name": mname, "description": mdesc,
                                          "due_date": due.isoformat(), "status": mstatus, "_due": due})
            p["_milestones"].append(m)
        # labels
        for name in pt["labels"]:
            lab = self.T.add("labels", {"project_id": p["id"], "name": name,
                                        "color": COLORS[sum(map(ord, name)) % len(COLORS)]})
            p["_labels"][name] = lab

    # -- sprints ----------------------------------------------------------------------------------
    def build_sprints(self) -> None:
        rng = self.rng
        monday = self.today - timedelta(days=self.today.weekday())
        for team in self.teams:
            active_start = monday - timedelta(days=7 * self.ctx.weighted({0: 1, 1: 3, 2: 2}))
            n_closed = rng.randint(1, 2) if not self.ctx.large else rng.randint(2, 4)
            n_planned = 1 if not self.ctx.large else rng.randint(1, 2)
            first_no = rng.randint(1, 20)
            style = rng.random()
            short = team["name"].split()[0]
            team["_sprints"] = []
            for k in range(-n_closed, n_planned + 1):
                start = active_start + timedelta(days=14 * k)
                end = start + timedelta(days=11)
                no = first_no + n_closed + k
                name = f"{short} Sprint {no}" if style < 0.6 else f"{short} S{no}"
                status = "closed" if k < 0 else ("active" if k == 0 else "planned")
                s = self.T.add("sprints", {
                    "team_id": team["id"], "name": name, "goal": "", "start_date": start.isoformat(),
                    "end_date": end.isoformat(), "status": status, "capacity_points": 0, "completed_points": None,
                    "closed_at": None, "_start": start, "_end": end, "_team": team, "_issues": []})
                if status == "closed":
                    s["closed_at"] = _ts(datetime.combine(end, time(rng.randint(15, 17), rng.choice(range(0, 60, 5)))))
                team["_sprints"].append(s)
            comps = team["_type"]["components"]
            for s in team["_sprints"]:
                if s["status"] != "planned" or self.ctx.chance(0.5):
                    c1, c2 = self.ctx.sample(comps, 2)
                    s["goal"] = f"{c1[0].upper()}{c1[1:]} and {c2}"

    # -- issues -----------------------------------------------------------------------------------
    def titles_for(self, p: Row, n: int) -> list[tuple[str, str]]:
        rng = self.rng
        specific = list(p["_type"]["titles"])
        rng.shuffle(specific)
        out: list[tuple[str, str]] = []
        seen: list[str] = []
        for typ, title in specific:
            if len(out) >= n:
                break
            out.append((typ, title))
            seen.append(title.lower())
        comps = p["_team"]["_type"]["components"]
        tries = 0
        while len(out) < n and tries < 500:
            tries += 1
            typ = self.ctx.weighted({"bug": 4, "feature": 3, "task": 2, "chore": 1})
            c = rng.choice(comps)
            t = rng.choice(PATTERNS[typ]).format(c=c, C=c[0].upper() + c[1:])
            if t.lower() not in seen:
                seen.append(t.lower())
                out.append((typ, t))
        return out

    def pick_assignee(self, team: Row, exclude: list[Row], *, needs_room: bool = True) -> Row | None:
        cand = [u for u, _ in team["_members"] if u["is_active"] and u["org_role"] != "viewer"
                and not any(u is e for e in exclude)
                and (not needs_room or self.active_count[u["id"]] + 2 < u["max_active_issues"])]
        return self.rng.choice(cand) if cand else None

    def assign(self, issue: Row, user: Row | None) -> None:
        old = issue.get("_assignee")
        if old is not None and issue["status"] in ACTIVE:
            self.active_count[old["id"]] -= 1
        issue["_assignee"] = user
        if user is not None and issue["status"] in ACTIVE:
            self.active_count[user["id"]] += 1

    def build_issues(self) -> None:
        ctx, rng = self.ctx, self.rng
        for team in self.teams:
            members = [u for u, _ in team["_members"]]
            active_members = [u for u in members if u["is_active"] and u["org_role"] != "viewer"]
            exclusive = [u for u, r in team["_members"] if r == "member" and u["is_active"]
                         and u["org_role"] == "member" and len(u["_teams"]) == 1]
            leaver = rng.choice(exclusive) if exclusive else None
            team["_leaver"] = leaver
            excluded = [leaver] if leaver else []
            for p in team["_projects"]:
                if p["status"] == "archived":
                    n = rng.randint(3, 4) if not ctx.large else rng.randint(5, 8)
                    statuses = [ctx.weighted({"done": 6, "cancelled": 1}) for _ in range(n)]
                elif p["status"] == "on_hold":
                    n = rng.randint(4, 5) if not ctx.large else rng.randint(7, 10)
                    statuses = [ctx.weighted({"done": 4, "cancelled": 1, "open": 5}) for _ in range(n)]
                else:
                    n = rng.randint(5, 7) if not ctx.large else rng.randint(16, 22)
                    statuses = ["in_progress", "open", "open", "open"] + [
                        ctx.weighted({"done": 30, "cancelled": 6, "open": 25, "in_progress": 15, "in_review": 10})
                        for _ in range(n - 4)]
                rank = {"done": 0.0, "cancelled": 0.3, "in_review": 1.0, "in_progress": 1.2, "open": 1.6}
                statuses.sort(key=lambda s: rank[s] + rng.random() * 0.9)
                titles = self.titles_for(p, n)
                lo = p["_created"] + timedelta(hours=2)
                created = sorted(self.between(lo, self.clock - timedelta(hours=6)) for _ in range(n))
                for i in range(n):
                    typ, title = titles[i]
                    issue = self.new_issue(p, typ, title, statuses[i], created[i])
                    p["_issues"].append(issue)
                if p["status"] == "active":
                    self.plant_review_chain(p, team, excluded)
            # assignees for everything else
            for p in team["_projects"]:
                for issue in p["_issues"]:
                    if issue.get("_planted") or "_assignee" in issue:
                        continue
                    st = issue["status"]
                    if st in RESOLVED:
                        who = rng.choice(members) if st == "done" or ctx.chance(0.5) else None
                        if who is not None and who["org_role"] == "viewer":
                            who = None
                        if st == "done" and who is None:
                            who = rng.choice(active_members)
                        self.assign(issue, who)
                    elif st == "open" and ctx.chance(0.45):
                        self.assign(issue, None)
                    else:
                        who = self.pick_assignee(team, excluded)
                        if who is None:
                            if st != "open":
                                issue["status"] = "open"
                            self.assign(issue, None)
                        else:
                            self.assign(issue, who)
            if leaver is not None:
                self.plant_leaver(team, leaver)
            for p in team["_projects"]:
                for issue in p["_issues"]:
                    self.finish_issue(issue)

    def new_issue(self, p: Row, typ: str, title: str, status: str, created: datetime) -> Row:
        ctx, rng = self.ctx, self.rng
        number = p["next_issue_number"]
        p["next_issue_number"] += 1
        issue = {"_project": p, "number": number, "key": f"{p['key']}-{number}", "title": title,
                 "description": rng.choice(DESCRIPTIONS[typ]), "issue_type": typ, "status": status,
                 "priority": ctx.weighted({"urgent": 1, "high": 3, "medium": 4, "low": 2}),
                 "_created": created}
        return issue

    def plant_review_chain(self, p: Row, team: Row, excluded: list[Row]) -> None:
        """An in-progress issue X and a later open issue Y that waits only on X."""
        issues = p["_issues"]
        xs = [i for i, s in enumerate(issues) if s["status"] == "in_progress"]
        ys = [i for i, s in enumerate(issues) if s["status"] == "open"]
        if not xs or not ys:
            return
        x = xs[0]
        later = [y for y in ys if y > x]
        if later:
            y = self.rng.choice(later)
        else:  # swap the statuses so that the in-progress one comes first
            y = ys[-1]
            x, y = y, x
            issues[x]["status"], issues[y]["status"] = "in_progress", "open"
        twins = [u for u, _ in team["_members"] if self.name_count[u["full_name"]] > 1]
        dev = self.pick_assignee(team, excluded + twins) or self.pick_assignee(team, excluded)
        if dev is None:
            return
        X, Y = issues[x], issues[y]
        X["_planted"] = True
        self.assign(X, dev)
        X["_active_sprint"] = True
        Y["_protected"] = True
        self.deps.append((X, Y, dev, None))  # type: ignore[arg-type]

    def plant_leaver(self, team: Row, leaver: Row) -> None:
        """The leaver holds exactly two open / in-progress issues of this team (and maybe one in review)."""
        pool = [i for p in team["_projects"] if p["status"] == "active" for i in p["_issues"]
                if i["status"] in ("open", "in_progress") and not i.get("_planted")]
        if len(pool) < 2 or self.active_count[leaver["id"]] + 3 > leaver["max_active_issues"]:
            return
        for issue in self.ctx.sample(pool, 2):
            self.assign(issue, leaver)
        review = [i for p in team["_projects"] if p["status"] == "active" for i in p["_issues"]
                  if i["status"] == "in_review" and not i.get("_planted")]
        if review and self.ctx.chance(0.5):
            self.assign(self.rng.choice(review), leaver)

    def finish_issue(self, issue: Row) -> None:
        """Reporter, dates, points, milestone and due date, consistent with the status."""
        ctx, rng = self.ctx, self.rng
        p = issue["_project"]
        team = p["_team"]
        org = team["_org"]
        st = issue["status"]
        created = issue["_created"]
        members = [u for u, _ in team["_members"] if u["org_role"] != "viewer"]
        if issue["issue_type"] == "bug" and ctx.chance(0.3):
            issue["_reporter"] = org["_viewer"]
        else:
            issue["_reporter"] = rng.choice(members)
        if "_assignee" not in issue:
            issue["_assignee"] = None
        if st in RESOLVED:
            issue["_resolved"] = self.between(created + timedelta(hours=3), self.clock - timedelta(hours=2))
            issue["_updated"] = issue["_resolved"]
        elif st in ("in_progress", "in_review"):
            issue["_started"] = self.between(created + timedelta(minutes=30), self.clock - timedelta(hours=1))
            issue["_updated"] = issue["_started"]
            if st == "in_review":
                issue["_reviewed"] = self.between(issue["_started"] + timedelta(minutes=20),
                                                  self.clock - timedelta(minutes=30))
                issue["_updated"] = issue["_reviewed"]
        else:
            issue["_updated"] = created
        issue["story_points"] = ctx.weighted({1: 2, 2: 3, 3: 4, 5: 3, 8: 1}) if ctx.chance(0.85) else None
        if st in RESOLVED or p["status"] == "archived":
            ms = p["_milestones"]
        else:
            ms = [m for m in p["_milestones"] if m["status"] == "open"]
        issue["_milestone"] = rng.choice(ms) if ms and ctx.chance(0.6) else None
        issue["due_date"] = None
        if st not in RESOLVED and ctx.chance(0.3):
            issue["due_date"] = (self.today + timedelta(days=rng.randint(-4, 35))).isoformat()

    # -- sprint membership -------------------------------------------------------------------------
    def place_in_sprints(self) -> None:
        ctx, rng = self.ctx, self.rng
        for team in self.teams:
            sprints = team["_sprints"]
            active = next(s for s in sprints if s["status"] == "active")
            planned = [s for s in sprints if s["status"] == "planned"]
            for p in team["_projects"]:
                for issue in p["_issues"]:
                    st = issue["status"]
                    sprint = None
                    if p["status"] == "active" or (p["status"] == "on_hold" and st in RESOLVED):
                        if st == "done":
                            when = issue["_resolved"].date()
                            hit = [s for s in sprints if s["status"] != "planned" and s["_start"] <= when <= s["_end"]
                                   and issue["_created"].date() <= s["_end"]]
                            if hit and ctx.chance(0.85):
                                sprint = hit[0]
                            elif active["_start"] <= when and ctx.chance(0.9):
                                sprint = active
                        elif st == "cancelled":
                            when = issue["_resolved"].date()
                            hit = [s for s in sprints if s["status"] != "planned" and s["_start"] <= when <= s["_end"]]
                            if hit and ctx.chance(0.3):
                                sprint = hit[0]
                        elif st in ("in_progress", "in_review"):
                            if issue.get("_active_sprint") or ctx.chance(0.85):
                                sprint = active
                        elif p["status"] == "active":
                            r = rng.random()
                            if r < 0.3:
                                sprint = active
                            elif r < 0.6 and planned:
                                sprint = planned[0]
                            elif r < 0.7 and len(planned) > 1:
                                sprint = planned[1]
                    if sprint is not None and issue["story_points"] is None:
                        issue["story_points"] = rng.choice(SCALE)
                    issue["_sprint"] = sprint
                    if sprint is not None:
                        sprint["_issues"].append(issue)
            self.ensure_unfinished(team, active)
        self.ensure_clear_leader()
        for s in self.sprints:
            committed = sum(i["story_points"] or 0 for i in s["_issues"] if i["status"] != "cancelled")
            done = sum(i["story_points"] or 0 for i in s["_issues"] if i["status"] == "done")
            if s["status"] == "closed":
                s["capacity_points"] = max(10, committed + rng.choice([0, 2, 3, 5, 8]))
                s["completed_points"] = done
            elif s["status"] == "active":
                s["capacity_points"] = max(12, committed + rng.choice([3, 5, 6, 8, 10]))
            else:
                s["capacity_points"] = max(15, committed + rng.choice([2, 5, 8, 12]))

    def ensure_unfinished(self, team: Row, active: Row) -> None:
        if any(i["status"] in ACTIVE for i in active["_issues"]):
            return
        for p in team["_projects"]:
            if p["status"] != "active":
                continue
            for issue in p["_issues"]:
                if issue["status"] in ACTIVE and issue["_sprint"] is None:
                    if issue["story_points"] is None:
                        issue["story_points"] = 3
                    issue["_sprint"] = active
                    active["_issues"].append(issue)
                    return

    def ensure_clear_leader(self) -> None:
        """At least one team's active sprint has a single person holding the most unfinished points."""
        fixable = None
        for team in self.teams:
            active = next(s for s in team["_sprints"] if s["status"] == "active")
            load: dict[int, int] = {}
            for i in active["_issues"]:
                if i["status"] in ACTIVE and i["_assignee"] is not None:
                    load[i["_assignee"]["id"]] = load.get(i["_assignee"]["id"], 0) + (i["story_points"] or 0)
            if not load:
                continue
            ranked = sorted(load.values(), reverse=True)
            if ranked[0] > 0 and (len(ranked) == 1 or ranked[0] > ranked[1]):
                return
            if fixable is None:
                fixable = (active, max(load, key=lambda k: (load[k], -k)))
        if fixable is None:
            return
        active, uid = fixable
        mine = [i for i in active["_issues"] if i["status"] in ACTIVE and i["_assignee"] is not None
                and i["_assignee"]["id"] == uid]
        mine.sort(key=lambda i: i["story_points"] or 0)
        issue = mine[0]
        issue["story_points"] = {None: 1, 0: 1, 1: 2, 2: 3, 3: 5, 5: 8, 8: 13}.get(issue["story_points"], 13)

    # -- distractor issues ---------------------------------------------------------------------------
    def add_issue_twins(self) -> None:
        """Issues whose title repeats, or nearly repeats, the title of an issue in another project."""
        ctx, rng = self.ctx, self.rng
        sources = [i for p in self.projects if p["status"] == "active" for i in p["_issues"]
                   if i["status"] in ACTIVE]
        for src in ctx.sample(sources, ctx.n(5, 40)):
            others = [p for p in self.projects if p is not src["_project"]]
            same_org = [p for p in others if p["_team"]["_org"] is src["_project"]["_team"]["_org"]]
            target = rng.choice(same_org or others)
            title = src["title"] if ctx.chance(0.5) else src["title"] + rng.choice(TWIN_SUFFIXES)
            if any(i["title"].lower() == title.lower() for i in target["_issues"]):
                continue
            status = "done" if target["status"] == "archived" or ctx.chance(0.5) else "open"
            lo = target["_created"] + timedelta(hours=2)
            issue = self.new_issue(target, src["issue_type"], title, status,
                                   self.between(lo, self.clock - timedelta(hours=6)))
            team = target["_team"]
            if status == "done":
                cand = [u for u, _ in team["_members"] if u["org_role"] != "viewer"]
                issue["_assignee"] = rng.choice(cand)
            else:
                issue["_assignee"] = None
            self.finish_issue(issue)
            issue["_sprint"] = None
            if status == "open" and issue["_milestone"] is not None and issue["_milestone"]["status"] != "open":
                issue["_milestone"] = None
            target["_issues"].append(issue)

    # -- dependencies -------------------------------------------------------------------------------
    def build_deps(self) -> None:
        ctx, rng = self.ctx, self.rng
        planted = list(self.deps)
        self.deps = []
        for x, y, who, _ in planted:
            lo = max(x["_created"], y["_created"]) + timedelta(minutes=10)
            self.deps.append((x, y, who, self.between(lo, self.clock - timedelta(hours=1))))
        seen = [(id(a), id(b)) for a, b, _, _ in self.deps]
        for p in self.projects:
            issues = p["_issues"]
            team = p["_team"]
            editors = [u for u, _ in team["_members"] if u["org_role"] != "viewer"]
            want = rng.randint(1, 2) if not ctx.large else rng.randint(2, 4)
            tries = 0
            while want > 0 and tries < 40:
                tries += 1
                if len(issues) < 2:
                    break
                a, b = sorted(rng.sample(range(len(issues)), 2))
                A, B = issues[a], issues[b]
                if (id(A), id(B)) in seen:
                    continue
                if B.get("_protected") and A["status"] not in RESOLVED:
                    continue
                ok = (B["status"] == "open" or B["status"] == "cancelled"
                      or A["status"] in RESOLVED)
                if not ok:
                    continue
                seen.append((id(A), id(B)))
                lo = max(A["_created"], B["_created"]) + timedelta(minutes=10)
                hi = self.clock - timedelta(hours=1)
                if B["status"] in ("in_progress", "in_review") and "_started" in B:
                    hi = min(hi, B["_started"])
                if B["status"] in RESOLVED:
                    hi = min(hi, B["_resolved"])
                self.deps.append((A, B, rng.choice(editors), self.between(lo, hi)))
                want -= 1

    # -- rows -------------------------------------------------------------------------------------
    def rows(self) -> dict[str, list[Row]]:
        ctx, rng = self.ctx, self.rng
        issue_rows: list[Row] = []
        for p in self.projects:
            for issue in sorted(p["_issues"], key=lambda i: i["number"]):
                issue["id"] = len(issue_rows) + 1
                issue_rows.append(issue)
        out_issues = []
        for i in issue_rows:
            out_issues.append({
                "id": i["id"], "project_id": i["_project"]["id"], "number": i["number"], "key": i["key"],
                "title": i["title"], "description": i["description"], "issue_type": i["issue_type"],
                "status": i["status"], "priority": i["priority"], "reporter_id": i["_reporter"]["id"],
                "assignee_id": i["_assignee"]["id"] if i["_assignee"] else None,
                "sprint_id": i["_sprint"]["id"] if i["_sprint"] else None,
                "milestone_id": i["_milestone"]["id"] if i["_milestone"] else None,
                "story_points": i["story_points"], "due_date": i["due_date"], "created_at": _ts(i["_created"]),
                "updated_at": _ts(i["_updated"]),
                "resolved_at": _ts(i["_resolved"]) if i["status"] in RESOLVED else None})

        for i in issue_rows:
            names = list(i["_project"]["_labels"])
            k = ctx.weighted({0: 2, 1: 5, 2: 2})
            chosen = []
            if i["issue_type"] == "bug" and "bug" in names:
                chosen.append("bug")
            for name in ctx.sample(names, k):
                if name not in chosen and len(chosen) < max(k, 1):
                    chosen.append(name)
            for name in chosen:
                self.T.add("issue_labels", {"issue_id": i["id"], "label_id": i["_project"]["_labels"][name]["id"]})

        for i in issue_rows:
            ppl = [i["_reporter"]]
            if i["_assignee"] is not None and i["_assignee"] is not i["_reporter"]:
                ppl.append(i["_assignee"])
            for u in ppl:
                self.T.add("watchers", {"issue_id": i["id"], "user_id": u["id"], "added_at": _ts(i["_created"])})

        comments: list[Row] = []
        for i in issue_rows:
            team = i["_project"]["_team"]
            people = [u for u, _ in team["_members"] if u["is_active"]] + [team["_org"]["_viewer"]]
            for _ in range(ctx.weighted({0: 5, 1: 4, 2: 1})):
                author = rng.choice(people)
                end = i["_resolved"] if i["status"] in RESOLVED else self.clock - timedelta(minutes=10)
                when = self.between(i["_created"] + timedelta(minutes=5), end)
                body = rng.choice(COMMENTS).format(n=rng.randint(120, 980),
                                                  name=rng.choice(people)["full_name"].split()[0])
                comments.append({"issue_id": i["id"], "author_id": author["id"], "body": body,
                                 "created_at": _ts(when)})
        comments.sort(key=lambda c: (c["created_at"], c["issue_id"]))
        for n, c in enumerate(comments):
            c["id"] = n + 1
        comments = [{"id": c["id"], **{k: c[k] for k in ("issue_id", "author_id", "body", "created_at")}}
                    for c in comments]

        time_logs = self.time_logs(issue_rows)

        for a, b, who, when in self.deps:
            self.T.add("issue_dependencies", {"blocker_id": a["id"], "blocked_id": b["id"], "created_by": who["id"],
                                              "created_at": _ts(when)})

        activity = self.activity(issue_rows, time_logs)

        return {
            "organizations": [{k: v for k, v in o.items() if k in (
                "id", "name", "slug", "plan", "billing_email", "country", "created_at")} for o in self.orgs],
            "users": _public(self.users),
            "teams": _public(self.teams),
            "team_members": self.T["team_members"],
            "projects": _public(self.projects),
            "milestones": _public(self.milestones),
            "sprints": _public(self.sprints),
            "workflow_transitions": [
                {"id": n + 1, "from_status": a, "to_status": b, "name": name, "requires_assignee": ra,
                 "requires_unblocked": ru, "requires_reviewer": rr}
                for n, (a, b, name, ra, ru, rr) in enumerate(WORKFLOW)],
            "issues": out_issues,
            "labels": _public(self.labels),
            "issue_labels": self.T["issue_labels"],
            "comments": comments,
            "time_logs": time_logs,
            "issue_dependencies": self.T["issue_dependencies"],
            "watchers": self.T["watchers"],
            "activity_log": activity,
        }

    def time_logs(self, issue_rows: list[Row]) -> list[Row]:
        ctx, rng = self.ctx, self.rng
        day_total: dict[tuple[int, str], int] = {}
        logs: list[Row] = []
        for i in issue_rows:
            if i["status"] not in ("in_progress", "in_review", "done") or i["_assignee"] is None:
                continue
            first = i["_created"].date()
            last = (i["_resolved"] if i["status"] == "done" else self.clock).date()
            team = i["_project"]["_team"]
            helpers = [u for u, _ in team["_members"] if u["org_role"] != "viewer" and u["is_active"]
                       and u is not i["_assignee"]]
            # the planted in-progress issue always carries at least two billable entries
            need = 2 if i.get("_planted") else 0
            todo, tries = ctx.weighted({1: 3, 2: 4, 3: 2}), 0
            while (todo > 0 or need > 0) and tries < 30:
                tries += 1
                who = i["_assignee"] if not helpers or need or ctx.chance(0.75) else rng.choice(helpers)
                lo, hi = first, last
                if need:  # inside the active sprint when the issue was already filed then
                    active = next(sp for sp in team["_sprints"] if sp["status"] == "active")
                    if max(first, active["_start"]) <= min(last, active["_end"]):
                        lo, hi = max(first, active["_start"]), min(last, active["_end"])
                day = self.weekday(lo + timedelta(days=rng.randint(0, max((hi - lo).days, 0))))
                if day < lo:
                    day = lo
                minutes = 15 * rng.randint(2, 20)
                key = (who["id"], day.isoformat())
                if day_total.get(key, 0) + minutes > 480:
                    continue
                todo -= 1
                day_total[key] = day_total.get(key, 0) + minutes
                created = datetime.combine(day, time(rng.randint(16, 18), rng.choice(range(0, 60, 5))))
                if created >= self.clock:
                    created = self.clock - timedelta(minutes=rng.randint(1, 60))
                billable = 1 if need or ctx.chance(0.85) else 0
                need = max(0, need - 1)
                logs.append({"issue_id": i["id"], "user_id": who["id"], "work_date": day.isoformat(),
                             "minutes": minutes, "billable": billable,
                             "rate_cents": who["hourly_rate_cents"], "note": rng.choice(NOTES),
                             "created_at": _ts(created)})
        logs.sort(key=lambda r: (r["work_date"], r["created_at"], r["issue_id"], r["user_id"]))
        return [{"id": n + 1, **r} for n, r in enumerate(logs)]

    def activity(self, issue_rows: list[Row], time_logs: list[Row]) -> list[Row]:
        events: list[Row] = []

        def add(when: datetime, actor: Row, action: str, *, issue: Row | None = None, sprint: Row | None = None,
                field: str | None = None, old: str | None = None, new: str | None = None) -> None:
            events.append({"issue_id": issue["id"] if issue else None, "sprint_id": sprint["id"] if sprint else None,
                           "project_id": issue["_project"]["id"] if issue else None, "actor_id": actor["id"],
                           "action": action, "field": field, "old_value": old, "new_value": new,
                           "created_at": _ts(when)})

        for i in issue_rows:
            add(i["_created"], i["_reporter"], "created", issue=i, new=i["key"])
            team = i["_project"]["_team"]
            st = i["status"]
            asg = i["_assignee"]
            editors = [u for u, _ in team["_members"] if u["org_role"] != "viewer"]
            if st in ("in_progress", "in_review"):
                add(i["_started"], asg, "status_changed", issue=i, field="status", old="open", new="in_progress")
                if st == "in_review":
                    add(i["_reviewed"], asg, "status_changed", issue=i, field="status", old="in_progress",
                        new="in_review")
            elif st == "done":
                others = [u for u in editors if u is not asg] or editors
                add(i["_resolved"], self.rng.choice(others), "status_changed", issue=i, field="status",
                    old="in_review", new="done")
            elif st == "cancelled":
                add(i["_resolved"], self.rng.choice(editors), "status_changed", issue=i, field="status",
                    old="open", new="cancelled")
        for s in self.sprints:
            lead = s["_team"]["_lead"]
            if s["status"] == "active":
                add(self.office(s["_start"], 9, 11), lead, "sprint_started", sprint=s, field="status",
                    old="planned", new="active")
            if s["status"] == "closed":
                add(datetime.fromisoformat(s["closed_at"]), lead, "sprint_closed", sprint=s, field="status",
                    old="active", new="closed")
        events.sort(key=lambda e: (e["created_at"], e["issue_id"] or 0, e["sprint_id"] or 0, e["action"]))
        return [{"id": n + 1, **e} for n, e in enumerate(events)]


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.build_orgs()
    w.build_sprints()
    w.build_issues()
    w.place_in_sprints()
    if ctx.distractors:
        w.add_issue_twins()
    w.build_deps()
    return w.rows()
