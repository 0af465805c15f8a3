/**
 * The demo dataset's clock. Every date is placed relative to one fixed reference instant
 * (never the wall clock), so a bundle is byte-identical for the same seed and scale.
 * The reference sits a week before 2026-11-22 so that "last 90 days" windows around that
 * day hold a good share of the events and opportunities.
 */

export const DAY = 86_400;

/** 2026-11-15T00:00:00Z in epoch seconds; the newest event or created date of the bundle. */
export const REFERENCE_DATE = Date.UTC(2026, 10, 15) / 1000;

/** How far back the generated history reaches (about two years). */
export const HISTORY_DAYS = 730;
