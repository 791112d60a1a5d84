import { LiveKeyLimitError } from './errors.js';
// An account has at most MAX_LIVE_KEYS live keys, also when keys are created at the same moment
// from several browser tabs, the admin CLI and a script. Counting the live keys and then creating
// one is two steps another create can fall between, so each live key holds one of MAX_LIVE_KEYS
// numbered slots instead: a create claims a free slot with a write that only succeeds while the
// slot is free, before its key exists; a revoke frees its key's slot after the key is revoked.
//
// Every step is a single conditional write, so a process killed between two of them leaves at
// worst a slot whose key was never created or was revoked. Such a slot is taken back by the next
// create that finds every slot held, once it is older than the grace (a create still running has
// not yet written its key): the limit never counts a key that is not live for longer than that.

export const MAX_LIVE_KEYS = 50;

/** Longer than a create can run (the dashboard's 10 s function timeout, the CLI's few writes). */
export const KEY_SLOT_GRACE_MS = 60_000;

export interface KeySlot {
  /** 0 to MAX_LIVE_KEYS - 1. */
  n: number;
  keyId: string;
  /** When the create claimed it (ISO). */
  claimedAt: string;
}

/** Where the slots live (AWS: items of the Accounts table, aws/account-store.ts). */
export interface KeySlots {
  /**
   * The account's held slots, as last written (a consistent read), and whether its keys made before
   * the slots have been given theirs (markBackfilled), in one read.
   */
  slots(accountId: string): Promise<{ held: KeySlot[]; backfilled: boolean }>;
  /** Notes that every live key of the account holds a slot: later creates skip liveKeyIds(). */
  markBackfilled(accountId: string): Promise<void>;
  /** Claims the slot if it is free; false when another key holds it. */
  claimSlot(accountId: string, slot: KeySlot): Promise<boolean>;
  /** Frees the slot if `keyId` still holds it; repeatable. */
  freeSlot(accountId: string, slot: Pick<KeySlot, 'n' | 'keyId'>): Promise<void>;
  /** Whether the key exists, is the account's and is not revoked. */
  isLive(accountId: string, keyId: string): Promise<boolean>;
  /**
   * The ids of the account's live keys (keys made before the slots hold none until a create). Reads
   * every key the account ever had: asked only until the account is backfilled.
   */
  liveKeyIds(accountId: string): Promise<string[]>;
}

/**
 * Claims a free slot for the key `keyId` is about to create. When every slot is held, frees those
 * whose key is not live (past the grace) and tries again; LiveKeyLimitError when none could be.
 */
export async function claimKeySlot(
  store: KeySlots,
  accountId: string,
  keyId: string,
  now: Date,
  { max = MAX_LIVE_KEYS, graceMs = KEY_SLOT_GRACE_MS } = {},
): Promise<KeySlot> {
  // Three rounds: a round that frees slots may see them claimed by other creates before it retries.
  for (let round = 0; round < 3; round++) {
    const held = await settled(store, accountId, now, max);
    const free = Array.from({ length: max }, (_, n) => n).filter((n) => !held.some((s) => s.n === n));
    // Each create starts at its own place among the free slots (from its key id), so creates at the
    // same moment rarely try the same slot.
    const start = free.length > 0 ? spread(keyId) % free.length : 0;
    for (const n of [...free.slice(start), ...free.slice(0, start)]) {
      const slot: KeySlot = { n, keyId, claimedAt: now.toISOString() };
      if (await store.claimSlot(accountId, slot)) return slot;
    }
    let freed = 0;
    for (const slot of held) {
      if (now.getTime() - Date.parse(slot.claimedAt) < graceMs) continue;
      if (await store.isLive(accountId, slot.keyId)) continue;
      await store.freeSlot(accountId, slot);
      freed++;
    }
    if (freed === 0) break;
  }
  throw new LiveKeyLimitError(max);
}

/** A number from the key id, the same for the same id (FNV-1a). */
function spread(keyId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < keyId.length; i++) h = Math.imul(h ^ keyId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The account's slots once every live key holds one: a key made before the slots existed claims one
 * at the account's first create (two first creates at once may give a key two slots, and the later
 * one is freed here), so the limit counts it too. Done once: the account is then marked, and later
 * creates read only the slots.
 */
async function settled(store: KeySlots, accountId: string, now: Date, max: number): Promise<KeySlot[]> {
  const { held, backfilled } = await store.slots(accountId);
  const first = new Map<string, number>();
  const kept: KeySlot[] = [];
  for (const slot of [...held].sort((a, b) => a.n - b.n)) {
    if (first.has(slot.keyId)) await store.freeSlot(accountId, slot);
    else {
      first.set(slot.keyId, slot.n);
      kept.push(slot);
    }
  }
  if (backfilled) return kept;
  const unslotted = (await store.liveKeyIds(accountId)).filter((id) => !first.has(id));
  let n = 0;
  for (const keyId of unslotted) {
    while (n < max && first.size < max) {
      const slot = { n: n++, keyId, claimedAt: now.toISOString() };
      if (!(await store.claimSlot(accountId, slot))) continue;
      first.set(keyId, slot.n);
      break;
    }
  }
  // Every live key holds a slot now (more than `max` old keys: not yet, and the next create tries).
  if (unslotted.every((id) => first.has(id))) await store.markBackfilled(accountId);
  return unslotted.length === 0 ? kept : (await store.slots(accountId)).held;
}

/** Frees the slot a revoked key held (if it held one: keys older than the slots hold none). */
export async function freeKeySlot(store: KeySlots, accountId: string, keyId: string): Promise<void> {
  for (const slot of (await store.slots(accountId)).held) {
    if (slot.keyId === keyId) await store.freeSlot(accountId, slot);
  }
}

/**
 * Creates a key within the limit: claims its slot, then `create`s it with that id. A create that
 * fails gives its slot back (and one that dies leaves it to the next create's check).
 */
export async function createWithinLimit<T>(
  store: KeySlots,
  accountId: string,
  keyId: string,
  now: Date,
  create: (keyId: string) => Promise<T>,
  options: { max?: number; graceMs?: number } = {},
): Promise<T> {
  const slot = await claimKeySlot(store, accountId, keyId, now, options);
  try {
    return await create(keyId);
  } catch (err) {
    await store.freeSlot(accountId, slot).catch(() => undefined);
    throw err;
  }
}

/** Revokes a key, then frees its slot (a revoke cut short in between leaves it to the next create). */
export async function revokeFreeingSlot(
  store: KeySlots,
  accountId: string,
  keyId: string,
  revoke: (keyId: string) => Promise<void>,
): Promise<void> {
  await revoke(keyId);
  await freeKeySlot(store, accountId, keyId);
}
