import type { Meter } from '../billing/meters.js';

// A lease's record, apart from the lease book (leases.ts) so that admission's counter port
// (admission.ts UsageCounter.settleLease) can name it without importing the book, which imports
// admission's own types.

/** A lease as recorded in its own item, where the sweep finds it if its container never settles it. */
export interface LeaseRecord {
  id: string;
  accountId: string;
  month: string;
  /** The minute window the block's calls belong to. */
  window: number;
  meter: Meter | null;
  /** Minute slots reserved. */
  calls: number;
  /** Month units reserved (also on the month item, as the marker `lease_<id>`). */
  units: number;
  /** Used, as recorded: every call taken is recorded before it is answered. */
  usedCalls: number;
  usedUnits: number;
  /** When the container reserved it (ISO); it takes calls from it for LEASE_POLICY.lifeMs at most. */
  reservedAt: string;
  /** When the sweep may settle it (ISO): the end of its life plus the grace. */
  dueAt: string;
}
