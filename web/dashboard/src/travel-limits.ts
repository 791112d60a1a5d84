// The travel settings' bounds and defaults, as the API holds them
// (functions/lib/risk/travel-settings.ts TRAVEL_SETTINGS_BOUNDS and DEFAULT_TRAVEL_SETTINGS). That
// module loads zod, so the numbers are repeated here; test/integration/dashboard-ui.cases.ts fails
// if the Rules page's inputs ever say otherwise.

export const TRAVEL_BOUNDS = {
  maxSpeedKmh: { min: 100, max: 20_000 },
  minDistanceKm: { min: 0, max: 5000 },
  minSeconds: { min: 0, max: 86_400 },
} as const;

export const TRAVEL_DEFAULTS = { maxSpeedKmh: 1000, minDistanceKm: 200, minSeconds: 0 } as const;

export type TravelField = keyof typeof TRAVEL_BOUNDS;
